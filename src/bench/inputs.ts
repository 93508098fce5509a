// Benchmark inputs: files, or generated ones named by a spec such as dna:64MiB, repeat:16MiB,
// random:1MB (alphabet 256), text26:8MiB, runs:48MiB. Generation is seeded, so every run measures
// the same bytes.
import { basename } from "node:path";
import { usageError } from "../errors.js";
import { readInput } from "../cli/files.js";

export interface BenchInput {
  name: string;
  bytes: Uint8Array;
  /** Path of a file holding the bytes, when it came from one (peers read files). */
  path?: string;
}

const UNITS: Record<string, number> = { "": 1, B: 1, KB: 1e3, MB: 1e6, GB: 1e9, KiB: 1024, MiB: 1024 ** 2, GiB: 1024 ** 3 };

export function parseSize(s: string): number {
  const m = /^(\d+(?:\.\d+)?)([KMG]i?B|B)?$/.exec(s);
  if (!m || !(m[2] ?? "" in UNITS)) throw usageError(`bad size '${s}' (examples: 1000, 64MiB, 10MB)`);
  return Math.floor(Number(m[1]) * UNITS[m[2] ?? ""]);
}

/** xorshift32: fast, seeded, good enough for benchmark texts. */
function xorshift(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>>= 0);
  };
}

function fill(out: Uint8Array, seed: number, pick: (r: number) => number): Uint8Array {
  const next = xorshift(seed);
  for (let i = 0; i < out.length; i++) out[i] = pick(next());
  return out;
}

const DNA = [0x41, 0x43, 0x47, 0x54];

/**
 * Runs of 1 to maxRun equal bytes (uniform), each of a symbol drawn uniformly (the next may repeat
 * it): dnaruns (ACGT, runs up to 40) and runs (3 symbols, up to 200), inputs where prefix doubling
 * degenerates by degrees while SA-IS does not (BENCHMARKS.md, section 2).
 */
function fillRuns(out: Uint8Array, seed: number, symbols: number[], maxRun: number): Uint8Array {
  const next = xorshift(seed);
  for (let i = 0; i < out.length; ) {
    const symbol = symbols[next() % symbols.length];
    const end = Math.min(out.length, i + 1 + (next() % maxRun));
    out.fill(symbol, i, end);
    i = end;
  }
  return out;
}

const KINDS = ["dna", "dnarep", "random", "text26", "repeat", "dnaruns", "runs"];

/** The kind, size in bytes and size as written of a KIND:SIZE spec; a usage error for a bad one. */
export function parseGenerated(spec: string): { kind: string; n: number; size: string } {
  const [kind, size, ...rest] = spec.split(":");
  if (size === undefined || rest.length > 0) throw usageError(`bad generated input '${spec}' (expected KIND:SIZE, e.g. dna:64MiB)`);
  if (!KINDS.includes(kind!)) throw usageError(`unknown generated input kind '${kind}' (${KINDS.join(", ")})`);
  return { kind: kind!, n: parseSize(size), size };
}

export function generate(spec: string): BenchInput {
  const { kind, n, size } = parseGenerated(spec);
  const out = new Uint8Array(n);
  switch (kind) {
    case "dna":
      fill(out, 12345, (r) => DNA[r >>> 30]);
      break;
    case "random":
      fill(out, 777, (r) => r >>> 24);
      break;
    case "text26":
      fill(out, 4242, (r) => 0x61 + ((r >>> 8) % 26));
      break;
    case "repeat":
      out.fill(0x41);
      break;
    case "dnarep":
      fill(out, 12345, (r) => DNA[r >>> 30]);
      copyRepeats(out);
      break;
    case "dnaruns":
      fillRuns(out, 2468, DNA, 40);
      break;
    case "runs":
      fillRuns(out, 1357, [0x41, 0x42, 0x43], 200);
      break;
    default: // parseGenerated took it: a kind in KINDS without a case here
      throw new Error(`sufsort: no generator for input kind '${kind}'`);
  }
  return { name: `${kind}-${size}`, bytes: out };
}

/** Repeat length and spacing of dnarep: doubling needs ~14 rounds for the suffixes in copies. */
const REPEAT_BYTES = 100_000;
const REPEAT_EVERY = 1 << 20;

/**
 * dnarep: random DNA where every MiB ends with a copy of 100 KB from earlier in the text (about 10%
 * of the suffixes share long prefixes, as in genomes and document collections), so prefix doubling
 * runs many rounds over a shrinking set of groups (the case the hybrid engine splits).
 */
function copyRepeats(out: Uint8Array): void {
  let x = 99;
  for (let end = REPEAT_EVERY; end <= out.length; end += REPEAT_EVERY) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    const from = x % (end - 2 * REPEAT_BYTES + 1);
    out.copyWithin(end - REPEAT_BYTES, from, from + REPEAT_BYTES);
  }
}

export function loadInput(path: string): BenchInput {
  return { name: basename(path), bytes: readInput(path), path };
}
