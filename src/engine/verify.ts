// Runs the linear verifier (asm/verify.ts) on a text and SA and turns its record into a message.
import { MAX_HEAP_BYTES, SharedHeap } from "../cpu/memory.js";
import { verifyLarge } from "./verify-large.js";
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
    const bits = heap.alloc((n + 7) >> 3);
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
  const scratch = ((n + 7) >> 3) + 128 + 2048 * blocks.length;
  if (runner.threads === 1 || blocks.length === 1 || !heap.fits(scratch)) return verifyInHeap(heap, runner.kernels, textPtr, saPtr, n);
  const mark = heap.used;
  const faulty = async (kernel: string, calls: number[][]) => (await runner.map(kernel, calls)).some((r) => r !== 0);
  let fault = false;
  try {
    const bits = heap.alloc((n + 7) >> 3);
    heap.u8(bits, (n + 7) >> 3).fill(0);
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
      const next = bucketStarts(perBlock, blocks.length, 0);
      // the virtual empty suffix first: suffix n - 1 opens its bucket; then each block's next
      // slots: the bucket's start and the predecessors in the blocks before it
      const last = heap.u8(textPtr + n - 1, 1)[0];
      if (heap.u32(saPtr, n)[next[last]] !== n - 1) fault = true;
      else {
        next[last]++;
        slotsByBlock(before, blocks.length, next);
        fault = await faulty("verifyInducedBlock", blocks.map(([k0, k1], b) => [textPtr, saPtr, k0, k1, predecessors + 1024 * b]));
      }
    }
  } finally {
    heap.release(mark);
  }
  return fault ? verifyInHeap(heap, runner.kernels, textPtr, saPtr, n) : { ok: true };
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
  const bytes = 64 + n + 4 * n + ((n + 7) >> 3) + 8192 + 2048 * MAX_THREADS * TASKS_PER_THREAD;
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
