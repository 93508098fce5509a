// BWT, inverse BWT, LCP and FM-index against naive computations on random and hard-family inputs.
import { describe, expect, it } from "vitest";
import { bwt, unbwt, lcp, FMIndex, SufsortError } from "../src/index.js";
import { SharedHeap } from "../src/cpu/memory.js";
import { bwtFromSAInHeap, bwtLarge, bwtOverPlainSuffixArray, bwtOverSuffixArray, unbwtHeapBytes, unbwtInHeap, unbwtLarge } from "../src/apps/bwt.js";
import { lcpInHeap, lcpLarge, lcpOverPlainSuffixArray, lcpOverSuffixArray } from "../src/apps/lcp.js";
import { buildIndexInHeap, buildIndexLarge } from "../src/apps/fmindex.js";
import { SequentialExecutor, type Executor } from "../src/cpu/executor.js";
import { doublingSuffixArray, firstDifference, hardFamilies, naiveSuffixArray, randomText, rng } from "./support/inputs.js";

/** BWT by definition from the naive SA: L[0] = T[n-1], then T[SA[k]-1] with the row of suffix 0 dropped. */
function naiveBwt(t: Uint8Array): { bwt: Uint8Array; primary: number } {
  const n = t.length;
  if (n === 0) return { bwt: new Uint8Array(0), primary: 0 };
  const sa = naiveSuffixArray(t);
  const out: number[] = [t[n - 1]];
  let primary = 0;
  sa.forEach((s, k) => (s === 0 ? (primary = k + 1) : out.push(t[s - 1])));
  return { bwt: Uint8Array.from(out), primary };
}

function naiveLcp(t: Uint8Array, sa: Uint32Array): Uint32Array {
  const out = new Uint32Array(sa.length);
  for (let k = 1; k < sa.length; k++) {
    let l = 0;
    while (sa[k] + l < t.length && sa[k - 1] + l < t.length && t[sa[k] + l] === t[sa[k - 1] + l]) l++;
    out[k] = l;
  }
  return out;
}

function naiveOccurrences(t: Uint8Array, p: Uint8Array): number[] {
  const found: number[] = [];
  outer: for (let i = 0; i + p.length <= t.length; i++) {
    for (let j = 0; j < p.length; j++) if (t[i + j] !== p[j]) continue outer;
    found.push(i);
  }
  return found;
}

/** Searches `index` for patterns cut from t (seed), at most `longest` bytes, and checks counts and positions against a scan. */
async function expectSearchLikeScan(index: FMIndex, t: Uint8Array, seed: number, longest: number): Promise<void> {
  const patterns = patternsFor(t, 200, seed).map((p) => p.subarray(0, 1 + (p.length % longest)));
  const results = await index.search(patterns, { locate: true });
  patterns.forEach((p, q) => {
    const want = naiveOccurrences(t, p);
    expect(results[q].count).toBe(want.length);
    expect(firstDifference(results[q].positions!, want)).toBe(-1);
  });
}

/** T and room for its SA in a fresh heap of `bytesPerChar` n bytes (plus `extra`), and a sequential executor on it. */
function textInHeap(t: Uint8Array, bytesPerChar: number, extra = 1 << 20): { heap: SharedHeap; sequential: SequentialExecutor; textPtr: number; saPtr: number } {
  const n = t.length;
  const heap = new SharedHeap(64 + bytesPerChar * n + extra);
  const sequential = new SequentialExecutor(heap);
  const textPtr = heap.alloc(n);
  heap.u8(textPtr, n).set(t);
  return { heap, sequential, textPtr, saPtr: heap.alloc(4 * n) };
}

/** Runs the blocks in turn on `sequential` but splits phases as `threads` workers would. */
function splitAs(threads: number, sequential: SequentialExecutor): Executor {
  return { threads, heap: sequential.heap, kernels: sequential.kernels, map: (k, calls) => sequential.map(k, calls), runOne: (k, a) => sequential.runOne(k, a), start: () => {}, close: async () => {} };
}

