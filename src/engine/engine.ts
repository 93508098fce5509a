// A long-lived engine: one shared heap and one worker pool kept across builds. createEngine() makes
// one; close() ends its workers. Builds go through the same path as every other (build.ts); the
// SA each returns is a copy, since the next build reuses the heap. The one-shot suffixArray() of
// the API uses a fresh heap per call instead and returns a view (no copy, nothing kept).
import { getSorter, listSorters, type SuffixSorter } from "./registry.js";
import { SharedHeap } from "../cpu/memory.js";
import { checkThreads, createExecutor, defaultThreads, type Executor } from "../cpu/executor.js";
import { failure, usageError } from "../errors.js";
import { buildPlaced, DEFAULT_ALGO, placeIn, type BuildResult as PlacedResult } from "./build.js";
import "../cpu/algorithms/index.js";

export interface EngineOptions {
  /** Worker threads (default: os.availableParallelism(), at most MAX_THREADS = 64); 1 runs every kernel on the calling thread. */
  threads?: number;
}

export interface BuildOptions {
  /** A registered CPU algorithm (`sais`, `range`, `skew`); default `sais`. */
  algo?: string;
  /** Run the linear verifier on the result and reject if it is wrong. */
  verify?: boolean;
  onProgress?: (fraction: number) => void;
}

export interface BuildResult {
  /** The suffix array: a copy owned by the caller. */
  sa: Uint32Array;
  /** The algorithm that built it (another than the one asked for when it handed the input over). */
  algo: string;
  /** Why the algorithm asked for handed the input over, when it did. */
  handOver?: string;
  threads: number;
  /** Construction time alone. */
  seconds: number;
}

export interface Engine {
  readonly threads: number;
  suffixArray(text: Uint8Array, options?: BuildOptions): Promise<BuildResult>;
  close(): Promise<void>;
}

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
    const sorter = cpuSorter(options.algo ?? DEFAULT_ALGO);
    this.heap.release(this.heapBase);
    try {
      const placed = placeIn(this.heap, this.executor, text.length, sorter);
      this.heap.u8(placed.textPtr, text.length).set(text);
      const r: PlacedResult = await buildPlaced(placed, {
        verify: options.verify,
        onProgress: options.onProgress && ((phase, f) => phase === "sorting" && options.onProgress!(f)),
      });
      const result: BuildResult = { sa: r.sa.slice(), algo: r.algo, threads: this.threads, seconds: r.seconds };
      if (r.handOver !== undefined) result.handOver = r.handOver;
      return result;
    } finally {
      this.heap.release(this.heapBase);
    }
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
