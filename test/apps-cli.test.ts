// The application commands end to end (bwt, unbwt, lcp, index, search): outputs against the library
// and naive scans, and every bad-input case: one-line error, exit code, no output file left behind.
import { describe, expect, it, beforeAll } from "vitest";
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { packagePath } from "../src/paths.js";
import { lcp } from "../src/index.js";
import { naiveSuffixArray, randomText, longRepeats, firstDifference } from "./support/inputs.js";
import { tempDirs } from "./support/temp.js";

const main = packagePath("dist", "cli.js");
let dir: string;
const tempDir = tempDirs("sufsort-apps-");

function sufsort(...args: string[]): { code: number; out: Buffer; err: string } {
  const r = spawnSync(process.execPath, [main, ...args], { cwd: dir });
  return { code: r.status ?? -1, out: r.stdout, err: r.stderr.toString() };
}

/** A clean failure: the exit code, one line on stderr matching `message`, no stack trace. */
function expectError(r: { code: number; err: string }, code: number, message: RegExp): void {
  expect(r.code).toBe(code);
  expect(r.err).toMatch(message);
  expect(r.err.trimEnd().split("\n")).toHaveLength(1);
  expect(r.err).not.toMatch(/\n\s+at /);
}

function naiveCount(t: Uint8Array, p: Uint8Array): number[] {
  const found: number[] = [];
  outer: for (let i = 0; i + p.length <= t.length; i++) {
    for (let j = 0; j < p.length; j++) if (t[i + j] !== p[j]) continue outer;
    found.push(i);
  }
  return found;
}

beforeAll(() => {
  dir = tempDir();
});

