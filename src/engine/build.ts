// One build: place the text and the SA region in a shared heap, run the chosen algorithm, optionally
// verify. Every build goes through here: the CLI, the one-shot API, long-lived engines, bench.
// Heap layout (host-owned): [text: n bytes + 16 zero bytes][SA: n u32 + the algorithm's scratch,
// contiguous][verifier scratch].
import { availableMemory, checkAvailable, collectGarbage, firstTouchMicros, SharedHeap, MAX_HEAP_BYTES, sharedU32 } from "../cpu/memory.js";
import type { Kernels } from "../cpu/wasm.js";
import { checkThreads, createExecutor, defaultThreads, type Executor } from "../cpu/executor.js";
import { failure, SufsortError, usageError, limitError } from "../errors.js";
import { getSorter, heapBytesFor, listSorters, TEXT_PADDING, type BuildContext, type DeviceSuffixArrayConsumer, type EngineKind, type Overlap, type SuffixSorter } from "./registry.js";
import { cpuRepeatAlgo, describeRepeats, FIRST_TOUCH_PROBE_BYTES, hasLongRepeats, planEngine, routeByRepeats, routeByText, traitsOf, wantsGpu, type EngineChoice, type EnginePlan, type TextTraits } from "./choice.js";
import { longRepeatShare } from "./repeats.js";
import { verifyByWindows, verifyInHeapOn, type Verdict } from "./verify.js";
import { verifyLarge } from "./verify-large.js";
import { suffixArrayLargeOnKernel } from "../cpu/algorithms/sais-large.js";
import { saisWorkspaceSlots } from "../cpu/algorithms/sais.js";
import { acquireGpu, resolveGpuMode, type GpuContext, type GpuMode } from "../gpu/device.js";
import { maxDoublingLength } from "../gpu/algorithms/doubling.js";
import { maxDc7Length } from "../gpu/algorithms/difference-cover.js";
import { maxSkewLength } from "../gpu/algorithms/skew.js";
import { maxSpdLength } from "../gpu/algorithms/spd.js";
import "../cpu/algorithms/index.js";
import "../gpu/algorithms/index.js";

/** Inputs are indexed by u32 with room for a sentinel: n <= 2^31 - 1. */
export const MAX_INPUT_BYTES = 2 ** 31 - 1;
export const DEFAULT_ALGO = "sais";

export interface BuildOptions {
  /** Where the build runs (default auto: see choice.ts); with `algo`, the two must agree. */
  engine?: EngineChoice;
  algo?: string;
  threads?: number;
  verify?: boolean;
  /** Which adapter a GPU algorithm may use (default: SUFSORT_GPU, else hardware only). */
  gpu?: GpuMode;
  /** A device to reuse (its owner releases it); otherwise GPU algorithms acquire and release one. */
  gpuContext?: GpuContext;
  onProgress?: (phase: string, fraction: number) => void;
  /**
   * For a GPU algorithm: receives the SA on the device instead of its readback (the applications'
   * GPU paths); the result's `sa` is then whatever the consumer left in the SA region. Not with verify.
   */
  consumeDeviceSuffixArray?: DeviceSuffixArrayConsumer;
}

export interface BuildResult {
  sa: Uint32Array;
  /** The algorithm that built the SA (another than the one asked for when it handed the input over). */
  algo: string;
  /** Why the algorithm asked for handed the input over, when it did. */
  handOver?: string;
  engine: EngineKind;
  /** Why the engine policy chose this algorithm (absent when the caller placed the text itself). */
  reason?: string;
  /** Hybrid builds: the GPU's and the CPU workers' busy time where they ran together. */
  overlap?: Overlap;
  /** Construction alone: no I/O, no verification. */
  seconds: number;
  verdict: Verdict | null;
}

/** A text placed in a heap, followed by room for the SA region. */
export interface PlacedText {
  heap: SharedHeap;
  kernels: Kernels;
  /** Runs kernels over blocks on worker threads (one thread below the sorter's workersFrom; see placeText). */
  executor: Executor;
  textPtr: number;
  n: number;
  sorter: SuffixSorter;
  /** What a plan's reason adds when placeText gave the build fewer threads than asked, naming the
   * sorter it placed for (a routing may switch `sorter` later); "" when it did not. */
  threadsNote: string;
}

