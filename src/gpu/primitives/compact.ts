// Stream compaction by flags: positions = exclusive count of nonzero flags (scan.wgsl), then each
// kept value goes to its position (helpers.wgsl compact_scatter). Order is kept.
import { checkBinding, type GpuBatch, pipeline, WORKGROUP_SIZE } from "../kernels.js";
import { encodeExclusiveScan } from "./scan.js";

/**
 * Writes the values whose flag is nonzero, in order, to `output[0..kept)` and `kept` to count[0].
 * `output` needs room for n values (the count is known only on the device). With `second`, a
 * second value array is compacted by the same flags (one scan for both).
 */
export function encodeCompact(
  batch: GpuBatch, values: GPUBuffer, flags: GPUBuffer, output: GPUBuffer, count: GPUBuffer, n: number,
  second?: { values: GPUBuffer; output: GPUBuffer },
): void {
  if (n === 0) {
    batch.clear(count, 0, 4);
    return;
  }
  checkBinding(batch.ctx, "compaction", n);
  const positions = batch.scratch(n * 4);
  encodeExclusiveScan(batch, flags, positions, n, { countNonzero: true });
  const pipe = pipeline(batch.ctx, { file: "helpers.wgsl", entry: second ? "compact_scatter_pair" : "compact_scatter" });
  const bindings = [values, positions, output, flags, count];
  if (second) bindings.push(second.values, second.output);
  batch.dispatch(pipe, [n], bindings, Math.ceil(n / WORKGROUP_SIZE));
}
