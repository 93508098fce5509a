// The long-repeat scan (asm/repeats.ts, src/engine/repeats.ts) against a plain JS reference of
// the same anchors, at 1, 2 and 3 threads; and auto's use of it: range on few threads hands
// texts with copies far apart to SA-IS before it starts (choice.ts, LONG_REPEAT_SHARE).
import { afterAll, describe, expect, it } from "vitest";
import { firstTouchMicros, SharedHeap } from "../src/cpu/memory.js";
import { createExecutor, type Executor } from "../src/cpu/executor.js";
import { ANCHORS_AIMED, longRepeatShare } from "../src/engine/repeats.js";
import { buildSuffixArray, closePlaced, placeBytes, resolveSorter, routePlacedByRepeats } from "../src/engine/build.js";
import {
  AUTO_GPU_MIN_BYTES_OVER_RANGE, AUTO_RANGE_MIN_BYTES, AUTO_RANGE_MIN_THREADS, LONG_REPEAT_HAND_OVER_SHARE, LONG_REPEAT_MIN_ANCHORS, LONG_REPEAT_SHARE, LONG_REPEAT_SHARE_ONE_THREAD, planEngine, routeByRepeats, SLOW_FIRST_TOUCH_MICROS, traitsOf,
} from "../src/engine/choice.js";
import { fibonacci, periodic, randomText, repeatedByte, rng } from "./support/inputs.js";

const GRAM = 32;
const MASK = (1n << 64n) - 1n;

/** The kernel's gear values: splitmix64 of byte + 1. */
const GEAR = Array.from({ length: 256 }, (_, c) => {
  let z = (BigInt(c + 1) * 0x9e3779b97f4a7c15n) & MASK;
  z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK;
  z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & MASK;
  return z ^ (z >> 31n);
});

/** The reference: anchors are the positions whose 32-byte string's gear hash has its top k bits zero. */
function referenceShare(t: Uint8Array, k: number): { share: number; share64: number; anchors: number } {
  const anchors: number[] = [];
  let h = 0n;
  for (let i = 0; i < t.length; i++) {
    h = ((h << 2n) ^ GEAR[t[i]!]!) & MASK;
    const start = i - GRAM + 1;
    if (start >= 0 && h >> BigInt(64 - k) === 0n) anchors.push(start);
  }
  const repeated = (length: number) => {
    const counts = new Map<string, number>();
    const starting = anchors.filter((p) => p + length <= t.length);
    const key = (p: number) => Buffer.from(t.subarray(p, p + length)).toString("latin1");
    for (const p of starting) counts.set(key(p), (counts.get(key(p)) ?? 0) + 1);
    return anchors.length === 0 ? 0 : starting.filter((p) => counts.get(key(p))! >= 2).length / anchors.length;
  };
  return { share: repeated(GRAM), share64: repeated(2 * GRAM), anchors: anchors.length };
}

/** The k the scan starts with for n bytes. */
const firstK = (n: number) => Math.max(1, Math.min(32, Math.floor(Math.log2(n / ANCHORS_AIMED))));

/** Random bytes of alphabet sigma where `copies` stretches of `length` bytes copy earlier ones, some with changed bytes. */
function withCopies(n: number, sigma: number, seed: number, copies: number, length: number, changes = 0): Uint8Array {
  const r = rng(seed);
  const t = randomText(n, sigma, seed);
  for (let c = 0; c < copies; c++) {
    const to = Math.floor(r() * (n - length));
    const from = Math.floor(r() * (n - length));
    t.copyWithin(to, from, from + length);
    for (let m = 0; m < changes; m++) t[to + Math.floor(r() * length)] = Math.floor(r() * sigma);
  }
  return t;
}

const executors: Executor[] = [];
afterAll(async () => {
  for (const e of executors) await e.close();
});

