// A long-lived CPU engine: one shared heap and one worker pool kept across builds. createEngine()
// makes one; close() ends its workers. The one-shot helpers use a default engine whose idle workers
// are unref'd (piscina), so it never keeps the process alive after a build resolves.
import type { BuildContext, SuffixSorter } from "./registry.js";
import { getSorter, listSorters } from "./registry.js";
import { SharedHeap, MAX_HEAP_BYTES } from "../cpu/memory.js";
import { checkThreads, createExecutor, defaultThreads, type Executor } from "../cpu/executor.js";
import { failure, usageError } from "../errors.js";
import "../cpu/algorithms/index.js";

export interface EngineOptions {
  /** Worker threads (default: os.availableParallelism()); 1 runs every kernel on the calling thread. */
  threads?: number;
}

export interface BuildOptions {
  /** A registered CPU algorithm (`skew`, `range`, ...); default `range`. */
  algorithm?: string;
  onProgress?: (fraction: number) => void;
}

export interface BuildResult {
  /** The suffix array: a copy owned by the caller. */
  sa: Uint32Array;
  /** The algorithm that built it (another than the one asked for when it handed the input over). */
  algorithm: string;
  /** Why the algorithm asked for handed the input over, when it did. */
  handOver?: string;
  threads: number;
}

export interface Engine {
  readonly threads: number;
  suffixArray(text: Uint8Array, options?: BuildOptions): Promise<BuildResult>;
  close(): Promise<void>;
}

export const DEFAULT_CPU_ALGORITHM = "range";

function cpuSorter(name: string): SuffixSorter {
  const sorter = getSorter(name);
  if (sorter === undefined || sorter.engine !== "cpu") {
    const known = listSorters().filter((s) => s.engine === "cpu").map((s) => s.name);
    throw usageError(`--algo must be one of ${known.join(", ")}; got ${name}`);
  }
  return sorter;
}

class CpuEngine implements Engine {
  private readonly heap = new SharedHeap();
  /** The heap's empty state (address 0 stays unused). */
  private readonly heapBase = this.heap.used;
  private readonly executor: Executor;
  /** Builds run one at a time: they share the heap. */
  private queue: Promise<unknown> = Promise.resolve();
  private closed = false;

  constructor(readonly threads: number) {
    this.executor = createExecutor(this.heap, threads);
  }

  suffixArray(text: Uint8Array, options: BuildOptions = {}): Promise<BuildResult> {
    if (this.closed) return Promise.reject(failure("the engine is closed"));
    const run = this.queue.then(() => this.build(text, options));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async build(text: Uint8Array, options: BuildOptions): Promise<BuildResult> {
    const sorter = cpuSorter(options.algorithm ?? DEFAULT_CPU_ALGORITHM);
    const n = text.length;
    if (n > sorter.maxLength) {
      throw failure(
        `input of ${n} bytes is too large for --algo ${sorter.name}: its limit is ${sorter.maxLength} bytes ` +
          `(the 4 GiB WebAssembly memory holds text, SA and ${sorter.name}'s scratch)`,
      );
    }
    const heap = this.heap;
    heap.release(this.heapBase);
    const textPtr = heap.alloc(n + 16);
    const saPtr = heap.alloc(4 * n);
    // Grow once up front so that no phase grows the memory while workers run.
    const need = heap.used + sorter.scratchBytes(n);
    if (need > MAX_HEAP_BYTES) throw failure(`input of ${n} bytes needs ${need} bytes of WebAssembly memory; the limit is 4 GiB`);
    const mark = heap.used;
    heap.alloc(sorter.scratchBytes(n));
    heap.release(mark);
    heap.u8(textPtr, n).set(text);
    heap.u8(textPtr + n, 16).fill(0);
    const ctx: BuildContext = {
      heap,
      kernels: this.executor.kernels,
      executor: this.executor,
      textPtr,
      n,
      saPtr,
      threads: this.threads,
      onProgress: options.onProgress,
    };
    const handOver = await sorter.build(ctx);
    const sa = heap.u32(saPtr, n).slice();
    heap.release(this.heapBase);
    if (handOver) return { sa, algorithm: handOver.algorithm, handOver: handOver.reason, threads: this.threads };
    return { sa, algorithm: sorter.name, threads: this.threads };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.queue;
    await this.executor.close();
  }
}

/** A CPU engine with its own shared memory and `threads` workers, kept until close(). */
export async function createEngine(options: EngineOptions = {}): Promise<Engine> {
  return new CpuEngine(checkThreads(options.threads ?? defaultThreads()));
}

const defaultEngines = new Map<number, Engine>();

/**
 * The engine the one-shot API uses for `threads` (created on first use and kept: its idle workers
 * are unref'd, so it does not keep the process alive).
 */
export async function defaultEngine(threads = defaultThreads()): Promise<Engine> {
  let engine = defaultEngines.get(threads);
  if (engine === undefined) {
    engine = await createEngine({ threads });
    defaultEngines.set(threads, engine);
  }
  return engine;
}

/** One-shot build on the default engine. */
export async function cpuSuffixArray(text: Uint8Array, options: BuildOptions & EngineOptions = {}): Promise<BuildResult> {
  const engine = await defaultEngine(options.threads ?? defaultThreads());
  return engine.suffixArray(text, options);
}
