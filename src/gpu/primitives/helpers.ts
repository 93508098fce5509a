// Element-wise helpers: iota/fill, gather, scatter, head flags (wgsl/helpers.wgsl).
import { type Binding, checkBinding, type GpuBatch, pipeline, WORKGROUP_SIZE } from "../kernels.js";

function run(batch: GpuBatch, entry: string, n: number, params: number[], bindings: (Binding | undefined)[]): void {
  if (n === 0) return;
  checkBinding(batch.ctx, entry, n);
  const pipe = pipeline(batch.ctx, { file: "helpers.wgsl", entry });
  batch.dispatch(pipe, [n, ...params], bindings, Math.ceil(n / WORKGROUP_SIZE));
}

/** destination[i] = start + step * i (mod 2^32) for i < n; step 0 fills with `start`. The
 * destination may be a window of a buffer (offset a multiple of 256 bytes). */
export function encodeIota(batch: GpuBatch, destination: Binding, n: number, start = 0, step = 1): void {
  run(batch, "iota", n, [start, step], [undefined, undefined, destination]);
}

/** destination[i] = source[index[i]] for i < n (indices must lie within source). */
export function encodeGather(batch: GpuBatch, source: GPUBuffer, index: GPUBuffer, destination: GPUBuffer, n: number): void {
  run(batch, "gather", n, [], [source, index, destination]);
}

/** destination[index[i]] = source[i] for i < n (indices must lie within destination; duplicates race). */
export function encodeScatter(batch: GpuBatch, source: GPUBuffer, index: GPUBuffer, destination: GPUBuffer, n: number): void {
  run(batch, "scatter", n, [], [source, index, destination]);
}

/** flags[i] = 1 if i = 0 or keys[i] != keys[i-1], else 0 (u32 keys, or u64 keys as low + high words). */
export function encodeHeadFlags(batch: GpuBatch, keys: GPUBuffer, flags: GPUBuffer, n: number, keysHigh?: GPUBuffer): void {
  if (keysHigh) run(batch, "head_flags64", n, [], [keys, undefined, flags, keysHigh]);
  else run(batch, "head_flags", n, [], [keys, undefined, flags]);
}
