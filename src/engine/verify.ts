// Runs the linear verifier (asm/verify.ts) on a text and SA and turns its record into a message.
import { MAX_HEAP_BYTES, SharedHeap } from "../cpu/memory.js";
import { seenBitsBytes, verifyLarge } from "./verify-large.js";
import { instantiate, type Kernels } from "../cpu/wasm.js";
import { bucketStarts, slotsByBlock, splitRange, TASKS_PER_THREAD } from "../apps/blocks.js";
import { createExecutor, MAX_THREADS, type Executor } from "../cpu/executor.js";

export type Verdict =
  | { ok: true }
  | { ok: false; kind: "length" | "range" | "duplicate" | "order"; position: number; message: string };

interface VerifyKernels {
  verifySuffixArray(text: number, sa: number, n: number, bits: number, buckets: number, result: number): number;
  firstViolation(text: number, sa: number, n: number, rank: number): number;
}

const KIND = ["ok", "range", "duplicate", "order"] as const;

/**
 * Verifies an SA already in the heap; scratch is reserved and released here (the bitmap, and after
 * an order fault a rank array of 4n bytes, or verifyLarge over the heap's views where it does not fit).
 */
export function verifyInHeap(heap: SharedHeap, kernels: Kernels, textPtr: number, saPtr: number, n: number): Verdict {
  const k = kernels as unknown as VerifyKernels;
  const mark = heap.used;
  try {
    const bits = heap.alloc(seenBitsBytes(n));
    const buckets = heap.alloc(1024);
    const result = heap.alloc(8);
    const kind = k.verifySuffixArray(textPtr, saPtr, n, bits, buckets, result) >>> 0;
    if (kind === 0) return { ok: true };
    const at = heap.u32(result, 2)[1];
    const sa = heap.u32(saPtr, n);
    if (kind === 1) {
      return { ok: false, kind: "range", position: at, message: `SA[${at}] = ${sa[at]} is out of range (n = ${n})` };
    }
    if (kind === 2) {
      return { ok: false, kind: "duplicate", position: at, message: `SA[${at}] = ${sa[at]} appears twice` };
    }
    heap.release(mark);
    // the first pair out of order needs a rank array: in the heap where it fits, else verifyLarge's
    if (!heap.fits(4 * n)) return verifyLarge(heap.u8(textPtr, n), heap.u32(saPtr, n));
    const rank = heap.alloc(4 * n);
    const k0 = k.firstViolation(textPtr, saPtr, n, rank) >>> 0;
    const pos = k0 < n ? k0 : at;
    const message =
      k0 < n
        ? `suffixes out of order at SA[${k0}] = ${sa[k0]}, SA[${k0 + 1}] = ${sa[k0 + 1]}`
        : `suffixes out of order near SA[${at}]`;
    return { ok: false, kind: KIND[kind] as "order", position: pos, message };
  } finally {
    heap.release(mark);
  }
}

/** Fewest SA entries a block of verifyInHeapOn takes (a task costs tens of µs). */
const MIN_VERIFY_BLOCK = 1 << 20;

/**
 * verifyInHeap by blocks on the runner's workers (asm/verify.ts's block kernels): the same three
 * checks, each phase's blocks in parallel; where a block finds a fault, verifyInHeap runs for the
 * verdict, so the verdicts are verifyInHeap's. On one thread, verifyInHeap itself. (Tests lower
 * `minBlock`.)
 */
export async function verifyInHeapOn(
  heap: SharedHeap, runner: Executor, textPtr: number, saPtr: number, n: number, minBlock = MIN_VERIFY_BLOCK,
): Promise<Verdict> {
  const blocks = splitRange(n, runner.threads * TASKS_PER_THREAD, minBlock);
  const bitsBytes = seenBitsBytes(n);
  const scratch = bitsBytes + 128 + 2048 * blocks.length;
  if (runner.threads === 1 || blocks.length === 1 || !heap.fits(scratch)) return verifyInHeap(heap, runner.kernels, textPtr, saPtr, n);
  const mark = heap.used;
  const faulty = async (kernel: string, calls: number[][]) => (await runner.map(kernel, calls)).some((r) => r !== 0);
  let fault = false;
  try {
    const bits = heap.alloc(bitsBytes);
    heap.u8(bits, bitsBytes).fill(0);
    fault = await faulty("verifyMarkBlock", blocks.map(([k0, k1]) => [saPtr, n, bits, k0, k1]));
    // check 2, and each block's counts of the predecessors' bytes (for check 3's next slots)
    const predecessors = heap.alloc(1024 * blocks.length);
    const before = heap.u32(predecessors, 256 * blocks.length);
    before.fill(0);
    if (!fault) fault = await faulty("verifyFirstBlock", blocks.map(([k0, k1], b) => [textPtr, saPtr, k0, k1, predecessors + 1024 * b]));
    if (!fault) {
      // bucket starts from the text's byte counts
      const counts = heap.alloc(1024 * blocks.length);
      const perBlock = heap.u32(counts, 256 * blocks.length);
      perBlock.fill(0);
      await runner.map("byteHistogram", blocks.map(([i0, i1], b) => [textPtr, i0, i1, counts + 1024 * b]));
      fault = !blockSlots(perBlock, blocks.length, heap.u8(textPtr + n - 1, 1)[0], heap.u32(saPtr, n), before)
        || await faulty("verifyInducedBlock", blocks.map(([k0, k1], b) => [textPtr, saPtr, k0, k1, predecessors + 1024 * b]));
    }
  } finally {
    heap.release(mark);
  }
  return fault ? verifyInHeap(heap, runner.kernels, textPtr, saPtr, n) : { ok: true };
}

