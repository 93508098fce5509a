// The engine policy's request as a command's options say it (--engine, --algo, --threads, --gpu),
// and an input file placed by it (src/engine/placement.ts).
import { MAX_INPUT_BYTES } from "../engine/build.js";
import { parseEngine } from "../engine/choice.js";
import { placeForApp, type EngineRequest, type Placement } from "../engine/placement.js";
import { resolveGpuMode } from "../gpu/device.js";
import { stringOption, threadsOption, type Parsed } from "./command.js";
import { openInput } from "./files.js";

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
