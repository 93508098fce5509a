// Public API of the applications (re-exported by src/index.ts): bwt, unbwt, lcp, FMIndex. Arguments
// are checked here, once.
import { checkLength } from "../engine/build.js";
import { parseEngine, type EngineChoice } from "../engine/choice.js";
import { placeForApp, textSource, type TextSource } from "../engine/placement.js";
import { failure, usageError } from "../errors.js";
import { bwtOfPlacement, unbwtHeap, unbwtInHeap, unbwtLarge } from "./bwt.js";
import { lcpOfGivenSuffixArray, lcpOfPlacement } from "./lcp.js";
import { checkThreads as checkThreadCount, createExecutor } from "../cpu/executor.js";
import { acquireGpu, resolveGpuMode, type GpuContext, type GpuMode } from "../gpu/device.js";
import { DeviceFMIndex } from "../gpu/apps/fm-search.js";
import { DEFAULT_SAMPLE_RATE, FMIndexImage, indexOfPlacement, MAX_SAMPLE_RATE, searchPatterns, type SearchResult } from "./fmindex.js";

/** A text: bytes, or a string (encoded as UTF-8). */
type Text = Uint8Array | string;

export interface AppOptions {
  /** Engine of the suffix array: "auto" (default), "cpu", "gpu" or "hybrid", chosen as suffixArray() chooses. */
  engine?: EngineChoice;
  /** Suffix-array algorithm (default: the engine's choice: SA-IS on one thread below auto's GPU threshold); with `engine`, they must agree. */
  algo?: string;
  /** Worker threads for the suffix array and the application's own kernels (default 1). */
  threads?: number;
  /** Which adapter a GPU algorithm may use (default: SUFSORT_GPU, else hardware only). */
  gpu?: GpuMode;
}

export interface BwtOutput {
  /** L without the primary row: n bytes. */
  bwt: Uint8Array;
  /** Row of the whole text among the n+1 sorted suffixes of T$ (1..n; 0 when n = 0). */
  primary: number;
}

/**
 * The BWT of `text` (libsais's convention: banana -> "annbaa", primary 4). With a GPU algorithm
 * (e.g. algo "gpu-ls") the BWT is computed on the GPU from the SA there. A text too large for the
 * WebAssembly memory takes suffixArray()'s path beyond it (bwtLarge).
 */
export async function bwt(text: Text, options: AppOptions = {}): Promise<BwtOutput> {
  const bytes = toBytes(text, "text");
  const { threads } = checkThreads(options);
  const placement = await placeForApp(textSource(bytes), engineRequest(options, threads));
  const { primary, parts } = await bwtOfPlacement(placement, { threads, gpu: options.gpu });
  const out = new Uint8Array(bytes.length);
  out.set(parts[0]);
  out.set(parts[1], parts[0].length);
  return { bwt: out, primary };
}

/**
 * The text whose BWT is `bwt` with primary index `primary`; rejects an invalid pair. `threads`
 * (default 1) workers walk the decoding chains.
 */
export async function unbwt(bwtBytes: Uint8Array, primary: number, options: { threads?: number } = {}): Promise<Uint8Array> {
  const bytes = toBytes(bwtBytes, "bwt");
  if (typeof primary !== "number") throw usageError("primary must be a number");
  const { threads } = checkThreads(options);
  const n = bytes.length;
  const heap = unbwtHeap(n);
  if (heap === undefined) return unbwtLarge(bytes, primary, { threads });
  const bwtPtr = heap.alloc(n);
  heap.u8(bwtPtr, n).set(bytes);
  const executor = createExecutor(heap, threads);
  await unbwtInHeap(heap, executor, bwtPtr, n, primary, bwtPtr).finally(() => executor.close());
  return heap.u8(bwtPtr, n).slice();
}

/**
 * The LCP array of `text`: LCP[0] = 0, LCP[k] = length of the longest common prefix of suffixes
 * SA[k-1] and SA[k]. Uses `sa` when given (checked with the linear verifier first), else builds it.
 */
