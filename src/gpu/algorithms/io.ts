// What every GPU sorter does at its edges: find the device in the BuildContext, upload the text
// from the shared WebAssembly heap, and read the SA back into it. writeBuffer cannot take views of
// shared memory, so data goes through mappable staging buffers.
//
// Staging buffers are kept per device and reused by later builds: on the H200 the SA readback of
// 128 MiB of text took 194 ms with a new 512 MiB readback buffer and 95 ms with a kept one, and the
// host's part of the text upload 30 ms against 9 ms (bench/gpu-io.mjs). A kept upload buffer is
// re-mapped right after its copy is queued, so the next build finds it ready. The SA comes back in
// 32 MiB chunks through 4 kept buffers, the heap copy of one chunk overlapping the GPU copies of
// the next; a sorter whose last step is a merge (gpu-skew, gpu-spd) has it done in 4 MiB pieces
// right before each piece's copy, so that the merge overlaps the host's copying too. A build that
// finds them busy (builds running at the same time on one device) uses fresh ones. The kept
// buffers are host memory (the largest text, and 128 MiB) until the device is released.
import { suffixArrayOf, type BuildContext } from "../../engine/registry.js";
import { failure } from "../../errors.js";
import { sizeClass, STORAGE_USAGE } from "../buffers.js";
import type { GpuContext } from "../device.js";
import { GpuBatch, tuned } from "../kernels.js";

const MAP_READ = 0x1;
const MAP_WRITE = 0x2;
const COPY_SRC = 0x4;
const COPY_DST = 0x8;

interface Staging {
  buffer: GPUBuffer;
  /** Resolves when the buffer is mapped again (write staging) or idle (read staging). */
  ready: Promise<void>;
  busy: boolean;
}

interface ReadStaging {
  buffers: GPUBuffer[];
  busy: boolean;
}

const kept = new WeakMap<GpuContext, { write?: Staging; read?: ReadStaging }>();

function stagingOf(gpu: GpuContext): { write?: Staging; read?: ReadStaging } {
  let entry = kept.get(gpu);
  if (!entry) kept.set(gpu, (entry = {}));
  return entry;
}

export function requireGpu(ctx: BuildContext, algorithm: string): GpuContext {
  const gpu = ctx.gpu;
  if (gpu === undefined) throw failure(`algorithm ${algorithm} runs on the GPU, but no GPU device was given (BuildContext.gpu)`);
  if (gpu.closed) throw failure(`algorithm ${algorithm}: the GPU device was released or lost`);
  return gpu;
}

/**
 * Largest n for which a pooled buffer of n + extra u32 can be bound whole: the pool rounds sizes up
 * to a size class (buffers.ts sizeClass), and primitives bind whole buffers, so the class,
 * not the request, must fit maxStorageBufferBindingSize (2^31 - 4 on the H100/H200: n + extra <=
 * 528,482,304, the class of 63/64 of 2 GiB).
 */
