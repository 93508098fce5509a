// Segmented sort of (u32 or u64 key, u32 value) pairs: wgsl/segmented_sort.wgsl (Wang, Baxter, Owens 4.2).
import { checkBinding, type GpuBatch, pipeline, sharedBytes, tuned, WORKGROUP_SIZE } from "../kernels.js";
import { encodeExclusiveScan } from "./scan.js";

/** Pairs per invocation (a tile is WORKGROUP_SIZE * items pairs): 8 within llvmpipe's 32 KiB of
 * shared memory; 15 where 47 KiB fit (hardware; on an H200 12 was about 25% faster than 8, and 15
 * 7% faster than 12 at 2^26 pairs: 4.87 -> 5.21 G pairs/s), rounded down to a multiple of the
 * merge passes' items (tileItems). */
export const SEGSORT_ITEMS = 8;
export const SEGSORT_TILE = WORKGROUP_SIZE * SEGSORT_ITEMS;
const SEGSORT_ITEMS_LARGE = 15;

/**
 * Pairs per invocation of a merge pass ("segsort.mergeItems"). Merge passes write output tiles of
 * their own, a divisor of the blocksort's (so that each lies in one pair of runs): short serial
 * merges in many small tiles hide the loads' latency better, as in merge.ts. H200, nci's two
 * largest gpu-spd rounds, merge passes with their copying back: 11 pairs per invocation (the
 * blocksort's) 6.45 + 3.53 ms, 5 (blocksort 10) 5.17 + 2.83, 2 (blocksort 10) 4.84 + 2.76.
 */
const MERGE_ITEMS = 2;

/** Pairs per invocation of the blocksort and of the merge passes, for keys of `keyWords` u32. */
function tileItems(ctx: GpuBatch["ctx"], keyWords: 1 | 2): { block: number; merge: number } {
  const wanted = tuned("segsort.items", SEGSORT_ITEMS_LARGE);
  const perItem = (2 + keyWords) * 4 * WORKGROUP_SIZE * (33 / 32);
  const fitting = Math.floor((sharedBytes(ctx) - 64) / perItem);
  const items = keyWords === 1 ? (wanted <= fitting ? wanted : SEGSORT_ITEMS) : Math.max(1, Math.min(wanted, fitting));
  const merge = tuned("segsort.mergeItems", MERGE_ITEMS);
  return items < merge ? { block: items, merge: items } : { block: items - (items % merge), merge };
}

/** The tile the segmented sort uses on this device for keys of `keyWords` u32 (1 or 2). u32 keys:
 * SEGSORT_ITEMS_LARGE pairs per invocation where they fit, else SEGSORT_ITEMS; u64 keys: as many
 * as fit, up to SEGSORT_ITEMS_LARGE; both rounded down to a multiple of the merge passes' items
 * (u32: 14 on an H200, 8 on llvmpipe; u64: 10 in an H200's 48 KiB, 6 in llvmpipe's 32 KiB). */
export function segmentedSortTile(ctx: GpuBatch["ctx"], keyWords: 1 | 2 = 1): number {
  return WORKGROUP_SIZE * tileItems(ctx, keyWords).block;
}

/**
 * Segments of at most this many pairs are sorted without merge passes whatever the key width
 * (half the smaller tile): callers that bound their segments by it may pass that bound as `longest`.
 */
export function shortSegmentBound(ctx: GpuBatch["ctx"]): number {
  return Math.min(segmentedSortTile(ctx, 1), segmentedSortTile(ctx, 2)) / 2;
}

/**
 * The blocksort's workgroup: WORKGROUP_SIZE * f invocations of items / f pairs each (the same
 * tile), for the largest power of two f up to BLOCKSORT_WIDTH ("segsort.blocksortWidth") that
 * divides the items and that the device allows. Shorter serial merges per invocation: H200, nci's
 * gpu-spd rounds h=9/27/81/243, blocksorts 2.49/2.27/1.45/1.10 ms with 256 invocations of 10 pairs,
 * 1.89/1.69/1.05/0.86 with 512 of 5; mr's 0.39/0.35/0.22 -> 0.31/0.27/0.17.
 */
const BLOCKSORT_WIDTH = 2;

function blocksortShape(ctx: GpuBatch["ctx"], items: number): { constants: { ITEMS: number; WG: number } } {
  const limit = Math.min(ctx.device.limits.maxComputeInvocationsPerWorkgroup, ctx.device.limits.maxComputeWorkgroupSizeX);
  let f = tuned("segsort.blocksortWidth", BLOCKSORT_WIDTH);
  while (f > 1 && (items % f !== 0 || WORKGROUP_SIZE * f > limit)) f >>= 1;
  return { constants: { ITEMS: items / f, WG: WORKGROUP_SIZE * f } };
}

