// SA-IS (asm/sais.ts through src/cpu/algorithms/sais.ts) and its TypeScript port
// (src/cpu/algorithms/sais-large.ts) against the naive and prefix-doubling oracles.
import { spawnSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { packagePath } from "../src/paths.js";
import { SharedHeap } from "../src/cpu/memory.js";
import { createExecutor, SequentialExecutor } from "../src/cpu/executor.js";
import { instantiate } from "../src/cpu/wasm.js";
import { getSorter } from "../src/engine/registry.js";
import { createEngine, type Engine } from "../src/engine/engine.js";
import {
  HELPER_MIN_TEXT,
  runWithHelper,
  SAIS_HELPER_BYTES,
  saisTuning,
  saisWorkspaceSlots,
  type SaisKernel,
} from "../src/cpu/algorithms/sais.js";
import { suffixArrayLarge, suffixArrayLargeOnKernel } from "../src/cpu/algorithms/sais-large.js";
import { saisWasm } from "./support/sais-runner.js";
import { verifySuffixArrayOf } from "../src/engine/verify.js";
import {
  doublingSuffixArray,
  firstDifference,
  hardFamilies,
  naiveSuffixArray,
  randomText,
  rng,
} from "./support/inputs.js";

const encode = (s: string) => new TextEncoder().encode(s);

/** Runs `body` with sais' team from 3 threads on any text and any machine (saisTuning), then restores it. */
async function withTeamsFrom3(body: () => Promise<void>): Promise<void> {
  const saved = { ...saisTuning };
  Object.assign(saisTuning, { teamFrom: 3, teamMinText: 0, oversubscribe: true });
  try {
    await body();
  } finally {
    Object.assign(saisTuning, saved);
  }
}

function expectSuffixArray(got: ArrayLike<number>, want: ArrayLike<number>, what: string): void {
  const at = firstDifference(got, want);
  expect(at, `${what}: first difference at ${at} (got ${got[at]}, want ${want[at]})`).toBe(-1);
}

/** `distinct` different LMS substrings [1, a, b, c, 255, 1] (2 <= a <= b <= c <= 254: no LMS
 * position inside), each `copies` times in random order: level 1 then has distinct + 1 names
 * (the last substring runs into the sentinel) over copies * distinct positions. */
function distinctLmsSubstrings(distinct: number, copies: number, seed: number): Uint8Array {
  const triples: number[][] = [];
  for (let a = 2; a < 255 && triples.length < distinct; a++) {
    for (let b = a; b < 255 && triples.length < distinct; b++) {
      for (let c = b; c < 255 && triples.length < distinct; c++) triples.push([a, b, c]);
    }
  }
  const order: number[] = [];
  for (let copy = 0; copy < copies; copy++) for (let i = 0; i < distinct; i++) order.push(i);
  const r = rng(seed);
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    [order[i], order[j]] = [order[j], order[i]];
  }
  const t = new Uint8Array(order.length * 5);
  order.forEach((x, i) => t.set([255, 1, ...triples[x]], i * 5));
  return t;
}

/** Every position r (0-based) is LMS when T alternates random low bytes with 255: m ~ n/2 and
 * ~65 000 distinct LMS substrings, so level 1's buckets need a large workspace. */
function alternatingHigh(n: number, seed: number): Uint8Array {
  const r = rng(seed);
  const t = new Uint8Array(n);
  for (let i = 0; i < n; i++) t[i] = i % 2 === 0 ? Math.floor(r() * 255) : 255;
  return t;
}

