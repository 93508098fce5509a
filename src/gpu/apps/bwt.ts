// The BWT on the GPU from a suffix array still on the device (wgsl/bwt.wgsl): a GPU sorter hands its
// SA over (BuildContext.consumeDeviceSuffixArray), two dispatches derive the rows of L and the
// primary index, and only the n + 1 row bytes (packed 4 per u32) and the primary index come back,
// never the 4n-byte SA. A sorter that writes its SA piece by piece (its last merge) hands over the
// producer too: each piece of L is then derived and read back while the GPU merges the next.
// Convention and file format: src/apps/bwt.ts. Limits: the sorter's (an SA over one binding is read
// window by window).
import type { GpuContext } from "../device.js";
import { bindingWindow, GpuBatch, pipeline, WORKGROUP_SIZE } from "../kernels.js";
import { downloadSuffixArray, type ProducePiece } from "../algorithms/io.js";

/** u32 words of the rows of L (n + 1 bytes, packed 4 per u32). */
function rowWords(n: number): number {
  return Math.ceil((n + 1) / 4);
}

/** u32 words of the GPU BWT's output for n bytes: the rows of L, then the primary index. */
export function bwtWords(n: number): number {
  return rowWords(n) + 1;
}

/** The binding of the SA's window from entry `base` (a multiple of 64: binding offsets are multiples of 256 bytes). */
function saWindow(sa: GPUBuffer, n: number, window: number, base: number): GPUBufferBinding {
  return { buffer: sa, offset: 4 * base, size: 4 * Math.min(window, n - base) };
}

/** Encodes find_primary over the SA entries [from, to), window by window. */
function encodeFindPrimary(batch: GpuBatch, sa: GPUBuffer, out: GPUBuffer, n: number, from: number, to: number): void {
  const window = bindingWindow(batch.ctx, "bwt.window", 128);
  const find = pipeline(batch.ctx, { file: "bwt.wgsl", entry: "find_primary" });
  for (let a = from; a < to; ) {
    const base = a - (a % 64);
    const end = Math.min(to, base + window);
    batch.dispatch(find, [n, rowWords(n), base, a, end], [undefined, saWindow(sa, n, window, base), out], Math.ceil((end - a) / WORKGROUP_SIZE));
    a = end;
  }
}

/** Encodes gather over the row words [first, end): word w reads SA[4w - 1 .. 4w + 2]. */
function encodeGatherRows(batch: GpuBatch, text: GPUBuffer, sa: GPUBuffer, out: GPUBuffer, n: number, first: number, end: number): void {
  const window = bindingWindow(batch.ctx, "bwt.window", 128); // >= 128: each window writes 16 words or more
  const gather = pipeline(batch.ctx, { file: "bwt.wgsl", entry: "gather" });
  for (let a = first; a < end; ) {
    const lowest = Math.max(0, 4 * a - 1);
    const base = lowest - (lowest % 64);
    const b = Math.min(end, Math.floor((base + window + 1) / 4));
    batch.dispatch(gather, [n, rowWords(n), base, a, b], [text, saWindow(sa, n, window, base), out], Math.ceil((b - a) / WORKGROUP_SIZE));
    a = b;
  }
}

/**
 * Derives the BWT of the n >= 2 bytes of `text` (packed 4 per u32) on the device from their SA (n u32
 * in `sa`; with `produce`, written by it piece by piece, in order) and reads it into `target`
 * (bwtWords(n) u32, e.g. a view of the build's SA region in the heap): the n + 1 rows of L, bytes
 * 0..n, of which the primary row (a 0 byte) is no part of the stored BWT, then the primary index,
 * which it returns.
 */
export async function bwtOnDevice(gpu: GpuContext, sa: GPUBuffer, text: GPUBuffer, n: number, target: Uint32Array, produce?: ProducePiece): Promise<number> {
  if (n < 2) throw new Error("sufsort: bwtOnDevice needs n >= 2");
  const words = bwtWords(n);
  const out = gpu.pool.acquire(4 * words, undefined, "BWT");
  let ready = 0; // SA entries produced and searched for the primary row so far
  try {
    // a piece of output words [first, end) needs the SA entries before 4 end - 1; the primary
    // index (the last word) needs them all
    await downloadSuffixArray(gpu, out, target.subarray(0, words), (batch, first, end) => {
      const needed = end >= words ? n : Math.min(n, 4 * end - 1);
      if (needed > ready) {
        produce?.(batch, ready, needed);
        encodeFindPrimary(batch, sa, out, n, ready, needed);
        ready = needed;
      }
      encodeGatherRows(batch, text, sa, out, n, first, Math.min(end, words - 1));
    });
    return target[words - 1];
  } finally {
    gpu.pool.release(out);
    gpu.pool.afterSubmit();
  }
}
