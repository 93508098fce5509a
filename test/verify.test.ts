// The linear verifier: accepts every correct SA, rejects every corruption, and names a real fault.
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { suffixArray, verifySuffixArray } from "../src/index.js";
import { hardFamilies, naiveSuffixArray, randomText, rng } from "./support/inputs.js";
import { verifyLarge } from "../src/engine/verify-large.js";
import { verifyByWindows, verifyInHeap, verifyInHeapOn } from "../src/engine/verify.js";
import { SharedHeap } from "../src/cpu/memory.js";
import { instantiate } from "../src/cpu/wasm.js";
import { createExecutor } from "../src/cpu/executor.js";

/** Whether adjacent entries k, k+1 of sa violate the definition (the verifier's message must point at one). */
function violatesAt(t: Uint8Array, sa: Uint32Array, k: number): boolean {
  const n = t.length;
  const rank = new Int32Array(n);
  sa.forEach((s, r) => (rank[s] = r));
  const i = sa[k];
  const j = sa[k + 1];
  if (t[i] !== t[j]) return t[i] > t[j];
  const ri = i + 1 < n ? rank[i + 1] : -1;
  const rj = j + 1 < n ? rank[j + 1] : -1;
  return ri >= rj;
}

describe("verifySuffixArray", () => {
  it("accepts correct suffix arrays of random texts of every alphabet size", async () => {
    for (const sigma of [1, 2, 4, 26, 256]) {
      for (let n = 0; n < 300; n += 7) {
        const t = randomText(n, sigma, n * 31 + sigma);
        expect(await verifySuffixArray(t, naiveSuffixArray(t))).toEqual({ ok: true });
      }
    }
  });

  it("accepts correct suffix arrays of the hard families", async () => {
    for (const [, t] of hardFamilies(2000)) {
      expect(await verifySuffixArray(t, naiveSuffixArray(t))).toEqual({ ok: true });
    }
  });

  it("accepts the empty and 1-byte inputs", async () => {
    expect(await verifySuffixArray(new Uint8Array(0), new Uint32Array(0))).toEqual({ ok: true });
    expect(await verifySuffixArray(new Uint8Array([0]), Uint32Array.of(0))).toEqual({ ok: true });
  });

  it("rejects two swapped entries, naming an out-of-order pair", async () => {
    const t = randomText(1000, 4, 5);
    const sa = naiveSuffixArray(t);
    const r = rng(9);
    for (let trial = 0; trial < 50; trial++) {
      const bad = sa.slice();
      const a = Math.floor(r() * 1000);
      let b = Math.floor(r() * 1000);
      if (a === b) b = (b + 1) % 1000;
      [bad[a], bad[b]] = [bad[b], bad[a]];
      const v = await verifySuffixArray(t, bad);
      expect(v.ok).toBe(false);
      if (!v.ok) {
        expect(v.kind).toBe("order");
        expect(violatesAt(t, bad, v.position)).toBe(true);
      }
    }
  });

  it("rejects a duplicate entry", async () => {
    const t = new TextEncoder().encode("mississippi");
    const sa = naiveSuffixArray(t);
    sa[7] = sa[3];
    const v = await verifySuffixArray(t, sa);
    expect(v).toMatchObject({ ok: false, kind: "duplicate" });
  });

  it("rejects an entry out of range", async () => {
    const t = new TextEncoder().encode("banana");
    const sa = Uint32Array.of(5, 3, 1, 0, 4, 6);
    expect(await verifySuffixArray(t, sa)).toMatchObject({ ok: false, kind: "range", position: 5 });
    sa[0] = 0xffffffff;
    expect(await verifySuffixArray(t, sa)).toMatchObject({ ok: false, kind: "range", position: 0 });
  });

  it("rejects a wrong length", async () => {
    const t = new TextEncoder().encode("banana");
    expect(await verifySuffixArray(t, Uint32Array.of(5, 3, 1, 0, 4))).toMatchObject({ ok: false, kind: "length" });
    expect(await verifySuffixArray(t, Uint32Array.of(5, 3, 1, 0, 4, 2, 6))).toMatchObject({ ok: false, kind: "length" });
  });

  it("rejects every permutation that is not the suffix array (property)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ minLength: 1, maxLength: 40, max: 3 }),
        fc.array(fc.tuple(fc.nat(), fc.nat()), { minLength: 1, maxLength: 3 }),
        async (t, swaps) => {
          const sa = naiveSuffixArray(t);
          const bad = sa.slice();
          for (const [a, b] of swaps) {
            const i = a % t.length;
            const j = b % t.length;
            [bad[i], bad[j]] = [bad[j], bad[i]];
          }
          const same = bad.every((x, k) => x === sa[k]);
          const v = await verifySuffixArray(t, bad);
          expect(v.ok).toBe(same);
          if (!v.ok) expect(violatesAt(t, bad, v.position)).toBe(true);
        },
      ),
      { numRuns: 2000, seed: 42 },
    );
  });

  it("checks a 32 MiB random input built by the default algorithm, and catches one corruption in it", async () => {
    const t = randomText(32 << 20, 256, 2024);
    const sa = await suffixArray(t);
    expect(sa.length).toBe(t.length);
    expect(await verifySuffixArray(t, sa)).toEqual({ ok: true });
    const bad = sa.slice();
    const k = 12_345_678;
    [bad[k], bad[k + 1]] = [bad[k + 1], bad[k]];
    const v = await verifySuffixArray(t, bad);
    expect(v).toMatchObject({ ok: false, kind: "order", position: k });
  });
});

