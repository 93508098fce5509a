// One registry of suffix-array algorithms: the CLI, the API, bench and crosscheck all list them from here.
import type { SharedHeap } from "../cpu/memory.js";
import type { Kernels } from "../cpu/wasm.js";
import type { Executor } from "../cpu/executor.js";
import { seenBitsBytes } from "./verify-large.js";
import type { GpuContext } from "../gpu/device.js";
import type { ProducePiece } from "../gpu/algorithms/io.js";

/** Where an algorithm runs: the CPU workers, the GPU, or both at once on one build (hybrid). */
export type EngineKind = "cpu" | "gpu" | "hybrid";

/**
 * What a hybrid build reports: the rounds where the GPU and the CPU workers sorted at the same time,
 * and, summed over those rounds, each side's busy time and the wall time of the overlapped part.
 */
export interface Overlap {
  /** Rounds split between the GPU and the CPU. */
  rounds: number;
  /** Suffixes (entries of unsorted groups) the CPU workers sorted, over all rounds. */
  cpuSuffixes: number;
  /** Suffixes of the split rounds the GPU sorted. */
  gpuSuffixes: number;
  gpuMs: number;
  cpuMs: number;
  /** Wall time from the moment both could start until both were done. */
  wallMs: number;
}

/** What an algorithm gets: the text and an n-entry SA region in one shared memory. */
export interface BuildContext {
  heap: SharedHeap;
  /** Kernels instantiated on `heap.memory` in the calling thread. */
  kernels: Kernels;
  textPtr: number;
  n: number;
  /** n u32 slots; the algorithm leaves the suffix array here. */
  saPtr: number;
  /**
   * For texts too large for the heap (buildLarge): the text and the SA's n entries outside it;
   * textPtr and saPtr are then unused. Only sorters with `outsideHeap` read them.
   */
  text?: Uint8Array;
  sa?: Uint32Array;
  threads: number;
  /** Runs kernels over blocks on the engine's workers (heap and kernels are its own). */
  executor: Executor;
  /** The device for engine "gpu" sorters (they throw a SufsortError without one); the caller owns it. */
  gpu?: GpuContext;
  onProgress?: (fraction: number) => void;
  /** Hybrid sorters report their GPU/CPU overlap here at the end of the build. */
  onOverlap?: (overlap: Overlap) => void;
  /** Set by applications that go on from the SA on the device (see DeviceSuffixArrayConsumer). */
  consumeDeviceSuffixArray?: DeviceSuffixArrayConsumer;
}

/** The text of a build: ctx.text when it lies outside the heap, else its view of the heap. */
export function textOf(ctx: BuildContext): Uint8Array {
  return ctx.text ?? ctx.heap.u8(ctx.textPtr, ctx.n);
}

/** Where a build leaves its SA: ctx.sa when it lies outside the heap, else n u32 at ctx.saPtr. */
export function suffixArrayOf(ctx: BuildContext): Uint32Array {
  return ctx.sa ?? ctx.heap.u32(ctx.saPtr, ctx.n);
}

/**
 * Takes a GPU sorter's result where it lies instead of having it read back into ctx.saPtr: `sa`
 * holds the n entries of the SA, `text` the text packed 4 bytes per u32 (zero-padded); both are
 * valid until the returned promise settles. The SA region of the heap (4n bytes at ctx.saPtr) is
 * then the consumer's to use. Sorters that finish on the host (n <= 1) write ctx.saPtr and do not
 * call it. With `produce`, the SA is not written yet: the consumer encodes its pieces, [0, n) in
 * order (e.g. each right before it reads them), so that the sorter's last step overlaps its work.
 */
export type DeviceSuffixArrayConsumer = (gpu: GpuContext, sa: GPUBuffer, text: GPUBuffer, ctx: BuildContext, produce?: ProducePiece) => Promise<void>;

/** Said by a sorter that handed an input over to another algorithm (visible in the build result). */
export interface HandOver {
  /** The algorithm that built the SA. */
  algorithm: string;
  /** Why, in a few words. */
  reason: string;
}

/** The one contract every algorithm implements: (text, context) -> SA. */
export interface SuffixSorter {
  readonly name: string;
  readonly engine: EngineKind;
  readonly description: string;
  /** Largest n the algorithm accepts (memory or index-width limits). */
  readonly maxLength: number;
  /**
   * CPU sorters: the shortest text for which a build that starts its own workers and ends them
   * after it (placeText without `reuse`: the CLI, the one-shot API) uses them; shorter ones run on
   * the calling thread, where starting the workers (55-100 ms for two on the 2-core machine) costs
   * more than they save. 0 or absent: always.
   */
  readonly workersFrom?: number;
  /**
   * CPU sorters: such a build above workersFrom uses at most one thread per this many bytes (at
   * least two): on many cores, starting a worker costs more than its share of a short text saves.
   * Absent: every thread.
   */
  readonly bytesPerWorker?: number;
  /**
   * Bytes of heap beyond text and SA the algorithm needs for input length n. buildPlaced reserves
   * them right after the SA (ctx.saPtr + 4n); an algorithm that allocates with the heap's bump
   * allocator instead releases that reservation first (heap.release(saPtr + 4n)).
   */
  scratchBytes(n: number): number;
  /**
   * Whether the sorter can take a text held outside the heap (ctx.text, ctx.sa), for inputs whose
   * text + SA exceed the 4 GiB WebAssembly memory (buildLarge).
   */
  readonly outsideHeap?: boolean;
  /**
   * The workers a build of n bytes keeps busy when the executor has `threads`: that many start
   * before the build, to get ready while the text is read or the device acquired. Absent: all of
   * them for a CPU sorter, none for a GPU one. A phase that wants more later (the apps' steps
   * after the SA) starts the rest then.
   */
  busyWorkers?(n: number, threads: number): number;
  /** Leaves the SA at ctx.saPtr; returns a note when another algorithm finished the job. */
  build(ctx: BuildContext): Promise<void | HandOver>;
}

/** Zero bytes after the text: kernels may load a whole word at the last positions. */
export const TEXT_PADDING = 16;

/** Heap bytes a build of n bytes with `sorter` needs (text + SA region + verifier scratch). Here,
 * beside scratchBytes, so that the engine policy (choice.ts) and the builds (build.ts) share it. */
export function heapBytesFor(n: number, sorter: SuffixSorter): number {
  return 64 + align64(n + TEXT_PADDING) + 4 * n + align64(sorter.scratchBytes(n)) + align64(seenBitsBytes(n)) + 4096;
}

function align64(x: number): number {
  return Math.ceil(x / 64) * 64;
}

const sorters = new Map<string, SuffixSorter>();

export function registerSorter(sorter: SuffixSorter): void {
  if (sorters.has(sorter.name)) throw new Error(`sufsort: algorithm ${sorter.name} registered twice`);
  sorters.set(sorter.name, sorter);
}

export function getSorter(name: string): SuffixSorter | undefined {
  return sorters.get(name);
}

export function listSorters(): SuffixSorter[] {
  return [...sorters.values()];
}
