// What every GPU sorter does at its edges: find the device in the BuildContext, upload the text
// from the shared WebAssembly heap, and read the SA back into it. writeBuffer cannot take views of
// shared memory, so data goes through mappable staging buffers.
//
// Staging buffers are kept per device and reused by later builds: on the H200 the SA readback of
// 128 MiB of text took 194 ms with a new 512 MiB readback buffer and 95 ms with a kept one, and the
// host's part of the text upload 30 ms against 9 ms (bench/gpu-io.mjs). A kept upload buffer is
// re-mapped right after its copy is queued, so the next build finds it ready. Texts over 32 MiB go
// up in 32 MiB chunks through two kept buffers in turn, each chunk's copy queued as soon as it is
// written (uploadChunked). Texts of a small alphabet go up packed by the workers (uploadText).
// The SA comes back in 32 MiB chunks through 4 kept buffers, the heap copy of one chunk
// overlapping the GPU copies of the next; a sorter whose last step is a merge (gpu-skew, gpu-spd) has it done in 4 MiB pieces
// right before each piece's copy, so that the merge overlaps the host's copying too. A build that
// finds them busy (builds running at the same time on one device) uses fresh ones. The kept
// buffers are host memory (the largest text up to 32 MiB, two of 32 MiB for longer ones, and
// 128 MiB for the readback) until the device is released.
// The host's copy out of the mapped buffers runs on one core at ~6 GB/s on the H200 host (mapped
// ranges cannot be handed to workers: a transfer copies them), and it was a third of a 10 MB text's
// build. So a build with workers reads its SA back packed at ceil(log2 n) bits per entry (24 for
// 10 MB) and the workers unpack it while the host copies the next chunk (downloadPacked).
import { suffixArrayOf, type BuildContext, type SuffixSorter } from "../../engine/registry.js";
import { failure } from "../../errors.js";
import { sizeClass, STORAGE_USAGE } from "../buffers.js";
import type { GpuContext } from "../device.js";
import { GpuBatch, pipeline, tuned, WORKGROUP_SIZE } from "../kernels.js";
import { traceMark } from "../trace.js";

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

/** Kept write buffers of a chunked upload, used in turn. */
interface StagingRing {
  buffers: GPUBuffer[];
  /** Per buffer: resolves when it is mapped again. */
  ready: Promise<void>[];
  busy: boolean;
}

const kept = new WeakMap<GpuContext, { write?: Staging; ring?: StagingRing; read?: ReadStaging }>();

function stagingOf(gpu: GpuContext): { write?: Staging; ring?: StagingRing; read?: ReadStaging } {
  let entry = kept.get(gpu);
  if (!entry) kept.set(gpu, (entry = {}));
  return entry;
}

/**
 * Texts longer than this are uploaded in chunks of this many bytes through UPLOAD_BUFFERS kept
 * staging buffers in turn, each chunk's GPU copy queued as soon as the host has written it
 * ("io.uploadChunk" overrides it; 0: one staging buffer of the text's size). On the H200 the host
 * waited 8-9 ms after writing 128 MiB into one staging buffer (the copy queued after it), against
 * 0.4 ms after 32 MiB.
 */
const UPLOAD_CHUNK = 32 << 20;
const UPLOAD_BUFFERS = 2;

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

/**
 * Texts from this many bytes whose alphabet has at most 16 bytes go up packed ("io.packTextMin").
 * H200, gpu-spd, `bench/gpu-scaling.mjs --kinds dna`, best of 3, two rounds, unpacked / packed:
 * 32 MiB 822, 757 / 883, 823 MB/s; 128 MiB 964, 725 / 915, 980; 512 MiB 961, 901 / 982, 957. The
 * 4.7 MB ecoli FASTA was 0.8 ms slower (its samples miss two rare bytes, so the packing is thrown
 * away): below 16 MiB there is little to gain.
 */
const PACK_TEXT_MIN = 2 ** 24;
/** Spread samples of the text (SAMPLES of SAMPLE_BYTES) from which uploadText guesses its alphabet. */
const SAMPLES = 64;
const SAMPLE_BYTES = 1024;