export async function lcp(text: Text, sa?: Uint32Array, options: AppOptions = {}): Promise<Uint32Array> {
  const bytes = toBytes(text, "text");
  const n = bytes.length;
  const { threads } = checkThreads(options);
  if (sa === undefined) {
    const placement = await placeForApp(textSource(bytes), engineRequest(options, threads));
    const array = await lcpOfPlacement(placement, { threads, gpu: options.gpu });
    return placement.placed !== undefined ? array.slice() : array; // a copy out of the heap
  }
  if (!(sa instanceof Uint32Array)) throw usageError("sa must be a Uint32Array");
  if (sa.length !== n) throw usageError(`sa has ${sa.length} entries; the text has ${n} bytes`);
  // the SA's bytes by ranges: one byte view of an SA over 2^30 entries is over V8's typed-array limit
  const saBytes: TextSource = { size: 4 * n, read: (into, at = 0) => into.set(new Uint8Array(sa.buffer, sa.byteOffset + at, into.length)) };
  return lcpOfGivenSuffixArray(textSource(bytes), saBytes, threads, (why: string) => failure(`sa is not the suffix array of the text: ${why}`));
}

export interface FMIndexOptions extends AppOptions {
  /** Keep the suffix-array entry of every K-th text position (default 32): locate walks < K steps. */
  sampleRate?: number;
}

export interface LocateOptions {
  /** Report at most this many occurrences (those first in suffix order), ascending. */
  limit?: number;
}

/** count and locate in terms of `search`, for the CPU and the GPU index alike. */
abstract class PatternSearch {
  /** Bytes of the indexed text. */
  abstract get length(): number;

  /** Counts (and with `locate`, positions of) many patterns at once. */
  abstract search(patterns: Text[], options?: SearchOptions): Promise<SearchResult[]>;

  /** Occurrences of `pattern` in the text. */
  async count(pattern: Text): Promise<number> {
    return (await this.search([pattern]))[0].count;
  }

  /** Start positions of `pattern` in the text, ascending. */
  async locate(pattern: Text, options: LocateOptions = {}): Promise<Uint32Array> {
    return (await this.search([pattern], { locate: true, limit: options.limit }))[0].positions!;
  }
}

/** An FM-index of a text: count and locate patterns without the text. */
export class FMIndex extends PatternSearch {
  private constructor(private readonly image: FMIndexImage) {
    super();
  }

  /** Builds the index of `text` (its suffix array first). */
  static async build(text: Text, options: FMIndexOptions = {}): Promise<FMIndex> {
    const bytes = toBytes(text, "text");
    const sampleRate = options.sampleRate ?? DEFAULT_SAMPLE_RATE;
    checkSampleRate(sampleRate);
    const { threads } = checkThreads(options);
    const placement = await placeForApp(textSource(bytes), engineRequest(options, threads));
    return new FMIndex(FMIndexImage.copyOf(await indexOfPlacement(placement, sampleRate, { threads, gpu: options.gpu })));
  }

  /** Loads an index from the bytes `toBytes` (or `sufsort index`) produced; rejects damaged ones. */
  static load(buf: Uint8Array): FMIndex {
    if (!(buf instanceof Uint8Array)) throw usageError("the index must be a Uint8Array or a Buffer");
    return new FMIndex(FMIndexImage.fromBytes(buf, "index"));
  }

  /** Bytes of the indexed text. */
  get length(): number {
    return this.image.layout.n;
  }

  /** The sample rate K. */
  get sampleRate(): number {
    return this.image.layout.sampleRate;
  }

  /** The index image: the bytes of a .fmi file (a copy). */
  toBytes(): Uint8Array {
    return this.image.bytes().slice();
  }

  /** Counts (and with `locate`, positions of) many patterns at once. */
  async search(patterns: Text[], options: SearchOptions = {}): Promise<SearchResult[]> {
    const bytes = checkSearch(patterns, options);
    return this.image.search(bytes, { locate: options.locate, limit: options.limit });
  }