export function resolveSorter(name = DEFAULT_ALGO): SuffixSorter {
  const sorter = getSorter(name);
  if (sorter === undefined) {
    const names = listSorters().map((s) => s.name).join(", ");
    throw usageError(`unknown algorithm '${name}' (available: ${names})`);
  }
  return sorter;
}

export function checkLength(n: number): void {
  if (n > MAX_INPUT_BYTES) throw failure(`input is ${n} bytes; the limit is ${MAX_INPUT_BYTES} bytes (2^31 - 1)`);
}

/** Whether the build fits the 4 GiB WebAssembly memory. */
export function fitsHeap(n: number, sorter: SuffixSorter): boolean {
  return heapBytesFor(n, sorter) <= MAX_HEAP_BYTES;
}

/**
 * The threads a placed build of n bytes gets, unless `reuse`: one below the sorter's workersFrom,
 * and at most one per bytesPerWorker above it (at least two).
 */
export function placedThreads(n: number, sorter: SuffixSorter, threads: number, reuse = false): number {
  checkThreads(threads);
  if (reuse) return threads;
  if (n < (sorter.workersFrom ?? 0)) return 1;
  const per = sorter.bytesPerWorker;
  return per === undefined ? threads : Math.min(threads, Math.max(2, Math.ceil(n / per)));
}

/** PlacedText.threadsNote for `sorter` placed on `ran` of the `threads` asked. */
function fewerThreadsNote(sorter: SuffixSorter, ran: number, threads: number): string {
  if (ran >= threads) return "";
  const { name, workersFrom, bytesPerWorker } = sorter;
  return ran === 1 ? `; one thread: ${name} starts workers from ${workersFrom} bytes` : `; ${ran} threads: ${name} takes one per ${bytesPerWorker} bytes`;
}

/** How placeText sets up the workers. */
export interface PlaceOptions {
  /** The heap and its workers serve many builds (the bench): small texts keep their threads too. */
  reuse?: boolean;
  /** The caller runs parallel steps of its own after the SA (the apps): every worker starts now,
   * not only those the sorter keeps busy. */
  allWorkers?: boolean;
}

/**
 * Creates a heap sized for a build of n bytes and returns where the text goes; the caller fills
 * heap.u8(textPtr, n) (the CLI reads the file straight into it, so the text is never copied) and
 * closes the executor (closePlaced) when done with the result. The workers the build keeps busy
 * start now, to get ready while the caller reads the text; the others when a phase wants them.
 */
export function placeText(n: number, sorter: SuffixSorter, threads = 1, options: PlaceOptions = {}): PlacedText {
  checkFits(n, sorter);
  const heap = new SharedHeap(heapBytesFor(n, sorter), buildRefusal(n, sorter.name));
  const executor = createExecutor(heap, placedThreads(n, sorter, threads, options.reuse));
  const workers = options.allWorkers ? executor.threads : busyWorkers(sorter, n, executor.threads);
  if (workers > 0) executor.start(workers);
  return { ...placeIn(heap, executor, n, sorter), threadsNote: fewerThreadsNote(sorter, executor.threads, threads) };
}

/** The workers a build of n bytes keeps busy at `threads` (see SuffixSorter.busyWorkers). */
function busyWorkers(sorter: SuffixSorter, n: number, threads: number): number {
  return sorter.busyWorkers?.(n, threads) ?? (sorter.engine === "cpu" ? threads : 0);
}

/** placeText for a text already in memory: a copy of it in the fresh heap. */
export function placeBytes(text: Uint8Array, sorter: SuffixSorter, threads = 1, options: PlaceOptions = {}): PlacedText {
  const placed = placeText(text.length, sorter, threads, options);
  placed.heap.u8(placed.textPtr, text.length).set(text);
  return placed;
}