/** Random patterns of length 1..100: half cut from the text (found), half random bytes (mostly not). */
function patternsFor(t: Uint8Array, count: number, seed: number): Uint8Array[] {
  const r = rng(seed);
  const out: Uint8Array[] = [];
  for (let q = 0; q < count; q++) {
    const len = Math.min(t.length, 1 + Math.floor(r() * 100));
    if (q % 2 === 0) {
      const at = Math.floor(r() * (t.length - len + 1));
      out.push(t.slice(at, at + len));
    } else {
      const p = t.slice(0, len).map(() => t[Math.floor(r() * t.length)]);
      if (q % 4 === 1) p[Math.floor(r() * len)] = Math.floor(r() * 256);
      out.push(p);
    }
  }
  return out;
}

const inputs: Array<[string, Uint8Array]> = [
  ["empty", new Uint8Array(0)],
  ["one byte", Uint8Array.of(7)],
  ["banana", new TextEncoder().encode("banana")],
  ["random sigma 2", randomText(3000, 2, 11)],
  ["random sigma 4", randomText(5000, 4, 12)],
  ["random sigma 256", randomText(20000, 256, 13)],
  ["random sigma 100", randomText(20000, 100, 14)],
  ...hardFamilies(1500, 5),
];

describe("bwt", () => {
  it("follows libsais's convention on banana", async () => {
    const { bwt: L, primary } = await bwt("banana");
    expect(new TextDecoder().decode(L)).toBe("annbaa");
    expect(primary).toBe(4);
  });

  for (const [name, t] of inputs) {
    it(`matches the definition and inverts exactly: ${name} (n=${t.length})`, async () => {
      const want = naiveBwt(t);
      const got = await bwt(t);
      expect(got.primary).toBe(want.primary);
      expect(firstDifference(got.bwt, want.bwt)).toBe(-1);
      const back = await unbwt(got.bwt, got.primary);
      expect(firstDifference(back, t)).toBe(-1);
    });
  }

  it("decodes with many short chains (the chain linking, interleaving and refills)", async () => {
    for (const [name, t] of inputs) {
      const { bwt: L, primary } = naiveBwt(t);
      const heap = new SharedHeap(64 + 8 * t.length + (1 << 20));
      const bwtPtr = heap.alloc(L.length);
      heap.u8(bwtPtr, L.length).set(L);
      const outPtr = heap.alloc(L.length);
      for (const chainBytes of [1, 3, 37]) {
        heap.u8(outPtr, L.length).fill(0);
        await unbwtInHeap(heap, new SequentialExecutor(heap), bwtPtr, L.length, primary, outPtr, chainBytes);
        expect(firstDifference(heap.u8(outPtr, t.length), t), `${name}, ${chainBytes} bytes per chain`).toBe(-1);
      }
    }
  });

  it("decodes in place (out = the BWT) within unbwtHeapBytes, many chains and few", async () => {
    for (const [name, t] of inputs) {
      if (t.length === 0) continue;
      const { bwt: L, primary } = naiveBwt(t);
      for (const chainBytes of [1, 37, 4096]) {
        const heap = new SharedHeap(unbwtHeapBytes(L.length, chainBytes));
        const size = heap.memory.buffer.byteLength;
        const bwtPtr = heap.alloc(L.length);
        heap.u8(bwtPtr, L.length).set(L);
        await unbwtInHeap(heap, new SequentialExecutor(heap), bwtPtr, L.length, primary, bwtPtr, chainBytes);
        expect(firstDifference(heap.u8(bwtPtr, t.length), t), `${name}, ${chainBytes} bytes per chain`).toBe(-1);
        expect(heap.memory.buffer.byteLength, `${name}: the heap did not grow`).toBe(size);
      }
    }
  });

  it("bwtLarge (plain arrays, for texts over the heap) gives the definition's BWT on every family, L written over the SA", async () => {
    for (const [name, t] of inputs) {
      const want = naiveBwt(t);
      const got = await bwtLarge(t);
      expect(got.primary, name).toBe(want.primary);
      const L = new Uint8Array(t.length);
      L.set(got.parts[0]);
      L.set(got.parts[1], got.parts[0].length);
      expect(firstDifference(L, want.bwt), name).toBe(-1);
      if (t.length > 0) expect(got.parts[0].buffer, name).toBe(got.parts[1].buffer); // one buffer: the SA's
    }
  });

  it("bwtOverPlainSuffixArray streams the SA through windows of the heap: every family, windows of 1 to 4096 entries, in place over the SA", async () => {
    // with the text's first suffix first and last in SA order (primary 1 and n)
    const cases = [...inputs, ["primary 1", Uint8Array.of(0, 1, 1)], ["primary n", Uint8Array.of(9, 1, 1)]] as Array<[string, Uint8Array]>;
    for (const [name, t] of cases) {
      const want = naiveBwt(t);
      for (const window of [1, 2, 7, 4096]) {
        const sa = Uint32Array.from(naiveSuffixArray(t));
        const { L, primary } = await bwtOverPlainSuffixArray(t, sa, 1, window, 3);
        expect(primary, `${name}, window ${window}`).toBe(want.primary);
        expect(L.buffer, name).toBe(sa.buffer);
        expect(firstDifference(L, want.bwt), `${name}, window ${window}`).toBe(-1);
      }
    }
    // blocks on two workers
    const t = randomText(50_000, 5, 71);
    const { L, primary } = await bwtOverPlainSuffixArray(t, Uint32Array.from(naiveSuffixArray(t)), 2, 10_000, 1000);
    expect(primary).toBe(naiveBwt(t).primary);
    expect(firstDifference(L, naiveBwt(t).bwt)).toBe(-1);
  });

  it("rejects a primary index out of range and bytes that are no BWT", async () => {
    const L = new TextEncoder().encode("annbaa");
    for (const primary of [0, 7, -1, 2.5]) {
      await expect(unbwt(L, primary)).rejects.toThrow(/primary index .* out of range/);
    }
    await expect(unbwt(new Uint8Array(0), 1)).rejects.toThrow(SufsortError);
    // L = a $ a: psi has the cycle {0, 1} and the fixed point 2, so no single text decodes from it.
    await expect(unbwt(new TextEncoder().encode("aa"), 1)).rejects.toThrow(/not a valid BWT/);
    expect(await unbwt(new Uint8Array(0), 0)).toEqual(new Uint8Array(0));
  });

  it("unbwtLarge (plain arrays, for BWTs over the heap) decodes every family and rejects what unbwt rejects", async () => {
    for (const [name, t] of inputs) {
      const { bwt: L, primary } = naiveBwt(t);
      // one chain, and chains of about 1 and 16 bytes (many links)
      for (const bytesPerChain of [1 << 30, 1, 16]) {
        expect(firstDifference(await unbwtLarge(L, primary, { bytesPerChain }), t), `${name}, ${bytesPerChain}`).toBe(-1);
      }
    }
    const L = new TextEncoder().encode("annbaa");
    for (const primary of [0, 7, -1, 2.5]) await expect(unbwtLarge(L, primary)).rejects.toThrow(/primary index .* out of range/);
    await expect(unbwtLarge(new TextEncoder().encode("aa"), 1)).rejects.toThrow(/not a valid BWT/);
    // every other primary index of a valid BWT, and random bytes, decode to a single text or are rejected alike
    const random = randomText(2000, 3, 99);
    for (const [bytes, primary] of [[L, 1], [L, 2], [L, 6], [random, 1], [random, 1000]] as [Uint8Array, number][]) {
      let inHeap: Uint8Array | string;
      for (const bytesPerChain of [1 << 30, 1, 7]) {
        let large: Uint8Array | string;
        try { inHeap = await unbwt(bytes, primary); } catch (e) { inHeap = (e as Error).message; }
        try { large = await unbwtLarge(bytes, primary, { bytesPerChain }); } catch (e) { large = (e as Error).message; }
        expect(large, `primary ${primary}, ${bytesPerChain}`).toEqual(inHeap);
        if (bytesPerChain === 7) {
          try { large = await unbwtLarge(bytes, primary, { threads: 2, bytesPerChain, minBlockRows: 100 }); } catch (e) { large = (e as Error).message; }
          expect(large, `primary ${primary}, ${bytesPerChain}, 2 threads`).toEqual(inHeap);
        }
      }
    }
    // chains walked on two workers
    const t = randomText(300_000, 9, 73);
    const { bwt: L2, primary: p2 } = naiveBwt(t);
    expect(firstDifference(await unbwtLarge(L2, p2, { threads: 2, bytesPerChain: 100, minBlockRows: 1000 }), t)).toBe(-1);
    // L given to be overwritten, in a SharedArrayBuffer
    const own = new Uint8Array(new SharedArrayBuffer(L2.length));
    own.set(L2);
    expect(firstDifference(await unbwtLarge(own, p2, { overwrite: true, bytesPerChain: 1000 }), t)).toBe(-1);
    expect(firstDifference(await unbwtLarge(L2, p2, { bytesPerChain: 1000 }), t)).toBe(-1); // L2 untouched
    // lanes that fill their 64 KiB chunks (about 94 KB each) in the eight-lane loop and in the last chains
    const long = randomText(3_000_000, 4, 74);
    const { bwt: L3, primary: p3 } = await bwt(long);
    for (const bytesPerChain of [20_000, 1 << 30]) {
      expect(firstDifference(await unbwtLarge(L3, p3, { bytesPerChain }), long), `${bytesPerChain}`).toBe(-1);
    }
    expect(firstDifference(await unbwt(L2, p2, { threads: 2 }), t)).toBe(-1);
  });
});