/**
 * A pooled storage buffer (release it to gpu.pool when done) with the text packed 4 bytes per u32,
 * zero-padded to its end. Pooled, so that a build neither creates a buffer of the text's size
 * (H200, dickens: 0.65 ms a build) nor new bind groups for it. Given the build (text in the heap,
 * workers), a text of at most 16 distinct bytes goes up at 2 or 4 bits per byte, packed by the
 * workers, and is expanded on the GPU: the host's copy into mapped memory, one core's work, shrinks
 * to a quarter or a half.
 */
export async function uploadText(gpu: GpuContext, text: Uint8Array, ctx?: BuildContext): Promise<GPUBuffer> {
  const packed = ctx ? await packTextForUpload(ctx, text) : undefined;
  if (packed === undefined) return uploadBytes(gpu, text);
  traceMark(`text packed at ${packed.bits} bits`);
  const source = await uploadBytes(gpu, packed.words);
  const n = text.length;
  const size = Math.max(4, Math.ceil(n / 4) * 4);
  const target = gpu.pool.acquire(size, STORAGE_USAGE, "text");
  const symbols = gpu.pool.acquire(64, STORAGE_USAGE, "text symbols");
  gpu.device.queue.writeBuffer(symbols, 0, packed.symbols);
  const batch = new GpuBatch(gpu, "text unpack");
  const words = Math.ceil(n / 4);
  batch.dispatch(pipeline(gpu, { file: "unpack_text.wgsl", entry: "unpack_text" }), [n, words, packed.bits], [source, symbols, target], Math.ceil(words / WORKGROUP_SIZE));
  if (target.size > 4 * words) batch.clear(target, 4 * words, target.size - 4 * words);
  batch.releaseAfter(source);
  batch.releaseAfter(symbols);
  batch.submit();
  return target;
}

/**
 * The text at 2 or 4 bits per byte, packed by the workers into the heap's SA region (free until the
 * SA comes back), with the bytes of its codes; undefined where it does not pay or the alphabet has
 * more than 16 bytes. The alphabet is guessed from samples and checked by the packing.
 */
export async function packTextForUpload(ctx: BuildContext, text: Uint8Array): Promise<{ words: Uint8Array; bits: number; symbols: Uint32Array } | undefined> {
  const n = text.length;
  // the workers read the text where it lies: in the heap (not a text held outside it, ctx.text)
  if (text.buffer !== ctx.heap.memory.buffer || ctx.sa !== undefined || ctx.executor.threads < 2 || n > ctx.n) return undefined;
  if (!mayPackText(n)) return undefined;
  const seen = new Uint8Array(256);
  let sigma = 0;
  for (let s = 0; s < SAMPLES; s++) {
    const from = Math.floor(((n - Math.min(n, SAMPLE_BYTES)) * s) / (SAMPLES - 1));
    for (let i = from; i < Math.min(n, from + SAMPLE_BYTES); i++) {
      if (seen[text[i]] === 0) {
        seen[text[i]] = 1;
        if (++sigma > 16) return undefined;
      }
    }
  }
  const bits = sigma <= 4 ? 2 : 4;
  const heap = ctx.heap;
  // symbol k repeated 16 times at splats + 16 k (asm/text.ts compares 16 bytes at a time)
  const splats = ctx.saPtr;
  const wordsPtr = ctx.saPtr + 256;
  const symbols = new Uint32Array(16);
  for (let b = 0, code = 0; b < 256; b++) {
    if (seen[b] === 0) continue;
    heap.u8(splats + 16 * code, 16).fill(b);
    symbols[code++] = b;
  }
  const perWord = 32 / bits;
  const unit = 1 << 16; // blocks start on 16 bytes, and so on a word
  const block = Math.ceil(n / ctx.executor.threads / unit) * unit;
  const calls: number[][] = [];
  for (let from = 0; from < n; from += block) calls.push([text.byteOffset, from, Math.min(n, from + block), splats, sigma, bits, wordsPtr]);
  const foreign = await ctx.executor.map("packText", calls);
  if (foreign.some((f) => f !== 0)) return undefined;
  return { words: heap.u8(wordsPtr, 4 * Math.ceil(n / perWord)), bits, symbols };
}