/** Places n bytes after everything `heap` holds (a long-lived engine's heap), growing it for the whole build. */
export function placeIn(heap: SharedHeap, executor: Executor, n: number, sorter: SuffixSorter): PlacedText {
  checkFits(n, sorter);
  const base = heap.used;
  if (base + heapBytesFor(n, sorter) > MAX_HEAP_BYTES) {
    throw limitError(`input is ${n} bytes; ${sorter.name} needs ${heapBytesFor(n, sorter)} bytes of WebAssembly memory, over the 4 GiB limit`);
  }
  // Grow once up front, so no phase grows the memory while workers run.
  heap.alloc(heapBytesFor(n, sorter));
  heap.release(base);
  const textPtr = heap.alloc(n + TEXT_PADDING);
  heap.u8(textPtr + n, TEXT_PADDING).fill(0);
  return { heap, kernels: executor.kernels, executor, textPtr, n, sorter, threadsNote: "" };
}

/** Ends the placed text's worker pool (if it started one); the SA view stays valid. */
export async function closePlaced(placed: PlacedText): Promise<void> {
  await placed.executor.close();
}

/**
 * Refuses a build that needs more memory than this process may still use (availableMemory() in
 * cpu/memory.ts): the system would kill it part way, with no message (or it would page its
 * random reads from swap).
 */
export function checkMemory(n: number, bytes: number, what: string): void {
  checkAvailable(bytes, buildRefusal(n, what));
}

/** checkMemory's message (and placeText's heap's). */
function buildRefusal(n: number, what: string): (need: string, left: string) => string {
  return (need, left) => `input is ${n} bytes; ${what} needs about ${need} of memory and ${left} are available`;
}

/**
 * checkMemory for a build beyond the WebAssembly memory (buildLarge): a sorter that takes the text
 * outside the heap (gpu-dc7) needs its SA beside the text, SA-IS in TypeScript its SA and workspace.
 * withText: the text is not read yet (the CLI checks before it reads).
 */
export function checkLargePathMemory(n: number, sorter: SuffixSorter | undefined, withText: boolean): void {
  const text = withText ? n : 0;
  if (sorter?.outsideHeap) checkMemory(n, text + 4 * n, sorter.name);
  else checkMemory(n, text + 4 * (n + saisWorkspaceSlots(n)), "SA-IS (in TypeScript, beyond the 4 GiB WebAssembly memory)");
}

function checkFits(n: number, sorter: SuffixSorter): void {
  checkLength(n);
  if (n > sorter.maxLength) {
    throw limitError(`input is ${n} bytes; algorithm ${sorter.name} accepts at most ${sorter.maxLength} bytes (its working memory must fit the 4 GiB WebAssembly memory)`);
  }
  if (!fitsHeap(n, sorter)) {
    throw limitError(`input is ${n} bytes; ${sorter.name} in WebAssembly needs ${heapBytesFor(n, sorter)} bytes, over the 4 GiB memory limit`);
  }
}

/** Builds the SA of a placed text; the SA is a view into the heap. */
export async function buildPlaced(placed: PlacedText, options: BuildOptions = {}): Promise<BuildResult> {
  const { heap, kernels, executor, textPtr, n, sorter } = placed;
  if (options.consumeDeviceSuffixArray && options.verify) throw new Error("sufsort: a build that hands its SA to a consumer cannot verify it");
  const saPtr = heap.alloc(4 * n + sorter.scratchBytes(n), 64);
  const workers = busyWorkers(sorter, n, executor.threads);
  if (workers > 0) executor.start(workers); // they get ready while the device is acquired
  const ownGpu = await ownDevice(sorter, options);
  const gpu = options.gpuContext ?? ownGpu;
  options.onProgress?.("sorting", 0);
  const t0 = performance.now();
  let handOver;
  let seconds: number;
  let overlap: Overlap | undefined;
  try {
    const ctx: BuildContext = {
      heap,
      kernels,
      executor,
      textPtr,
      n,
      saPtr,
      threads: executor.threads,
      ...(gpu ? { gpu } : {}),
      ...(options.consumeDeviceSuffixArray ? { consumeDeviceSuffixArray: options.consumeDeviceSuffixArray } : {}),
      onProgress: (f) => options.onProgress?.("sorting", f),
      onOverlap: (o) => (overlap = o),
    };
    // CPU sorters run as a team with the workers (cheaper phases); GPU ones keep this thread free.
    handOver = await (sorter.engine === "cpu" ? executor.asTeam(() => sorter.build(ctx)) : sorter.build(ctx));
    seconds = (performance.now() - t0) / 1000;
  } finally {
    if (sorter.engine !== "cpu") gpu?.pool.canonicalize();
    ownGpu?.release();
  }
  options.onProgress?.("sorting", 1);
  let verdict: Verdict | null = null;
  if (options.verify) {
    options.onProgress?.("verifying", 0);
    verdict = await verifyInHeapOn(heap, executor, textPtr, saPtr, n);
    if (!verdict.ok) throw failure(`verification failed: ${verdict.message}`);
  }
  const sa = heap.u32(saPtr, n);
  const result: BuildResult = { sa, algo: sorter.name, engine: sorter.engine, seconds, verdict };
  if (handOver) {
    result.algo = handOver.algorithm;
    result.handOver = handOver.reason;
  }
  if (overlap !== undefined) result.overlap = overlap;
  return result;
}