describe("lcp", () => {
  for (const [name, t] of inputs) {
    it(`matches direct comparison: ${name} (n=${t.length})`, async () => {
      const sa = naiveSuffixArray(t);
      const want = naiveLcp(t, sa);
      expect(firstDifference(await lcp(t), want)).toBe(-1);
      expect(firstDifference(await lcp(t, sa), want)).toBe(-1);
    });
  }

  it("lcpLarge (plain arrays, for texts whose Φ does not fit the heap) matches direct comparison on every family, in place over the SA", async () => {
    for (const [name, t] of inputs) {
      const sa = naiveSuffixArray(t);
      const want = naiveLcp(t, sa);
      const copy = Uint32Array.from(sa);
      expect(await lcpLarge(t, copy), name).toBe(copy);
      expect(firstDifference(copy, want), name).toBe(-1);
    }
    // blocks on two workers: the SA in a SharedArrayBuffer, the text in one or copied into one
    const t = randomText(60_000, 3, 75);
    const want = naiveLcp(t, naiveSuffixArray(t));
    for (const sharedText of [true, false]) {
      const sa = new Uint32Array(new SharedArrayBuffer(4 * t.length));
      sa.set(naiveSuffixArray(t));
      const text = sharedText ? new Uint8Array(new SharedArrayBuffer(t.length)) : t;
      text.set(t);
      await lcpLarge(text, sa, 2, 5000);
      expect(firstDifference(sa, want), `shared text ${sharedText}`).toBe(-1);
    }
  });

  it("lcpOverPlainSuffixArray streams the SA through windows of the heap: every family, windows of 1 to 4096 entries, in place over the SA", async () => {
    for (const [name, t] of inputs) {
      const want = naiveLcp(t, naiveSuffixArray(t));
      for (const window of [1, 2, 7, 4096]) {
        const sa = Uint32Array.from(naiveSuffixArray(t));
        expect(await lcpOverPlainSuffixArray(t, sa, 1, window, 5), name).toBe(sa);
        expect(firstDifference(sa, want), `${name}, window ${window}`).toBe(-1);
      }
    }
    const t = randomText(50_000, 3, 72);
    const sa = Uint32Array.from(naiveSuffixArray(t));
    await lcpOverPlainSuffixArray(t, sa, 2, 10_000, 1000);
    expect(firstDifference(sa, naiveLcp(t, naiveSuffixArray(t)))).toBe(-1);
  });

  it("lcpOverSuffixArray copies the SA out and puts Φ in its place where the heap has no room for Φ", async () => {
    const t = randomText(30_000, 4, 15);
    const want = naiveLcp(t, naiveSuffixArray(t));
    for (const room of [true, false]) {
      const heap = new SharedHeap(64 + 5 * t.length + 4096);
      const textPtr = heap.alloc(t.length);
      heap.u8(textPtr, t.length).set(t);
      const saPtr = heap.alloc(4 * t.length);
      heap.u32(saPtr, t.length).set(naiveSuffixArray(t));
      const view = room ? heap : (Object.create(heap, { fits: { value: (bytes: number) => bytes < 4 * t.length && heap.fits(bytes) } }) as SharedHeap);
      const used = heap.used;
      const got = await lcpOverSuffixArray(view, new SequentialExecutor(heap), textPtr, saPtr, t.length, 1000, 100);
      expect(got.buffer === heap.memory.buffer, `room ${room}`).toBe(room);
      expect(firstDifference(got, want), `room ${room}`).toBe(-1);
      expect(heap.used).toBe(used);
    }
  });

  it("rejects an SA that is not the text's", async () => {
    const t = new TextEncoder().encode("mississippi");
    const sa = naiveSuffixArray(t);
    [sa[3], sa[4]] = [sa[4], sa[3]];
    await expect(lcp(t, sa)).rejects.toThrow(/not the suffix array/);
    await expect(lcp(t, sa.subarray(1))).rejects.toThrow(/entries/);
  });
});

