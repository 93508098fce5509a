// Parallel primitives = serial WebAssembly leaf (asm/) + split/join through the executor, as in
// parlaylib. Arrays are pointers into the shared heap; ranges are element indices [lo, hi).
import type { Executor, KernelArgs } from "./executor.js";

/** Below this many elements a phase runs as one block on the calling thread (task overhead wins). */
export const MIN_PARALLEL = 1 << 15;
/** Widest radix digit: 2^11 buckets keep the per-block count rows and write streams in cache. */
export const MAX_DIGIT_BITS = 11;

/** Splits [lo, hi) into at most `parts` contiguous blocks of at least `minBlock` elements. */
export function blocks(lo: number, hi: number, parts: number, minBlock = MIN_PARALLEL): Array<[number, number]> {
  const n = hi - lo;
  const count = Math.max(1, Math.min(parts, Math.floor(n / minBlock)));
  const out: Array<[number, number]> = [];
  for (let b = 0; b < count; b++) {
    out.push([lo + Math.floor((n * b) / count), lo + Math.floor((n * (b + 1)) / count)]);
  }
  return out;
}

/** Runs a kernel over [lo, hi) split into blocks: args(lo, hi) builds each call. */
export function forBlocks(
  exec: Executor, kernel: string, lo: number, hi: number, args: (lo: number, hi: number) => KernelArgs,
): Promise<number[]> {
  return exec.map(kernel, blocks(lo, hi, exec.threads).map(([a, b]) => args(a, b)));
}

/** Number of bits needed to write values up to `max`. */
export function bitsFor(max: number): number {
  let bits = 0;
  while (bits < 53 && 2 ** bits <= max) bits++;
  return bits;
}

/** Prefix sum of ptr[lo..hi) (u32) in place; returns the total. */
export async function scan(exec: Executor, ptr: number, lo: number, hi: number, inclusive: boolean): Promise<number> {
  const parts = blocks(lo, hi, exec.threads);
  const sums = await exec.map("scanBlockSum", parts.map(([a, b]) => [ptr, a, b]));
  const carries: number[] = [];
  let total = 0;
  for (const s of sums) {
    carries.push(total);
    total = (total + s) >>> 0;
  }
  await exec.map("scanBlock", parts.map(([a, b], i) => [ptr, a, b, carries[i], inclusive ? 1 : 0]));
  return total;
}

/** The arrays of a radix sort: keys (u32 or u64) with u32 values, and equally sized scratch. */
export interface RadixArrays {
  keys: number;
  vals: number;
  tmpKeys: number;
  tmpVals: number;
  keyBytes: 4 | 8;
}

/** A key array with its values. */
export interface Pairs {
  keys: number;
  vals: number;
}

/** A kernel and how to call it on block [a, b) with that block's row of the count table. */
export type BlockCall = [kernel: string, args: (a: number, b: number, row: number) => KernelArgs];

/**
 * One stable counting pass over [lo, hi) by a digit of `bits` bits, in blocks: `count` fills each
 * block's row (2^bits u32) with its digit counts, the rows become write offsets (digit-major,
 * block-minor), and `scatter` moves each block to its row's offsets. Returns the bucket starts:
 * 2^bits + 1 positions (the last is hi).
 */
export async function countingPass(exec: Executor, lo: number, hi: number, bits: number, count: BlockCall, scatter: BlockCall): Promise<Uint32Array> {
  const parts = blocks(lo, hi, exec.threads);
  const heap = exec.heap;
  const mark = heap.used;
  const rowBytes = (1 << bits) * 4;
  const counts = heap.alloc(parts.length * rowBytes);
  await exec.map(count[0], parts.map(([a, b], i) => count[1](a, b, counts + i * rowBytes)));
  (exec.kernels.radixOffsets as (c: number, blocks: number, bits: number, base: number) => void)(
    counts, parts.length, bits, lo,
  );
  const starts = new Uint32Array((1 << bits) + 1);
  starts.set(heap.u32(counts, 1 << bits));
  starts[1 << bits] = hi;
  await exec.map(scatter[0], parts.map(([a, b], i) => scatter[1](a, b, counts + i * rowBytes)));
  heap.release(mark);
  return starts;
}

/**
 * One stable radix pass over the pairs src[lo..hi) by key bits [shift, shift + bits) into dst[lo..hi).
 * Returns the bucket starts: 2^bits + 1 positions (the last is hi).
 */
