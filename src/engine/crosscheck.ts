// Cross-checking: every available algorithm, then every engine choice (auto, cpu, gpu, hybrid, as
// the engine policy picks for this text), against SA-IS on one text, byte for byte.
import { buildSuffixArray } from "./build.js";
import { firstDifference } from "./compare.js";
import { listSorters, type SuffixSorter } from "./registry.js";
import { ENGINE_CHOICES, type EngineChoice } from "./choice.js";
import { acquireGpu, resolveGpuMode, type GpuContext, type GpuMode } from "../gpu/device.js";

export interface CrosscheckRow {
  algo: string;
  engine: string;
  /** Construction time, or null when the algorithm failed. */
  seconds: number | null;
  /** Equal to SA-IS; null when the algorithm failed or was skipped (a GPU algorithm without an adapter). */
  equal: boolean | null;
  skipped?: boolean;
  note: string;
}

/**
 * Builds with SA-IS, then with each other sorter (default: all registered) and each engine choice
 * (default: all), comparing each result.
 */
export async function crosscheck(
  text: Uint8Array,
  options: { threads?: number; sorters?: SuffixSorter[]; engines?: readonly EngineChoice[]; gpu?: GpuMode } = {},
): Promise<CrosscheckRow[]> {
  const reference = await buildSuffixArray(text, { algo: "sais", threads: options.threads });
  const expected = reference.sa.slice();
  const rows: CrosscheckRow[] = [{ algo: "sais", engine: "cpu", seconds: reference.seconds, equal: true, note: "reference" }];
  const sorters = (options.sorters ?? listSorters()).filter((s) => s.name !== "sais");
  // One device for every GPU algorithm (Dawn misbehaves with several per process); none: they are skipped.
  const engines = options.engines ?? ENGINE_CHOICES;
  const wantsGpu = sorters.some((s) => s.engine !== "cpu") || engines.some((e) => e !== "cpu");
  const gpu = wantsGpu ? await acquireGpu({ mode: resolveGpuMode(options.gpu) }) : null;
  try {
    for (const sorter of sorters) rows.push(await checkOne(text, sorter, expected, options.threads, gpu));
    for (const engine of engines) rows.push(await checkEngine(text, engine, expected, options.threads, gpu));
  } finally {
    gpu?.release();
  }
  return rows;
}

async function checkOne(
  text: Uint8Array,
  sorter: SuffixSorter,
  expected: Uint32Array,
  threads: number | undefined,
  gpu: GpuContext | null,
): Promise<CrosscheckRow> {
  if (sorter.engine !== "cpu" && gpu === null) {
    return { algo: sorter.name, engine: sorter.engine, seconds: null, equal: null, skipped: true, note: "skipped: no GPU adapter (--gpu software uses Mesa llvmpipe)" };
  }
  try {
    const r = await buildSuffixArray(text, { algo: sorter.name, threads, ...(gpu ? { gpuContext: gpu } : {}) });
    const at = firstDifference(r.sa, expected);
    return { algo: r.algo, engine: r.engine, seconds: r.seconds, equal: at < 0, note: at < 0 ? "" : `first difference at SA[${at}]` };
  } catch (e) {
    return { algo: sorter.name, engine: sorter.engine, seconds: null, equal: null, note: (e as Error).message };
  }
}

/** One row for `--engine engine` (the policy's pick; auto never takes the software adapter). */
async function checkEngine(
  text: Uint8Array,
  engine: EngineChoice,
  expected: Uint32Array,
  threads: number | undefined,
  gpu: GpuContext | null,
): Promise<CrosscheckRow> {
  const label = `engine ${engine}`;
  if ((engine === "gpu" || engine === "hybrid") && gpu === null) {
    return { algo: label, engine, seconds: null, equal: null, skipped: true, note: "skipped: no GPU adapter (--gpu software uses Mesa llvmpipe)" };
  }
  try {
    const r = await buildSuffixArray(text, { engine, threads, ...(gpu ? { gpuContext: gpu } : {}) });
    const at = firstDifference(r.sa, expected);
    const why = r.reason ?? `--engine ${engine}`;
    return { algo: r.algo, engine: r.engine, seconds: r.seconds, equal: at < 0, note: at < 0 ? why : `${why}; first difference at SA[${at}]` };
  } catch (e) {
    return { algo: label, engine, seconds: null, equal: null, note: (e as Error).message };
  }
}