describe("FMIndex", () => {
  for (const [name, t] of inputs) {
    if (t.length === 0) continue;
    it(`count and locate match a substring scan: ${name} (n=${t.length})`, async () => {
      for (const sampleRate of [1, 5, 32]) {
        const built = await FMIndex.build(t, { sampleRate });
        const index = FMIndex.load(built.toBytes());
        expect(index.length).toBe(t.length);
        const patterns = patternsFor(t, 60, t.length + sampleRate);
        const results = await index.search(patterns, { locate: true });
        let found = 0;
        patterns.forEach((p, q) => {
          const want = naiveOccurrences(t, p);
          if (want.length > 0) found++;
          expect(results[q].count, `pattern ${q} (K=${sampleRate})`).toBe(want.length);
          expect(Array.from(results[q].positions!), `pattern ${q} (K=${sampleRate})`).toEqual(want);
        });
        expect(found).toBeGreaterThan(0);
      }
    });
  }

  it("count, locate and limit on single patterns", async () => {
    const index = await FMIndex.build("abracadabra");
    expect(await index.count("abra")).toBe(2);
    expect(await index.count("z")).toBe(0);
    expect(Array.from(await index.locate("a"))).toEqual([0, 3, 5, 7, 10]);
    expect((await index.locate("a", { limit: 2 })).length).toBe(2);
    expect(Array.from(await index.locate("abracadabra"))).toEqual([0]);
  });

  it("indexes the empty text (every pattern is then longer than it: found nowhere)", async () => {
    const index = FMIndex.load((await FMIndex.build(new Uint8Array(0))).toBytes());
    expect(index.length).toBe(0);
    expect(await index.count("a")).toBe(0);
    expect(await index.search(["a", "bc"], { locate: true })).toEqual([
      { count: 0, positions: new Uint32Array(0) },
      { count: 0, positions: new Uint32Array(0) },
    ]);
  });

  it("rejects empty patterns; patterns longer than the text are found nowhere, among the others", async () => {
    const index = await FMIndex.build("abcab");
    await expect(index.count("")).rejects.toThrow(/pattern 1 is empty/);
    expect(await index.count("abcabc")).toBe(0);
    const got = await index.search(["abcabx", "ab", "abcab", "abcaba", "b", "zzzzzzzz"], { locate: true });
    expect(got.map((x) => x.count)).toEqual([0, 2, 1, 0, 2, 0]);
    expect(got.map((x) => Array.from(x.positions!))).toEqual([[], [0, 3], [0], [], [1, 4], []]);
    expect((await index.search(["abcabx", "ab"], { locate: true, limit: 1 })).map((x) => x.positions!.length)).toEqual([0, 1]);
    expect((await index.search(["abcabx", "ab"])).map((x) => x.count)).toEqual([0, 2]);
  });

  it("rejects foreign, truncated and damaged index bytes", async () => {
    const good = (await FMIndex.build(randomText(5000, 20, 3))).toBytes();
    expect(() => FMIndex.load(new TextEncoder().encode("hello world, not an index"))).toThrow(/not a sufsort FM-index/);
    expect(() => FMIndex.load(good.subarray(0, 100))).toThrow(/truncated/);
    expect(() => FMIndex.load(good.subarray(0, good.length - 64))).toThrow(/truncated/);
    const longer = new Uint8Array(good.length + 1);
    longer.set(good);
    expect(() => FMIndex.load(longer)).toThrow(/bytes after the index/);
    const badVersion = good.slice();
    badVersion[8] = 9;
    expect(() => FMIndex.load(badVersion)).toThrow(/version 9/);
    // A flipped code byte inside the first block breaks the counts of the next block.
    const dv = new DataView(good.buffer, good.byteOffset);
    const blocksAt = Number(dv.getBigUint64(72, true));
    const bytesAt = dv.getUint32(100, true);
    const damaged = good.slice();
    damaged[blocksAt + bytesAt + 3] ^= 1;
    expect(() => FMIndex.load(damaged)).toThrow(/damaged/);
  });
});

