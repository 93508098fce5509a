// FM-index queries on the GPU (wgsl/fm_search.wgsl): the index image is uploaded once, as it is on
// disk (the blocks' count words and code bytes serve the GPU's rank as well as the CPU's); each batch
// uploads its patterns (bytes packed 4 per u32, [start, end) spans), counts them with one invocation
// per pattern, and reads back the row ranges [sp, ep): the same PackedResults as the CPU's
// FMIndexImage.searchPacked. Locate keeps the ranges on the device, takes the output slots of each
// pattern (min(count, limit), prefix-summed on the host), LF-walks one invocation per slot to a
// sample, and reads back the positions; the host sorts each pattern's positions, as the CPU path does.
// Limits: the image must fit one storage binding (maxStorageBufferBindingSize: 2 GiB on the H200,
// about 1.8 bytes per text byte for 256 distinct bytes; 128 MiB on llvmpipe), and so must the
// patterns' bytes.
import { failure } from "../../errors.js";
import { BOUNDS_OFFSET, CODES_OFFSET, type FMIndexImage, type PackedResults } from "../../apps/fmindex.js";
import type { GpuContext } from "../device.js";
import { STORAGE_USAGE } from "../buffers.js";
import { checkBinding, GpuBatch, pipeline, readU32, upload, WORKGROUP_SIZE, writeInto, type Binding } from "../kernels.js";

/** Patterns per count dispatch, and output slots per locate dispatch (bounds the buffers of one step). */
const PATTERNS_PER_DISPATCH = 1 << 22;
const SLOTS_PER_DISPATCH = 1 << 24;
/**
 * Loop iterations an invocation may run per dispatch: the software adapter (Mesa's llvmpipe) ends
 * an invocation's loops silently after about 65,000 iterations in all (measured: an outer loop of
 * 10,000 around an inner one of 10 stopped at 54,613). Half of that, for margin.
 */
const LOOP_BUDGET = 1 << 15;

/** Steps of a count or locate walk per dispatch: a step runs at most two rank loops of b / 8 + 1
 * words each (b = rows per block), a few loop entries besides. */
export function stepsPerDispatch(blockRows: number): number {
  return Math.max(1, Math.floor(LOOP_BUDGET / (blockRows / 4 + 6)));
}

/** Word offsets of the image's fixed tables, compiled into the shader. */
const TABLES = { CODES_AT: CODES_OFFSET / 4, BOUNDS_AT: BOUNDS_OFFSET / 4 };

/** An FM-index image on a device. */
export class DeviceFMIndex {
  private image: GPUBuffer | undefined;
  private readonly fields: number[];
  /** Steps of one walk per dispatch (stepsPerDispatch). */
  private readonly stepBudget: number;

  /** Uploads `index`'s image to `gpu` (the caller keeps owning the device). */
  constructor(readonly gpu: GpuContext, readonly index: FMIndexImage) {
    const L = index.layout;
    checkBinding(gpu, "FM-index image", L.fileBytes / 4);
    const words = index.heap.u32(index.ptr, L.fileBytes / 4);
    // Its own buffer of the exact size (a pool size class could exceed the binding limit).
    this.image = gpu.device.createBuffer({ size: L.fileBytes, usage: STORAGE_USAGE, label: "FM-index image" });
    writeInto(gpu, this.image, 0, words);
    // Params after (count, first): see the Params struct in wgsl/fm_search.wgsl.
    this.fields = [L.n, L.primary, Math.log2(L.blockRows), L.blockBytes / 4, L.blocksOffset / 4, L.samplesOffset / 4, L.marksAt / 4, L.bytesAt / 4, L.sampleRate];
    this.stepBudget = stepsPerDispatch(L.blockRows);
  }

  /** Bytes of the image on the device. */
  get deviceBytes(): number {
    return this.index.layout.fileBytes;
  }

  /** Gives the image's buffer back (the device stays open). */
  release(): void {
    this.image?.destroy(); // destruction waits for queued work
    this.image = undefined;
  }