describe("sais (WebAssembly)", () => {
  it("sorts banana and mississippi", () => {
    expect(Array.from(saisWasm(encode("banana")).sa)).toEqual([5, 3, 1, 0, 4, 2]);
    expect(Array.from(saisWasm(encode("mississippi")).sa)).toEqual([10, 7, 4, 1, 0, 9, 8, 6, 3, 5, 2]);
  });

  it("handles n = 0 and n = 1", () => {
    expect(saisWasm(new Uint8Array(0)).sa.length).toBe(0);
    expect(Array.from(saisWasm(Uint8Array.of(0)).sa)).toEqual([0]);
    expect(Array.from(saisWasm(Uint8Array.of(255)).sa)).toEqual([0]);
  });

  it("matches the naive oracle on seeded random strings (alphabets 1, 2, 4, 26, 256)", () => {
    const r = rng(20261121);
    let cases = 0;
    for (const sigma of [1, 2, 4, 26, 256]) {
      for (let n = 0; n <= 64; n++) {
        const t = randomText(n, sigma, 1000 * sigma + n);
        expectSuffixArray(saisWasm(t).sa, naiveSuffixArray(t), `sigma ${sigma} n ${n}`);
        cases++;
      }
      for (let trial = 0; trial < 200; trial++) {
        const n = Math.floor(r() * 3001);
        const seed = Math.floor(r() * 2 ** 31);
        const t = randomText(n, sigma, seed);
        expectSuffixArray(saisWasm(t).sa, naiveSuffixArray(t), `sigma ${sigma} n ${n} seed ${seed}`);
        cases++;
      }
    }
    expect(cases).toBe(5 * (65 + 200));
  });

  it("sorts the hard families at small sizes (naive oracle)", () => {
    for (const n of [2, 3, 7, 100, 1000, 2500]) {
      for (const [name, t] of hardFamilies(n, n)) {
        expectSuffixArray(saisWasm(t).sa, naiveSuffixArray(t), `${name} n ${n}`);
      }
    }
  });

  it("sorts the hard families at 64 KiB (doubling oracle)", () => {
    for (const [name, t] of hardFamilies(1 << 16, 3)) {
      expectSuffixArray(saisWasm(t).sa, doublingSuffixArray(t), `${name} 64 KiB`);
    }
  });

  it("reports a too small workspace and succeeds on retry", () => {
    const t = alternatingHigh(200_000, 5);
    const heap = new SharedHeap(t.length * 5 + (1 << 20));
    const kernel = instantiate(heap.memory) as unknown as SaisKernel;
    const textPtr = heap.alloc(t.length);
    heap.u8(textPtr, t.length).set(t);
    const saPtr = heap.alloc(4 * (t.length + 512), 4);
    // Level 0 fits in 512 slots; level 1 (~51 000 names, m ~ n/2) does not.
    expect(kernel.sais(textPtr, saPtr, t.length, 512)).toBeLessThan(0);
    // No workspace at all fails at level 0.
    expect(kernel.sais(textPtr, saPtr, t.length, 0)).toBeLessThan(0);

    const want = doublingSuffixArray(t);
    const retried = saisWasm(t, 512);
    expect(retried.fs).toBeGreaterThan(512);
    expectSuffixArray(retried.sa, want, "after retries from fs = 512");
    expectSuffixArray(saisWasm(t, 0).sa, want, "after retries from fs = 0");
    expectSuffixArray(saisWasm(t).sa, want, "default workspace");
    expect(saisWasm(t).fs).toBe(saisWorkspaceSlots(t.length));
  });

  it("is correct with minimal workspaces on random and hard inputs", () => {
    for (const fs of [0, 256, 300, 512]) {
      for (const sigma of [2, 4, 256]) {
        const t = randomText(2000, sigma, fs + sigma);
        expectSuffixArray(saisWasm(t, fs).sa, naiveSuffixArray(t), `fs ${fs} sigma ${sigma}`);
      }
      for (const [name, t] of hardFamilies(3000, 9)) {
        expectSuffixArray(saisWasm(t, fs).sa, naiveSuffixArray(t), `fs ${fs} ${name}`);
      }
    }
  });

  it("builds through the registered sorter with the engine's layout", async () => {
    const sorter = getSorter("sais");
    expect(sorter?.engine).toBe("cpu");
    const t = randomText(50_000, 4, 77);
    // on the calling thread, and on a worker of a pool (the executor's runOne)
    for (const threads of [1, 2]) {
      const heap = new SharedHeap(1 << 24);
      const executor = createExecutor(heap, threads);
      const textPtr = heap.alloc(t.length);
      heap.u8(textPtr, t.length).set(t);
      const saPtr = heap.alloc(4 * t.length, 4);
      heap.alloc(sorter!.scratchBytes(t.length), 4);
      await sorter!.build({ heap, kernels: executor.kernels, executor, textPtr, n: t.length, saPtr, threads });
      await executor.close();
      expectSuffixArray(heap.u32(saPtr, t.length), doublingSuffixArray(t), `registered sorter, ${threads} threads`);
    }
  });

  it("reserves its own workspace when the engine did not, and refuses one it cannot own", async () => {
    const sorter = getSorter("sais")!;
    const t = randomText(20_000, 26, 78);
    const heap = new SharedHeap();
    const executor = new SequentialExecutor(heap);
    const kernels = executor.kernels;
    const textPtr = heap.alloc(t.length);
    heap.u8(textPtr, t.length).set(t);
    const saPtr = heap.alloc(4 * t.length, 4);
    await sorter.build({ heap, kernels, executor, textPtr, n: t.length, saPtr, threads: 1 });
    expect(heap.used).toBeGreaterThanOrEqual(saPtr + sorter.scratchBytes(t.length) + 4 * t.length);
    expectSuffixArray(heap.u32(saPtr, t.length), naiveSuffixArray(t), "self-reserved workspace");

    const saPtr2 = heap.alloc(4 * t.length, 4);
    heap.alloc(sorter.scratchBytes(t.length) + 4096);
    await expect(sorter.build({ heap, kernels, executor, textPtr, n: t.length, saPtr: saPtr2, threads: 1 })).rejects.toThrow(
      /right after the suffix array/,
    );
  });
});

