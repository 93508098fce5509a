// One build: place the text and the SA region in a shared heap, run the chosen algorithm, optionally
// verify. Heap layout (host-owned): [text: n bytes][SA: n u32 + the algorithm's scratch, contiguous].
import { SharedHeap, MAX_HEAP_BYTES } from "../cpu/memory.js";
import { instantiate, type Kernels } from "../cpu/wasm.js";
import { failure, usageError } from "../errors.js";
import { getSorter, listSorters, type EngineKind, type SuffixSorter } from "./registry.js";
import { verifyInHeap, type Verdict } from "./verify.js";
import { verifyLarge } from "./verify-large.js";
import { suffixArrayLarge } from "../cpu/algorithms/sais-large.js";
import "../cpu/algorithms/index.js";

/** Inputs are indexed by u32 with room for a sentinel: n <= 2^31 - 1. */
export const MAX_INPUT_BYTES = 2 ** 31 - 1;
export const DEFAULT_ALGO = "sais";

export interface BuildOptions {
  algo?: string;
  threads?: number;
  verify?: boolean;
  onProgress?: (phase: string, fraction: number) => void;
}

export interface BuildResult {
  sa: Uint32Array;
  algo: string;
  engine: EngineKind;
  /** Construction alone: no I/O, no verification. */
  seconds: number;
  verdict: Verdict | null;
}

/** A text placed in a heap, followed by room for the SA region. */
export interface PlacedText {
  heap: SharedHeap;
  kernels: Kernels;
  textPtr: number;
  n: number;
  sorter: SuffixSorter;
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

/** Heap bytes a build of n bytes with `sorter` needs (text + SA region + verifier scratch). */
export function heapBytesFor(n: number, sorter: SuffixSorter): number {
  return 64 + align64(n) + 4 * n + align64(sorter.scratchBytes(n)) + align64((n + 7) >> 3) + 4096;
}

/** Whether the build fits the 4 GiB WebAssembly memory. */
export function fitsHeap(n: number, sorter: SuffixSorter): boolean {
  return heapBytesFor(n, sorter) <= MAX_HEAP_BYTES;
}

/**
 * Creates a heap for n bytes of text and returns where the text goes; the caller fills
 * heap.u8(textPtr, n) (the CLI reads the file straight into it, so the text is never copied).
 */
export function placeText(n: number, sorter: SuffixSorter): PlacedText {
  checkLength(n);
  if (n > sorter.maxLength) throw failure(`input is ${n} bytes; algorithm ${sorter.name} accepts at most ${sorter.maxLength}`);
  if (!fitsHeap(n, sorter)) {
    throw failure(`input is ${n} bytes; ${sorter.name} in WebAssembly needs ${heapBytesFor(n, sorter)} bytes, over the 4 GiB memory limit`);
  }
  const heap = new SharedHeap(heapBytesFor(n, sorter));
  const textPtr = heap.alloc(n);
  return { heap, kernels: instantiate(heap.memory), textPtr, n, sorter };
}

/** Builds the SA of a placed text; the SA is a view into the heap. */
export async function buildPlaced(placed: PlacedText, options: BuildOptions = {}): Promise<BuildResult> {
  const { heap, kernels, textPtr, n, sorter } = placed;
  const saPtr = heap.alloc(4 * n + sorter.scratchBytes(n), 64);
  options.onProgress?.("sorting", 0);
  const t0 = performance.now();
  await sorter.build({
    heap,
    kernels,
    textPtr,
    n,
    saPtr,
    threads: options.threads ?? 1,
    onProgress: (f) => options.onProgress?.("sorting", f),
  });
  const seconds = (performance.now() - t0) / 1000;
  options.onProgress?.("sorting", 1);
  let verdict: Verdict | null = null;
  if (options.verify) {
    options.onProgress?.("verifying", 0);
    verdict = verifyInHeap(heap, kernels, textPtr, saPtr, n);
    if (!verdict.ok) throw failure(`verification failed: ${verdict.message}`);
  }
  return { sa: heap.u32(saPtr, n), algo: sorter.name, engine: sorter.engine, seconds, verdict };
}

/** Builds the SA of a text held anywhere (copied once into the heap, unless it is too large for it). */
export async function buildSuffixArray(text: Uint8Array, options: BuildOptions = {}): Promise<BuildResult> {
  const sorter = resolveSorter(options.algo);
  if (usesLargePath(text.length, sorter)) return buildLarge(text, options);
  const placed = placeText(text.length, sorter);
  placed.heap.u8(placed.textPtr, text.length).set(text);
  return buildPlaced(placed, options);
}

/**
 * Whether n bytes go to the TypeScript SA-IS: only SA-IS has a path beyond the 4 GiB WebAssembly
 * memory; other algorithms reject such inputs in placeText.
 */
export function usesLargePath(n: number, sorter: SuffixSorter): boolean {
  return sorter.name === "sais" && !fitsHeap(n, sorter);
}

/** SA-IS and the verifier in plain TypeScript over typed arrays, for inputs beyond the WebAssembly memory. */
export async function buildLarge(text: Uint8Array, options: BuildOptions = {}): Promise<BuildResult> {
  checkLength(text.length);
  options.onProgress?.("sorting", 0);
  const t0 = performance.now();
  const sa = suffixArrayLarge(text);
  const seconds = (performance.now() - t0) / 1000;
  let verdict: Verdict | null = null;
  if (options.verify) {
    options.onProgress?.("verifying", 0);
    verdict = verifyLarge(text, sa);
    if (!verdict.ok) throw failure(`verification failed: ${verdict.message}`);
  }
  return { sa, algo: "sais", engine: "cpu", seconds, verdict };
}

function align64(x: number): number {
  return Math.ceil(x / 64) * 64;
}