describe("bwt / unbwt", () => {
  it("round-trips files, binary and empty ones included", () => {
    const files: Array<[string, Uint8Array]> = [
      ["rand.bin", randomText(30000, 256, 1)],
      ["rep.txt", longRepeats(20000, 2, 700)],
      ["empty", new Uint8Array(0)],
      ["one", Uint8Array.of(0)],
    ];
    for (const [name, t] of files) {
      writeFileSync(join(dir, name), t);
      expect(sufsort("bwt", name).code).toBe(0);
      const bwt = readFileSync(join(dir, `${name}.bwt`));
      expect(bwt.length).toBe(t.length + 8);
      expect(sufsort("unbwt", `${name}.bwt`, "-o", `${name}.back`).code).toBe(0);
      expect(firstDifference(readFileSync(join(dir, `${name}.back`)), t)).toBe(-1);
    }
    writeFileSync(join(dir, "banana"), "banana");
    expect(sufsort("bwt", "banana", "-o", "banana.out").code).toBe(0);
    const out = readFileSync(join(dir, "banana.out"));
    expect(out.readBigUInt64LE(0)).toBe(4n);
    expect(out.subarray(8).toString()).toBe("annbaa");
  });

  it("rejects a primary index out of range, a short file and a non-BWT, leaving no output", () => {
    const L = Buffer.from("annbaa");
    const withPrimary = (p: bigint, body: Buffer) => {
      const h = Buffer.alloc(8);
      h.writeBigUInt64LE(p);
      return Buffer.concat([h, body]);
    };
    writeFileSync(join(dir, "p0.bwt"), withPrimary(0n, L));
    writeFileSync(join(dir, "p7.bwt"), withPrimary(7n, L));
    writeFileSync(join(dir, "huge.bwt"), withPrimary(1n << 62n, L));
    writeFileSync(join(dir, "short.bwt"), Buffer.from([1, 0, 0]));
    writeFileSync(join(dir, "cycle.bwt"), withPrimary(1n, Buffer.from("aa")));
    expectError(sufsort("unbwt", "p0.bwt"), 1, /primary index 0 is out of range \(1\.\.6/);
    expectError(sufsort("unbwt", "p7.bwt"), 1, /primary index 7 is out of range/);
    expectError(sufsort("unbwt", "huge.bwt"), 1, /primary index 4611686018427387904 is out of range/);
    expectError(sufsort("unbwt", "short.bwt"), 1, /too short for a BWT file/);
    expectError(sufsort("unbwt", "cycle.bwt"), 1, /not a valid BWT/);
    expectError(sufsort("unbwt", "missing.bwt"), 1, /cannot read 'missing.bwt'/);
    const left = readdirSync(dir).filter((f) => f.endsWith(".unbwt") || f.endsWith(".tmp"));
    expect(left).toEqual([]);
  });
});

describe("lcp", () => {
  it("writes the LCP array, from a built or a given SA", async () => {
    const t = longRepeats(20000, 3, 900);
    writeFileSync(join(dir, "lcp.in"), t);
    expect(sufsort("lcp", "lcp.in").code).toBe(0);
    const got = new Uint32Array(readFileSync(join(dir, "lcp.in.lcp")).buffer.slice(0));
    expect(firstDifference(got, await lcp(t))).toBe(-1);
    const sa = naiveSuffixArray(t);
    const want = new Uint32Array(t.length);
    for (let k = 1; k < t.length; k++) {
      let l = 0;
      while (sa[k] + l < t.length && sa[k - 1] + l < t.length && t[sa[k] + l] === t[sa[k - 1] + l]) l++;
      want[k] = l;
    }
    expect(firstDifference(got, want)).toBe(-1);
    writeFileSync(join(dir, "lcp.sa"), sa);
    expect(sufsort("lcp", "lcp.in", "--sa", "lcp.sa", "-o", "lcp2").code).toBe(0);
    expect(firstDifference(new Uint32Array(readFileSync(join(dir, "lcp2")).buffer.slice(0)), want)).toBe(-1);
  });

  it("rejects a suffix array of the wrong size or order", () => {
    writeFileSync(join(dir, "mi"), "mississippi");
    const sa = naiveSuffixArray(Buffer.from("mississippi"));
    writeFileSync(join(dir, "mi.short"), sa.subarray(1));
    [sa[2], sa[3]] = [sa[3], sa[2]];
    writeFileSync(join(dir, "mi.bad"), sa);
    expectError(sufsort("lcp", "mi", "--sa", "mi.short"), 1, /is 40 bytes; the suffix array of 11 bytes is 44 bytes/);
    expectError(sufsort("lcp", "mi", "--sa", "mi.bad"), 1, /not the suffix array of 'mi'/);
    expect(readdirSync(dir).filter((f) => f.startsWith("mi.lcp") || f.endsWith(".tmp"))).toEqual([]);
  });
});

describe("index / search", () => {
  it("counts and locates like a substring scan, in input order", () => {
    const t = randomText(40000, 4, 9).map((c) => 0x61 + (c >> 6));
    writeFileSync(join(dir, "dna"), t);
    expect(sufsort("index", "dna", "--sample", "7").code).toBe(0);
    const patterns = ["a", "ab", "dcba", Buffer.from(t.subarray(100, 130)).toString("latin1"), "abcdabcdabcdabcd", "zz"];
    const count = sufsort("search", "dna.fmi", ...patterns, "--count");
    expect(count.code).toBe(0);
    const lines = count.out.toString("latin1").trimEnd().split("\n");
    expect(lines).toEqual(patterns.map((p) => `${p}\t${naiveCount(t, Buffer.from(p, "latin1")).length}`));

    writeFileSync(join(dir, "pats"), patterns.slice(1).join("\r\n") + "\n");
    const located = sufsort("search", "dna.fmi", "--patterns-file", "pats", "--locate");
    expect(located.code).toBe(0);
    const rows = located.out.toString("latin1").split("\n");
    expect(rows.pop()).toBe("");
    expect(rows).toHaveLength(patterns.length - 1);
    rows.forEach((row, i) => {
      const p = patterns[i + 1];
      const want = naiveCount(t, Buffer.from(p, "latin1"));
      expect(row).toBe(`${p}\t${want.length}\t${want.join(" ")}`);
    });
    const limited = sufsort("search", "dna.fmi", "ab", "--locate", "--limit", "3");
    const fields = limited.out.toString().trimEnd().split("\t");
    expect(fields[1]).toBe(String(naiveCount(t, Buffer.from("ab")).length));
    const positions = fields[2].split(" ").map(Number);
    expect(positions).toHaveLength(3);
    for (const p of positions) expect(t[p] === 0x61 && t[p + 1] === 0x62).toBe(true);
  });

  it("rejects foreign and truncated indexes, empty patterns and bad options; finds longer-than-text patterns nowhere", () => {
    writeFileSync(join(dir, "small"), "abcabc");
    expect(sufsort("index", "small").code).toBe(0);
    const idx = readFileSync(join(dir, "small.fmi"));
    writeFileSync(join(dir, "cut.fmi"), idx.subarray(0, idx.length - 1));
    writeFileSync(join(dir, "head.fmi"), idx.subarray(0, 50));
    writeFileSync(join(dir, "empty-lines"), "ab\n\nbc\n");
    expectError(sufsort("search", "small", "a"), 1, /'small' is not a sufsort FM-index file/);
    expectError(sufsort("search", "cut.fmi", "a"), 1, /'cut.fmi' is truncated/);
    expectError(sufsort("search", "head.fmi", "a"), 1, /'head.fmi' is truncated/);
    expectError(sufsort("search", "small.fmi", "a", ""), 2, /pattern 2 is empty/);
    const long = sufsort("search", "small.fmi", "abcabca", "bc", "abcabcabc", "--locate");
    expect(long.code).toBe(0);
    expect(long.out.toString()).toBe("abcabca\t0\t\nbc\t2\t1 4\nabcabcabc\t0\t\n");
    expectError(sufsort("search", "small.fmi", "--patterns-file", "empty-lines"), 2, /line 2 of 'empty-lines' is empty/);
    expectError(sufsort("search", "small.fmi"), 2, /no patterns/);
    expectError(sufsort("search", "small.fmi", "a", "--limit", "2"), 2, /--limit needs --locate/);
    expectError(sufsort("index", "small", "--sample", "0", "-o", "k0.fmi"), 2, /--sample must be an integer >= 1/);
    expectError(sufsort("index", "nothere"), 1, /cannot read 'nothere'/);
    expect(readdirSync(dir).filter((f) => f === "k0.fmi" || f.startsWith("nothere") || f.endsWith(".tmp"))).toEqual([]);
  });
});

describe("worker threads", () => {
  it("give the same outputs with --threads 2 as with one", () => {
    const t = longRepeats(300_000, 4, 3000);
    writeFileSync(join(dir, "mt"), t);
    const patterns = Array.from({ length: 50 }, (_, i) => Buffer.from(t.subarray(i * 997, i * 997 + 1 + (i % 30))).toString("latin1")).join("\n");
    writeFileSync(join(dir, "mt.pats"), patterns + "\n");
    for (const threads of ["1", "2"]) {
      for (const cmd of [["bwt", "mt", "-o", `mt.bwt${threads}`], ["lcp", "mt", "-o", `mt.lcp${threads}`], ["index", "mt", "-o", `mt.fmi${threads}`]]) {
        expect(sufsort(...cmd, "--threads", threads).code).toBe(0);
      }
      expect(sufsort("unbwt", `mt.bwt${threads}`, "-o", `mt.back${threads}`, "--threads", threads).code).toBe(0);
      const found = sufsort("search", `mt.fmi${threads}`, "--patterns-file", "mt.pats", "--locate", "--threads", threads);
      expect(found.code).toBe(0);
      writeFileSync(join(dir, `mt.found${threads}`), found.out);
    }
    for (const suffix of ["bwt", "lcp", "fmi", "found"]) {
      expect(Buffer.compare(readFileSync(join(dir, `mt.${suffix}1`)), readFileSync(join(dir, `mt.${suffix}2`))), suffix).toBe(0);
    }
    expect(Buffer.compare(readFileSync(join(dir, "mt.back2")), Buffer.from(t))).toBe(0);
  });
});

describe("the suffix-array engine of bwt, lcp and index", () => {
  it("is auto's choice by default, and --engine / --algo pick another with the same outputs", () => {
    // 1.5 MiB of random bytes at 2 threads: auto runs range (random-looking, over 1 MiB, and memory
    // said quick to touch: this VM's is not); the range trace on stderr shows it did.
    const t = randomText(3 << 19, 256, 21);
    writeFileSync(join(dir, "eng"), t);
    const traced = (...args: string[]) => {
      const r = spawnSync(process.execPath, [main, ...args], { cwd: dir, env: { ...process.env, SUFSORT_TRACE: "1", SUFSORT_FIRST_TOUCH_MICROS: "0" } });
      return { code: r.status ?? -1, err: r.stderr.toString() };
    };
    for (const [cmd, suffix] of [["bwt", "bwt"], ["lcp", "lcp"], ["index", "fmi"]]) {
      const auto = traced(cmd, "eng", "-o", `eng.auto.${suffix}`, "--threads", "2");
      expect(auto.code, auto.err).toBe(0);
      expect(auto.err, cmd).toMatch(/^range: n 1572864 /m);
      const sais = traced(cmd, "eng", "-o", `eng.sais.${suffix}`, "--threads", "2", "--engine", "cpu", "--algo", "sais");
      expect(sais.code, sais.err).toBe(0);
      expect(sais.err, cmd).not.toMatch(/^range:/m);
      expect(Buffer.compare(readFileSync(join(dir, `eng.auto.${suffix}`)), readFileSync(join(dir, `eng.sais.${suffix}`))), cmd).toBe(0);
    }
    expect(sufsort("bwt", "eng", "-o", "eng.skew.bwt", "--threads", "2", "--algo", "skew").code).toBe(0);
    expect(Buffer.compare(readFileSync(join(dir, "eng.skew.bwt")), readFileSync(join(dir, "eng.auto.bwt")))).toBe(0);
  });

  it("rejects an unknown engine and an engine that contradicts --algo, leaving no output", () => {
    writeFileSync(join(dir, "small"), "mississippi");
    for (const cmd of ["bwt", "lcp", "index"]) {
      expectError(sufsort(cmd, "small", "-o", "out", "--engine", "fast"), 2, /^sufsort: invalid engine 'fast' \(expected auto, cpu, gpu, hybrid\)/);
      expectError(sufsort(cmd, "small", "-o", "out", "--engine", "cpu", "--algo", "gpu-ls"), 2, /^sufsort: --engine cpu contradicts --algo gpu-ls/);
    }
    expect(readdirSync(dir)).not.toContain("out");
  });
});