describe("suffixArrayLarge (TypeScript port)", () => {
  it("sorts banana, mississippi, n = 0 and n = 1", () => {
    expect(Array.from(suffixArrayLarge(encode("banana")))).toEqual([5, 3, 1, 0, 4, 2]);
    expect(Array.from(suffixArrayLarge(encode("mississippi")))).toEqual([10, 7, 4, 1, 0, 9, 8, 6, 3, 5, 2]);
    expect(suffixArrayLarge(new Uint8Array(0)).length).toBe(0);
    expect(Array.from(suffixArrayLarge(Uint8Array.of(7)))).toEqual([0]);
  });

  it("matches the naive oracle on seeded random strings", () => {
    const r = rng(99);
    for (const sigma of [1, 2, 4, 26, 256]) {
      for (let trial = 0; trial < 120; trial++) {
        const n = Math.floor(r() * 3001);
        const t = randomText(n, sigma, trial * 31 + sigma);
        expectSuffixArray(suffixArrayLarge(t), naiveSuffixArray(t), `sigma ${sigma} n ${n}`);
      }
    }
  });

  it("with the reduced string on the kernel: matches the naive oracle on seeded random strings", async () => {
    const r = rng(98);
    let onKernel = 0;
    for (const sigma of [1, 2, 4, 26, 256]) {
      for (let trial = 0; trial < 40; trial++) {
        const n = Math.floor(r() * 3001);
        const t = randomText(n, sigma, trial * 37 + sigma);
        const { sa, reducedOnKernel } = await suffixArrayLargeOnKernel(t);
        expectSuffixArray(sa, naiveSuffixArray(t), `sigma ${sigma} n ${n}`);
        if (reducedOnKernel) onKernel++;
      }
    }
    expect(onKernel).toBeGreaterThan(100);
  });

  it("with the reduced string on the kernel: its smallest workspace, and the port when the heap is too small", async () => {
    for (const [name, t] of [...hardFamilies(3000, 5), ["alternating high", alternatingHigh(50_000, 8)] as const]) {
      const want = naiveSuffixArray(t);
      const small = await suffixArrayLargeOnKernel(t, { reducedWorkspace: 0 });
      expectSuffixArray(small.sa, want, `${name}, smallest workspace`);
      const port = await suffixArrayLargeOnKernel(t, { heapLimit: 0 });
      expect(port.reducedOnKernel, name).toBe(false);
      expectSuffixArray(port.sa, want, `${name}, no heap`);
    }
  });

  it("with the reduced string on the kernel as u16: matches the oracle on random strings and the hard families", async () => {
    const r = rng(97);
    let narrow = 0;
    // (2 threads: the ranks mapped to positions on two workers, a pool started per build)
    const cases: Array<readonly [string, Uint8Array, number[]]> = [
      ...hardFamilies(3000, 5).map(([name, t]) => [name, t, [1, 2]] as const),
      ["alternating high", alternatingHigh(50_000, 8), [1, 2]],
    ];
    for (const sigma of [1, 2, 4, 26, 256]) {
      for (let trial = 0; trial < 24; trial++) {
        const n = Math.floor(r() * 3001);
        cases.push([`sigma ${sigma} n ${n}`, randomText(n, sigma, trial * 41 + sigma), [1]]);
      }
    }
    for (const [name, t, threadCounts] of cases) {
      const want = naiveSuffixArray(t);
      for (const threads of threadCounts) {
        const result = await suffixArrayLargeOnKernel(t, { reducedU16: true, threads });
        expectSuffixArray(result.sa, want, `${name}, ${threads} threads`);
        // u16 exactly when the kernel took s1 and its names fit in 16 bits
        expect(result.reducedU16, name).toBe(result.reducedOnKernel && result.names <= 1 << 16);
        if (result.reducedU16) narrow++;
      }
    }
    expect(narrow).toBeGreaterThan(60);
  });

  it("with the reduced string on the kernel: as u16 when its i32 slots do not fit in the heap and its 16-bit ones do", async () => {
    // 1 MiB of random ACGT: m ~ 300 K LMS positions, a few hundred names
    const t = randomText(1 << 20, 4, 4242);
    const first = await suffixArrayLargeOnKernel(t);
    expect(first.reducedOnKernel).toBe(true);
    expect(first.reducedU16).toBe(false);
    const { m, names } = first;
    expect(names).toBeLessThanOrEqual(1 << 16);
    // s1's SA, a workspace of 2 * names slots and more, the mailbox and the heap's slack: s1 as
    // u16 fits in it (2m bytes), as i32 (4m) it does not
    const limit = 4 * (m + Math.max(2 * names, 512)) + 2 * m + m + SAIS_HELPER_BYTES + (1 << 20);
    const narrow = await suffixArrayLargeOnKernel(t, { heapLimit: limit, threads: 2 });
    expect(narrow.reducedU16).toBe(true);
    expectSuffixArray(narrow.sa, first.sa, "u16 under the limit");
    const port = await suffixArrayLargeOnKernel(t, { heapLimit: limit - 2 * m });
    expect(port.reducedOnKernel).toBe(false);
    expectSuffixArray(port.sa, first.sa, "the port under a smaller limit");
  });

  it("with the reduced string too large for the kernel: the port runs its level and the kernel the level below", async () => {
    let below = 0;
    for (const [name, t] of [
      ["random ACGT", randomText(1 << 20, 4, 4343)],
      ["random bytes", randomText(600_000, 256, 4344)],
      ["alternating high", alternatingHigh(400_000, 8)],
      ...hardFamilies(200_000, 6),
    ] as Array<readonly [string, Uint8Array]>) {
      const { m } = await suffixArrayLargeOnKernel(t);
      const want = suffixArrayLarge(t);
      // s1 needs at least 6m bytes (as u16), s2 (at most m / 2 symbols) at most 4m and a workspace
      const limit = 5 * m + SAIS_HELPER_BYTES + (1 << 20);
      for (const threads of [1, 2]) {
        const result = await suffixArrayLargeOnKernel(t, { heapLimit: limit, threads });
        expect(result.reducedOnKernel, name).toBe(false);
        expectSuffixArray(result.sa, want, `${name}, ${threads} threads`);
        if (result.belowOnKernel) below++;
      }
    }
    // random ACGT and bytes, alternating high, Fibonacci and Thue-Morse, at both thread counts
    expect(below).toBeGreaterThanOrEqual(10);
  });

  it("with the reduced string on the kernel: the port takes over when ulimit -v refuses the heap", () => {
    const module = JSON.stringify(packagePath("dist", "src", "cpu", "algorithms", "sais-large.js"));
    const code = `
      const { suffixArrayLarge, suffixArrayLargeOnKernel } = await import(${module});
      let s = 7;
      const t = new Uint8Array(1 << 20);
      for (let i = 0; i < t.length; i++) { s = (s * 1103515245 + 12345) >>> 0; t[i] = 65 + ((s >>> 16) & 3); }
      const want = suffixArrayLarge(t);
      const { sa, reducedOnKernel } = await suffixArrayLargeOnKernel(t, { threads: 2 });
      let equal = sa.length === want.length;
      for (let i = 0; equal && i < sa.length; i++) equal = sa[i] === want[i];
      console.log(reducedOnKernel, equal);`;
    const free = spawnSync(process.execPath, ["--input-type=module", "-e", code], { encoding: "utf8", timeout: 60_000 });
    expect(free.stdout.trim()).toBe("true true");
    // Node 20 and 22 cannot reserve the shared memory under this limit (Node 24 may: it needs less)
    const limited = spawnSync("bash", ["-c", `ulimit -v 3000000 && exec "$0" "$@"`, process.execPath, "--input-type=module", "-e", code], {
      encoding: "utf8", timeout: 60_000,
    });
    expect(limited.stderr).toBe("");
    expect(limited.stdout.trim()).toMatch(Number(process.versions.node.split(".")[0]) < 24 ? /^false true$/ : /^(true|false) true$/);
    expect(limited.status).toBe(0);
  });

  it("rankDirectory: the bits set before each 512-bit block of the LMS bitmap (naming's ranks in s1)", () => {
    const heap = new SharedHeap(1 << 20);
    const kernels = instantiate(heap.memory) as unknown as { rankDirectory(bitmap: number, words: number, dir: number): void };
    for (const words of [1, 7, 8, 9, 43, 64]) {
      const bitmap = heap.alloc(8 * words, 64);
      const dir = heap.alloc(4 * (Math.floor(words / 8) + 1));
      const halves = heap.u32(bitmap, 2 * words);
      const r = rng(4040 + words);
      for (let i = 0; i < halves.length; i++) halves[i] = r() < 0.1 ? 0 : Math.floor(r() * 2 ** 32);
      kernels.rankDirectory(bitmap, words, dir);
      const entries = heap.u32(dir, Math.floor(words / 8) + 1);
      let total = 0;
      for (let w = 0; w < words; w++) {
        if (w % 8 === 0) expect(entries[w / 8], `${words} words, block ${w / 8}`).toBe(total);
        for (const half of [halves[2 * w], halves[2 * w + 1]]) for (let b = 0; b < 32; b++) total += (half >>> b) & 1;
      }
      if (words % 8 === 0) expect(entries[words / 8]).toBe(total);
    }
  });

  it("level 0's scans, naming and LMS listing on the kernel by windows: small windows and chunks spill across them", async () => {
    const r = rng(97);
    const texts: Array<[string, Uint8Array]> = [...hardFamilies(3000, 6), ["alternating high", alternatingHigh(20_000, 8)]];
    for (const sigma of [1, 2, 4, 26, 256]) {
      for (let trial = 0; trial < 6; trial++) texts.push([`sigma ${sigma}`, randomText(2 + Math.floor(r() * 3000), sigma, trial * 41 + sigma)]);
    }
    texts.push(["n = 2", Uint8Array.of(2, 1)], ["n = 3", Uint8Array.of(1, 1, 1)]);
    for (const [name, t] of texts) {
      const want = suffixArrayLarge(t); // the port's own loops
      for (const [scanWindow, scanChunk] of [[64, 8], [777, 13], [5, 1], [1, 1]]) {
        const { sa } = await suffixArrayLargeOnKernel(t, { scanWindow, scanChunk });
        expectSuffixArray(sa, want, `${name}, window ${scanWindow}, chunk ${scanChunk}`);
      }
    }
  });

  it("level 0's scans on the kernel with the helper prefetching (2 threads), over several windows", async () => {
    for (const [name, t] of [...hardFamilies(300_000, 7), ["random DNA", randomText(300_000, 4, 5)]] as const) {
      const want = suffixArrayLarge(t);
      for (const [scanWindow, scanChunk] of [[50_000, 64], [4096, 4096]]) {
        const { sa } = await suffixArrayLargeOnKernel(t, { scanWindow, scanChunk, threads: 2 });
        expectSuffixArray(sa, want, `${name}, window ${scanWindow}, 2 threads`);
      }
      const plain = await suffixArrayLargeOnKernel(t, { scansOnKernel: false, threads: 2 });
      expectSuffixArray(plain.sa, want, `${name}, the port's scans`);
    }
  });

  // From saisTuning.teamFrom threads (8) the helper's whole team prefetches the scans, a
  // window of the ring each in turn: lowered here so that teams of 3 and 4 run on this machine.
  it("level 0's scans on the kernel with a team prefetching (3 and 4 threads), over several windows", async () => {
    await withTeamsFrom3(async () => {
      for (const [name, t] of [...hardFamilies(300_000, 8), ["random DNA", randomText(300_000, 4, 6)]] as const) {
        const want = suffixArrayLarge(t);
        for (const threads of [3, 4]) {
          const { sa } = await suffixArrayLargeOnKernel(t, { scanWindow: 50_000, scanChunk: 64, threads });
          expectSuffixArray(sa, want, `${name}, ${threads} threads`);
        }
      }
    });
  });

  it("level 0's scans on the kernel with their buffers above 2 GiB of the heap", async () => {
    // the heap of a text near 2^31 bytes puts the window, spills, bitmap and names there
    for (const [name, t] of [["random DNA", randomText(200_000, 4, 11)], ["sigma 256", randomText(100_000, 256, 12)]] as const) {
      const { sa } = await suffixArrayLargeOnKernel(t, { scanWindow: 1 << 14, scanChunk: 256, threads: 2, scanHeapOffset: 2 ** 31 + 4096 });
      expectSuffixArray(sa, suffixArrayLarge(t), `${name}, buffers above 2 GiB`);
    }
  });

  // A text of 2^31 - 1 bytes (the limit) lost LMS substrings in stage 1: the windowed L scan's last
  // block ended at from + (w + 1) * 1024, which overflowed i32, so it was skipped. The scans at SA
  // positions near 2^31 must do what they do near 0, shifted (their entries, text positions, stay).
  it("the windowed scans at SA positions up to 2^31 - 1 do what they do near 0", () => {
    const heap = new SharedHeap(1 << 22);
    const kernels = instantiate(heap.memory) as unknown as Record<string, (...args: number[]) => number>;
    const textLength = 5000;
    const t = randomText(textLength, 4, 31);
    const textPtr = heap.alloc(textLength + 64) + 16;
    heap.u8(textPtr, textLength).set(t);
    // not a multiple of the scans' 1024-entry blocks: the last block's nominal end lies 1023 past it
    const window = 2049;
    const chunk = 64;
    const windowPtr = heap.alloc(4 * window);
    const bucketsPtr = heap.alloc(4 * 256);
    const cachePtr = heap.alloc(4 * 1024);
    const spillPtr = heap.alloc(kernels.spillBytes(window, chunk));
    const r = rng(32);
    const entries = Int32Array.from({ length: window }, () => {
      const p = 1 + Math.floor(r() * (textLength - 1));
      const x = r();
      return x < 0.2 ? 0 : x < 0.4 ? ~p : p;
    });
    entries[window - 1] = textLength >> 1; // the last block's one entry induces
    const scan = (kind: number, from: number) => {
      const down = kind % 2 === 1;
      heap.i32(windowPtr, window).set(entries);
      // every bucket's pointer in the window, moving out of it on the scan's side (some spill; about
      // 200 entries induced per bucket, so no pointer passes 2^31 - 1 at the top)
      const buckets = heap.i32(bucketsPtr, 256);
      for (let c = 0; c < 256; c++) buckets[c] = down ? from + 100 + 450 * (c % 5) : from + 250 + 450 * (c % 5);
      kernels.spillInit(spillPtr, window, chunk);
      const spilled = kernels.induceWindow(kind, textPtr, (windowPtr - 4 * from) >>> 0, from, from + window, bucketsPtr, cachePtr, spillPtr, 0, 0);
      const descriptors = heap.i32(kernels.spillDescriptors(spillPtr), 3 * spilled);
      const pool = kernels.spillPool(spillPtr);
      const spills: number[] = [];
      for (let d = 0; d < spilled; d++) {
        const [at, offset, count] = descriptors.subarray(3 * d, 3 * d + 3);
        spills.push(at - from, ...heap.i32(pool + 4 * offset, count));
      }
      return { window: [...heap.i32(windowPtr, window)], buckets: [...buckets].map((b) => b - from), spills };
    };
    for (const kind of [0, 1, 2, 3]) {
      const low = scan(kind, 2048);
      expect(low.spills.length, `kind ${kind} spills`).toBeGreaterThan(0);
      expect(scan(kind, 2 ** 31 - 1 - 400 - window), `kind ${kind} at the top`).toEqual(low);
    }
  });

  // And the naming compared the substring that ends at the sentinel of such a text as if it fitted
  // (p + length overflowed i32): it must differ from an equal-looking one ending in the text.
  it("nameWindow names the sentinel's substring apart at text positions up to 2^31 - 1", () => {
    const heap = new SharedHeap(1 << 20);
    const kernels = instantiate(heap.memory) as unknown as Record<string, (...args: number[]) => number>;
    const length = 1023; // bytes of text kept; the text's first position is `shift`
    const textPtr = heap.alloc(length + 64, 64);
    const bitmapPtr = heap.alloc(8 * (Math.floor(length / 64) + 2), 64);
    const positionsPtr = heap.alloc(8);
    const outPtr = heap.alloc(8);
    const statePtr = heap.alloc(16);
    const len = 6;
    const a = 100; // an LMS substring t[a .. a + len) ending at the next LMS position a + len - 1
    const b = length - len + 1; // the sentinel's: t[b .. length) and the sentinel
    const names = (shift: number) => {
      const t = heap.u8(textPtr, length + 64);
      t.fill(0);
      for (let d = 0; d < len - 1; d++) t[a + d] = t[b + d] = 7 + d; // equal but for the sentinel
      const bits = heap.u8(bitmapPtr, 8 * (Math.floor(length / 64) + 2));
      bits.fill(0);
      for (const q of [a, a + len - 1, b, length]) bits[q >> 3] |= 1 << (q & 7);
      heap.i32(positionsPtr, 2).set([shift + a, shift + b]);
      heap.i32(statePtr, 4).fill(0);
      // the text and bitmap seen from position `shift` on (u32 address arithmetic, as in the windows)
      kernels.nameWindow((textPtr - shift) >>> 0, shift + length, positionsPtr, 2, outPtr, statePtr, (bitmapPtr - shift / 8) >>> 0, 0, 0);
      return [...heap.i32(outPtr, 2)];
    };
    expect(names(0)).toEqual([1, 2]);
    expect(names(2 ** 31 - 1 - length)).toEqual([1, 2]);
  });

  it("is correct with minimal workspaces (retry path)", () => {
    const t = alternatingHigh(50_000, 8);
    const want = doublingSuffixArray(t);
    for (const fs of [0, 256, 512]) expectSuffixArray(suffixArrayLarge(t, fs), want, `fs ${fs}`);
    for (const [name, t2] of hardFamilies(3000, 4)) {
      expectSuffixArray(suffixArrayLarge(t2, 256), naiveSuffixArray(t2), `fs 256 ${name}`);
    }
  });
});

