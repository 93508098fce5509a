// Segmented sort of (u32 key, u32 value) pairs: wgsl/segmented_sort.wgsl (Wang, Baxter, Owens 4.2).
import { checkBinding, type GpuBatch, pipeline, sharedBytes, tuned, WORKGROUP_SIZE } from "../kernels.js";
import { encodeExclusiveScan } from "./scan.js";

/** Pairs per invocation (a tile is WORKGROUP_SIZE * items pairs): 8 within llvmpipe's 32 KiB of
 * shared memory; 15 where 47 KiB fit (hardware; on an H200 12 was about 25% faster than 8, and 15
 * 7% faster than 12 at 2^26 pairs: 4.87 -> 5.21 G pairs/s). */
export const SEGSORT_ITEMS = 8;
export const SEGSORT_TILE = WORKGROUP_SIZE * SEGSORT_ITEMS;
const SEGSORT_ITEMS_LARGE = 15;

/** The tile the segmented sort uses on this device. */
export function segmentedSortTile(ctx: GpuBatch["ctx"]): number {
  const wanted = tuned("segsort.items", SEGSORT_ITEMS_LARGE);
  const bytes = 3 * 4 * WORKGROUP_SIZE * wanted * (33 / 32) + 64;
  return WORKGROUP_SIZE * (bytes <= sharedBytes(ctx) ? wanted : SEGSORT_ITEMS);
}

/**
 * Sorts the pairs of every segment by key, in place and stably; segments stay where they are.
 * A segment starts at each i with heads[i] != 0 (and at 0). `longest`, when given, bounds the
 * segments' length: at most half a tile, a second blocksort over tiles shifted by half a tile
 * replaces the merge passes (a segment that crosses a tile boundary lies within a shifted tile,
 * and sorting pieces of an already sorted segment keeps it sorted).
 */
export function encodeSegmentedSort(batch: GpuBatch, keys: GPUBuffer, values: GPUBuffer, heads: GPUBuffer, n: number, longest?: number): void {
  if (n <= 1) return;
  const ctx = batch.ctx;
  checkBinding(ctx, "segmented sort", n);
  const tile = segmentedSortTile(ctx);
  const constants = { ITEMS: tile / WORKGROUP_SIZE };
  const spec = { file: "segmented_sort.wgsl", constants, libs: ["merge_path", "tile_load"] };
  const blocksort = pipeline(ctx, { ...spec, entry: "blocksort" });
  const mergePass = pipeline(ctx, { ...spec, entry: "merge_pass" });
  const copyBack = pipeline(ctx, { ...spec, entry: "copy_back" });
  const tiles = Math.ceil(n / tile);

  // label[i] = number of heads in [0, i]: non-decreasing, changing exactly at segment starts
  const labels = batch.scratch(n * 4);
  encodeExclusiveScan(batch, heads, labels, n, { countNonzero: true, inclusive: true });
  batch.dispatch(blocksort, [n, 0, tiles], [labels, keys, values], tiles);
  if (tiles === 1) return;
  if (longest !== undefined && longest <= tile / 2) {
    const shifted = Math.ceil((n - tile / 2) / tile);
    batch.dispatch(blocksort, [n, tile / 2, shifted], [labels, keys, values], shifted);
    return;
  }
  const scratchKeys = batch.scratch(n * 4);
  const scratchValues = batch.scratch(n * 4);
  for (let width = tile; width < n; width *= 2) {
    const bindings = [labels, keys, values, scratchKeys, scratchValues];
    batch.dispatch(mergePass, [n, width, tiles], bindings, tiles);
    batch.dispatch(copyBack, [n, width, tiles], bindings, tiles);
  }
}