  /**
   * Pattern i is bytes[spans[2i], spans[2i+1]) (non-empty: the caller checks). Same results as
   * FMIndexImage.searchPacked.
   */
  async searchPacked(bytes: Uint8Array, spans: Uint32Array, options: { locate?: boolean; limit?: number } = {}): Promise<PackedResults> {
    const image = this.image;
    if (!image) throw failure("FM-index on the GPU used after release()");
    const gpu = this.gpu;
    const m = spans.length / 2;
    if (m === 0) return options.locate ? { ranges: new Uint32Array(0), positions: new Uint32Array(0), positionStarts: new Uint32Array(1) } : { ranges: new Uint32Array(0) };
    checkBinding(gpu, "FM-index patterns", Math.ceil(bytes.length / 4));
    checkBinding(gpu, "FM-index pattern spans", 2 * m);
    const pool = gpu.pool;
    const held: GPUBuffer[] = [];
    try {
      const packed = new Uint32Array(Math.max(1, Math.ceil(bytes.length / 4)));
      new Uint8Array(packed.buffer).set(bytes);
      const patternBuffer = upload(gpu, packed, "FM patterns");
      held.push(patternBuffer);
      const spanBuffer = upload(gpu, spans, "FM spans");
      held.push(spanBuffer);
      const rangeBuffer = pool.acquire(8 * m, undefined, "FM ranges");
      held.push(rangeBuffer);
      const batch = new GpuBatch(gpu, "FM count");
      const countPipe = pipeline(gpu, { file: "fm_search.wgsl", entry: "count", constants: TABLES });
      // No search runs more than n + 1 steps: a pattern longer than the text runs out of rows by then.
      let longest = 0;
      for (let p = 0; p < m; p++) longest = Math.max(longest, spans[2 * p + 1] - spans[2 * p]);
      longest = Math.min(longest, this.index.layout.n + 1);
      const bindings = [image, exact(patternBuffer, 4 * packed.length), exact(spanBuffer, 8 * m), exact(rangeBuffer, 8 * m)];
      // Dispatches of one batch see each other's writes: a round takes up where the last stopped.
      for (let stepFrom = 0; stepFrom < longest; stepFrom += this.stepBudget) {
        for (let first = 0; first < m; first += PATTERNS_PER_DISPATCH) {
          const count = Math.min(PATTERNS_PER_DISPATCH, m - first);
          batch.dispatch(countPipe, [count, first, ...this.fields, m, stepFrom, this.stepBudget], bindings, Math.ceil(count / WORKGROUP_SIZE));
        }
      }
      batch.submit();
      const ranges = await readU32(gpu, rangeBuffer, 2 * m);
      if (!options.locate) return { ranges };
      return { ranges, ...(await this.locateRanges(image, rangeBuffer, ranges, options.limit ?? Infinity)) };
    } finally {
      for (const buffer of held) pool.release(buffer);
      pool.afterSubmit();
    }
  }

  /** Positions of the first `limit` rows of each range (ranges on the device too), ascending per range. */
  private async locateRanges(image: GPUBuffer, rangeBuffer: GPUBuffer, ranges: Uint32Array, limit: number): Promise<{ positions: Uint32Array; positionStarts: Uint32Array }> {
    const gpu = this.gpu;
    const m = ranges.length / 2;
    const positionStarts = new Uint32Array(m + 1);
    let total = 0;
    for (let p = 0; p < m; p++) {
      total += Math.min(ranges[2 * p + 1] - ranges[2 * p], limit);
      if (total > 0xffffffff) throw failure(`locate would report ${total}+ positions; ask for fewer patterns at once or set a limit`);
      positionStarts[p + 1] = total;
    }
    const positions = new Uint32Array(total);
    if (total > 0) {
      const startBuffer = upload(gpu, positionStarts, "FM position starts");
      const chunk = Math.min(total, SLOTS_PER_DISPATCH);
      const out = gpu.pool.acquire(4 * chunk, undefined, "FM positions");
      const walkDone = gpu.pool.acquire(4 * chunk, undefined, "FM locate walks done");
      const status = gpu.pool.acquire(4, undefined, "FM locate status");
      try {
        const locatePipe = pipeline(gpu, { file: "fm_search.wgsl", entry: "locate", constants: TABLES });
        const batch0 = new GpuBatch(gpu, "FM locate status");
        batch0.clear(status, 0, 4);
        batch0.submit();
        for (let first = 0; first < total; first += chunk) {
          const count = Math.min(chunk, total - first);
          const batch = new GpuBatch(gpu, "FM locate");
          const bindings = [image, undefined, exact(walkDone, 4 * count), exact(rangeBuffer, 8 * m), exact(startBuffer, 4 * (m + 1)), out, status];
          for (let stepFrom = 0; stepFrom < this.index.layout.sampleRate; stepFrom += this.stepBudget) {
            batch.dispatch(locatePipe, [count, first, ...this.fields, m, stepFrom, this.stepBudget], bindings, Math.ceil(count / WORKGROUP_SIZE));
          }
          batch.submit();
          positions.set(await readU32(gpu, out, count), first);
        }
        if ((await readU32(gpu, status, 1))[0] !== 0) throw failure("the FM-index is damaged (a locate walk found no sample)");
      } finally {
        for (const buffer of [startBuffer, out, walkDone, status]) gpu.pool.release(buffer);
        gpu.pool.afterSubmit();
      }
    }
    for (let p = 0; p < m; p++) positions.subarray(positionStarts[p], positionStarts[p + 1]).sort();
    return { positions, positionStarts };
  }
}

/** A binding of the first `bytes` of a pooled buffer (its size class may exceed the binding limit). */
function exact(buffer: GPUBuffer, bytes: number): Binding {
  return { buffer, offset: 0, size: bytes };
}