/** What the engine policy chose, with the device it needs (owned: the caller releases it through release()). */
export interface EngineSelection {
  plan: EnginePlan;
  gpu?: GpuContext;
  /** Releases the device if the selection acquired it. */
  release(): void;
}

/**
 * Applies the engine policy (choice.ts) to a build of n bytes: finds out what GPU there is when
 * the choice depends on it (auto asks for a hardware adapter only at or over its GPU threshold and
 * never takes the software one), and keeps the device when the chosen algorithm needs it.
 * `--engine gpu` (or a GPU algorithm) without an adapter fails with acquireGpu's one-line error.
 */
export async function selectEngine(options: BuildOptions & { n: number; threads: number; traits?: TextTraits }): Promise<EngineSelection> {
  const engine = options.engine ?? "auto";
  const { n, threads, algo, traits } = options;
  // a contradiction between --engine and --algo is reported before any device is looked for
  if (algo !== undefined) planEngine({ engine, algo, n, threads, gpu: "none" });
  let gpu = options.gpuContext;
  let owned: GpuContext | undefined;
  const memory = availableMemory();
  if (gpu === undefined && wantsGpu(engine, algo, n, threads, traits, memory)) {
    const probing = engine === "auto" && algo === undefined;
    const mode = resolveGpuMode(options.gpu);
    if (!probing) owned = (await requireDevice(mode, algo !== undefined ? `algorithm ${algo}` : `--engine ${engine}`)) ?? undefined;
    else if (mode !== "software") owned = (await acquireGpu({ mode: "hardware" })) ?? undefined;
    gpu = owned;
  }
  const availability = gpu === undefined ? "none" : gpu.software ? "software" : "hardware";
  const plan = planEngine({
    engine, algo, n, threads, gpu: availability, memory, ...(traits ? { traits } : {}), ...(gpu ? { gpuMaxLength: Math.min(maxDoublingLength(gpu), maxSkewLength(gpu)), gpuDefaultMaxLength: maxSpdLength(gpu), gpuLargeMaxLength: maxDc7Length(gpu) } : {}),
  });
  if (plan.sorter.engine === "cpu" && owned !== undefined) {
    owned.release();
    owned = undefined;
    gpu = undefined;
  }
  return { plan, ...(gpu ? { gpu } : {}), release: () => owned?.release() };
}

/** A device for a build that cannot run without one: acquireGpu's one-line error names who asked. */
async function requireDevice(mode: GpuMode, who: string): Promise<GpuContext | null> {
  try {
    return await acquireGpu({ mode, required: true });
  } catch (error) {
    if (error instanceof SufsortError) throw new SufsortError(`${who}: ${error.message}`, error.exitCode);
    throw error;
  }
}

/**
 * Lets a plan with a periodicAlgo follow the placed text's traits (gpu-spd -> gpu-skew on periodic texts). The
 * two need the same heap (the GPU sorters reserve the same scratch, the packed readback's), which is checked.
 */
export function routePlaced(placed: PlacedText, plan: EnginePlan, traits: TextTraits): EnginePlan {
  const routed = routeByText(plan, traits);
  switchSorter(placed, routed.sorter);
  return routed;
}

/** Whether `sorter` fits the heap placed for the placed text's sorter. */
function fitsPlaced(placed: PlacedText, sorter: SuffixSorter): boolean {
  return heapBytesFor(placed.n, sorter) <= heapBytesFor(placed.n, placed.sorter);
}