describe("verifyLarge (the TypeScript twin for inputs beyond the WebAssembly memory)", () => {
  it("gives the same verdict as the WebAssembly verifier on correct and corrupted arrays", async () => {
    const r = rng(3);
    for (let trial = 0; trial < 300; trial++) {
      const n = Math.floor(r() * 200);
      const t = randomText(n, [1, 2, 4, 26, 256][trial % 5], trial);
      const sa = naiveSuffixArray(t);
      if (n > 0 && trial % 4 !== 0) {
        const a = Math.floor(r() * n);
        const b = Math.floor(r() * n);
        if (trial % 4 === 1) [sa[a], sa[b]] = [sa[b], sa[a]];
        else if (trial % 4 === 2) sa[a] = sa[b];
        else sa[a] = n + b;
      }
      expect(verifyLarge(t, sa)).toEqual(await verifySuffixArray(t, sa));
    }
    const t = new TextEncoder().encode("banana");
    expect(verifyLarge(t, Uint32Array.of(5, 3, 1))).toEqual(await verifySuffixArray(t, Uint32Array.of(5, 3, 1)));
  });
});

/** T and SA in a fresh heap with room for the verifier's scratch and a fault's rank array. */
function inHeap(t: Uint8Array, sa: Uint32Array): { heap: SharedHeap; textPtr: number; saPtr: number } {
  const n = t.length;
  const heap = new SharedHeap(64 + 9 * n + (1 << 20));
  const textPtr = heap.alloc(n);
  heap.u8(textPtr, n).set(t);
  const saPtr = heap.alloc(4 * n);
  heap.u32(saPtr, n).set(sa);
  return { heap, textPtr, saPtr };
}

/** Correct SAs of random texts and the hard families, and five corruptions of each. */
function correctAndCorrupted(seed: number): Array<[string, Uint8Array, Uint32Array]> {
  const r = rng(seed);
  const cases: Array<[string, Uint8Array, Uint32Array]> = [];
  for (const [name, t] of [["random", randomText(20_000, 4, 78)], ["random 256", randomText(5000, 256, 79)], ...hardFamilies(3000, 6)] as Array<[string, Uint8Array]>) {
    const sa = naiveSuffixArray(t);
    const n = t.length;
    cases.push([name, t, sa]);
    if (n < 4) continue;
    const pick = () => Math.floor(r() * n);
    const swapped = sa.slice();
    const [a, b] = [pick(), pick()];
    [swapped[a], swapped[b]] = [swapped[b], swapped[a]];
    const adjacent = sa.slice();
    const k = Math.min(n - 2, pick());
    [adjacent[k], adjacent[k + 1]] = [adjacent[k + 1], adjacent[k]];
    const duplicate = sa.slice();
    duplicate[pick()] = sa[pick()];
    const range = sa.slice();
    range[pick()] = n + pick();
    const firstOfBucket = sa.slice(); // suffix n - 1 no longer first in its bucket
    const at = sa.indexOf(n - 1);
    if (at + 1 < n) [firstOfBucket[at], firstOfBucket[at + 1]] = [firstOfBucket[at + 1], firstOfBucket[at]];
    for (const [what, bad] of [["swapped", swapped], ["adjacent", adjacent], ["duplicate", duplicate], ["range", range], ["n - 1 moved", firstOfBucket]] as const) {
      cases.push([`${name}, ${what}`, t, bad]);
    }
  }
  return cases;
}