describe.each([1, 2, 3])("longRepeatShare at %i thread(s)", (threads) => {
  const heap = new SharedHeap();
  const exec = createExecutor(heap, threads);
  executors.push(exec);
  const share = async (t: Uint8Array) => {
    const mark = heap.used;
    const ptr = heap.alloc(t.length + 16);
    heap.u8(ptr, t.length + 16).fill(0);
    heap.u8(ptr, t.length).set(t);
    try {
      return await longRepeatShare(exec, ptr, t.length);
    } finally {
      heap.release(mark);
    }
  };

  it("equals the reference on random texts, texts with copies and the hard families", async () => {
    const cases: Array<[string, Uint8Array]> = [
      ["random bytes", randomText(150_000, 256, 1)],
      ["random DNA", randomText(100_003, 4, 2)],
      ["DNA with copies", withCopies(200_000, 4, 3, 12, 5000, 3)],
      ["bytes with one long copy", withCopies(120_000, 256, 4, 1, 40_000)],
      ["text of 26 with copies", withCopies(90_000, 26, 5, 30, 700, 1)],
      ["two copies of a block", (() => { const b = randomText(70_001, 256, 6); const t = new Uint8Array(140_002); t.set(b); t.set(b, 70_001); return t; })()],
      ["Fibonacci", fibonacci(80_000)],
      ["periodic", periodic(65_536, "abcdefghijklmnopqrstuvwxyz0123456789")],
    ];
    for (const [name, t] of cases) {
      const found = await share(t);
      const expected = referenceShare(t, firstK(t.length));
      if (expected.anchors > 4 * (t.length / 2 ** firstK(t.length)) + 1024) continue; // the rescan case, below
      expect(found, name).toEqual(expected);
    }
  });

  it("finds no repeats in random text and every position repeated in a doubled block", async () => {
    expect((await share(randomText(300_000, 256, 7))).share).toBe(0);
    const block = randomText(100_000, 4, 8);
    const twice = new Uint8Array(200_000);
    twice.set(block);
    twice.set(block, 100_000);
    const doubled = await share(twice);
    expect(doubled.anchors).toBeGreaterThan(0);
    // every anchor but those whose string crosses from one copy into the next
    expect(doubled.share).toBeGreaterThan(0.99);
    expect(doubled.share64).toBeGreaterThan(0.99);
    // copies of 40 bytes: their 32-byte strings repeat, their 64-byte ones do not
    const short = randomText(200_000, 256, 12);
    for (let at = 1000; at + 200 < short.length; at += 200) short.copyWithin(at, 0, 40);
    const shortCopies = await share(short);
    expect(shortCopies).toEqual(referenceShare(short, firstK(short.length)));
    expect(shortCopies.share64).toBeLessThan(shortCopies.share);
  });

  it("texts of fewer than 64 bytes have no anchors; the last string of a text counts", async () => {
    for (const n of [0, 1, 31, 32, 63]) expect(await share(randomText(n, 4, n))).toEqual({ share: 0, share64: 0, anchors: 0 });
    // a text whose only repeated string is its first 32 bytes, again at its very end
    const t = randomText(40_000, 256, 9);
    t.copyWithin(t.length - GRAM, 0, GRAM);
    expect(await share(t)).toEqual(referenceShare(t, firstK(t.length)));
  });

  it("a text of few distinct strings: sparser anchors, all repeated, or no evidence", async () => {
    // a period of 20 random bytes: each of its 20 strings occurs 52 K times, more than a list
    // holds, so when one is an anchor the scan runs again with a larger k
    let rescans = 0;
    for (let seed = 1; seed <= 40; seed++) {
      const unit = randomText(20, 256, 100 + seed);
      const t = new Uint8Array(1 << 20);
      for (let i = 0; i < t.length; i++) t[i] = unit[i % 20]!;
      const found = await share(t);
      if (found.anchors > 0) expect(found.share).toBe(1);
      else expect(found.share).toBe(0);
      if (referenceShare(t.subarray(0, 20 + GRAM - 1), firstK(t.length)).anchors > 0) rescans++;
    }
    expect(rescans).toBeGreaterThan(0);
    // one string only: it stops being an anchor as k grows, or k reaches 32; either way no evidence
    expect(await share(repeatedByte(1 << 20))).toEqual({ share: 0, share64: 0, anchors: 0 });
  });
});

