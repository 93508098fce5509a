// Stable LSD radix sort of (u32 key, u32 value) and (u64 key, u32 value) pairs: wgsl/radix_sort.wgsl,
// by 4-bit digits; on devices whose subgroups have 32 lanes or more, by 8-bit digits ranked with
// subgroup ballots (wgsl/radix_sort_wide.wgsl), half the passes.
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

/**
 * Bits per pass of the wide scatter (wgsl/radix_sort_wide.wgsl), on devices whose subgroups have at
 * least WIDE_MIN_SUBGROUP lanes ("radix.wide=0" turns it off), and its pairs per invocation
 * ("radix.wideItems" overrides it): its ranking work grows with the square of that. H200, one sort
 * of 2^24.4 pairs with 58-bit keys (15 passes of 4 bits, or 8 of 8), ms: 4 bits 8.6-8.8; 8 bits
 * with 2 items 9.37, 3 7.51, 4 6.78, 5 9.63, 8 10.58.
 */
const WIDE_BITS = 8;
const WIDE_MIN_SUBGROUP = 32;
const WIDE_ITEMS = 4;

/** Shared memory the wide scatter needs (stage arrays, run counts, digit bases, scan). */
function wideSharedBytes(keyWords: number, items: number): number {
  const tile = WORKGROUP_SIZE * items;
  return 4 * ((1 + keyWords) * (tile + tile / 32) + (1 << WIDE_BITS) * (WORKGROUP_SIZE / 32) + (1 << WIDE_BITS) + WORKGROUP_SIZE + 8);
}

/** Pairs per invocation of the wide scatter for n pairs, or 0 where the 4-bit passes are used. */
function wideItems(ctx: GpuBatch["ctx"], keyWords: number, n: number): number {
  const items = tuned("radix.wideItems", WIDE_ITEMS);
  const countCells = Math.ceil(n / (WORKGROUP_SIZE * items)) << WIDE_BITS;
  const usable =
    ctx.features.subgroups &&
    ctx.features.subgroupMinSize >= WIDE_MIN_SUBGROUP &&
    WORKGROUP_SIZE === 1 << WIDE_BITS && // an invocation per digit
    wideSharedBytes(keyWords, items) <= sharedBytes(ctx) &&
    4 * countCells <= ctx.maxBindingBytes &&
    tuned("radix.wide", 1, 0) === 1;
  return usable ? items : 0;
}

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

/** The digit passes over [begin, end): digitBits at a time, never straddling a key word. */
export function radixPasses(begin: number, end: number, digitBits = RADIX_BITS): Pass[] {
  const passes: Pass[] = [];
  for (let bit = begin; bit < end; ) {
    const shift = bit % 32;
    const bits = Math.min(digitBits, end - bit, 32 - shift);
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
  const wideWith = wideItems(ctx, keyWords, n);
  const wide = wideWith > 0;
  const digitBits = wide ? WIDE_BITS : RADIX_BITS;
  const wanted = tuned(`radix${32 * keyWords}.items`, ITEMS_LARGE[keyWords]);
  const items = wide ? wideWith : scatterSharedBytes(keyWords, wanted) <= sharedBytes(ctx) ? wanted : ITEMS_BY_KEY_WORDS[keyWords];
  const tile = WORKGROUP_SIZE * items;
  const tiles = Math.ceil(n / tile);
  const bins = 1 << digitBits;
  checkBinding(ctx, "radix sort (count matrix)", tiles * bins);
  const constants = { ITEMS: items, KEY_WORDS: keyWords, RADIX_BITS: digitBits };
  const spec = { file: "radix_sort.wgsl", constants, libs: ["wg_scan", "tile_load", "radix_pass"] };
  const histogram = pipeline(ctx, { ...spec, entry: "histogram" });
  const scatter = wide
    ? pipeline(ctx, { file: "radix_sort_wide.wgsl", constants: { ITEMS: items, KEY_WORDS: keyWords }, libs: ["wg_scan", "radix_pass"], entry: "scatter_wide" })
    : pipeline(ctx, { ...spec, entry: "scatter" });

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

  for (const pass of radixPasses(begin, end, digitBits)) {
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