describe("verifyByWindows (the checks for an SA in a plain array, a window at a time)", () => {
  it("gives verifyLarge's verdict on correct and corrupted arrays, at windows of 1 to 4096 entries and 1 to 3 threads", async () => {
    const cases = correctAndCorrupted(91);
    const r = rng(92);
    for (let trial = 0; trial < 200; trial++) {
      const n = Math.floor(r() * 300);
      const t = randomText(n, [1, 2, 4, 26, 256][trial % 5], 500 + trial);
      const sa = naiveSuffixArray(t);
      if (n > 0 && trial % 4 === 1) sa[Math.floor(r() * n)] = sa[Math.floor(r() * n)];
      if (n > 1 && trial % 4 === 2) [sa[0], sa[n - 1]] = [sa[n - 1], sa[0]];
      cases.push([`random ${trial}`, t, sa]);
    }
    let rejected = 0;
    for (const [index, [name, t, sa]] of cases.entries()) {
      const want = verifyLarge(t, sa);
      if (!want.ok) rejected++;
      // windows of one entry on the short texts (a kernel call each); on the long ones, workers
      // too (2 or 3: a pool's start costs tens of ms)
      const short = t.length < 1000;
      const onWorkers = index % 2 === 0 ? [257, 3] : [1000, 2];
      for (const [window, threads] of short ? [[1, 1], [7, 1], [4096, 1]] : [[7, 1], onWorkers, [4096, 1]]) {
        expect(await verifyByWindows(t, sa, threads, window), `${name}, window ${window}, ${threads} threads`).toEqual(want);
      }
    }
    expect(rejected).toBeGreaterThan(50);
    const t = new TextEncoder().encode("banana");
    expect(await verifyByWindows(t, Uint32Array.of(5, 3, 1))).toEqual(verifyLarge(t, Uint32Array.of(5, 3, 1)));
  });
});

describe("verifyInHeapOn (the checks by blocks on workers)", () => {
  it("verifyInHeap names the first pair out of order through verifyLarge where the heap has no room for its rank array", () => {
    const t = randomText(5000, 3, 80);
    const sa = naiveSuffixArray(t);
    [sa[1234], sa[1235]] = [sa[1235], sa[1234]];
    const n = t.length;
    const { heap, textPtr, saPtr } = inHeap(t, sa);
    const roomy = verifyInHeap(heap, instantiate(heap.memory), textPtr, saPtr, n);
    const tight = Object.create(heap, { fits: { value: (bytes: number) => bytes < 4 * n && heap.fits(bytes) } }) as SharedHeap;
    expect(verifyInHeap(tight, instantiate(heap.memory), textPtr, saPtr, n)).toEqual(roomy);
    expect(roomy).toMatchObject({ ok: false, kind: "order", position: 1234 });
  });

  it("gives verifyInHeap's verdict on correct and corrupted arrays, at 2 and 3 threads", async () => {
    const cases = correctAndCorrupted(77);
    for (const threads of [2, 3]) {
      for (const [name, t, sa] of cases) {
        const n = t.length;
        const { heap, textPtr, saPtr } = inHeap(t, sa);
        const want = verifyInHeap(heap, instantiate(heap.memory), textPtr, saPtr, n);
        const executor = createExecutor(heap, threads);
        try {
          expect(await verifyInHeapOn(heap, executor, textPtr, saPtr, n, 257), `${name}, ${threads} threads`).toEqual(want);
        } finally {
          await executor.close();
        }
      }
    }
  });
});