/** Whether a text of n bytes may go up packed (packTextForUpload; its alphabet decides). n >= 256:
 * the code table and the words fit the 4n bytes of the SA region. */
function mayPackText(n: number): boolean {
  return n >= Math.max(256, tuned("io.packTextMin", PACK_TEXT_MIN, 0)) && n < 2 ** 30;
}

async function uploadBytes(gpu: GpuContext, text: Uint8Array): Promise<GPUBuffer> {
  const size = Math.max(4, Math.ceil(text.length / 4) * 4);
  const target = gpu.pool.acquire(size, STORAGE_USAGE, "text");
  const chunk = 4 * Math.floor(tuned("io.uploadChunk", UPLOAD_CHUNK, 0) / 4);
  if (chunk > 0 && size > chunk) {
    await uploadChunked(gpu, text, target, size, chunk);
    return target;
  }
  const entry = stagingOf(gpu);
  let staging = entry.write;
  if (staging && !staging.busy && staging.buffer.size >= size) {
    staging.busy = true;
    await gpu.race(staging.ready);
  } else if (!staging || !staging.busy) {
    staging?.buffer.destroy();
    staging = entry.write = { buffer: mappedStaging(gpu, size, "text staging"), ready: Promise.resolve(), busy: true };
  } else {
    staging = { buffer: mappedStaging(gpu, size, "text staging (one use)"), ready: Promise.resolve(), busy: true };
  }
  writeThrough(gpu, staging.buffer, text, target, 0, size);
  if (staging === entry.write) {
    staging.ready = remapForWrite(staging.buffer);
    staging.busy = false;
  } else {
    staging.buffer.destroy(); // destruction waits for the queued copy
  }
  gpu.check();
  return target;
}

/** A staging buffer the host can write into now. */
function mappedStaging(gpu: GpuContext, size: number, label: string): GPUBuffer {
  return gpu.device.createBuffer({ size, usage: MAP_WRITE | COPY_SRC, mappedAtCreation: true, label });
}

/**
 * Writes `part` (zero-padded to `bytes`) into the mapped `staging` buffer, unmaps it and queues its
 * copy to target[offset ..); the piece that ends the text (offset + bytes == target's text size)
 * also clears the rest of the pooled target, whose size class may be larger.
 */
function writeThrough(gpu: GpuContext, staging: GPUBuffer, part: Uint8Array, target: GPUBuffer, offset: number, bytes: number, last = true): void {
  const range = new Uint8Array(staging.getMappedRange(0, bytes));
  range.set(part);
  range.fill(0, part.length);
  staging.unmap();
  const encoder = gpu.device.createCommandEncoder({ label: "text upload" });
  encoder.copyBufferToBuffer(staging, 0, target, offset, bytes);
  const end = offset + bytes;
  if (last && target.size > end) encoder.clearBuffer(target, end, target.size - end);
  gpu.device.queue.submit([encoder.finish()]);
}

/** Maps a kept staging buffer again after its queued copy, for the next upload. */
function remapForWrite(buffer: GPUBuffer): Promise<void> {
  const mapped = buffer.mapAsync(MAP_WRITE);
  mapped.catch(() => undefined); // a device lost meanwhile surfaces through gpu.race later
  return mapped;
}

/** uploadText in chunks of `chunk` bytes (a multiple of 4) through the kept ring, or through
 * buffers of one use when a build running at the same time holds it or its chunks differ. */