/**
 * Check 3's start, for blocks of the SA: the virtual empty suffix comes first, so suffix n - 1 must
 * open its bucket (false where it does not); then each block's next slot per byte, the bucket's
 * start and the predecessors in the blocks before it, written over `before` (each block's counts
 * of its predecessors' bytes). byteCounts: the text's, in `countBlocks` rows of 256; last: T[n - 1].
 */
function blockSlots(byteCounts: Uint32Array, countBlocks: number, last: number, sa: Uint32Array, before: Uint32Array): boolean {
  const next = bucketStarts(byteCounts, countBlocks, 0);
  if (sa[next[last]] !== sa.length - 1) return false;
  next[last]++;
  slotsByBlock(before, before.length / 256, next);
  return true;
}

/** SA entries per window of verifyByWindows (16 MiB, less for many threads: each thread has its own). */
const VERIFY_WINDOW = 1 << 22;

/**
 * The linear verifier for an SA in a plain array, beyond the WebAssembly memory: the text and the
 * permutation bits in a heap of their own (about 1.13n bytes), the SA brought in a window at a
 * time for asm/verify.ts's block kernels, one window a block, `threads` windows at once on the
 * workers. For check 3 a window's reads of each bucket's next slots are one range per bucket,
 * known from check 2's counts: those ranges are copied in too (verifyInducedMapped). Where a check
 * fails, verifyLarge names the fault, so the verdicts are verifyLarge's. undefined where the heap
 * does not fit. (Tests lower `window`.)
 */
export async function verifyByWindows(text: Uint8Array, sa: Uint32Array, threads = 1, window?: number): Promise<Verdict | undefined> {
  const n = text.length;
  if (sa.length !== n) return lengthVerdict(sa.length, n);
  if (n === 0) return { ok: true };
  const w = Math.max(1, Math.min(window ?? Math.max(1 << 20, Math.floor((2 * VERIFY_WINDOW) / threads)), n));
  const windows = Math.ceil(n / w);
  const slots = Math.min(threads, windows);
  const bitsBytes = seenBitsBytes(n);
  const slotBytes = 4 * (w + 1) + 4 * w + 2048 + 3 * 64;
  const bytes = 64 + n + 64 + bitsBytes + 64 + slots * slotBytes + 1024;
  if (bytes > MAX_HEAP_BYTES) return undefined;
  let heap: SharedHeap;
  try {
    heap = new SharedHeap(bytes);
  } catch {
    return undefined;
  }
  const executor = createExecutor(heap, slots);
  try {
    const call = executor.kernels as unknown as Record<string, (...args: number[]) => number>;
    const textPtr = heap.alloc(n);
    heap.u8(textPtr, n).set(text);
    const bits = heap.alloc(bitsBytes);
    // per slot: a window (and the entry before it, for check 2), the gathered slots, counts, bases
    const slot = Array.from({ length: slots }, () => ({
      window: heap.alloc(4 * (w + 1)), gather: heap.alloc(4 * w), counts: heap.alloc(1024), bases: heap.alloc(1024),
    }));
    const view = heap.u32(0, heap.memory.buffer.byteLength >>> 2);
    const range = (b: number) => [b * w, Math.min(n, (b + 1) * w)];
    /** Copies SA[from, k1) to slot i's window; returns the base from which entry k lies at base + 4k. */
    const load = (i: number, from: number, k1: number) => {
      view.set(sa.subarray(from, k1), slot[i].window >>> 2);
      return (slot[i].window - 4 * from) >>> 0;
    };
    /** Runs `kernel` on the windows `slots` at a time: prepare(i, b) copies window b in and gives its arguments. */
    const faultIn = async (kernel: string, prepare: (i: number, b: number) => number[], done?: (i: number, b: number) => void) => {
      for (let b0 = 0; b0 < windows; b0 += slots) {
        const group = Array.from({ length: Math.min(slots, windows - b0) }, (_, i) => prepare(i, b0 + i));
        const results = await executor.map(kernel, group);
        if (results.some((r) => r !== 0)) return true;
        if (done) for (let i = 0; i < group.length; i++) done(i, b0 + i);
      }
      return false;
    };
    const verdict = () => verifyLarge(text, sa);
    // check 1: a permutation
    if (await faultIn("verifyMarkBlock", (i, b) => {
      const [k0, k1] = range(b);
      return [load(i, k0, k1), n, bits, k0, k1];
    })) return verdict();
    // check 2: first bytes in order; each window's counts of its predecessors' bytes
    const before = new Uint32Array(256 * windows);
    if (await faultIn("verifyFirstBlock", (i, b) => {
      const [k0, k1] = range(b);
      heap.u32(slot[i].counts, 256).fill(0);
      return [textPtr, load(i, Math.max(0, k0 - 1), k1), k0, k1, slot[i].counts];
    }, (i, b) => before.set(heap.u32(slot[i].counts, 256), 256 * b))) return verdict();
    // check 3: the virtual empty suffix first (suffix n - 1 opens its bucket), then each window from
    // its next slots, the slots it reads copied in per bucket
    const counts = heap.u32(slot[0].counts, 256);
    counts.fill(0);
    call.byteHistogram(textPtr, 0, n, slot[0].counts);
    const reads = before.slice();
    if (!blockSlots(counts, 1, text[n - 1], sa, before)) return verdict();
    if (await faultIn("verifyInducedMapped", (i, b) => {
      const [k0, k1] = range(b);
      const bases = heap.u32(slot[i].bases, 256);
      let at = slot[i].gather;
      for (let c = 0; c < 256; c++) {
        const first = before[256 * b + c];
        const count = reads[256 * b + c];
        view.set(sa.subarray(first, first + count), at >>> 2);
        bases[c] = (at - 4 * first) >>> 0;
        at += 4 * count;
      }
      heap.u32(slot[i].counts, 256).set(before.subarray(256 * b, 256 * (b + 1)));
      return [textPtr, load(i, k0, k1), k0, k1, slot[i].counts, slot[i].bases];
    })) return verdict();
    return { ok: true };
  } finally {
    await executor.close();
  }
}

