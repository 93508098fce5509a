// The BWT on the GPU from a suffix array still on the device (wgsl/bwt.wgsl): a GPU sorter hands its
// SA over (BuildContext.consumeDeviceSuffixArray), two dispatches derive L and the primary index,
// and only the n BWT bytes (packed 4 per u32) and the primary index come back, never the 4n-byte SA.
// Convention and file format: src/apps/bwt.ts. Limits: the sorter's (an SA over one binding is read
// window by window).
import type { GpuContext } from "../device.js";
import { bindingWindow, GpuBatch, pipeline, WORKGROUP_SIZE } from "../kernels.js";
import { downloadSuffixArray } from "../algorithms/io.js";

/** u32 words of the GPU BWT's output for n bytes: the packed bytes, then the primary index. */
export function bwtWords(n: number): number {
  return Math.ceil(n / 4) + 1;
}

/**
 * Encodes the BWT of the n >= 2 bytes in `text` (packed 4 per u32) from their SA (n u32 in `sa`)
 * into `out` (bwtWords(n) u32: the stored BWT packed 4 bytes per u32, then the primary index).
 */
export function encodeBwtFromSuffixArray(batch: GpuBatch, text: GPUBuffer, sa: GPUBuffer, out: GPUBuffer, n: number): void {
  if (n < 2) throw new Error("sufsort: encodeBwtFromSuffixArray needs n >= 2");
  const words = Math.ceil(n / 4);
  const window = bindingWindow(batch.ctx, "bwt.window", 128); // >= 128: each gather window writes 64 entries or more
  const saWindow = (base: number) => ({ buffer: sa, offset: 4 * base, size: 4 * Math.min(window, n - base) });
  const find = pipeline(batch.ctx, { file: "bwt.wgsl", entry: "find_primary" });
  for (let base = 0; base < n; base += window) {
    const end = Math.min(n, base + window);
    batch.dispatch(find, [n, words, base, base, end], [undefined, saWindow(base), out], Math.ceil((end - base) / WORKGROUP_SIZE));
  }
  // Output word w reads SA[4w - 1 .. 4w + 3]: each window but the first starts 64 entries (one
  // binding-offset unit) before the words it writes.
  const gather = pipeline(batch.ctx, { file: "bwt.wgsl", entry: "gather" });
  const step = n <= window ? n : window - 64;
  for (let from = 0; from < n; from += step) {
    const base = Math.max(0, from - 64);
    const first = from / 4;
    const end = from + step >= n ? words : (from + step) / 4;
    batch.dispatch(gather, [n, words, base, first, end], [text, saWindow(base), out], Math.ceil((end - first) / WORKGROUP_SIZE));
  }
}

/**
 * Computes the BWT of the n >= 2 bytes on the device into `target` (bwtWords(n) u32, e.g. a view of
 * the build's SA region in the heap): the stored BWT's bytes first, little-endian; returns the
 * primary index.
 */
export async function bwtOnDevice(gpu: GpuContext, sa: GPUBuffer, text: GPUBuffer, n: number, target: Uint32Array): Promise<number> {
  const words = bwtWords(n);
  const out = gpu.pool.acquire(4 * words, undefined, "BWT");
  try {
    const batch = new GpuBatch(gpu, "BWT from SA");
    encodeBwtFromSuffixArray(batch, text, sa, out, n);
    batch.submit();
    await downloadSuffixArray(gpu, out, target.subarray(0, words));
    return target[words - 1];
  } finally {
    gpu.pool.release(out);
    gpu.pool.afterSubmit();
  }
}