async function uploadChunked(gpu: GpuContext, text: Uint8Array, target: GPUBuffer, size: number, chunk: number): Promise<void> {
  const entry = stagingOf(gpu);
  let ring = entry.ring;
  const keep = !ring?.busy;
  if (keep && (!ring || ring.buffers[0].size !== chunk)) {
    ring?.buffers.forEach((buffer) => buffer.destroy());
    const buffers = Array.from({ length: UPLOAD_BUFFERS }, () => mappedStaging(gpu, chunk, "text staging (chunk)"));
    ring = entry.ring = { buffers, ready: buffers.map(() => Promise.resolve()), busy: false };
  }
  if (keep) ring!.busy = true;
  try {
    for (let from = 0, k = 0; from < size; from += chunk, k++) {
      const bytes = Math.min(chunk, size - from);
      let buffer: GPUBuffer;
      if (keep) {
        buffer = ring!.buffers[k % UPLOAD_BUFFERS];
        await gpu.race(ring!.ready[k % UPLOAD_BUFFERS]);
      } else {
        buffer = mappedStaging(gpu, bytes, "text staging (one use)");
      }
      writeThrough(gpu, buffer, text.subarray(from, Math.min(text.length, from + bytes)), target, from, bytes, from + bytes === size);
      if (keep) {
        ring!.ready[k % UPLOAD_BUFFERS] = remapForWrite(buffer);
      } else {
        buffer.destroy(); // destruction waits for the queued copy
      }
    }
  } finally {
    if (keep) ring!.busy = false;
  }
  gpu.check();
}

/** Encodes the work that writes entries [first, end) of an SA buffer (a sorter's last step). */
export type ProducePiece = (batch: GpuBatch, first: number, end: number) => void;

/**
 * A GPU sorter's last step: hands the SA (n u32 in `sa`), the packed text and `produce` to the
 * build's consumer when it has one, else reads the SA back to where the build leaves it (suffixArrayOf). With `produce`,
 * the SA is not written yet: its pieces are produced as they are read back, so that the GPU's
 * last step (a merge) overlaps the host's copy of the pieces before. An SA in the heap comes back
 * bit-packed when the build has workers to unpack it (readbackScratchBytes).
 */
