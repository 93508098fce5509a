// sufsort bench-gpu: the WebGPU primitives' throughput beside the device's streaming bandwidth.
import type { Command } from "../command.js";
import { intOption, stringOption } from "../command.js";
import { PRIMITIVES, runGpuBench } from "../../gpu/bench.js";
import { resolveGpuMode } from "../../gpu/device.js";
import { failure, usageError } from "../../errors.js";

export const benchGpuCommand: Command = {
  name: "bench-gpu",
  summary: "time the WebGPU primitives against the device's streaming bandwidth",
  help: `Usage: sufsort bench-gpu [--sizes 20,22,...] [--only a,b] [--repeats R] [--gpu MODE] [--check] [--json]

For 2^k elements (k from --sizes, default 20,22,24,26,27,28) times each WebGPU primitive (median
of R runs, GPU timestamps when the device has them) and prints its throughput next to the
streaming bandwidth (read + write of a large buffer) measured in the same run.

Options:
  --sizes LIST   log2 of the element counts
  --only LIST    primitives to run (${PRIMITIVES.join(", ")})
  --repeats R    timed runs per case (default 5)
  --gpu MODE     hardware (default), software (Mesa llvmpipe) or auto
  --check        check each primitive's output against a CPU reference at the smallest size
  --json         print the rows as JSON lines instead of the table
  -h, --help     show this help`,
  options: {
    sizes: { type: "string" },
    only: { type: "string" },
    repeats: { type: "string" },
    gpu: { type: "string" },
    check: { type: "boolean" },
    json: { type: "boolean" },
  },
  positionals: { min: 0, max: 0, names: "" },
  async run(args) {
    const sizes = stringOption(args, "sizes")?.split(",").map((s) => {
      if (!/^\d+$/.test(s) || Number(s) > 31) throw usageError(`--sizes takes log2 sizes from 0 to 31 (got '${s}')`);
      return Number(s);
    });
    const only = stringOption(args, "only")?.split(",");
    for (const p of only ?? []) if (!PRIMITIVES.includes(p)) throw usageError(`unknown primitive '${p}' (${PRIMITIVES.join(", ")})`);
    const json = args.values.json === true;
    const rows = await runGpuBench({
      log2Sizes: sizes,
      primitives: only,
      repeats: intOption(args, "repeats", 5),
      mode: resolveGpuMode(stringOption(args, "gpu") ?? process.env.SUFSORT_GPU ?? "hardware"),
      check: args.values.check === true,
      print: !json,
    });
    if (json) for (const r of rows) process.stdout.write(JSON.stringify(r) + "\n");
    if (rows.some((r) => r.checked === false)) throw failure("a primitive gave a wrong result (see above)");
    return 0;
  },
};
