// Public API of sufsort. Arguments are checked here, once; everything below assumes valid input.
import { buildSuffixArray, checkLength, DEFAULT_ALGO } from "./engine/build.js";
import { listSorters, type EngineKind } from "./engine/registry.js";
import { ENGINE_CHOICES, type EngineChoice } from "./engine/choice.js";
import { verifySuffixArrayOf, type Verdict } from "./engine/verify.js";
import { usageError } from "./errors.js";
import { checkThreads } from "./cpu/executor.js";

export { SufsortError, ExitCode } from "./errors.js";
export { createEngine } from "./engine/engine.js";
export type { Engine, EngineOptions, BuildOptions as EngineBuildOptions, BuildResult as EngineBuildResult } from "./engine/engine.js";
export { createRemoteEngine } from "./engine/remote.js";
export type { Verdict } from "./engine/verify.js";
export type { EngineKind, Overlap } from "./engine/registry.js";
export type { EngineChoice } from "./engine/choice.js";

/** A text: bytes, or a string (encoded as UTF-8). */
export type TextInput = Uint8Array | string;

export interface SuffixArrayOptions {
  /**
   * Where to build: "auto" (default: the CPU for small inputs or without a hardware GPU, else the
   * GPU), "cpu", "gpu" (fails without an adapter) or "hybrid" (GPU and CPU workers on one build).
   */
  engine?: EngineChoice;
  /** Algorithm name (see `algorithms()`); default: the engine's choice. With `engine`, they must agree. */
  algo?: string;
  /** Worker threads for parallel algorithms; default: all available cores. */
  threads?: number;
  /** Run the linear verifier on the result and reject if it is wrong. */
  verify?: boolean;
  /** Adapter for GPU algorithms: "hardware" (default), "software" (Mesa llvmpipe) or "auto". */
  gpu?: "hardware" | "software" | "auto";
}

/** An algorithm sufsort can run. */
export interface AlgorithmInfo {
  name: string;
  engine: EngineKind;
  description: string;
  maxLength: number;
}

/**
 * The suffix array of `text`: the n start positions of its suffixes in lexicographic order (bytes
 * compared as unsigned; a proper prefix sorts first). No sentinel entry.
 */
export async function suffixArray(text: TextInput, options: SuffixArrayOptions = {}): Promise<Uint32Array> {
  const bytes = toBytes(text);
  checkOptions(options);
  return (await buildSuffixArray(bytes, options)).sa;
}

/**
 * Checks that `sa` is the suffix array of `text` in linear time (no second construction).
 * Resolves to { ok: true } or to { ok: false, kind, position, message } naming the first fault found.
 */
export async function verifySuffixArray(text: TextInput, sa: Uint32Array): Promise<Verdict> {
  const bytes = toBytes(text);
  if (!(sa instanceof Uint32Array)) throw usageError("sa must be a Uint32Array");
  return verifySuffixArrayOf(bytes, sa);
}

/** The algorithms this installation can run. */
export function algorithms(): AlgorithmInfo[] {
  return listSorters().map(({ name, engine, description, maxLength }) => ({ name, engine, description, maxLength }));
}

export { DEFAULT_ALGO };

function toBytes(text: TextInput): Uint8Array {
  if (typeof text === "string") return new TextEncoder().encode(text);
  if (text instanceof Uint8Array) {
    checkLength(text.length);
    return text;
  }
  throw usageError("text must be a Uint8Array, a Buffer or a string");
}

function checkOptions(options: SuffixArrayOptions): void {
  if (options.engine !== undefined && !(ENGINE_CHOICES as readonly unknown[]).includes(options.engine)) {
    throw usageError(`engine must be ${ENGINE_CHOICES.map((e) => `"${e}"`).join(", ")} (got ${String(options.engine)})`);
  }
  if (options.gpu !== undefined && !["hardware", "software", "auto"].includes(options.gpu)) {
    throw usageError(`gpu must be "hardware", "software" or "auto" (got ${String(options.gpu)})`);
  }
  if (options.threads !== undefined) checkThreads(options.threads);
}

// ---------------------------------------------------------------------------------------------
// Applications built on the suffix array: BWT, inverse BWT, LCP array, FM-index (src/apps/).
// ---------------------------------------------------------------------------------------------
export { bwt, unbwt, lcp, FMIndex, GpuFMIndex } from "./apps/api.js";
export type { AppOptions, BwtOutput, FMIndexOptions, GpuIndexOptions, LocateOptions, SearchOptions } from "./apps/api.js";
export type { SearchResult } from "./apps/fmindex.js";
