// --algo skew: parallel DC3 (Kärkkäinen–Sanders, "Simple linear work suffix array construction"),
// after PBBS's parallelKS (pbbsbench benchmarks/suffixArray/parallelKS) and the pDC3 of Kulla and
// Sanders (../shared/seeds/002). One level, for a string s over 1..K followed by three zeros:
//
//   sample = positions i < n + (n0 - n1) with i mod 3 != 0 (a dummy mod-1 position n when n mod 3 = 1)
//   radix sort the sample by the triples s[i..i+3)
//   name the triples: flag where a triple differs from its predecessor, inclusive prefix sum
//   if names repeat: recurse on the reduced string s12 (mod-1 names, then mod-2 names) to rank them
//   sort the mod-0 suffixes by (s[i], rank[i + 1]): filter them out of the sorted sample, then
//     a stable radix sort by s[i]
//   merge the two sorted sets (merge path): mod-1 vs mod-0 by (s[i], rank[i + 1]), mod-2 vs mod-0
//     by (s[i], s[i + 1], rank[i + 2])
//
// Every step is a parallel primitive or a block kernel (asm/skew.ts). O(n) work; recursion depth
// log_{3/2} n at most. Limits: n < 2^32 and about 28 n bytes of heap (text, SA, the u32 string and
// the levels' scratch), so n <= 153,316,790 (skewMaxLength) in the 4 GiB WebAssembly memory.
import type { BuildContext, SuffixSorter } from "../../engine/registry.js";
import { registerSorter } from "../../engine/registry.js";
import { MAX_HEAP_BYTES } from "../memory.js";
import type { Executor } from "../executor.js";
import { bitsFor, forBlocks, mergeWith, pack, radixSort, scan } from "../primitives.js";

/** Heap bytes per text byte beyond text and SA: the u32 string (4) + the levels' peak (18.7). */
const SCRATCH_PER_BYTE = 23;
const SCRATCH_FIXED = 1 << 20;

export const skewMaxLength = Math.floor((MAX_HEAP_BYTES - 2 * SCRATCH_FIXED) / (SCRATCH_PER_BYTE + 5));

async function buildSkew(ctx: BuildContext): Promise<void> {
  const { executor: exec, heap, textPtr, n, saPtr } = ctx;
  if (n <= 1) {
    if (n === 1) heap.u32(saPtr, 1)[0] = 0;
    return;
  }
  // buildPlaced reserved scratchBytes(n) after the SA: allocate from there, not on top of it
  heap.release(saPtr + 4 * n);
  const mark = heap.used;
  const s = heap.alloc(4 * (n + 3));
  await forBlocks(exec, "skewWiden", 0, n, (a, b) => [textPtr, s, a, b]);
  heap.u32(s + 4 * n, 3).fill(0);
  await skewLevel(exec, s, n, 256, saPtr);
  ctx.onProgress?.(1);
  heap.release(mark);
}

