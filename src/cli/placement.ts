// The engine policy's request as a command's options say it (--engine, --algo, --threads, --gpu),
// and an input file placed by it (src/engine/placement.ts).
import { MAX_INPUT_BYTES } from "../engine/build.js";
import { parseEngine } from "../engine/choice.js";
import { placeForApp, type EngineRequest, type Placement } from "../engine/placement.js";
import { resolveGpuMode } from "../gpu/device.js";
import { stringOption, threadsOption, type OptionSpec, type Parsed } from "./command.js";
import { openInput } from "./files.js";

/** The engine options of the commands that build a suffix array on the way (bwt, lcp, index);
 * build declares the same options with its own, longer help. */
export const ENGINE_OPTIONS: Record<string, OptionSpec> = {
  engine: { type: "string" },
  algo: { type: "string" },
  threads: { type: "string" },
  gpu: { type: "string" },
};

/** ENGINE_OPTIONS' lines of a help text. */
export const ENGINE_OPTIONS_HELP = `  --engine E         auto (default), cpu, gpu or hybrid: the suffix-array engine, chosen as
                     'sufsort build --help' describes (auto: a hardware GPU from 8 or 64 MiB)
  --algo NAME        suffix-array algorithm (default: the engine's choice)
  --threads N        worker threads (1-64; default: all cores, at most 64)
  --gpu MODE         adapter for GPU algorithms: hardware (default), software (Mesa
                     llvmpipe, slow) or auto; SUFSORT_GPU sets the default`;

/** A command's --engine, --algo, --threads and --gpu. */
export function engineRequest(args: Parsed): EngineRequest & { gpu: NonNullable<EngineRequest["gpu"]> } {
  const algo = stringOption(args, "algo");
  return {
    engine: parseEngine(stringOption(args, "engine")),
    ...(algo !== undefined ? { algo } : {}),
    threads: threadsOption(args),
    gpu: resolveGpuMode(stringOption(args, "gpu")),
  };
}

/** The file at `path` placed for an application (bwt, lcp, index). */
export async function placeInputByEngine(path: string, request: EngineRequest): Promise<Placement> {
  const file = openInput(path, MAX_INPUT_BYTES);
  try {
    return await placeForApp(file, request);
  } finally {
    file.close();
  }
}