describe("auto and the long-repeat scan", () => {
  const random = { periodic: false, random: true, hardForDoubling: false };
  const text = { periodic: false, random: false, hardForDoubling: false };

  it("asks for the scan only where range runs on few threads because the text looked random", () => {
    const n = 16 << 20;
    expect(planEngine({ engine: "auto", n, threads: 2, gpu: "none", traits: random }).repeatAlgo).toBe("sais");
    expect(planEngine({ engine: "cpu", n, threads: AUTO_RANGE_MIN_THREADS - 1, gpu: "none", traits: random }).repeatAlgo).toBe("sais");
    expect(planEngine({ engine: "auto", n, threads: AUTO_RANGE_MIN_THREADS, gpu: "none", traits: random }).repeatAlgo).toBeUndefined();
    expect(planEngine({ engine: "auto", n, threads: 2, gpu: "none", traits: text }).repeatAlgo).toBeUndefined();
    expect(planEngine({ engine: "auto", n, threads: 2, gpu: "none", algo: "range" }).repeatAlgo).toBeUndefined();
    expect(planEngine({ engine: "auto", n: AUTO_RANGE_MIN_BYTES - 1, threads: 2, gpu: "none", traits: random }).repeatAlgo).toBeUndefined();
  });

  it("on any threads, a text that range would hand over goes to SA-IS at once", () => {
    for (const threads of [2, AUTO_RANGE_MIN_THREADS, 64]) {
      for (const traits of [random, text]) {
        const plan = planEngine({ engine: "cpu", n: 16 << 20, threads, gpu: "none", traits });
        if (plan.sorter.name !== "range") continue;
        expect(plan.handOverAlgo).toBe("sais");
        const over = routeByRepeats(plan, { share: 0.95, share64: LONG_REPEAT_HAND_OVER_SHARE, anchors: 8192, ms: 1 });
        expect(over.sorter.name).toBe("sais");
        // (on few threads the 32-byte share alone sends it there first)
        expect(over.reason).toMatch(threads >= AUTO_RANGE_MIN_THREADS ? /range would hand it over: sais$/ : /: sais$/);
        if (threads >= AUTO_RANGE_MIN_THREADS) {
          // below the 64-byte bar, many threads keep range even with most 32-byte strings repeated
          expect(routeByRepeats(plan, { share: 0.9, share64: LONG_REPEAT_HAND_OVER_SHARE - 0.01, anchors: 8192, ms: 1 }).sorter.name).toBe("range");
        }
      }
    }
    expect(planEngine({ engine: "cpu", n: 16 << 20, threads: 2, gpu: "none", traits: text }).handOverAlgo).toBeUndefined(); // SA-IS already
  });

  it("on many threads, a random-looking text kept off the GPU by its looks goes there on long repeats", () => {
    const many = AUTO_RANGE_MIN_THREADS;
    const over = planEngine({ engine: "auto", n: AUTO_GPU_MIN_BYTES_OVER_RANGE, threads: many, gpu: "none", traits: random });
    expect(over.sorter.name).toBe("range");
    expect(over.repeatAlgo).toBe("gpu-spd");
    expect(planEngine({ engine: "auto", n: AUTO_GPU_MIN_BYTES_OVER_RANGE - 1, threads: many, gpu: "none", traits: random }).repeatAlgo).toBeUndefined();
    expect(planEngine({ engine: "cpu", n: AUTO_GPU_MIN_BYTES_OVER_RANGE, threads: many, gpu: "none", traits: random }).repeatAlgo).toBeUndefined();
    expect(planEngine({ engine: "auto", n: AUTO_GPU_MIN_BYTES_OVER_RANGE, threads: many, gpu: "hardware", traits: text }).repeatAlgo).toBeUndefined();
  });

  it("a GPU repeatAlgo without a hardware GPU keeps the plan, saying so", async () => {
    const t = new Uint8Array(2 << 20);
    const block = randomText(1 << 20, 256, 31);
    t.set(block);
    t.set(block, 1 << 20);
    const placed = placeBytes(t, resolveSorter("range"), 2);
    try {
      const plan = { sorter: resolveSorter("range"), reason: "test", repeatAlgo: "gpu-spd" };
      const routing = await routePlacedByRepeats(placed, plan, random, { gpu: "software" });
      routing.release();
      expect(routing.plan.sorter.name).toBe("range");
      expect(routing.plan.repeatAlgo).toBeUndefined();
      expect(routing.plan.reason).toMatch(/^test; 1\.00 of \d+ sampled positions .*; no hardware GPU$/);
      expect(placed.sorter.name).toBe("range");
      // with a hand-over destination too, the copies (every 64-byte string twice) go there
      const both = await routePlacedByRepeats(placed, { ...plan, handOverAlgo: "sais" }, random, { gpu: "software" });
      both.release();
      expect(both.plan.sorter.name).toBe("sais");
      expect(both.plan.reason).toMatch(/range would hand it over: sais; no hardware GPU$/);
      expect(placed.sorter.name).toBe("sais");
    } finally {
      await closePlaced(placed);
    }
  });

  it("switches to SA-IS from LONG_REPEAT_SHARE on at least LONG_REPEAT_MIN_ANCHORS anchors", () => {
    const plan = planEngine({ engine: "auto", n: 16 << 20, threads: 2, gpu: "none", traits: random });
    expect(plan.sorter.name).toBe("range");
    const at = (share: number, anchors = 8192) => routeByRepeats(plan, { share, share64: share, anchors, ms: 1 });
    expect(at(LONG_REPEAT_SHARE).sorter.name).toBe("sais");
    expect(at(LONG_REPEAT_SHARE).reason).toMatch(/32-byte string found elsewhere.*: sais$/);
    expect(at(LONG_REPEAT_SHARE - 0.01).sorter.name).toBe("range");
    expect(at(1, LONG_REPEAT_MIN_ANCHORS - 1).sorter.name).toBe("range");
    expect(at(0).repeatAlgo).toBeUndefined();
  });

  it("builds a collection of similar sequences with SA-IS, random text with range (2 threads)", async () => {
    // 5 copies of a 330 KB random DNA sequence, each with 0.5% of its bytes changed
    const base = randomText(330_001, 4, 21);
    const r = rng(22);
    const collection = new Uint8Array(5 * base.length);
    for (let c = 0; c < 5; c++) {
      collection.set(base, c * base.length);
      if (c > 0) for (let i = 0; i < base.length; i++) if (r() < 0.005) collection[c * base.length + i] = 0x41 + Math.floor(r() * 4);
    }
    expect(traitsOf(collection).random).toBe(true); // the windows alone miss the copies
    const built = await buildSuffixArray(collection, { threads: 2 });
    expect(built.algo).toBe("sais");
    expect(built.reason).toMatch(/found elsewhere/);
    const reference = await buildSuffixArray(collection, { algo: "sais", threads: 1 });
    expect(Buffer.from(built.sa.buffer, built.sa.byteOffset, built.sa.byteLength).equals(Buffer.from(reference.sa.buffer, reference.sa.byteOffset, reference.sa.byteLength))).toBe(true);

    const randomDna = randomText(1_800_000, 4, 23);
    const plain = await withFirstTouch("0", () => buildSuffixArray(randomDna, { threads: 2 }));
    expect(plain.algo).toBe("range");
    expect(plain.reason).toMatch(/0\.00 of \d+ sampled positions/);
  });

  it("on one thread switches to SA-IS from LONG_REPEAT_SHARE_ONE_THREAD", () => {
    const one = planEngine({ engine: "auto", n: 16 << 20, threads: 1, gpu: "none", traits: random });
    expect(one.sorter.name).toBe("range");
    expect(one.longRepeatShare).toBe(LONG_REPEAT_SHARE_ONE_THREAD);
    const at = (share: number) => routeByRepeats(one, { share, share64: share, anchors: 8192, ms: 1 });
    expect(at(LONG_REPEAT_SHARE_ONE_THREAD).sorter.name).toBe("sais");
    expect(at(LONG_REPEAT_SHARE_ONE_THREAD).longRepeatShare).toBeUndefined();
    expect(at(LONG_REPEAT_SHARE_ONE_THREAD - 0.01).sorter.name).toBe("range");
    // on two threads the same share keeps range
    const two = planEngine({ engine: "auto", n: 16 << 20, threads: 2, gpu: "none", traits: random });
    expect(two.longRepeatShare).toBeUndefined();
    expect(routeByRepeats(two, { share: LONG_REPEAT_SHARE_ONE_THREAD, share64: 0, anchors: 8192, ms: 1 }).sorter.name).toBe("range");
  });

  it("sends random text to SA-IS on few threads where a fresh page is slow to touch", async () => {
    const plan = planEngine({ engine: "auto", n: 16 << 20, threads: 2, gpu: "none", traits: random });
    const at = (firstTouchMicros?: number) => routeByRepeats(plan, { share: 0, share64: 0, anchors: 8192, ms: 1, ...(firstTouchMicros === undefined ? {} : { firstTouchMicros }) });
    expect(at(SLOW_FIRST_TOUCH_MICROS).sorter.name).toBe("sais");
    expect(at(SLOW_FIRST_TOUCH_MICROS).reason).toMatch(/a fresh page takes 8\.0 µs to touch here.*: sais; 0\.00 of 8192/);
    expect(at(SLOW_FIRST_TOUCH_MICROS - 0.1).sorter.name).toBe("range");
    expect(at().sorter.name).toBe("range");
    // on many threads range stays (its repeatAlgo, if any, is the GPU's)
    const many = planEngine({ engine: "auto", n: AUTO_GPU_MIN_BYTES_OVER_RANGE, threads: AUTO_RANGE_MIN_THREADS, gpu: "hardware", traits: random });
    expect(routeByRepeats(many, { share: 0, share64: 0, anchors: 8192, ms: 1, firstTouchMicros: 100 }).sorter.name).toBe("range");

    const randomDna = randomText(1_800_000, 4, 23);
    const slow = await withFirstTouch("100", () => buildSuffixArray(randomDna, { threads: 2 }));
    expect(slow.algo).toBe("sais");
    expect(slow.reason).toMatch(/a fresh page takes 100\.0 µs to touch here/);
    const reference = await buildSuffixArray(randomDna, { algo: "sais", threads: 1 });
    expect(Buffer.from(slow.sa.buffer, slow.sa.byteOffset, slow.sa.byteLength).equals(Buffer.from(reference.sa.buffer, reference.sa.byteOffset, reference.sa.byteLength))).toBe(true);
    // an explicit --algo range is never routed
    expect((await withFirstTouch("100", () => buildSuffixArray(randomDna, { algo: "range", threads: 2 }))).algo).toBe("range");
  });

  it("times the first touch of fresh heap pages, leaving them zero", async () => {
    await withFirstTouch(undefined, async () => {
      const heap = new SharedHeap(8 << 20);
      const micros = firstTouchMicros(heap, 1 << 20, 1 << 20);
      expect(micros).toBeGreaterThan(0);
      expect(heap.u8(1 << 20, 1 << 20).every((b) => b === 0)).toBe(true);
      expect(firstTouchMicros(heap, 1 << 20, 4096 * 15)).toBe(0); // too few pages to tell
      expect(firstTouchMicros(heap, heap.memory.buffer.byteLength - 4096, 1 << 20)).toBe(0); // past the memory's end
    });
    expect(await withFirstTouch("2.5", async () => firstTouchMicros(new SharedHeap(1 << 20), 0, 1 << 20))).toBe(2.5);
  });
});

/** Runs `f` with SUFSORT_FIRST_TOUCH_MICROS set to `value` (undefined: unset), as it was after. */
async function withFirstTouch<T>(value: string | undefined, f: () => Promise<T>): Promise<T> {
  const before = process.env.SUFSORT_FIRST_TOUCH_MICROS;
  if (value === undefined) delete process.env.SUFSORT_FIRST_TOUCH_MICROS;
  else process.env.SUFSORT_FIRST_TOUCH_MICROS = value;
  try {
    return await f();
  } finally {
    if (before === undefined) delete process.env.SUFSORT_FIRST_TOUCH_MICROS;
    else process.env.SUFSORT_FIRST_TOUCH_MICROS = before;
  }
}