describe("a larger input (many blocks, chains and samples)", () => {
  it("BWT, unBWT, LCP and FM-index agree with the doubling oracle and a scan", async () => {
    const t = randomText(120_000, 4, 77);
    const sa = doublingSuffixArray(t);
    const n = t.length;
    const wantBwt: number[] = [t[n - 1]];
    let wantPrimary = 0;
    sa.forEach((s, k) => (s === 0 ? (wantPrimary = k + 1) : wantBwt.push(t[s - 1])));
    const got = await bwt(t);
    expect(got.primary).toBe(wantPrimary);
    expect(firstDifference(got.bwt, wantBwt)).toBe(-1);
    expect(firstDifference(await unbwt(got.bwt, got.primary), t)).toBe(-1);
    expect(firstDifference(await lcp(t, sa), naiveLcp(t, sa))).toBe(-1);
    await expectSearchLikeScan(await FMIndex.build(t, { sampleRate: 13 }), t, 5, 14);
  });
});

describe("the suffix-array engine of bwt, lcp and FMIndex", () => {
  it("--engine cpu on 2 threads (range on a random text of 1 MiB or more) gives what SA-IS gives", async () => {
    const t = randomText((1 << 20) + 5000, 256, 78);
    const want = await bwt(t, { algo: "sais" });
    const got = await bwt(t, { engine: "cpu", threads: 2 });
    expect(got.primary).toBe(want.primary);
    expect(firstDifference(got.bwt, want.bwt)).toBe(-1);
    expect(firstDifference(await lcp(t, undefined, { engine: "cpu", threads: 2 }), await lcp(t, undefined, { algo: "sais" }))).toBe(-1);
    const a = await FMIndex.build(t, { engine: "cpu", threads: 2 });
    const b = await FMIndex.build(t, { algo: "skew", threads: 2 });
    expect(firstDifference(a.toBytes(), b.toBytes())).toBe(-1);
  });

  it("rejects an unknown engine and an engine that contradicts algo", async () => {
    for (const run of [
      () => bwt("banana", { engine: "fast" as never }),
      () => lcp("banana", undefined, { engine: "gpu", algo: "sais" }),
      () => FMIndex.build("banana", { engine: "cpu", algo: "gpu-ls" }),
    ]) {
      const error = await run().then(() => undefined, (e: unknown) => e);
      expect(error).toBeInstanceOf(SufsortError);
      expect((error as SufsortError).exitCode).toBe(2);
      expect((error as Error).message).toMatch(/invalid engine 'fast'|contradicts --algo/);
    }
  });
});

