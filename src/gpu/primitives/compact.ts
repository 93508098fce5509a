// Stream compaction by flags: positions = exclusive count of nonzero flags (scan.wgsl), then each
// kept value goes to its position (helpers.wgsl compact_scatter). Order is kept.
import { checkBinding, type GpuBatch, pipeline, WORKGROUP_SIZE } from "../kernels.js";
import { encodeExclusiveScan } from "./scan.js";

/**
 * Writes the values whose flag is nonzero, in order, to `output[0..kept)` and `kept` to count[0].
 * `output` needs room for n values (the count is known only on the device).
 */
export function encodeCompact(batch: GpuBatch, values: GPUBuffer, flags: GPUBuffer, output: GPUBuffer, count: GPUBuffer, n: number): void {
  if (n === 0) {
    batch.clear(count, 0, 4);
    return;
  }
  checkBinding(batch.ctx, "compaction", n);
  const positions = batch.scratch(n * 4);
  encodeExclusiveScan(batch, flags, positions, n, { countNonzero: true });
  const pipe = pipeline(batch.ctx, { file: "helpers.wgsl", entry: "compact_scatter" });
  batch.dispatch(pipe, [n], [values, positions, output, flags, count], Math.ceil(n / WORKGROUP_SIZE));
}