export function radixPass(
  exec: Executor, src: Pairs, dst: Pairs, keyBytes: 4 | 8, lo: number, hi: number, shift: number, bits: number,
): Promise<Uint32Array> {
  const suffix = keyBytes === 8 ? "U64" : "U32";
  return countingPass(
    exec, lo, hi, bits,
    [`radixCount${suffix}`, (a, b, row) => [src.keys, a, b, shift, bits, row]],
    [`radixScatter${suffix}`, (a, b, row) => [src.keys, src.vals, dst.keys, dst.vals, a, b, shift, bits, row]],
  );
}

/**
 * Stable LSD radix sort of the pairs in [lo, hi) by key bits [bitLo, bitHi). Uses tmp arrays over the
 * same range; the result is always left in (keys, vals).
 */
export async function radixSort(
  exec: Executor, arrays: RadixArrays, lo: number, hi: number, bitLo: number, bitHi: number,
): Promise<void> {
  const width = bitHi - bitLo;
  if (hi - lo < 2 || width <= 0) return;
  const passes = Math.ceil(width / MAX_DIGIT_BITS);
  const digit = Math.ceil(width / passes);
  let src: Pairs = { keys: arrays.keys, vals: arrays.vals };
  let dst: Pairs = { keys: arrays.tmpKeys, vals: arrays.tmpVals };
  for (let p = 0; p < passes; p++) {
    const shift = bitLo + p * digit;
    await radixPass(exec, src, dst, arrays.keyBytes, lo, hi, shift, Math.min(digit, bitHi - shift));
    [src, dst] = [dst, src];
  }
  if (src.keys !== arrays.keys) {
    const words = arrays.keyBytes / 4;
    await Promise.all([
      copy(exec, arrays.keys, src.keys, lo * words, hi * words),
      copy(exec, arrays.vals, src.vals, lo, hi),
    ]);
  }
}

/**
 * Stable three-way split of the (u32 key, u32 value) pairs src[lo..hi) into dst[lo..hi) around
 * `pivot`: keys below it first, then the keys equal to it, then those above. Returns where the
 * equal keys and the keys above start.
 */
export async function splitByPivot(
  exec: Executor, src: Pairs, dst: Pairs, lo: number, hi: number, pivot: number,
): Promise<[equalFrom: number, aboveFrom: number]> {
  const starts = await countingPass(
    exec, lo, hi, 2,
    ["pivotCountU32", (a, b, row) => [src.keys, a, b, pivot, row]],
    ["pivotScatterU32", (a, b, row) => [src.keys, src.vals, dst.keys, dst.vals, a, b, pivot, row]],
  );
  return [starts[1], starts[2]];
}

/** Most bits of the first pass of an MSD sort: 2^16 buckets (only the used ones cost write streams). */
export const MSD_BITS = 16;
/** A bucket of an MSD sort above this size is sorted by all workers, smaller ones inside one. */
export const LOCAL_SORT_MAX = 1 << 20;
/** Widest digit of the in-worker bucket sort (asm/radix.ts WIDE_DIGIT): its count table size. */
const BUCKET_DIGIT_BITS = 12;
/** Blocks of buckets per thread: piscina's queue evens out buckets of uneven size. */
const BUCKET_BLOCKS_PER_THREAD = 8;

/**
 * Radix sort of (u64 key, u32 value) pairs, MSD first, once the caller's parallel pass over the top
 * bits has left them in (tmpKeys, tmpVals), bucket d in [starts[d], starts[d + 1]): every bucket is
 * sorted by key bits [bitLo, bitHi) into (keys, vals) whole inside one worker (LSD, in cache), or by
 * all workers when it holds more than LOCAL_SORT_MAX. Stable.
 */
export async function sortMsdBucketsU64(
  exec: Executor, arrays: RadixArrays, starts: Uint32Array, bitLo: number, bitHi: number,
): Promise<void> {
  const main: Pairs = { keys: arrays.keys, vals: arrays.vals };
  const tmp: Pairs = { keys: arrays.tmpKeys, vals: arrays.tmpVals };
  const buckets = starts.length - 1;
  const [lo, hi] = [starts[0], starts[buckets]];
  const heap = exec.heap;
  const mark = heap.used;
  const startsPtr = heap.alloc(4 * starts.length);
  heap.u32(startsPtr, starts.length).set(starts);
  const target = Math.max(MIN_PARALLEL, (hi - lo) / (exec.threads * BUCKET_BLOCKS_PER_THREAD));
  const chunks: Array<[number, number]> = [];
  const large: number[] = [];
  let d0 = 0;
  for (let d = 0; d < buckets; d++) {
    if (starts[d + 1] - starts[d] > LOCAL_SORT_MAX) large.push(d);
    if (starts[d + 1] - starts[d0] >= target || d === buckets - 1) {
      chunks.push([d0, d + 1]);
      d0 = d + 1;
    }
  }
  const countRow = 2 * (1 << BUCKET_DIGIT_BITS) * 4; // this pass's offsets and the next pass's counts
  const counts = heap.alloc(chunks.length * countRow);
  await exec.map(
    "radixSortBucketsU64",
    chunks.map(([a, b], i) => [
      startsPtr, a, b, tmp.keys, tmp.vals, main.keys, main.vals, bitLo, bitHi, LOCAL_SORT_MAX, counts + i * countRow,
    ]),
  );
  for (const d of large) {
    const [s, e] = [starts[d], starts[d + 1]];
    await radixSort(exec, { keys: tmp.keys, vals: tmp.vals, tmpKeys: main.keys, tmpVals: main.vals, keyBytes: 8 }, s, e, bitLo, bitHi);
    await Promise.all([copy(exec, main.keys, tmp.keys, 2 * s, 2 * e), copy(exec, main.vals, tmp.vals, s, e)]);
  }
  heap.release(mark);
}

