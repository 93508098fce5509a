// The engine policy applied to a text, once for every build of a suffix array that keeps working on
// the placed text (sufsort build, bwt, lcp and index, and the library's bwt, lcp and FMIndex): auto's
// choice looks at sampled windows of the text, then the text is read straight into the shared heap
// (a file is never copied) and the plan routed by the placed text's long repeats. A text too large
// for the heap takes the large path (a plain array; buildLarge).
import {
  buildLarge, buildPlaced, checkLargePathMemory, checkLength, closePlaced, placeText, routePlaced, routePlacedByRepeats, scansRepeats,
  selectEngine, usesLargePath, type BuildOptions, type BuildResult, type PlacedText,
} from "./build.js";
import { sharedU8 } from "../cpu/memory.js";
import { sampleWindows, textTraits, type EngineChoice } from "./choice.js";
import type { SuffixSorter } from "./registry.js";
import type { GpuContext, GpuMode } from "../gpu/device.js";

/** A text to place: a file (src/cli/files.ts InputFile) or bytes in memory (textSource). */
export interface TextSource {
  readonly size: number;
  /** Fills `into` with the bytes from offset `at`. */
  read(into: Uint8Array, at?: number): void;
  /** The whole text, where it is in memory already (the large path takes it without a copy). */
  readonly bytes?: Uint8Array;
}

/** Bytes read per view by readByRanges: an SA over 2^30 entries is more bytes than one typed array may hold. */
const RANGE_BYTES = 1 << 30;

/** All of `source` read into the views view(offset, length), a range of at most RANGE_BYTES at a time. */
export function readByRanges(source: Pick<TextSource, "size" | "read">, view: (offset: number, length: number) => Uint8Array): void {
  for (let at = 0; at < source.size; at += RANGE_BYTES) source.read(view(at, Math.min(RANGE_BYTES, source.size - at)), at);
}

/** Bytes in memory as a TextSource. */
export function textSource(bytes: Uint8Array): TextSource {
  return { size: bytes.length, read: (into, at = 0) => into.set(bytes.subarray(at, at + into.length)), bytes };
}

/** What a build asks of the engine policy (a command's --engine, --algo, --threads and --gpu). */
export interface EngineRequest {
  engine: EngineChoice;
  algo?: string;
  threads: number;
  gpu?: GpuMode;
}

export interface Placement {
  /** The text in the shared heap; undefined on the large path. */
  placed?: PlacedText;
  /** The text in a plain buffer, on the large path only (beyond the WebAssembly memory). */
  large?: Uint8Array;
  sorter: SuffixSorter;
  /** The engine policy's reason for `sorter`. */
  reason: string;
  /** Threads the build runs on (fewer than asked for a short text). */
  threads: number;
  /** The device the plan runs on, when it runs on one. */
  gpuContext?: GpuContext;
  /** Closes the placed text's workers and releases the device. */
  close(): Promise<void>;
}

/**
 * Picks the sorter for `file` by `request` and places the text for it: in the heap, or in a plain
 * array where the sorter's build does not fit the heap (usesLargePath). With `allWorkers`, every
 * worker starts at placement (the apps' own steps run on all of them).
 */
export async function placeByEngine(
  file: TextSource, request: EngineRequest, options: { allWorkers?: boolean } = {},
): Promise<Placement> {
  const size = file.size;
  checkLength(size);
  const traits = textTraits(sampleWindows(size, (offset, length) => {
    const window = new Uint8Array(length);
    file.read(window, offset);
    return window;
  }), size);
  const selection = await selectEngine({ ...request, n: size, traits });
  let plan = selection.plan;
  let close = async () => selection.release();
  try {
    if (usesLargePath(size, plan.sorter)) {
      // SA-IS in TypeScript, or a sorter that takes its text outside the heap (gpu-dc7)
      checkLargePathMemory(size, plan.sorter, true);
      let large = file.bytes;
      if (large === undefined) {
        large = sharedU8(size); // shared: the steps after the SA may run on workers
        file.read(large);
      }
      return { large, sorter: plan.sorter, reason: plan.reason, threads: request.threads, gpuContext: selection.gpu, close };
    }
    const placed = placeText(size, plan.sorter, request.threads, { allWorkers: options.allWorkers === true || scansRepeats(plan) });
    close = () => closePlaced(placed).finally(() => selection.release());
    file.read(placed.heap.u8(placed.textPtr, size));
    const routing = await routePlacedByRepeats(placed, routePlaced(placed, plan, traits), traits, { gpu: request.gpu, gpuContext: selection.gpu });
    plan = routing.plan;
    const closeText = close;
    return {
      placed,
      sorter: plan.sorter,
      reason: plan.reason + placed.threadsNote,
      threads: placed.executor.threads,
      gpuContext: routing.gpu ?? selection.gpu,
      close: () => closeText().finally(() => routing.release()),
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/** placeByEngine for an application (bwt, lcp, index): all workers started (its own steps run on them), the large path past the heap. */
export function placeForApp(source: TextSource, request: EngineRequest): Promise<Placement> {
  return placeByEngine(source, request, { allWorkers: true });
}

/** `options` with the device the placement holds, if it holds one. */
export function placementOptions(placement: Placement, options: BuildOptions): BuildOptions {
  return placement.gpuContext ? { ...options, gpuContext: placement.gpuContext } : options;
}

/** Builds the SA of a placed text where it lies: in its heap (buildPlaced) or past it (buildLarge). */
export function buildOfPlacement(placement: Placement, options: BuildOptions = {}): Promise<BuildResult> {
  const withDevice = placementOptions(placement, options);
  return placement.placed !== undefined ? buildPlaced(placement.placed, withDevice) : buildLarge(placement.large!, withDevice, placement.sorter);
}