/** The verdict for an SA of `entries` entries given for a text of n bytes (entries != n). */
export function lengthVerdict(entries: number, n: number): Verdict {
  return { ok: false, kind: "length", position: Math.min(entries, n), message: `SA has ${entries} entries; the text has ${n} bytes` };
}

/**
 * Verifies a text of n bytes and its SA in a fresh heap (text, SA and the verifier's bitmap, about
 * 5n bytes) that `fill` writes them into: undefined when they do not fit the 4 GiB memory (then
 * verifyLarge, in TypeScript).
 */
export function verifyInFreshHeap(n: number, fill: (heap: SharedHeap, textPtr: number, saPtr: number) => void): Verdict | undefined {
  const placed = freshVerifyHeap(n, fill);
  return placed && verifyInHeap(placed.heap, instantiate(placed.heap.memory), placed.textPtr, placed.saPtr, n);
}

/** verifyInFreshHeap on `threads` workers (verifyInHeapOn). */
export async function verifyInFreshHeapOn(
  n: number, threads: number, fill: (heap: SharedHeap, textPtr: number, saPtr: number) => void,
): Promise<Verdict | undefined> {
  const placed = freshVerifyHeap(n, fill);
  if (placed === undefined) return undefined;
  const executor = createExecutor(placed.heap, threads);
  try {
    return await verifyInHeapOn(placed.heap, executor, placed.textPtr, placed.saPtr, n);
  } finally {
    await executor.close();
  }
}

function freshVerifyHeap(n: number, fill: (heap: SharedHeap, textPtr: number, saPtr: number) => void): { heap: SharedHeap; textPtr: number; saPtr: number } | undefined {
  // the block kernels' counts take 2 KiB a block: at most MAX_THREADS * TASKS_PER_THREAD blocks
  const bytes = 64 + n + 4 * n + seenBitsBytes(n) + 8192 + 2048 * MAX_THREADS * TASKS_PER_THREAD;
  if (bytes > MAX_HEAP_BYTES) return undefined;
  const heap = new SharedHeap(bytes);
  const textPtr = heap.alloc(n);
  const saPtr = heap.alloc(4 * n);
  fill(heap, textPtr, saPtr);
  return { heap, textPtr, saPtr };
}

/** Verifies any text and SA (copied into a fresh heap, or checked in TypeScript when too large for one). */
export function verifySuffixArrayOf(text: Uint8Array, sa: Uint32Array): Verdict {
  const n = text.length;
  if (sa.length !== n) return lengthVerdict(sa.length, n);
  const copied = verifyInFreshHeap(n, (heap, textPtr, saPtr) => {
    heap.u8(textPtr, n).set(text);
    heap.u32(saPtr, n).set(sa);
  });
  return copied ?? verifyLarge(text, sa);
}
