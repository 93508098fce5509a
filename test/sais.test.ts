// SA-IS (asm/sais.ts through src/cpu/algorithms/sais.ts) and its TypeScript port
// (src/cpu/algorithms/sais-large.ts) against the naive and prefix-doubling oracles.
import { describe, expect, it } from "vitest";
import { SharedHeap } from "../src/cpu/memory.js";
import { createExecutor, SequentialExecutor } from "../src/cpu/executor.js";
import { instantiate } from "../src/cpu/wasm.js";
import { getSorter } from "../src/engine/registry.js";
import { saisWorkspaceSlots, type SaisKernel } from "../src/cpu/algorithms/sais.js";
import { suffixArrayLarge } from "../src/cpu/algorithms/sais-large.js";
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

function expectSuffixArray(got: ArrayLike<number>, want: ArrayLike<number>, what: string): void {
  const at = firstDifference(got, want);
  expect(at, `${what}: first difference at ${at} (got ${got[at]}, want ${want[at]})`).toBe(-1);
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
    it(name, () => {
      const want = saisWasm(t).sa.slice();
      expect(verifySuffixArrayOf(t, want), `${name} wasm`).toEqual({ ok: true });
      expectSuffixArray(saisWasm(t, 512).sa, want, `${name} wasm fs 512`);
      expectSuffixArray(suffixArrayLarge(t), want, `${name} port`);
    });
  }
});
