// Command-line entry of the GPU primitive benchmark (the lead registers it as `sufsort bench-gpu`):
//   node dist/src/gpu/bench-main.js [--sizes 20,22,24,26,27,28] [--only scan,radix32] [--repeats 5]
//                                   [--gpu hardware|software] [--check] [--json file]
import { writeFileSync } from "node:fs";
import { SufsortError } from "../errors.js";
import { runGpuBench } from "./bench.js";
import { resolveGpuMode } from "./device.js";

export async function benchGpuMain(argv: string[]): Promise<number> {
  const value = (flag: string): string | undefined => {
    const at = argv.indexOf(flag);
    return at >= 0 ? argv[at + 1] : undefined;
  };
  const list = (s: string | undefined): string[] | undefined => s?.split(",").filter((x) => x);
  try {
    const rows = await runGpuBench({
      log2Sizes: list(value("--sizes"))?.map(Number),
      primitives: list(value("--only")),
      repeats: value("--repeats") !== undefined ? Number(value("--repeats")) : undefined,
      mode: resolveGpuMode(value("--gpu") ?? process.env.SUFSORT_GPU ?? "hardware"),
      check: argv.includes("--check"),
    });
    const json = value("--json");
    if (json) writeFileSync(json, JSON.stringify(rows, null, 2));
    return rows.some((r) => r.checked === false) ? 1 : 0;
  } catch (error) {
    if (error instanceof SufsortError) {
      process.stderr.write(`sufsort: ${error.message}\n`);
      return error.exitCode;
    }
    throw error;
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  process.exitCode = await benchGpuMain(process.argv.slice(2));
}