describe("BWT over the SA (texts whose heap has no room for L beside it)", () => {
  it("equals the BWT by definition for waves of 1, 5, 64 and 1000 rows and any block split", async () => {
    for (const [name, t] of [["banana", new TextEncoder().encode("banana")], ["random", randomText(3001, 5, 3)], ...hardFamilies(700, 9)] as Array<[string, Uint8Array]>) {
      const n = t.length;
      const want = naiveBwt(t);
      const { heap, sequential, textPtr, saPtr } = textInHeap(t, 8);
      for (const [threads, wave, minRows] of [[1, 1, 1], [3, 5, 2], [2, 64, 10], [4, 1000, 37]]) {
        heap.u32(saPtr, n).set(naiveSuffixArray(t));
        const primary = await bwtOverSuffixArray(heap, splitAs(threads, sequential), textPtr, saPtr, n, wave, minRows);
        const L = heap.u8(saPtr, n + 1);
        const stored = new Uint8Array(n);
        stored.set(L.subarray(0, primary));
        stored.set(L.subarray(primary + 1), primary);
        expect(primary, `${name}, wave ${wave}`).toBe(want.primary);
        expect(firstDifference(stored, want.bwt), `${name}, wave ${wave}`).toBe(-1);
      }
    }
  });
});

describe("the FM-index built over the SA (texts whose heap has no room for L and the image beside it)", () => {
  it("gives the image built beside the SA, byte for byte, at sample rates 1, 3 and 32 and any split", async () => {
    for (const [name, t] of [["empty", new Uint8Array(0)], ["one", Uint8Array.of(5)], ["random", randomText(20_000, 7, 31)], ...hardFamilies(900, 4)] as Array<[string, Uint8Array]>) {
      const n = t.length;
      const { heap, sequential, textPtr, saPtr } = textInHeap(t, 20, 1 << 22);
      for (const rate of [1, 3, 32]) {
        const images: Uint8Array[] = [];
        for (const [threads, minRows, over] of [[1, 1 << 20, false], [1, 1 << 20, true], [3, 9, true], [5, 37, true]] as const) {
          heap.u32(saPtr, n).set(naiveSuffixArray(t));
          const mark = heap.used;
          const { ptr, layout } = await buildIndexInHeap(heap, splitAs(threads, sequential), textPtr, saPtr, n, rate, minRows, over);
          // over the SA, the image lies in the SA's region whenever it fits after L
          const inSA = ptr >= saPtr && ptr + layout.fileBytes <= saPtr + 4 * n;
          expect(inSA, `${name}, rate ${rate}`).toBe(over && Math.ceil((saPtr + n + 1) / 64) * 64 + layout.fileBytes <= saPtr + 4 * n);
          images.push(heap.u8(ptr, layout.fileBytes).slice());
          heap.release(mark);
        }
        for (const image of images.slice(1)) expect(firstDifference(image, images[0]), `${name}, rate ${rate}`).toBe(-1);
      }
    }
  });

  it("buildIndexLarge (SA in a plain array, for texts over the heap) gives the same image at sample rates 1, 3 and 32 (windows of 7 SA entries at 3)", async () => {
    for (const [name, t] of [["empty", new Uint8Array(0)], ["one", Uint8Array.of(5)], ["random", randomText(20_000, 7, 33)], ...hardFamilies(900, 5)] as Array<[string, Uint8Array]>) {
      const n = t.length;
      const { heap, sequential, textPtr, saPtr } = textInHeap(t, 20, 1 << 22);
      for (const rate of [1, 3, 32]) {
        heap.u32(saPtr, n).set(naiveSuffixArray(t));
        const mark = heap.used;
        const inHeap = await buildIndexInHeap(heap, sequential, textPtr, saPtr, n, rate);
        const want = heap.u8(inHeap.ptr, inHeap.layout.fileBytes).slice();
        heap.release(mark);
        const large = await buildIndexLarge(t, Uint32Array.from(naiveSuffixArray(t)), rate, 2, rate === 3 ? 7 : undefined);
        expect(firstDifference(large.heap.u8(large.ptr, large.layout.fileBytes), want), `${name}, rate ${rate}`).toBe(-1);
      }
    }
  });

  it("searches as the CPU index does when built over the SA of a larger text", async () => {
    const t = randomText(200_000, 4, 32);
    const n = t.length;
    const { heap, sequential, textPtr, saPtr } = textInHeap(t, 8, 1 << 22);
    heap.u32(saPtr, n).set(doublingSuffixArray(t));
    const { ptr, layout } = await buildIndexInHeap(heap, sequential, textPtr, saPtr, n, 16, undefined, true);
    expect(ptr).toBeGreaterThan(saPtr);
    expect(ptr + layout.fileBytes).toBeLessThanOrEqual(saPtr + 4 * n);
    await expectSearchLikeScan(FMIndex.load(heap.u8(ptr, layout.fileBytes).slice()), t, 6, 12);
  });
});

