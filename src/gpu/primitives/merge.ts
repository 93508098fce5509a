// Stable merge of two sorted runs of (u32 key, u32 value) pairs by merge path: wgsl/merge.wgsl.
import { checkBinding, type GpuBatch, pipeline, sharedBytes, tuned, WORKGROUP_SIZE } from "../kernels.js";

/** Outputs per invocation (a tile is WORKGROUP_SIZE * items outputs). On an H200 at 2^27 pairs,
 * 4 items ran at 66% of the streaming bandwidth, 8 at 53%, 16 at 21%: short serial merges and many
 * small tiles hide latency best. A tuned value that does not fit shared memory falls back to 4. */
export const MERGE_ITEMS = 4;
export const MERGE_ITEMS_SMALL = 4;

function mergeItems(ctx: GpuBatch["ctx"]): number {
  const items = tuned("merge.items", MERGE_ITEMS);
  const bytes = 2 * 4 * WORKGROUP_SIZE * items * (33 / 32);
  return bytes <= sharedBytes(ctx) ? items : MERGE_ITEMS_SMALL;
}

export interface SortedRun {
  keys: GPUBuffer;
  values: GPUBuffer;
  /** Pairs in the run (keys non-decreasing). */
  n: number;
}

/** Writes the stable merge of `a` and `b` (ties: a first) to output keys/values[0 .. a.n + b.n). */
export function encodeMerge(batch: GpuBatch, a: SortedRun, b: SortedRun, output: { keys: GPUBuffer; values: GPUBuffer }): void {
  const total = a.n + b.n;
  if (total === 0) return;
  const ctx = batch.ctx;
  checkBinding(ctx, "merge", total);
  const items = mergeItems(ctx);
  const constants = { ITEMS: items };
  const partition = pipeline(ctx, { file: "merge.wgsl", entry: "find_splits", constants, libs: ["merge_path"] });
  const merge = pipeline(ctx, { file: "merge.wgsl", entry: "merge", constants, libs: ["merge_path"] });
  const tiles = Math.ceil(total / (WORKGROUP_SIZE * items));
  const splits = batch.scratch((tiles + 1) * 4);
  // Empty runs still need a binding: the other run's buffers stand in (never read).
  const aKeys = a.n > 0 ? a.keys : b.keys;
  const aValues = a.n > 0 ? a.values : b.values;
  const bKeys = b.n > 0 ? b.keys : a.keys;
  const bValues = b.n > 0 ? b.values : a.values;
  const params = [a.n, b.n, tiles];
  batch.dispatch(partition, params, [aKeys, undefined, bKeys, undefined, splits], Math.ceil((tiles + 1) / WORKGROUP_SIZE));
  batch.dispatch(merge, params, [aKeys, aValues, bKeys, bValues, splits, output.keys, output.values], tiles);
}