/** Gives a placed text another sorter, which must fit the heap placed for the first. */
function switchSorter(placed: PlacedText, sorter: SuffixSorter): void {
  if (sorter === placed.sorter) return;
  if (!fitsPlaced(placed, sorter)) {
    throw failure(`internal error: ${sorter.name} needs more heap than ${placed.sorter.name}`);
  }
  placed.sorter = sorter;
}

/** A plan after the long-repeat scan, with the device it acquired for a GPU sorter (release() frees it). */
export interface RepeatRouting {
  plan: EnginePlan;
  gpu?: GpuContext;
  release(): void;
}

/** Whether routePlacedByRepeats scans the placed text for long repeats (a phase on every worker). */
export function scansRepeats(plan: EnginePlan): boolean {
  return plan.repeatAlgo !== undefined || plan.handOverAlgo !== undefined;
}

/**
 * Lets a plan with a repeatAlgo follow the placed text's long-repeat share (choice.ts
 * LONG_REPEAT_SHARE; the scan runs on the placed text's workers): range on few threads -> SA-IS;
 * range kept off the GPU on many threads because the text looked random -> the GPU plan for a text
 * that does not, when a hardware GPU is found (options.gpuContext, else acquired here).
 */
export async function routePlacedByRepeats(placed: PlacedText, plan: EnginePlan, traits: TextTraits, options: BuildOptions = {}): Promise<RepeatRouting> {
  const none = { release() {} };
  if (!scansRepeats(plan)) return { plan, ...none };
  // range on few threads only because the text looks random: what a fresh page costs here decides too
  // (measured on the pages after the text, before the scan's table takes them)
  const firstTouch = cpuRepeatAlgo(plan) !== undefined ? { firstTouchMicros: firstTouchMicros(placed.heap, placed.heap.used, FIRST_TOUCH_PROBE_BYTES) } : {};
  const t0 = performance.now();
  const repeats = { ...(await longRepeatShare(placed.executor, placed.textPtr, placed.n)), ms: performance.now() - t0, ...firstTouch };
  const onCpu = (why = "") => {
    const routed = routeByRepeats(plan, repeats);
    switchSorter(placed, routed.sorter);
    return { plan: { ...routed, reason: `${routed.reason}${why}` }, ...none };
  };
  if (plan.repeatAlgo === undefined || cpuRepeatAlgo(plan) !== undefined || !hasLongRepeats(repeats, plan.longRepeatShare)) return onCpu();
  // a GPU repeatAlgo: the plan of a text that does not look random, on a hardware GPU
  const owned = options.gpuContext === undefined && resolveGpuMode(options.gpu) !== "software" ? ((await acquireGpu({ mode: "hardware" })) ?? undefined) : undefined;
  const gpu = options.gpuContext ?? owned;
  if (gpu === undefined || gpu.software) {
    owned?.release();
    return onCpu("; no hardware GPU");
  }
  const again = await selectEngine({ ...options, gpuContext: gpu, engine: "auto", n: placed.n, threads: placed.executor.threads, traits: { ...traits, random: false } });
  const routed = routeByText(again.plan, traits);
  const why = routed.sorter.engine === "cpu" ? `the GPU plan runs ${routed.sorter.name} (${routed.reason})`
    : !fitsPlaced(placed, routed.sorter) ? `${routed.sorter.name} would need more memory than this build holds` : "";
  if (why !== "") {
    owned?.release();
    return onCpu(`; not the GPU: ${why}`);
  }
  switchSorter(placed, routed.sorter);
  return { plan: { ...routed, reason: `${plan.reason}, but ${describeRepeats(repeats)}: ${routed.sorter.name}` }, gpu, release: () => owned?.release() };
}