/**
 * dst[index[j]] = src[j] for j in [0, n) when index holds distinct values below `indexLimit` (a
 * permutation inverse): first a radix pass on the index's top bits into tmp, so that the writes of
 * each block land in a window that fits in cache, then the scatter.
 */
export async function scatterByBuckets(
  exec: Executor, dst: number, index: number, src: number, n: number, indexLimit: number, tmp: Pairs,
): Promise<void> {
  const width = bitsFor(Math.max(1, indexLimit - 1));
  const bits = Math.min(MAX_DIGIT_BITS, width);
  await radixPass(exec, { keys: index, vals: src }, tmp, 4, 0, n, width - bits, bits);
  await scatter(exec, dst, tmp.keys, tmp.vals, n);
}

/** dst[lo..hi) = src[lo..hi) (u32). */
export function copy(exec: Executor, dst: number, src: number, lo: number, hi: number): Promise<number[]> {
  return forBlocks(exec, "copyU32", lo, hi, (a, b) => [dst, src, a, b]);
}

/** Keeps src[j] (u32) where flags[j] (u8) is set, for j in [0, n), in order, in dst; returns the count. */
export async function pack(exec: Executor, src: number, flags: number, n: number, dst: number): Promise<number> {
  const parts = blocks(0, n, exec.threads);
  const counts = await exec.map("packCount", parts.map(([a, b]) => [flags, a, b]));
  const offsets: number[] = [];
  let total = 0;
  for (const c of counts) {
    offsets.push(total);
    total += c;
  }
  await exec.map("packU32", parts.map(([a, b], i) => [src, flags, a, b, dst, offsets[i]]));
  return total;
}

/** dst[j] = src[index[j]] for j in [0, n) (u32). */
export function gather(exec: Executor, dst: number, src: number, index: number, n: number): Promise<number[]> {
  return forBlocks(exec, "gatherU32", 0, n, (a, b) => [dst, src, index, a, b]);
}

/** dst[index[j]] = src[j] for j in [0, n) (u32). */
export function scatter(exec: Executor, dst: number, index: number, src: number, n: number): Promise<number[]> {
  return forBlocks(exec, "scatterU32", 0, n, (a, b) => [dst, index, src, a, b]);
}

/**
 * Merges sorted a[0..aLen) and b[0..bLen) into dst by merge path: the host finds where each output
 * block's diagonal crosses the path (`split`), then each block merges its own slices (`slice`).
 * The kernels take (prefix..., a, aLen, b, bLen, diag) and (prefix..., a, aLo, aHi, b, bLo, bHi, dst, at).
 */
export async function mergeWith(
  exec: Executor, split: string, slice: string, prefix: KernelArgs,
  a: number, aLen: number, b: number, bLen: number, dst: number,
): Promise<void> {
  const parts = blocks(0, aLen + bLen, exec.threads);
  const splitFn = exec.kernels[split] as (...args: number[]) => number;
  const cuts = parts.map(([lo]) => splitFn(...prefix, a, aLen, b, bLen, lo) >>> 0);
  cuts.push(aLen);
  await exec.map(
    slice,
    parts.map(([lo, hi], i) => [...prefix, a, cuts[i], cuts[i + 1], b, lo - cuts[i], hi - cuts[i + 1], dst, lo]),
  );
}

/** Merges two ascending u32 arrays into dst. */
export function mergeU32(exec: Executor, a: number, aLen: number, b: number, bLen: number, dst: number): Promise<void> {
  return mergeWith(exec, "mergeSplitU32", "mergeSliceU32", [], a, aLen, b, bLen, dst);
}
