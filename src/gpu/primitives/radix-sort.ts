// Stable LSD radix sort of (u32 key, u32 value) and (u64 key, u32 value) pairs: wgsl/radix_sort.wgsl.
// A u64 key is two u32 buffers (low words, high words), so every array is addressed in u32 and a
// binding holds up to maxStorageBufferBindingSize / 4 elements.
import { failure } from "../../errors.js";
import { checkBinding, type GpuBatch, pipeline, sharedBytes, tuned, WORKGROUP_SIZE } from "../kernels.js";
import { encodeExclusiveScan } from "./scan.js";

/** Bits per pass (16 buckets: the count matrix fits shared memory on every adapter). */
export const RADIX_BITS = 4;
/** Pairs per invocation by key width: what fits 32 KiB of shared memory (llvmpipe) and, on devices
 * with 48 KiB (hardware), 16 for u32 keys (about 15% faster than 8 on an H200) and 12 for u64 keys
 * (H200, 2^26 pairs: 2.42 -> 3.39 G pairs/s against 6; 10 gave 3.15). */
const ITEMS_BY_KEY_WORDS = [0, 8, 6] as const;
const ITEMS_LARGE = [0, 16, 12] as const;

/** Shared memory the scatter kernel needs (stage arrays, count matrix, histogram, scan). */
function scatterSharedBytes(keyWords: number, items: number): number {
  const tile = WORKGROUP_SIZE * items;
  return 4 * ((1 + keyWords) * (tile + tile / 32) + (WORKGROUP_SIZE << RADIX_BITS) / 2 + 8 * (1 << RADIX_BITS) + 16 + WORKGROUP_SIZE + 8);
}

export interface RadixSortOptions {
  /** First key bit to sort by (default 0). */
  beginBit?: number;
  /** One past the last key bit to sort by (default the key width): bits outside are assumed equal. */
  endBit?: number;
}

/** Sorts n (u32 key, u32 value) pairs in place, stably, by key bits [beginBit, endBit). */
export function encodeRadixSortPairs(batch: GpuBatch, keys: GPUBuffer, values: GPUBuffer, n: number, options: RadixSortOptions = {}): void {
  sortPairs(batch, 1, keys, undefined, values, n, options);
}

/** Sorts n (u64 key, u32 value) pairs in place, stably; the key of pair i is keysHigh[i] * 2^32 + keysLow[i]. */
export function encodeRadixSortPairs64(
  batch: GpuBatch,
  keysLow: GPUBuffer,
  keysHigh: GPUBuffer,
  values: GPUBuffer,
  n: number,
  options: RadixSortOptions = {},
): void {
  sortPairs(batch, 2, keysLow, keysHigh, values, n, options);
}

interface Pass {
  word: number;
  shift: number;
  bits: number;
}

/** The digit passes over [begin, end): RADIX_BITS at a time, never straddling a key word. */
export function radixPasses(begin: number, end: number): Pass[] {
  const passes: Pass[] = [];
  for (let bit = begin; bit < end; ) {
    const shift = bit % 32;
    const bits = Math.min(RADIX_BITS, end - bit, 32 - shift);
    passes.push({ word: Math.floor(bit / 32), shift, bits });
    bit += bits;
  }
  return passes;
}

function sortPairs(
  batch: GpuBatch,
  keyWords: 1 | 2,
  keysLow: GPUBuffer,
  keysHigh: GPUBuffer | undefined,
  values: GPUBuffer,
  n: number,
  options: RadixSortOptions,
): void {
  const width = 32 * keyWords;
  const begin = options.beginBit ?? 0;
  const end = options.endBit ?? width;
  if (!(Number.isInteger(begin) && Number.isInteger(end) && 0 <= begin && begin <= end && end <= width)) {
    throw failure(`GPU radix sort: bit range [${begin}, ${end}) is not within a ${width}-bit key`);
  }
  if (n <= 1 || begin === end) return;
  const ctx = batch.ctx;
  checkBinding(ctx, "radix sort", n);
  const wanted = tuned(`radix${32 * keyWords}.items`, ITEMS_LARGE[keyWords]);
  const items = scatterSharedBytes(keyWords, wanted) <= sharedBytes(ctx) ? wanted : ITEMS_BY_KEY_WORDS[keyWords];
  const tile = WORKGROUP_SIZE * items;
  const tiles = Math.ceil(n / tile);
  const bins = 1 << RADIX_BITS;
  checkBinding(ctx, "radix sort (count matrix)", tiles * bins);
  const constants = { ITEMS: items, KEY_WORDS: keyWords, RADIX_BITS };
  const spec = { file: "radix_sort.wgsl", constants, libs: ["wg_scan", "tile_load"] };
  const histogram = pipeline(ctx, { ...spec, entry: "histogram" });
  const scatter = pipeline(ctx, { ...spec, entry: "scatter" });

  const bytes = n * 4;
  const counts = batch.scratch(tiles * bins * 4);
  const offsets = batch.scratch(tiles * bins * 4);
  const spareLow = batch.scratch(bytes);
  // u32 keys: the shader never touches the high words; the low words (read) and a 4-byte
  // placeholder (written) fill those bindings.
  const placeholder = keyWords === 1 ? batch.scratch(4) : undefined;
  const spareHigh = keyWords === 2 ? batch.scratch(bytes) : keysLow;
  const spareValues = batch.scratch(bytes);
  let source = { low: keysLow, high: keysHigh ?? keysLow, values };
  let target = { low: spareLow, high: spareHigh, values: spareValues };

  for (const pass of radixPasses(begin, end)) {
    const params = [n, tiles, pass.word, pass.shift, (1 << pass.bits) - 1];
    const sourceHigh = placeholder ? source.low : source.high;
    const targetHigh = placeholder ?? target.high;
    batch.dispatch(histogram, params, [source.low, sourceHigh, undefined, counts], tiles);
    encodeExclusiveScan(batch, counts, offsets, tiles * bins);
    batch.dispatch(
      scatter,
      params,
      [source.low, sourceHigh, source.values, undefined, offsets, target.low, targetHigh, target.values],
      tiles,
    );
    [source, target] = [target, source];
  }
  if (source.low !== keysLow) {
    batch.copy(source.low, 0, keysLow, 0, bytes);
    if (keysHigh) batch.copy(source.high, 0, keysHigh, 0, bytes);
    batch.copy(source.values, 0, values, 0, bytes);
  }
}