// One 1 MiB case per hard family: the linear verifier (an independent proof, test/verify.test.ts)
// checks the kernel's result, which then checks the kernel with a forced small workspace and the
// TypeScript port. (The O(n log^2 n) doubling oracle checks these families at 64 KiB above.)
describe("hard families at 1 MiB", () => {
  for (const [name, t] of hardFamilies(1 << 20, 11)) {
    it(name, async () => {
      const want = saisWasm(t).sa.slice();
      expect(verifySuffixArrayOf(t, want), `${name} wasm`).toEqual({ ok: true });
      expectSuffixArray(saisWasm(t, 512).sa, want, `${name} wasm fs 512`);
      expectSuffixArray(suffixArrayLarge(t), want, `${name} port`);
      for (const threads of [1, 2]) {
        expectSuffixArray((await suffixArrayLargeOnKernel(t, { threads })).sa, want, `${name} port + kernel, ${threads} threads`);
      }
    });
  }
});

// With two or more threads the kernel shares chunks of its naming and mapping steps with a helper
// kernel on a second worker (asm/sais.ts saisHelper), on levels with at least 64 Ki LMS positions:
// the texts here are 1-2 MB so that several levels are shared, with runs longer than a chunk.
describe("sais with a helper thread (2 and 3 threads)", () => {
  const engines = new Map<number, Engine>();
  beforeAll(async () => {
    for (const threads of [1, 2, 3, 4]) engines.set(threads, await createEngine({ threads }));
  });
  afterAll(async () => {
    for (const engine of engines.values()) await engine.close();
  });
  const build = async (threads: number, t: Uint8Array) => (await engines.get(threads)!.suffixArray(t, { algo: "sais" })).sa;

  /** Random blocks over 2 letters between runs of 'a' and of 'z' longer than a chunk (2^15
   * entries), so that chunks of the lengths' scan start and end inside runs of both types. */
  function runsAcrossChunks(seed: number): Uint8Array {
    const r = rng(seed);
    const parts: Uint8Array[] = [];
    for (let block = 0; block < 6; block++) {
      parts.push(randomText(200_000 + Math.floor(r() * 50_000), 2, seed + block));
      parts.push(new Uint8Array(70_000 + Math.floor(r() * 30_000)).fill(block % 2 === 0 ? 0x7a : 0x00));
    }
    const t = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
    let at = 0;
    for (const part of parts) {
      t.set(part, at);
      at += part.length;
    }
    return t;
  }

  /** 26 random letters in 64-byte pieces, 30% of them copies of earlier pieces: level 1's names
   * are mostly unique but the copies stay grouped for a few rounds, so the helper shares the
   * reduced string's doubling rounds (more than 2 * 2^13 grouped suffixes in each). */
  function copiedPieces(n: number, seed: number): Uint8Array {
    const r = rng(seed);
    const piece = 64;
    const t = new Uint8Array(n);
    for (let i = 0; i < n; i += piece) {
      const len = Math.min(piece, n - i);
      if (i > 4 * piece && r() < 0.3) {
        const from = Math.floor(r() * (i - piece));
        t.copyWithin(i, from, from + len);
      } else {
        for (let x = 0; x < len; x++) t[i + x] = 97 + Math.floor(r() * 26);
      }
    }
    return t;
  }

  const inputs: Array<[string, () => Uint8Array]> = [
    ["random, 2 letters, 2 MB", () => randomText(2_000_000, 2, 901)],
    ["30% copies of earlier 64-byte pieces, 600 KB", () => copiedPieces(600_000, 908)],
    ["random, 4 letters, 1.5 MB", () => randomText(1_500_000, 4, 902)],
    ["random, 26 letters, 1 MB", () => randomText(1_000_000, 26, 903)],
    ["random, 256 letters, 1 MB", () => randomText(1_000_000, 256, 904)],
    ["runs longer than a chunk", () => runsAcrossChunks(905)],
    ...hardFamilies(1 << 20, 12).map(([name, t]): [string, () => Uint8Array] => [`${name}, 1 MiB`, () => t]),
  ];

  it.each(inputs)("%s: the same SA at 1, 2 and 3 threads, and a valid one", async (name, make) => {
    const t = make();
    expect(t.length).toBeGreaterThanOrEqual(HELPER_MIN_TEXT);
    const want = saisWasm(t).sa.slice();
    expect(verifySuffixArrayOf(t, want), name).toEqual({ ok: true });
    for (const threads of [1, 2, 3]) expectSuffixArray(await build(threads, t), want, `${name}, ${threads} threads`);
  });

  // Reduced strings of at most 2^16 names are stored as u16 (asm/sais.ts, stage 2). Here level 1
  // has exactly 65,535, 65,536 and 65,537 names: the widest u16 level and the first i32 one.
  it.each([65_534, 65_535, 65_536])("level 1 of %i + 1 names: the u16 limit at 1, 2 and 3 threads", async (distinct) => {
    const t = distinctLmsSubstrings(distinct, 5, distinct);
    const want = saisWasm(t).sa.slice();
    expect(verifySuffixArrayOf(t, want)).toEqual({ ok: true });
    expectSuffixArray(saisWasm(t, 512).sa, want, "wasm fs 512");
    expectSuffixArray(suffixArrayLarge(t), want, "TypeScript port");
    for (const threads of [1, 2]) {
      expectSuffixArray((await suffixArrayLargeOnKernel(t, { threads })).sa, want, `port + kernel, ${threads} threads`);
    }
    for (const threads of [2, 3]) expectSuffixArray(await build(threads, t), want, `${threads} threads`);
  });

  // From saisTuning.teamFrom threads (8), the final scans of a byte text are shared by a
  // team of that many: lowered here so that teams of 3 and 4 run them on this machine.
  it.each(inputs)("%s: the final scans shared by a team of 3 and of 4", async (name, make) => {
    const t = make();
    const want = saisWasm(t).sa.slice();
    await withTeamsFrom3(async () => {
      for (const threads of [3, 4]) expectSuffixArray(await build(threads, t), want, `${name}, a team of ${threads}`);
    });
  });

  it("is deterministic: the same SA on every run", async () => {
    const t = randomText(1_200_000, 3, 906);
    const first = await build(2, t);
    for (let run = 0; run < 3; run++) expectSuffixArray(await build(2, t), first, `run ${run}`);
  });

  it("never waits for a helper that does not run, and the late helper then exits", () => {
    const t = randomText(600_000, 4, 907);
    const n = t.length;
    const fs = saisWorkspaceSlots(n);
    const heap = new SharedHeap(n * 6 + 4 * fs + (1 << 20));
    const kernels = instantiate(heap.memory) as unknown as SaisKernel & { saisHelper(mailbox: number): void };
    expect(kernels.saisHelperBytes()).toBe(SAIS_HELPER_BYTES);
    const textPtr = heap.alloc(n);
    heap.u8(textPtr, n).set(t);
    const saPtr = heap.alloc(4 * (n + fs), 4);
    const mailbox = heap.alloc(SAIS_HELPER_BYTES, 64);
    kernels.saisHelperReset(mailbox);
    // The main kernel alone on this thread: every shared step is done by it.
    expect(kernels.sais(textPtr, saPtr, n, fs, mailbox)).toBe(0);
    expectSuffixArray(heap.u32(saPtr, n), saisWasm(t).sa, "without the helper");
    // The helper starting after the main kernel finished finds the exit and returns, also after the
    // host's second exit (build() posts one after every run, for a kernel that threw).
    kernels.saisHelperExit(mailbox);
    kernels.saisHelper(mailbox);
    // A team of 4 whose members never start: the kernel takes every chunk of the shared final scans.
    kernels.saisHelperReset(mailbox);
    kernels.saisHelperTeam(mailbox, 4);
    expect(kernels.sais(textPtr, saPtr, n, fs, mailbox)).toBe(0);
    expectSuffixArray(heap.u32(saPtr, n), saisWasm(t).sa, "a team that never starts");
  });

  // A helper that traps (here on a bad entry of the last chunk of a rank mapping) held a chunk the
  // kernel thread waits for: the kernel must fail too (its worker marks the mailbox), not hang.
  it("fails, not hangs, when a helper traps in a chunk", async () => {
    const m = 4 << 15; // four chunks
    const heap = new SharedHeap(16 * m + (1 << 20));
    const kernels = instantiate(heap.memory) as unknown as SaisKernel & { saisHelperAlive(mailbox: number): number };
    const executor = createExecutor(heap, 2);
    try {
      const saPtr = heap.alloc(4 * m);
      const positionsPtr = heap.alloc(4 * m);
      const mailbox = heap.alloc(SAIS_HELPER_BYTES, 64);
      let helperFailures = 0;
      // which thread takes the bad chunk varies: until the helper has taken it a few times
      for (let trial = 0; trial < 60 && helperFailures < 3; trial++) {
        const sa = heap.i32(saPtr, m);
        for (let i = 0; i < m; i++) sa[i] = i;
        sa[m - 1] = 0x20000000; // positions[that] lies 2 GiB past the positions: out of this memory
        kernels.saisHelperReset(mailbox);
        const helper = executor.runOne("saisHelper", [mailbox, 0]).then(() => false, () => true);
        for (let waited = 0; kernels.saisHelperAlive(mailbox) < 1 && waited < 5000; waited++) await new Promise((r) => setTimeout(r, 1));
        const kernel = executor.runOne("saisMapRanks", [saPtr, positionsPtr, m, mailbox]);
        const outcome = await Promise.race([
          kernel.then(() => "finished", (e: unknown) => `failed: ${e instanceof Error ? e.message : String(e)}`),
          new Promise<string>((r) => setTimeout(() => r("hung"), 20_000)),
        ]);
        expect(outcome, `trial ${trial}`).toMatch(/^failed: /);
        kernels.saisHelperExit(mailbox); // the helper, where it did not trap, is still waiting for steps
        if (await helper) helperFailures++;
      }
      expect(helperFailures).toBeGreaterThan(0);
    } finally {
      await executor.close();
    }
  });

  // runWithHelper starts the kernel first: with its helpers first, a pool of fewer workers than
  // the team would run only helpers, which wait for the kernel's exit.
  it("finishes on a pool with fewer workers than the team", async () => {
    const t = randomText(600_000, 4, 908);
    const n = t.length;
    const fs = saisWorkspaceSlots(n);
    const heap = new SharedHeap(n * 6 + 4 * fs + (1 << 20));
    const executor = createExecutor(heap, 2);
    try {
      const textPtr = heap.alloc(n);
      heap.u8(textPtr, n).set(t);
      const saPtr = heap.alloc(4 * (n + fs), 4);
      const mailbox = heap.alloc(SAIS_HELPER_BYTES, 64);
      expect(await runWithHelper(executor, "sais", [textPtr, saPtr, n, fs], mailbox, 4)).toBe(0);
      expectSuffixArray(heap.u32(saPtr, n), saisWasm(t).sa, "a team of 4 on 2 workers");
    } finally {
      await executor.close();
    }
  });
});