export interface SegmentedSortOptions {
  /** An upper bound of the segments' length, when known (see encodeSegmentedSort). */
  longest?: number;
  /** High words of 64-bit keys (`keys` then holds the low words): pairs sort by (high, low). */
  keysHigh?: GPUBuffer;
}

/**
 * Sorts the pairs of every segment by key, in place and stably; segments stay where they are.
 * A segment starts at each i with heads[i] != 0 (and at 0). `longest`, when given, bounds the
 * segments' length: at most half a tile, a second blocksort over tiles shifted by half a tile
 * replaces the merge passes (a segment that crosses a tile boundary lies within a shifted tile,
 * and sorting pieces of an already sorted segment keeps it sorted); longer, the doubling merge
 * passes stop at runs of `longest` pairs, and two passes of that width (the second over runs
 * shifted by one) finish, since such a segment crosses one run boundary at most.
 */
export function encodeSegmentedSort(batch: GpuBatch, keys: GPUBuffer, values: GPUBuffer, heads: GPUBuffer, n: number, options: SegmentedSortOptions = {}): void {
  if (n <= 1) return;
  const ctx = batch.ctx;
  checkBinding(ctx, "segmented sort", n);
  const { longest, keysHigh } = options;
  const keyWords = keysHigh ? 2 : 1;
  const items = tileItems(ctx, keyWords);
  const tile = WORKGROUP_SIZE * items.block;
  const constants = { ITEMS: items.block };
  const spec = { file: "segmented_sort.wgsl", constants, libs: ["merge_path", "tile_load", `segsort_key${32 * keyWords}`] };
  const blocksort = pipeline(ctx, { ...spec, ...blocksortShape(ctx, items.block), entry: "blocksort" });
  const segmentStarts = pipeline(ctx, { ...spec, entry: "segment_starts" });
  // merge passes write output tiles of their own (a divisor of the blocksort's); the copies back
  // go by the blocksort's tiles, whose fewer workgroups each find the crossing segment once
  const mergePass = pipeline(ctx, { ...spec, constants: { ITEMS: items.merge }, entry: "merge_pass" });
  const copyBack = pipeline(ctx, { ...spec, entry: "copy_back" });
  const tiles = Math.ceil(n / tile);
  const mergeTiles = Math.ceil(n / (WORKGROUP_SIZE * items.merge));
  // label[i] = number of heads in [0, i]: non-decreasing, changing exactly at segment starts
  const labels = batch.scratch(n * 4);
  encodeExclusiveScan(batch, heads, labels, n, { countNonzero: true, inclusive: true });
  // bindings 1-8: labels, keys, values, scratch keys and values, the high words (u64 keys), and
  // the segments' starts (merge passes)
  const bind = (scratchKeys?: GPUBuffer, scratchValues?: GPUBuffer, scratchHigh?: GPUBuffer, starts?: GPUBuffer): (GPUBuffer | undefined)[] =>
    [labels, keys, values, scratchKeys, scratchValues, keysHigh, scratchHigh, starts];
  batch.dispatch(blocksort, [n, 0, tiles, 0], bind(), tiles);
  if (tiles === 1) return;
  if (longest !== undefined && longest <= tile / 2) {
    const shifted = Math.ceil((n - tile / 2) / tile);
    batch.dispatch(blocksort, [n, tile / 2, shifted, 0], bind(), shifted);
    return;
  }
  // starts[label] = where the segment of that label begins (labels <= n, and one past the last)
  const starts = batch.scratch((n + 2) * 4);
  batch.dispatch(segmentStarts, [n, 0, 0, 0], [labels, undefined, undefined, undefined, undefined, undefined, undefined, starts], Math.ceil(n / WORKGROUP_SIZE));
  const bindings = bind(batch.scratch(n * 4), batch.scratch(n * 4), keysHigh ? batch.scratch(n * 4) : undefined, starts);
  const merge = (width: number, origin: number) => {
    batch.dispatch(mergePass, [n, width, mergeTiles, origin], bindings, mergeTiles);
    batch.dispatch(copyBack, [n, width, tiles, origin], bindings, tiles);
  };
  // Merge passes double the sorted runs. Once the runs are at least `longest` long, a segment
  // crosses at most one run boundary: one pass merges the odd boundaries, one over runs shifted
  // by a run the even ones, instead of the log2(n / width) passes left.
  let width = tile;
  while (width < n && (longest === undefined || width < longest)) {
    merge(width, 0);
    width *= 2;
  }
  if (width < n) {
    merge(width, 0);
    if (2 * width < n) merge(width, width);
  }
}