  /**
   * Uploads the index to a GPU, where batches of patterns are searched (GpuFMIndex; release it when
   * done). Throws a SufsortError when no adapter fits `gpu` (default: SUFSORT_GPU, else hardware).
   */
  async onGpu(options: GpuIndexOptions = {}): Promise<GpuFMIndex> {
    return GpuFMIndex.open(this.image, options);
  }
}

export interface SearchOptions {
  /** Also report the start positions. */
  locate?: boolean;
  /** With locate: at most this many positions per pattern (those first in suffix order). */
  limit?: number;
}

export interface GpuIndexOptions {
  /** Which adapter to open (default: SUFSORT_GPU, else hardware only). */
  gpu?: GpuMode;
  /** A device to use instead (its owner releases it). */
  gpuContext?: GpuContext;
}

/**
 * An FM-index on a GPU: the image is uploaded once; each count, locate or search uploads its
 * patterns and runs one invocation per pattern (and per reported position). Same results as FMIndex.
 */
export class GpuFMIndex extends PatternSearch {
  private constructor(
    private readonly device: DeviceFMIndex,
    private readonly ownGpu: GpuContext | undefined,
  ) {
    super();
  }

  static async open(image: FMIndexImage, options: GpuIndexOptions = {}): Promise<GpuFMIndex> {
    const ownGpu = options.gpuContext ? undefined : (await acquireGpu({ mode: resolveGpuMode(options.gpu), required: true }))!;
    try {
      return new GpuFMIndex(new DeviceFMIndex(options.gpuContext ?? ownGpu!, image), ownGpu);
    } catch (error) {
      ownGpu?.release();
      throw error;
    }
  }

  /** Bytes of the indexed text. */
  get length(): number {
    return this.device.index.layout.n;
  }

  async search(patterns: Text[], options: SearchOptions = {}): Promise<SearchResult[]> {
    const bytes = checkSearch(patterns, options);
    const settings = { locate: options.locate, limit: options.limit };
    return searchPatterns(bytes, settings, (packed, spans) => this.device.searchPacked(packed, spans, settings));
  }

  /** Frees the image on the device, and the device when this index opened it. */
  release(): void {
    this.device.release();
    this.ownGpu?.release();
  }
}

function checkSearch(patterns: Text[], options: SearchOptions): Uint8Array[] {
  if (!Array.isArray(patterns)) throw usageError("patterns must be an array");
  const bytes = patterns.map((p, i) => toBytes(p, `pattern ${i}`));
  checkPatterns(bytes);
  if (options.limit !== undefined && (!Number.isInteger(options.limit) || options.limit < 0)) {
    throw usageError(`limit must be a non-negative integer (got ${options.limit})`);
  }
  return bytes;
}

/** Patterns must be non-empty (a usage error naming the pattern). One longer than the text needs no
 * check: its backward search runs out of rows within n + 1 steps, so it counts 0. */
export function checkPatterns(patterns: Uint8Array[], name = (i: number) => `pattern ${i + 1}`): void {
  patterns.forEach((p, i) => {
    if (p.length === 0) throw usageError(`${name(i)} is empty`);
  });
}

export function checkSampleRate(k: number): void {
  if (!Number.isInteger(k) || k < 1 || k > MAX_SAMPLE_RATE) throw usageError(`sample rate must be an integer in 1..${MAX_SAMPLE_RATE} (got ${k})`);
}

function checkThreads(options: AppOptions): { threads: number } {
  const t = options.threads ?? 1;
  return { threads: checkThreadCount(t) };
}

function toBytes(x: Text, what: string): Uint8Array {
  if (typeof x === "string") return new TextEncoder().encode(x);
  if (x instanceof Uint8Array) {
    checkLength(x.length);
    return x;
  }
  throw usageError(`${what} must be a Uint8Array, a Buffer or a string`);
}

function engineRequest(options: AppOptions, threads: number) {
  return { engine: parseEngine(options.engine), ...(options.algo !== undefined ? { algo: options.algo } : {}), threads, gpu: options.gpu };
}
