// Throughput of the parallel CPU sorters at several thread counts, with libdivsufsort (1 thread) as
// the peer measured in the same run. Prints one markdown table row per input, algorithm and thread
// count. Usage:
//   node dist/bench/cpu-scaling.js [--threads 1,2,4] [--algos range,skew] [--reps 2]
//     [--divsufsort ./driver] [--dna-mib 64] [--max-seconds 120] FILE...
// --divsufsort: the peer driver bench/peers/build/divsufsort-driver (built by `sufsort bench --peer divsufsort`).
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { createEngine } from "../src/engine/engine.js";

interface Args {
  threads: number[];
  algos: string[];
  reps: number;
  divsufsort?: string;
  dnaMiB: number;
  maxSeconds: number;
  files: string[];
}

function parse(argv: string[]): Args {
  const args: Args = { threads: [1, 2], algos: ["range", "skew"], reps: 2, dnaMiB: 0, maxSeconds: Infinity, files: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--threads") args.threads = argv[++i].split(",").map(Number);
    else if (a === "--algos") args.algos = argv[++i].split(",");
    else if (a === "--reps") args.reps = Number(argv[++i]);
    else if (a === "--divsufsort") args.divsufsort = argv[++i];
    else if (a === "--dna-mib") args.dnaMiB = Number(argv[++i]);
    else if (a === "--max-seconds") args.maxSeconds = Number(argv[++i]);
    else args.files.push(a);
  }
  return args;
}

/** Random DNA from a fixed seed (mulberry32), written to a temporary file for the peer. */
function randomDna(bytes: number): Uint8Array {
  const out = new Uint8Array(bytes);
  let a = 12345;
  for (let i = 0; i < bytes; i++) {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    out[i] = "ACGT".charCodeAt(((t ^ (t >>> 14)) >>> 0) & 3);
  }
  return out;
}

const args = parse(process.argv.slice(2));
const inputs: Array<{ name: string; path: string; text: Uint8Array }> = [];
if (args.dnaMiB > 0) {
  const path = join(mkdtempSync(join(tmpdir(), "sufsort-bench-")), "dna");
  const text = randomDna(args.dnaMiB << 20);
  writeFileSync(path, text);
  inputs.push({ name: `random DNA ${args.dnaMiB} MiB`, path, text });
}
for (const path of args.files) inputs.push({ name: basename(path), path, text: readFileSync(path) });

const mbps = (bytes: number, seconds: number) => bytes / seconds / 1e6;
console.log("| input | MB | algorithm | threads | best s | MB/s | vs divsufsort | vs own 1 thread |");
console.log("|---|---:|---|---:|---:|---:|---:|---:|");
/**
 * Seconds of one libdivsufsort run: bench/peers/divsufsort.c's driver (FILE RUNS, prints JSON
 * {"n", "seconds": [...]}) or an older driver taking FILE and printing "<seconds> s".
 */
function peerRun(driver: string, path: string): number {
  const out = execFileSync(driver, [path, "1"], { encoding: "utf8" }).trim();
  return out.startsWith("{") ? (JSON.parse(out) as { seconds: number[] }).seconds[0] : parseFloat(out);
}

for (const input of inputs) {
  const n = input.text.length;
  let peerSeconds = NaN;
  if (args.divsufsort) {
    const runs: number[] = [];
    for (let r = 0; r < args.reps; r++) {
      runs.push(peerRun(args.divsufsort, input.path));
    }
    peerSeconds = Math.min(...runs);
    console.log(`| ${input.name} | ${(n / 1e6).toFixed(1)} | libdivsufsort | 1 | ${peerSeconds.toFixed(3)} | ${mbps(n, peerSeconds).toFixed(1)} | 1.00 | |`);
  }
  for (const algo of args.algos) {
    let oneThread = NaN;
    for (const threads of args.threads) {
      const engine = await createEngine({ threads });
      const runs: number[] = [];
      let ran = algo;
      for (let r = 0; r < args.reps; r++) {
        const result = await engine.suffixArray(input.text, { algo });
        runs.push(result.seconds);
        ran = result.algo;
        if (runs[runs.length - 1] > args.maxSeconds) break;
      }
      await engine.close();
      const best = Math.min(...runs);
      if (threads === 1) oneThread = best;
      const label = ran === algo ? algo : `${algo} (handed over to ${ran})`;
      console.log(
        `| ${input.name} | ${(n / 1e6).toFixed(1)} | ${label} | ${threads} | ${best.toFixed(3)} | ${mbps(n, best).toFixed(1)} | ` +
          `${(peerSeconds / best).toFixed(2)} | ${Number.isNaN(oneThread) ? "" : (oneThread / best).toFixed(2)} |`,
      );
    }
  }
}