describe("block splits (what the executor will run in parallel)", () => {
  it("give the same BWT, text, LCP and index image for any split", async () => {
    for (const [name, t] of [["random", randomText(30_000, 6, 21)], ...hardFamilies(2000, 3)] as Array<[string, Uint8Array]>) {
      const n = t.length;
      const sa = naiveSuffixArray(t);
      const { heap, sequential, textPtr, saPtr } = textInHeap(t, 40, 1 << 22);
      heap.u32(saPtr, n).set(sa);
      const outputs: Array<{ L: Uint8Array; back: Uint8Array; lcp: Uint32Array; image: Uint8Array }> = [];
      for (const [threads, minRows] of [[1, 1 << 20], [3, 100], [5, 37]]) {
        const runner = splitAs(threads, sequential);
        const mark = heap.used;
        const L = heap.alloc(n + 1);
        const primary = await bwtFromSAInHeap(heap, runner, textPtr, saPtr, n, L, minRows);
        const stored = heap.alloc(n);
        heap.u8(stored, primary).set(heap.u8(L, primary));
        heap.u8(stored + primary, n - primary).set(heap.u8(L + primary + 1, n - primary));
        const back = heap.alloc(n);
        await unbwtInHeap(heap, runner, stored, n, primary, back, 50, minRows);
        const lcpOut = heap.alloc(4 * n);
        await lcpInHeap(heap, runner, textPtr, saPtr, n, lcpOut, minRows);
        const { ptr, layout } = await buildIndexInHeap(heap, runner, textPtr, saPtr, n, 7, minRows);
        outputs.push({
          L: heap.u8(stored, n).slice(),
          back: heap.u8(back, n).slice(),
          lcp: heap.u32(lcpOut, n).slice(),
          image: heap.u8(ptr, layout.fileBytes).slice(),
        });
        heap.release(mark);
      }
      expect(firstDifference(outputs[0].back, t), name).toBe(-1);
      expect(firstDifference(outputs[0].lcp, naiveLcp(t, sa)), name).toBe(-1);
      for (const other of outputs.slice(1)) {
        expect(firstDifference(other.L, outputs[0].L), name).toBe(-1);
        expect(firstDifference(other.back, t), name).toBe(-1);
        expect(firstDifference(other.lcp, outputs[0].lcp), name).toBe(-1);
        expect(firstDifference(other.image, outputs[0].image), name).toBe(-1);
      }
    }
  });
});