/** Writes the suffix array of s[0..n) (u32 characters in 1..K, then three zeros) to out[0..n). */
async function skewLevel(exec: Executor, s: number, n: number, K: number, out: number): Promise<void> {
  const heap = exec.heap;
  if (n === 1) {
    heap.u32(out, 1)[0] = 0;
    return;
  }
  const n0 = Math.floor((n + 2) / 3);
  const n1 = Math.floor((n + 1) / 3);
  const n02 = n0 + Math.floor(n / 3);
  const mark = heap.used;
  const s12 = heap.alloc(4 * (n02 + 3));
  const sa12 = heap.alloc(4 * (n02 + 3));
  heap.u32(s12 + 4 * n02, 3).fill(0);

  // Sort the sample positions by their triples.
  const scratch = heap.used;
  const keys = heap.alloc(8 * n02);
  const tmpKeys = heap.alloc(8 * n02);
  const tmpVals = heap.alloc(4 * n02);
  await forBlocks(exec, "skewSamplePositions", 0, n02, (a, b) => [sa12, a, b]);
  const charBits = bitsFor(K);
  // names: flags where the sorted triple changes (from the sorted keys when one key holds the
  // triple, else from s), then an inclusive prefix sum.
  const names = tmpKeys;
  if (3 * charBits <= 32) {
    await forBlocks(exec, "skewTripleKeysU32", 0, n02, (a, b) => [s, sa12, keys, a, b, K + 1]);
    await radixSort(exec, { keys, vals: sa12, tmpKeys, tmpVals, keyBytes: 4 }, 0, n02, 0, 3 * charBits);
    await forBlocks(exec, "skewKeyFlagsU32", 0, n02, (a, b) => [keys, names, a, b]);
  } else if (3 * charBits <= 64) {
    await forBlocks(exec, "skewTripleKeysU64", 0, n02, (a, b) => [s, sa12, keys, a, b, K + 1]);
    await radixSort(exec, { keys, vals: sa12, tmpKeys, tmpVals, keyBytes: 8 }, 0, n02, 0, 3 * charBits);
    await forBlocks(exec, "skewKeyFlagsU64", 0, n02, (a, b) => [keys, names, a, b]);
  } else {
    await forBlocks(exec, "skewThirdKeysU32", 0, n02, (a, b) => [s, sa12, keys, a, b]);
    await radixSort(exec, { keys, vals: sa12, tmpKeys, tmpVals, keyBytes: 4 }, 0, n02, 0, charBits);
    await forBlocks(exec, "skewPairKeysU64", 0, n02, (a, b) => [s, sa12, keys, a, b, K + 1]);
    await radixSort(exec, { keys, vals: sa12, tmpKeys, tmpVals, keyBytes: 8 }, 0, n02, 0, 2 * charBits);
    await forBlocks(exec, "skewNameFlags", 0, n02, (a, b) => [s, sa12, names, a, b]);
  }

  // Name the triples (names 1..) and write the reduced string s12.
  const distinct = await scan(exec, names, 0, n02, true);
  await forBlocks(exec, "skewScatterNames", 0, n02, (a, b) => [sa12, names, s12, a, b, n0]);
  heap.release(scratch);

  // sa12 = the suffix array of s12; s12 = the ranks (1..) of the mod-1/2 suffixes.
  if (distinct < n02) {
    await skewLevel(exec, s12, n02, distinct, sa12);
    await forBlocks(exec, "scatterIotaU32", 0, n02, (a, b) => [s12, sa12, a, b, 1]);
  } else {
    await forBlocks(exec, "skewInvertNames", 0, n02, (a, b) => [s12, sa12, a, b]);
  }

  // The mod-0 suffixes, in the order of their mod-1 successors, then stably by first character.
  const flags = heap.alloc(n02);
  const pos0 = heap.alloc(4 * n0);
  const keys0 = heap.alloc(4 * n0);
  const tmp0 = heap.alloc(8 * n0);
  await forBlocks(exec, "skewMod0Flags", 0, n02, (a, b) => [sa12, flags, a, b, n0]);
  await pack(exec, sa12, flags, n02, pos0);
  await forBlocks(exec, "skewMod0Keys", 0, n0, (a, b) => [s, pos0, keys0, a, b]);
  await radixSort(exec, { keys: keys0, vals: pos0, tmpKeys: tmp0, tmpVals: tmp0 + 4 * n0, keyBytes: 4 }, 0, n0, 0, charBits);

  // Merge; the dummy mod-1 suffix (when n mod 3 = 1) is the smallest of the sample and is skipped.
  const skip = n0 - n1;
  const len12 = n02 - skip;
  const pos12 = heap.alloc(4 * len12);
  await forBlocks(exec, "skewIndexToPosition", skip, n02, (a, b) => [sa12, pos12, a, b, n0, skip]);
  const mergeCtx = heap.alloc(12);
  heap.u32(mergeCtx, 3).set([s, s12, n0]);
  await mergeWith(exec, "skewMergeSplit", "skewMergeSlice", [mergeCtx], pos12, len12, pos0, n0, out);
  heap.release(mark);
}

export const skewSorter: SuffixSorter = {
  name: "skew",
  engine: "cpu",
  description: "parallel DC3 / skew (Karkkainen-Sanders; PBBS parallelKS)",
  maxLength: skewMaxLength,
  // One-shot builds (fresh workers each), median of 7 ms, 1 thread / 2 threads: dickens' first
  // 512 KiB 87 / 113, 1 MiB 253 / 211; random DNA 512 KiB 90 / 147, 1 MiB 146 / 151.
  workersFrom: 1 << 20,
  scratchBytes: (n) => SCRATCH_PER_BYTE * n + SCRATCH_FIXED,
  build: buildSkew,
};

registerSorter(skewSorter);