export function maxPooledLength(gpu: GpuContext, extra = 0): number {
  const fits = (n: number) => sizeClass(4 * (n + extra)) <= gpu.maxBindingBytes;
  let lo = 0;
  let hi = Math.min(Math.floor(gpu.maxBindingBytes / 4), 2 ** 31 - 1);
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (fits(mid)) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** A storage buffer (destroy it when done) with the text packed 4 bytes per u32, zero-padded. */
export async function uploadText(gpu: GpuContext, text: Uint8Array): Promise<GPUBuffer> {
  const size = Math.max(4, Math.ceil(text.length / 4) * 4);
  const target = gpu.device.createBuffer({ size, usage: STORAGE_USAGE, label: "text" });
  const entry = stagingOf(gpu);
  let staging = entry.write;
  if (staging && !staging.busy && staging.buffer.size >= size) {
    staging.busy = true;
    await gpu.race(staging.ready);
  } else if (!staging || !staging.busy) {
    staging?.buffer.destroy();
    const buffer = gpu.device.createBuffer({ size, usage: MAP_WRITE | COPY_SRC, mappedAtCreation: true, label: "text staging" });
    staging = entry.write = { buffer, ready: Promise.resolve(), busy: true };
  } else {
    const buffer = gpu.device.createBuffer({ size, usage: MAP_WRITE | COPY_SRC, mappedAtCreation: true, label: "text staging (one use)" });
    staging = { buffer, ready: Promise.resolve(), busy: true };
  }
  const range = new Uint8Array(staging.buffer.getMappedRange(0, size));
  range.set(text);
  range.fill(0, text.length);
  staging.buffer.unmap();
  const encoder = gpu.device.createCommandEncoder({ label: "text upload" });
  encoder.copyBufferToBuffer(staging.buffer, 0, target, 0, size);
  gpu.device.queue.submit([encoder.finish()]);
  if (staging === entry.write) {
    const mapped = staging.buffer.mapAsync(MAP_WRITE);
    mapped.catch(() => undefined); // a device lost meanwhile surfaces through gpu.race later
    staging.ready = mapped;
    staging.busy = false;
  } else {
    staging.buffer.destroy(); // destruction waits for the queued copy
  }
  gpu.check();
  return target;
}

/** Encodes the work that writes entries [first, end) of an SA buffer (a sorter's last step). */
export type ProducePiece = (batch: GpuBatch, first: number, end: number) => void;

/**
 * A GPU sorter's last step: hands the SA (n u32 in `sa`) and the packed text to the build's
 * consumer when it has one, else reads the SA back to where the build leaves it (suffixArrayOf). With `produce`,
 * the SA is not written yet: its pieces are produced as they are read back, so that the GPU's
 * last step (a merge) overlaps the host's copy of the pieces before.
 */
export async function deliverSuffixArray(ctx: BuildContext, gpu: GpuContext, sa: GPUBuffer, text: GPUBuffer, produce?: ProducePiece): Promise<void> {
  if (ctx.consumeDeviceSuffixArray) {
    if (produce) {
      const batch = new GpuBatch(gpu, "SA");
      produce(batch, 0, ctx.n);
      batch.submit();
    }
    await ctx.consumeDeviceSuffixArray(gpu, sa, text, ctx);
  } else {
    await downloadSuffixArray(gpu, sa, suffixArrayOf(ctx), produce);
  }
}

/** The SA comes back in chunks of this many bytes through READ_BUFFERS kept buffers, so that the
 * copy of one chunk into the heap overlaps the GPU's copy of the next ones ("io.readChunk"
 * overrides it: tests use small chunks). */
const READ_CHUNK = 32 * 2 ** 20;
/**
 * Chunks of an SA produced piece by piece (deliverSuffixArray's `produce`): smaller, so that the
 * GPU's work on the first piece, which nothing overlaps, is short.
 */
const PRODUCED_CHUNK = 4 * 2 ** 20;
const READ_BUFFERS = 4;

/** Copies the first target.length u32 of `source` into `target` (a view of the shared heap); any
 * u32 data may come back this way (the GPU BWT does). With `produce`, each chunk's entries are
 * written on the GPU right before its copy. */
export async function downloadSuffixArray(gpu: GpuContext, source: GPUBuffer, target: Uint32Array, produce?: ProducePiece): Promise<void> {
  if (target.length === 0) return;
  const bytes = target.byteLength;
  const wanted = tuned("io.readChunk", produce ? PRODUCED_CHUNK : READ_CHUNK);
  const chunk = Math.min(Math.max(4, wanted - (wanted % 4)), bytes);
  const chunks = Math.ceil(bytes / chunk);
  const entry = stagingOf(gpu);
  let set = entry.read;
  let keep = true;
  if (!set || set.busy || set.buffers[0].size < chunk) {
    const buffers = Array.from({ length: Math.min(READ_BUFFERS, chunks) }, () =>
      gpu.device.createBuffer({ size: chunk, usage: MAP_READ | COPY_DST, label: "SA readback" }),
    );
    if (set && !set.busy) for (const buffer of set.buffers) buffer.destroy();
    if (set?.busy) keep = false;
    set = { buffers, busy: true };
    if (keep) entry.read = set;
  } else if (set.buffers.length < Math.min(READ_BUFFERS, chunks)) {
    while (set.buffers.length < Math.min(READ_BUFFERS, chunks)) {
      set.buffers.push(gpu.device.createBuffer({ size: set.buffers[0].size, usage: MAP_READ | COPY_DST, label: "SA readback" }));
    }
  }
  set.busy = true;
  const staging = set.buffers;
  const heapBytes = new Uint8Array(target.buffer, target.byteOffset, bytes);
  const sizeOf = (k: number) => Math.min(chunk, bytes - k * chunk);
  const mapped: Promise<undefined>[] = [];
  const start = (k: number) => {
    const buffer = staging[k % staging.length];
    const batch = new GpuBatch(gpu, "SA readback");
    produce?.(batch, (k * chunk) / 4, (k * chunk + sizeOf(k)) / 4);
    batch.copy(source, k * chunk, buffer, 0, sizeOf(k));
    batch.submit();
    mapped[k] = buffer.mapAsync(MAP_READ, 0, sizeOf(k));
    mapped[k].catch(() => undefined); // awaited below through gpu.race
  };
  try {
    for (let k = 0; k < Math.min(staging.length, chunks); k++) start(k);
    for (let k = 0; k < chunks; k++) {
      const buffer = staging[k % staging.length];
      await gpu.race(mapped[k]);
      heapBytes.set(new Uint8Array(buffer.getMappedRange(0, sizeOf(k))), k * chunk);
      buffer.unmap();
      if (k + staging.length < chunks) start(k + staging.length);
    }
  } catch (error) {
    keep = false;
    throw error;
  } finally {
    set.busy = false;
    if (!keep) {
      if (entry.read === set) entry.read = undefined;
      for (const buffer of staging) buffer.destroy();
    }
  }
}