/** Builds the SA of a text held anywhere (copied once into the heap, unless it is too large for it). */
export async function buildSuffixArray(text: Uint8Array, options: BuildOptions = {}): Promise<BuildResult> {
  checkLength(text.length);
  const threads = options.threads ?? defaultThreads();
  const traits = traitsOf(text); // auto's threshold and the routing of --engine gpu both use them
  const selection = await selectEngine({ ...options, n: text.length, threads, traits });
  try {
    const plan = routeByText(selection.plan, traits);
    const withDevice = { ...options, ...(selection.gpu ? { gpuContext: selection.gpu } : {}) };
    if (usesLargePath(text.length, plan.sorter)) return { ...(await buildLarge(text, withDevice, plan.sorter)), reason: plan.reason };
    const placed = placeBytes(text, plan.sorter, threads, { allWorkers: scansRepeats(plan) });
    try {
      const routing = await routePlacedByRepeats(placed, plan, traits, withDevice);
      try {
        return { ...(await buildPlaced(placed, { ...withDevice, ...(routing.gpu ? { gpuContext: routing.gpu } : {}) })), reason: routing.plan.reason };
      } finally {
        routing.release();
      }
    } finally {
      await closePlaced(placed);
    }
  } finally {
    selection.release();
  }
}

/**
 * Whether n bytes go around the WebAssembly memory: SA-IS in TypeScript, or a sorter that takes its
 * text outside the heap (gpu-dc7); other algorithms reject such inputs in placeText.
 */
export function usesLargePath(n: number, sorter: SuffixSorter): boolean {
  return (sorter.name === "sais" || sorter.outsideHeap === true) && !fitsHeap(n, sorter);
}

/**
 * Builds the SA of a text too large for the WebAssembly memory: SA-IS and the verifier in plain
 * TypeScript over typed arrays, or `sorter` when it takes its text outside the heap (the device
 * from options.gpuContext, else acquired for this build).
 */
export async function buildLarge(text: Uint8Array, options: BuildOptions = {}, sorter?: SuffixSorter): Promise<BuildResult> {
  checkLength(text.length);
  if (options.consumeDeviceSuffixArray && options.verify) throw new Error("sufsort: a build that hands its SA to a consumer cannot verify it");
  options.onProgress?.("sorting", 0);
  const t0 = performance.now();
  const outside = sorter?.outsideHeap ? sorter : undefined;
  let sa: Uint32Array;
  if (outside) {
    if (text.length > outside.maxLength) throw limitError(`input is ${text.length} bytes; algorithm ${outside.name} accepts at most ${outside.maxLength} bytes`);
    checkLargePathMemory(text.length, outside, false);
    sa = sharedU32(text.length); // shared: the SA's consumers may run on workers
    const heap = new SharedHeap(1 << 16);
    const executor = createExecutor(heap, 1);
    const ownGpu = await ownDevice(outside, options);
    const gpu = options.gpuContext ?? ownGpu;
    try {
      await outside.build({
        heap, kernels: executor.kernels, executor, textPtr: 0, n: text.length, saPtr: 0, text, sa, threads: 1,
        ...(gpu ? { gpu } : {}),
        ...(options.consumeDeviceSuffixArray ? { consumeDeviceSuffixArray: options.consumeDeviceSuffixArray } : {}),
        onProgress: (f) => options.onProgress?.("sorting", f),
      });
    } finally {
      ownGpu?.release();
      await executor.close();
    }
  } else {
    checkLargePathMemory(text.length, sorter, false);
    sa = (await suffixArrayLargeOnKernel(text, { threads: options.threads ?? defaultThreads() })).sa;
  }
  const seconds = (performance.now() - t0) / 1000;
  let verdict: Verdict | null = null;
  if (options.verify) {
    options.onProgress?.("verifying", 0);
    await collectGarbage(); // the build's heaps, before the verifier's
    verdict = (await verifyByWindows(text, sa, options.threads ?? defaultThreads())) ?? verifyLarge(text, sa);
    if (!verdict.ok) throw failure(`verification failed: ${verdict.message}`);
  }
  return { sa, algo: outside?.name ?? "sais", engine: outside?.engine ?? "cpu", seconds, verdict };
}

/** A GPU algorithm gets the caller's device, or one acquired here (the caller releases it) for its build alone. */
async function ownDevice(sorter: SuffixSorter, options: BuildOptions): Promise<GpuContext | undefined> {
  if (sorter.engine === "cpu" || options.gpuContext !== undefined) return undefined;
  return (await acquireGpu({ mode: resolveGpuMode(options.gpu), required: true })) ?? undefined;
}
