// What every GPU sorter does at its edges: find the device in the BuildContext, upload the text
// from the shared WebAssembly heap, and read the SA back into it. writeBuffer cannot take views of
// shared memory, so data goes through buffers mapped at creation / for reading.
import type { BuildContext } from "../../engine/registry.js";
import { failure } from "../../errors.js";
import { STORAGE_USAGE } from "../buffers.js";
import type { GpuContext } from "../device.js";

export function requireGpu(ctx: BuildContext, algorithm: string): GpuContext {
  const gpu = ctx.gpu;
  if (gpu === undefined) throw failure(`algorithm ${algorithm} runs on the GPU, but no GPU device was given (BuildContext.gpu)`);
  if (gpu.closed) throw failure(`algorithm ${algorithm}: the GPU device was released or lost`);
  return gpu;
}

/** A storage buffer with the text packed 4 bytes per u32 (little-endian), zero-padded to a word. */
export function uploadText(gpu: GpuContext, text: Uint8Array): GPUBuffer {
  const size = Math.max(4, Math.ceil(text.length / 4) * 4);
  const buffer = gpu.device.createBuffer({ size, usage: STORAGE_USAGE, mappedAtCreation: true, label: "text" });
  new Uint8Array(buffer.getMappedRange()).set(text);
  buffer.unmap();
  gpu.check();
  return buffer;
}

/** Copies the first target.length u32 of `source` into `target` (a view of the shared heap). */
export async function downloadSuffixArray(gpu: GpuContext, source: GPUBuffer, target: Uint32Array): Promise<void> {
  if (target.length === 0) return;
  const bytes = target.byteLength;
  const staging = gpu.device.createBuffer({ size: bytes, usage: 0x1 /* MAP_READ */ | 0x8 /* COPY_DST */, label: "SA readback" });
  try {
    const encoder = gpu.device.createCommandEncoder({ label: "SA readback" });
    encoder.copyBufferToBuffer(source, 0, staging, 0, bytes);
    gpu.device.queue.submit([encoder.finish()]);
    await gpu.race(staging.mapAsync(1 /* READ */));
    target.set(new Uint32Array(staging.getMappedRange(0, bytes)));
  } finally {
    staging.destroy();
  }
}
