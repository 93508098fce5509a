// The one executor interface of the CPU engine: algorithms and primitives call only this. A call
// runs one named WebAssembly kernel per argument list (one block each) and resolves when all blocks
// are done: one round of tasks per phase is the barrier between phases (see NOTES: an empty piscina
// task costs 30–85 µs, so phases hand out a few large blocks, not many small ones).
import { readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import { createRequire } from "node:module";
import type { Piscina } from "piscina";
import { gatherStep, SharedHeap, zeroFill } from "./memory.js";
import { packViews } from "./shared-views.js";
import { instantiate, wasmModule, type Kernels } from "./wasm.js";
import { newBoard, TEAM_SLOTS, TEAM_TASK, TeamBoard } from "./team.js";
import { packagePath } from "../paths.js";
import { failure, usageError } from "../errors.js";

/** Arguments of one kernel call: pointers, offsets and lengths only (u32, passed as numbers). */
export type KernelArgs = readonly number[];

export interface Executor {
  /** How many blocks a phase should be split into to keep every worker busy. */
  readonly threads: number;
  readonly heap: SharedHeap;
  /** Kernels instantiated on the heap in the calling thread, for serial steps. */
  readonly kernels: Kernels;
  /** Runs `kernel` once per argument list, in parallel; resolves to the u32 results in order. */
  map(kernel: string, calls: readonly KernelArgs[]): Promise<number[]>;
  /** Runs one long kernel call off the calling thread where there are workers (so it stays responsive). */
  runOne(kernel: string, args: KernelArgs): Promise<number>;
  /**
   * Runs `build` with the calling thread and the workers as one team (team.ts): map() hands its
   * blocks out through shared memory, the calling thread takes blocks too, and map() holds the
   * calling thread until the phase is done. For CPU builds; a GPU build keeps its thread free.
   */
  asTeam<T>(build: () => Promise<T>): Promise<T>;
  /**
   * Starts `workers` of the workers now (all by default); the others start when a phase first
   * wants them, as all do without start().
   */
  start(workers?: number): void;
  /** Worker threads started so far (0 for the sequential executor). */
  readonly startedWorkers: number;
  close(): Promise<void>;
}

const require = createRequire(import.meta.url);

/** piscina, loaded as the first pool starts: a build on one thread never needs it (loading it took
 * 20-40 ms of a CLI run's start on the 2-core machine). */
function piscinaClass(): typeof Piscina {
  return (require("piscina") as typeof import("piscina")).Piscina;
}

/** Most threads an executor accepts (the radix count tables are sized by it). */
export const MAX_THREADS = 64;

/**
 * Address space (RLIMIT_AS, `ulimit -v`) that one worker thread reserves at most: its V8 isolate's
 * code range and heaps. Bisected with `ulimit -v` on the 2-core machine: 0.55 GiB a worker on Node
 * 20 and 22, 0.83 on Node 24. A worker that cannot reserve it aborts the whole process (V8's "Fatal
 * process OOM ... CodeRange"), so the limit is checked before the workers start.
 */
const WORKER_ADDRESS_SPACE = 0.9 * 2 ** 30;
/** What the shared WebAssembly memory reserves in address space (its 4 GiB range and guard
 * regions): about 10 GiB on Node 20 and 22, 5 on Node 24. */
const HEAP_ADDRESS_SPACE = 10.5 * 2 ** 30;

/** Bytes of address space left under `ulimit -v`, or undefined when unlimited (or not Linux). */
export function addressSpaceLeft(): number | undefined {
  try {
    const limit = /^Max address space\s+(\S+)/m.exec(readFileSync("/proc/self/limits", "utf8"))?.[1];
    const used = /^VmSize:\s+(\d+) kB/m.exec(readFileSync("/proc/self/status", "utf8"))?.[1];
    if (limit === undefined || used === undefined || !/^\d+$/.test(limit)) return undefined;
    return Number(limit) - 1024 * Number(used);
  } catch {
    return undefined;
  }
}

/** os.availableParallelism(), capped at MAX_THREADS, and at the workers that `ulimit -v` leaves
 * room for beside the heap (down to 1, which starts no worker). */
export function defaultThreads(): number {
  const cores = Math.min(availableParallelism(), MAX_THREADS);
  const left = addressSpaceLeft();
  if (left === undefined) return cores;
  return Math.max(1, Math.min(cores, Math.floor((left - HEAP_ADDRESS_SPACE) / WORKER_ADDRESS_SPACE)));
}

/** Throws a one-line error when `ulimit -v` leaves no room for `workers` worker threads. */
export function checkWorkerAddressSpace(workers: number): void {
  const left = addressSpaceLeft();
  if (left === undefined || left >= workers * WORKER_ADDRESS_SPACE) return;
  const fit = Math.max(0, Math.floor(left / WORKER_ADDRESS_SPACE));
  const gib = (bytes: number) => (bytes / 2 ** 30).toFixed(1);
  throw failure(
    `the address-space limit (ulimit -v) leaves ${gib(Math.max(0, left))} GiB, room for ${fit} worker thread${fit === 1 ? "" : "s"} ` +
      `of about ${gib(WORKER_ADDRESS_SPACE)} GiB each, not ${workers}: use --threads ${Math.max(1, fit)} or raise the limit`,
  );
}

export function checkThreads(threads: number): number {
  if (!Number.isInteger(threads) || threads < 1 || threads > MAX_THREADS) {
    throw usageError(`threads must be an integer from 1 to ${MAX_THREADS} (got ${threads})`);
  }
  return threads;
}

function call(kernels: Kernels, kernel: string, args: KernelArgs): number {
  const fn = kernels[kernel];
  if (typeof fn !== "function") throw new Error(`sufsort: no kernel named ${kernel}`);
  const result = (fn as (...a: number[]) => number | undefined)(...args);
  return result === undefined ? 0 : result >>> 0;
}

/** Runs every block on the calling thread, one after another (threads = 1, and the reference). */
export class SequentialExecutor implements Executor {
  readonly threads = 1;
  readonly kernels: Kernels;
  constructor(readonly heap: SharedHeap) {
    this.kernels = instantiate(heap.memory);
  }
  async map(kernel: string, calls: readonly KernelArgs[]): Promise<number[]> {
    return calls.map((args) => call(this.kernels, kernel, args));
  }
  async runOne(kernel: string, args: KernelArgs): Promise<number> {
    return call(this.kernels, kernel, args);
  }
  asTeam<T>(build: () => Promise<T>): Promise<T> {
    return build();
  }
  start(): void {}
  readonly startedWorkers = 0;
  async close(): Promise<void> {}
}

/** What a worker task carries: a kernel name and its arguments (TEAM_TASK: serve the team board). */
export interface KernelTask {
  kernel: string;
  args: KernelArgs;
}

/**
 * Microseconds a team worker spins for the next phase before it sleeps: waking a sleeping thread
 * costs this VM 0.1-0.4 ms. No spinning when the threads outnumber the cores.
 */
const TEAM_SPIN_US = 300;

/**
 * A piscina pool of `threads` workers, each holding an instance of the module on the heap's memory
 * (workers/cpu.ts). The pool starts on the first parallel call, or at start() (placeText calls it
 * for a build that will use it, so the workers boot while the text is read). Idle workers are
 * unref'd by piscina, so an open pool does not keep the process alive; close() ends the workers.
 */
export class PiscinaExecutor implements Executor {
  readonly kernels: Kernels;
  private readonly module: WebAssembly.Module;
  private pool: Piscina | undefined;
  private readonly board: TeamBoard;
  /** Whether a team build runs; its workers join at its first phase and leave for runOne. */
  private teamBuild = false;
  private members: Promise<unknown>[] | undefined;
  constructor(readonly heap: SharedHeap, readonly threads: number) {
    this.module = wasmModule();
    this.kernels = instantiate(heap.memory, this.module);
    this.board = new TeamBoard(newBoard(), this.kernels);
  }
  async map(kernel: string, calls: readonly KernelArgs[]): Promise<number[]> {
    // nothing or one block: the calling thread (a phase with no blocks started the workers for
    // nothing: a one-shot range build of 1,000 bytes took 98 ms at 2 threads)
    if (calls.length <= 1) return calls.map((args) => call(this.kernels, kernel, args));
    if (this.teamBuild && this.board.fits(kernel, calls)) {
      this.members ??= this.gatherTeam();
      const results: number[] = [];
      for (let k = 0; k < calls.length; k += TEAM_SLOTS) results.push(...this.board.map(kernel, calls.slice(k, k + TEAM_SLOTS)));
      return results;
    }
    await this.dismissTeam(); // the whole pool takes a phase the board cannot
    const pool = this.started();
    const results = await Promise.all(calls.map((args) => pool.run({ kernel, args } satisfies KernelTask)));
    return results.map((r: number) => r >>> 0);
  }
  async runOne(kernel: string, args: KernelArgs): Promise<number> {
    await this.dismissTeam(); // SA-IS runs its kernel and its helper on two workers
    return ((await this.started().run({ kernel, args } satisfies KernelTask)) as number) >>> 0;
  }
  async asTeam<T>(build: () => Promise<T>): Promise<T> {
    if (this.teamBuild) return build();
    this.teamBuild = true;
    try {
      return await build();
    } finally {
      this.teamBuild = false;
      await this.dismissTeam();
    }
  }
  /** threads - 1 workers join the calling thread on the board (the pool has `threads`: one is left for runOne). */
  private gatherTeam(): Promise<unknown>[] {
    const pool = this.started();
    this.board.open(this.threads <= availableParallelism() ? TEAM_SPIN_US : 0);
    return Array.from({ length: this.threads - 1 }, () =>
      pool.run({ kernel: TEAM_TASK, args: [] } satisfies KernelTask).catch((e: unknown) => e),
    );
  }
  private async dismissTeam(): Promise<void> {
    const members = this.members;
    if (members === undefined) return;
    this.members = undefined;
    this.board.stop();
    await Promise.all(members);
  }
  start(workers = this.threads): void {
    this.started(workers);
  }
  get startedWorkers(): number {
    return this.pool?.threads.length ?? 0;
  }
  /** The pool, made with `workers` started (piscina starts more, up to `threads`, as tasks queue). */
  private started(workers = this.threads): Piscina {
    if (this.pool === undefined) checkWorkerAddressSpace(this.threads);
    this.pool ??= new (piscinaClass())({
      filename: packagePath("dist", "workers", "cpu.js"),
      minThreads: Math.max(1, Math.min(workers, this.threads)),
      maxThreads: this.threads,
      idleTimeout: Infinity,
      workerData: { memory: this.heap.memory, module: this.module, board: this.board.buffer },
      execArgv: workerExecArgv(),
    });
    return this.pool;
  }
  async close(): Promise<void> {
    await this.pool?.destroy();
    this.pool = undefined;
  }
}

/**
 * TypeScript steps over plain shared arrays (workers/plain.ts), for the large paths beyond the
 * WebAssembly memory: map() runs one step per task on a piscina pool of `threads` workers, or on
 * the calling thread for one thread. `fn` is the step itself, `step` its name in workers/plain.ts.
 */
export class PlainSteps {
  private readonly pool: Piscina | undefined;
  constructor(readonly threads: number) {
    if (threads > 1) checkWorkerAddressSpace(threads);
    this.pool = threads > 1
      ? new (piscinaClass())({
        filename: packagePath("dist", "workers", "plain.js"),
        minThreads: threads,
        maxThreads: threads,
        idleTimeout: Infinity,
        execArgv: workerExecArgv(),
      })
      : undefined;
  }
  async map<A, R>(step: string, fn: (args: A) => R, tasks: readonly A[]): Promise<R[]> {
    const pool = this.pool;
    if (pool === undefined || tasks.length <= 1) return tasks.map(fn);
    return Promise.all(tasks.map((args) => pool.run({ step, args: packViews(args) }) as Promise<R>));
  }
  async close(): Promise<void> {
    await this.pool?.destroy();
  }
}

/**
 * Touches every page of a fresh shared array (zeroing it again) on `threads` workers, so that the
 * system maps its pages in parallel: a first write into fresh memory costs a page fault per 4 KiB
 * (2 GB took 1.0-1.1 s on one thread of the 2-core VM and 0.47-0.58 s on two, and 5-11 s for the
 * SA of a large build on one). Returns at once with one thread, or where the workers cannot start.
 */
export async function prefault(array: Int32Array, threads: number): Promise<void> {
  if (threads < 2) return;
  await splitOnWorkers("zeroFill", zeroFill, array.length, threads, (from, to) => ({ array, from, to }));
}

/**
 * array[i] = source[array[i]] for every i (source a shared array apart from array): a random
 * gather, split among `threads` workers so that every core has its loads in flight; on this
 * thread with one thread, or where the workers cannot start.
 */
export async function gatherInPlace(array: Int32Array, source: Int32Array, threads: number): Promise<void> {
  const whole = () => gatherStep({ array, source, from: 0, to: array.length });
  if (threads < 2) return whole();
  const ran = await splitOnWorkers("gatherStep", gatherStep, array.length, threads, (from, to) => ({ array, source, from, to }));
  if (!ran) whole();
}

/** Runs `step` on `threads` workers over [0, n) cut evenly; false, with nothing run, where the workers cannot start. */
async function splitOnWorkers<A>(
  name: string, step: (args: A) => void, n: number, threads: number, part: (from: number, to: number) => A,
): Promise<boolean> {
  let steps: PlainSteps;
  try {
    steps = new PlainSteps(threads);
  } catch {
    return false; // no address space for the workers
  }
  try {
    const parts = Array.from({ length: threads }, (_, i) => part(Math.floor((n * i) / threads), Math.floor((n * (i + 1)) / threads)));
    await steps.map(name, step, parts);
    return true;
  } finally {
    await steps.close();
  }
}

const NO_REQUIRE_ESM = "--no-experimental-require-module";

/**
 * piscina loads a worker file with require() before trying import(). On Node 20.19+ require() of an
 * ES module that is cut short (close() ending a worker still loading) aborts the whole process
 * ("IsGraphAsync must be used on an instantiated module"): seen in CI, and here in 5 of 6 runs
 * of 100 quick open-run-close cycles of an 8-thread pool. With require(esm) off in the workers, piscina takes import(), which
 * a terminated worker leaves cleanly.
 */
export function workerExecArgv(): string[] | undefined {
  if (!process.allowedNodeEnvironmentFlags.has(NO_REQUIRE_ESM)) return undefined;
  // --input-type (a parent run as `node --input-type=module -e ...`) is refused by a worker started
  // from a file: the remote engine's worker failed to start with it
  const kept = inheritableExecArgv().filter((a) => a !== "--experimental-require-module" && !a.startsWith("--input-type"));
  return [...kept, NO_REQUIRE_ESM];
}

let inheritable: string[] | undefined;

/**
 * The parent's execArgv less what a worker's explicit execArgv may not hold: V8 options such as
 * --max-old-space-size (which apply to every thread anyway) make the Worker constructor throw
 * ERR_WORKER_INVALID_EXEC_ARGV, where inheriting by default would have dropped them. Each option
 * (alone, or with the next entry as its value) is tried on a worker that is ended at once; only
 * when the whole list is refused, once per process.
 */
function inheritableExecArgv(): string[] {
  if (inheritable !== undefined) return inheritable;
  const accepted = (args: string[]) => {
    try {
      void new Worker("", { eval: true, execArgv: args, stdout: true, stderr: true }).terminate();
      return true;
    } catch {
      return false;
    }
  };
  const all = process.execArgv;
  if (all.length === 0 || accepted(all)) return (inheritable = [...all]);
  const kept: string[] = [];
  for (let i = 0; i < all.length; i++) {
    if (accepted([...kept, all[i]!])) kept.push(all[i]!);
    else if (i + 1 < all.length && accepted([...kept, all[i]!, all[i + 1]!])) kept.push(all[i]!, all[++i]!);
  }
  return (inheritable = kept);
}

/** A sequential executor for one thread, a piscina pool otherwise. */
export function createExecutor(heap: SharedHeap, threads: number): Executor {
  checkThreads(threads);
  return threads === 1 ? new SequentialExecutor(heap) : new PiscinaExecutor(heap, threads);
}