export async function deliverSuffixArray(ctx: BuildContext, gpu: GpuContext, sa: GPUBuffer, text: GPUBuffer, produce?: ProducePiece): Promise<void> {
  if (ctx.consumeDeviceSuffixArray) {
    await ctx.consumeDeviceSuffixArray(gpu, sa, text, ctx, produce);
  } else if (ctx.sa === undefined && ctx.executor.threads >= 2 && readbackScratchBytes(ctx.n) > 0) {
    await downloadPacked(gpu, sa, ctx, produce);
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

/** `count` readback buffers of at least `bytes` each: kept ones (the set grows to the largest count
 * asked), or fresh ones when they are busy. */
function readbackBuffers(gpu: GpuContext, bytes: number, count: number): { buffers: GPUBuffer[]; done(failed: boolean): void } {
  const entry = stagingOf(gpu);
  let set = entry.read;
  let keep = true;
  if (!set || set.busy || set.buffers[0].size < bytes) {
    const buffers = Array.from({ length: count }, () => gpu.device.createBuffer({ size: bytes, usage: MAP_READ | COPY_DST, label: "SA readback" }));
    if (set && !set.busy) for (const buffer of set.buffers) buffer.destroy();
    if (set?.busy) keep = false;
    set = { buffers, busy: true };
    if (keep) entry.read = set;
  } else {
    while (set.buffers.length < count) {
      set.buffers.push(gpu.device.createBuffer({ size: set.buffers[0].size, usage: MAP_READ | COPY_DST, label: "SA readback" }));
    }
  }
  set.busy = true;
  const held = set;
  return {
    buffers: held.buffers.slice(0, count),
    done(failed: boolean) {
      held.busy = false;
      if (failed || !keep) {
        if (entry.read === held) entry.read = undefined;
        for (const buffer of held.buffers) buffer.destroy();
      }
    },
  };
}

/** Copies the first target.length u32 of `source` into `target` (a view of the shared heap); any
 * u32 data may come back this way (the GPU BWT does). With `produce`, each chunk's entries are
 * written on the GPU right before its copy. */
export async function downloadSuffixArray(gpu: GpuContext, source: GPUBuffer, target: Uint32Array, produce?: ProducePiece): Promise<void> {
  if (target.length === 0) return;
  const bytes = target.byteLength;
  const wanted = tuned("io.readChunk", produce ? PRODUCED_CHUNK : READ_CHUNK);
  const chunk = Math.min(Math.max(4, wanted - (wanted % 4)), bytes);
  const chunks = Math.ceil(bytes / chunk);
  const set = readbackBuffers(gpu, chunk, Math.min(tuned("io.readBuffers", READ_BUFFERS), chunks));
  const staging = set.buffers;
  const heapBytes = new Uint8Array(target.buffer, target.byteOffset, bytes);
  const sizeOf = (k: number) => Math.min(chunk, bytes - k * chunk);
  const mapped: Promise<undefined>[] = [];
  const timeline = process.env.SUFSORT_GPU_PROFILE ? newTimeline() : undefined;
  const start = (k: number) => {
    const t0 = performance.now();
    const buffer = staging[k % staging.length];
    const batch = new GpuBatch(gpu, "SA readback");
    produce?.(batch, (k * chunk) / 4, (k * chunk + sizeOf(k)) / 4);
    batch.copy(source, k * chunk, buffer, 0, sizeOf(k));
    batch.submit();
    mapped[k] = buffer.mapAsync(MAP_READ, 0, sizeOf(k));
    mapped[k].catch(() => undefined); // awaited below through gpu.race
    if (timeline) timeline.encode += performance.now() - t0;
  };
  let failed = true;
  try {
    for (let k = 0; k < Math.min(staging.length, chunks); k++) start(k);
    for (let k = 0; k < chunks; k++) {
      const buffer = staging[k % staging.length];
      const waitStart = performance.now();
      await gpu.race(mapped[k]);
      const copyStart = performance.now();
      heapBytes.set(new Uint8Array(buffer.getMappedRange(0, sizeOf(k))), k * chunk);
      buffer.unmap();
      timeline?.add(waitStart, copyStart, k);
      if (k + staging.length < chunks) start(k + staging.length);
    }
    timeline?.report(`SA download: ${chunks} chunks of ${chunk} bytes`, bytes);
    failed = false;
  } finally {
    set.done(failed);
  }
}

/** SUFSORT_GPU_PROFILE: where a readback's host time goes. */
function newTimeline() {
  const begun = performance.now();
  const t = {
    firstWait: 0,
    wait: 0,
    copy: 0,
    encode: 0,
    unpackWait: 0,
    finish: 0,
    add(waitStart: number, copyStart: number, k: number) {
      if (k === 0) t.firstWait = copyStart - waitStart;
      t.wait += copyStart - waitStart;
      t.copy += performance.now() - copyStart;
    },
    report(what: string, bytes: number) {
      const ms = (x: number) => x.toFixed(2);
      const unpack = t.unpackWait > 0 || t.finish > 0 ? ` + waits for the unpacking ${ms(t.unpackWait)} + last chunks ${ms(t.finish)}` : "";
      process.stderr.write(
        `${what}: ${ms(performance.now() - begun)} ms = waits ${ms(t.wait)} (first ${ms(t.firstWait)}) + host copies ${ms(t.copy)} (${(bytes / t.copy / 1e6).toFixed(1)} GB/s) + encoding ${ms(t.encode)}${unpack}\n`,
      );
    },
  };
  return t;
}

// The packed readback. Entries per chunk: a multiple of 64, so that each chunk's window of the SA
// starts on a 256-byte binding offset and its packed bits fill whole words, and of the entries per
// unpacking item when longer than one; per item: a multiple of 8, so that its bits start on a byte.
const PACKED_CHUNK_ENTRIES = 2 ** 20;
const UNPACK_ITEM_ENTRIES = 2 ** 16;
const RING_SLOTS = 4;
/**
 * Chunks whose packed bits are in flight between the GPU and the host (a GPU buffer and a staging
 * buffer each; "io.readBuffers" overrides it). Staged further ahead, they came back slower: the
 * host's copies ran at 4.5-5.1 GB/s (nci) and 5.7-6.6 (the concatenation) with 16 in flight,
 * 5.4-8.1 and 5.0-8.5 with 6 (H200, same instance, three rounds).
 */
const PACKED_IN_FLIGHT = 6;
/**
 * Chunks produced, packed and copied per submit, at most ("io.submitChunks" overrides it). A
 * submit of its own per chunk cost the host 0.11-0.36 ms of encoding per chunk on the H200 hosts
 * (1.1-3.6 ms of a 10 MB text's build, 16-28 ms of the 124 MB concatenation's); within one, a
 * chunk's pack and copy cost ~26 us (micro-benchmark). The whole SA produced in the first submit
 * made the host wait for it: 2-6 ms on dickens, 26 ms on the concatenation. 4 against 2, gpu-spd,
 * builds alternating in one process (.corpus-style harness, median of 13, H200): osdb 16.41/16.43
 * ms, dickens 18.59/19.39, nci 68.1/70.6, chr22 32.3/34.1, mr 18.60/18.61, the concatenation
 * 204/220; 6 (with 8 in flight) was no better.
 */
const CHUNKS_PER_SUBMIT = 4;
/** Workers that unpack ("io.unpackers" overrides it): on the H200 host 4 fell behind the host's
 * copy (the last chunks were unpacked 1.4 ms after it), 8 and 16 kept up. Helpers that spun on
 * the mailbox before sleeping measured no faster. */
const UNPACKERS = 8;
/** The unpackers a packed readback wants (before the cap by threads and chunks). */
function unpackersWanted(): number {
  return tuned("io.unpackers", UNPACKERS);
}
/** Texts shorter than this come back unpacked ("io.packMin" overrides it: tests pack tiny SAs). */
const PACK_MIN = 2 ** 20;
/** Entries of more bits than this come back unpacked: the saving would be small. */
const PACK_MAX_BITS = 30;
/** Mailbox fields of asm/unpack.ts (i32 indexes). */
const MAIL = { published: 0, claimed: 1, stop: 2, total: 3, bits: 4, itemEntries: 5, chunkEntries: 6, ring: 7, slots: 8, slotBytes: 9, target: 10, entries: 11, slotDone: 12 };
const MAILBOX_BYTES = 4 * (MAIL.slotDone + 16); // asm/unpack.ts unpackMailboxBytes()
/** The ring starts this far after the mailbox: 64-aligned, as the SA. V8 copies into shared memory
 * by words only when source and target agree modulo 8; at 4 bytes off the host copied at half speed. */
const MAILBOX_SPAN = Math.ceil(MAILBOX_BYTES / 64) * 64;

interface PackedLayout {
  bits: number;
  chunkEntries: number;
  itemEntries: number;
  chunks: number;
  slots: number;
  /** Bytes of a ring slot: a chunk's packed words, 8 bytes of slack for the unpacker's u64 loads, 64-aligned. */
  slotBytes: number;
}

function packedLayout(n: number): PackedLayout | undefined {
  const bits = 32 - Math.clz32(n - 1); // entries are below n
  if (n < tuned("io.packMin", PACK_MIN, 0) || n < 2 || bits > PACK_MAX_BITS) return undefined;
  const wanted = tuned("io.packedChunk", PACKED_CHUNK_ENTRIES);
  const unit = wanted >= UNPACK_ITEM_ENTRIES ? UNPACK_ITEM_ENTRIES : 64;
  const chunkEntries = Math.max(64, wanted - (wanted % unit));
  const chunks = Math.ceil(n / chunkEntries);
  const itemEntries = Math.min(UNPACK_ITEM_ENTRIES, chunkEntries);
  const slotBytes = Math.ceil((Math.ceil((chunkEntries * bits) / 32) * 4 + 8) / 64) * 64;
  return { bits, chunkEntries, itemEntries, chunks, slots: Math.min(RING_SLOTS, chunks), slotBytes };
}

/**
 * Heap bytes after the SA that a GPU sorter reserves (its scratchBytes) for the packed readback:
 * the unpackers' mailbox and ring. 0 where the SA comes back unpacked.
 */
export function readbackScratchBytes(n: number): number {
  const layout = packedLayout(n);
  return layout ? 64 + MAILBOX_SPAN + layout.slots * layout.slotBytes : 0;
}

/** What a GPU sorter whose SA comes back through deliverSuffixArray says of its heap and workers. */
export const packedReadback: Pick<SuffixSorter, "scratchBytes" | "busyWorkers"> = {
  scratchBytes: readbackScratchBytes,
  // the unpackers; a text that may go up packed is packed first, a block per thread (packText)
  busyWorkers: (n, threads) =>
    readbackScratchBytes(n) === 0 ? 0 : mayPackText(n) ? threads : Math.min(threads, unpackersWanted()),
};

/** Atomics.waitAsync (Node 16+; not yet in TypeScript's ES2022 library). */
const waitAsync = (Atomics as unknown as { waitAsync(array: Int32Array, index: number, value: number, timeoutMs: number): { async: boolean; value: Promise<string> | string } }).waitAsync;

/**
 * The SA back into the heap at `bits` bits per entry: the GPU packs each chunk (wgsl/pack_bits.wgsl),
 * the host copies it into a ring slot after the SA and publishes it, and one unpackHelper per worker
 * expands the published chunks into the SA while the host copies the next ones.
 */
async function downloadPacked(gpu: GpuContext, source: GPUBuffer, ctx: BuildContext, produce?: ProducePiece): Promise<void> {
  const n = ctx.n;
  const layout = packedLayout(n)!;
  const { bits, chunkEntries, itemEntries, chunks, slots, slotBytes } = layout;
  const heap = ctx.heap;
  const mailbox = Math.ceil((ctx.saPtr + 4 * n) / 64) * 64;
  const ring = mailbox + MAILBOX_SPAN;
  if ((ctx.kernels.unpackMailboxBytes as () => number)() !== MAILBOX_BYTES) throw new Error("sufsort: MAILBOX_BYTES is out of date (asm/unpack.ts)");
  const mail = heap.i32(mailbox, MAILBOX_BYTES / 4);
  mail.fill(0);
  const entriesOf = (k: number) => Math.min(chunkEntries, n - k * chunkEntries);
  const wordsOf = (k: number) => Math.ceil((entriesOf(k) * bits) / 32);
  const itemsThrough = (k: number) => Math.ceil(Math.min(n, (k + 1) * chunkEntries) / itemEntries);
  const itemsOf = (k: number) => itemsThrough(k) - (k > 0 ? itemsThrough(k - 1) : 0);
  const total = itemsThrough(chunks - 1);
  Object.entries({ total, bits, itemEntries, chunkEntries, ring, slots, slotBytes, target: ctx.saPtr, entries: n }).forEach(([key, value]) => {
    mail[MAIL[key as keyof typeof MAIL]] = value;
  });

  const inFlight = Math.min(tuned("io.readBuffers", PACKED_IN_FLIGHT), chunks);
  const group = Math.max(1, Math.min(tuned("io.submitChunks", CHUNKS_PER_SUBMIT), inFlight));
  const packedWords = Math.ceil((chunkEntries * bits) / 32);
  const set = readbackBuffers(gpu, 4 * packedWords, inFlight);
  const staging = set.buffers;
  const packed = staging.map(() => gpu.pool.acquire(4 * packedWords, undefined, "SA packed"));
  const pack = pipeline(gpu, { file: "pack_bits.wgsl", entry: "pack_bits" });
  const timeline = process.env.SUFSORT_GPU_PROFILE ? newTimeline() : undefined;
  const mapped: Promise<undefined>[] = [];
  let encoded = 0;
  /** Encodes and submits the production, packing and copying of the consecutive chunks `ks`, then
   * maps their staging buffers. */
  const encodeChunks = (ks: number[]) => {
    const t0 = performance.now();
    const batch = new GpuBatch(gpu, "SA readback (packed)");
    produce?.(batch, ks[0] * chunkEntries, Math.min(n, (ks[ks.length - 1] + 1) * chunkEntries));
    encoded += ks.length;
    for (const k of ks) {
      const first = k * chunkEntries;
      const count = entriesOf(k);
      const words = wordsOf(k);
      const window = { buffer: source, offset: 4 * first, size: 4 * count };
      batch.dispatch(pack, [count, words, bits], [window, packed[k % inFlight]], Math.ceil(words / WORKGROUP_SIZE));
      batch.copy(packed[k % inFlight], 0, staging[k % inFlight], 0, 4 * words);
    }
    batch.submit();
    for (const k of ks) {
      mapped[k] = staging[k % inFlight].mapAsync(MAP_READ, 0, 4 * wordsOf(k));
      mapped[k].catch(() => undefined); // awaited below through gpu.race
    }
    if (timeline) timeline.encode += performance.now() - t0;
  };
  /** Chunks whose staging buffer is free again, encoded 1, 2, 4, ... `group` at a time: the host
   * waits for the first chunk's production (a merge, where the sorter produces) and no more. */
  let queued: number[] = [];
  const flush = () => {
    if (queued.length > 0) encodeChunks(queued);
    queued = [];
  };
  const queue = (k: number) => {
    queued.push(k);
    if (queued.length >= Math.min(group, 2 ** Math.floor(Math.log2(encoded + 1))) || k === chunks - 1) flush();
  };

  // The helpers run until all items are claimed; they start while the GPU works.
  const unpackers = Math.min(ctx.executor.threads, unpackersWanted(), total);
  const helpers = Array.from({ length: unpackers }, () => ctx.executor.runOne("unpackHelper", [mailbox]));
  let helperError: unknown;
  const helpersDone = Promise.all(helpers).catch((error) => {
    helperError ??= error;
    Atomics.store(mail, MAIL.stop, 1);
  });
  /** Resolves once `items` items of the chunk in `slot` are unpacked. */
  const slotDone = async (slot: number, items: number) => {
    const at = MAIL.slotDone + slot;
    for (;;) {
      const done = Atomics.load(mail, at);
      if (done >= items) return;
      if (helperError !== undefined) throw helperError;
      const waited = waitAsync(mail, at, done, 20);
      if (waited.async) await waited.value;
    }
  };
  let failed = true;
  try {
    for (let k = 0; k < inFlight; k++) queue(k);
    flush();
    for (let k = 0; k < chunks; k++) {
      const slot = k % slots;
      const waitStart = performance.now();
      await gpu.race(mapped[k]);
      if (k >= slots) {
        const unpackStart = performance.now();
        await slotDone(slot, itemsOf(k - slots));
        Atomics.store(mail, MAIL.slotDone + slot, 0);
        if (timeline) timeline.unpackWait += performance.now() - unpackStart;
      }
      const copyStart = performance.now();
      const buffer = staging[k % inFlight];
      heap.u8(ring + slot * slotBytes, 4 * wordsOf(k)).set(new Uint8Array(buffer.getMappedRange(0, 4 * wordsOf(k))));
      buffer.unmap();
      Atomics.store(mail, MAIL.published, itemsThrough(k));
      Atomics.notify(mail, MAIL.published);
      timeline?.add(waitStart, copyStart, k);
      if (k + inFlight < chunks) queue(k + inFlight);
    }
    const finishStart = performance.now();
    for (let k = Math.max(0, chunks - slots); k < chunks; k++) await slotDone(k % slots, itemsOf(k));
    // Each helper's last touch of the mailbox is the claim past the end; once all are made, the
    // region is free, and their tasks end without the build waiting for piscina's messages.
    for (;;) {
      const claimed = Atomics.load(mail, MAIL.claimed);
      if (claimed >= total + unpackers) break;
      if (helperError !== undefined) throw helperError;
      const waited = waitAsync(mail, MAIL.claimed, claimed, 20);
      if (waited.async) await waited.value;
    }
    if (timeline) timeline.finish = performance.now() - finishStart;
    timeline?.report(`SA download: ${chunks} chunks of ${chunkEntries} entries packed at ${bits} bits, ${helpers.length} unpackers`, Math.ceil((n * bits) / 8));
    failed = false;
  } finally {
    if (failed) {
      Atomics.store(mail, MAIL.stop, 1);
      Atomics.notify(mail, MAIL.published);
      await Promise.allSettled(helpers);
    }
    for (const buffer of packed) gpu.pool.release(buffer);
    gpu.pool.afterSubmit();
    set.done(failed);
  }
}
