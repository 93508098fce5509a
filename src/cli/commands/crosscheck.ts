// sufsort crosscheck IN: every available algorithm and engine against SA-IS, byte for byte.
import type { Command } from "../command.js";
import { stringOption, threadsOption } from "../command.js";
import { resolveGpuMode } from "../../gpu/device.js";
import { crosscheck, type CrosscheckRow } from "../../engine/crosscheck.js";
import { readInput } from "../files.js";
import { failure } from "../../errors.js";

export const crosscheckCommand: Command = {
  name: "crosscheck",
  summary: "run every algorithm and engine on a file and compare each SA with SA-IS",
  help: `Usage: sufsort crosscheck IN [--threads N] [--gpu MODE] [--json]

Builds the suffix array of IN with SA-IS (the reference), then with every other available
algorithm, then with each engine (auto, cpu, gpu, hybrid: the algorithm the engine policy picks
for IN, named in the note), and compares each result with the reference byte for byte. Prints a
table (algo, engine, seconds, equal?) and exits 1 if any result differs or any algorithm fails.
GPU algorithms and the gpu and hybrid engines are skipped (and say so) when no adapter is found;
engine auto never takes the software adapter (it runs on the CPU there).

Options:
  --threads N   worker threads for parallel algorithms (1-64; default: all cores, at most 64)
  --gpu MODE    adapter for GPU algorithms: hardware (default), software (Mesa llvmpipe) or auto
  --json        one JSON line per algorithm instead of the table
  -h, --help    show this help`,
  options: { threads: { type: "string" }, gpu: { type: "string" }, json: { type: "boolean" } },
  positionals: { min: 1, max: 1, names: "input file IN" },
  async run(args) {
    const text = readInput(args.positionals[0]);
    const threads = threadsOption(args);
    const json = args.values.json === true;
    const rows = await crosscheck(text, { threads, gpu: resolveGpuMode(stringOption(args, "gpu")) });
    if (json) {
      for (const r of rows) process.stdout.write(JSON.stringify(r) + "\n");
    } else {
      process.stdout.write("| algo | engine | seconds | equal | note |\n|---|---|---|---|---|\n");
      for (const r of rows) {
        const eq = r.skipped ? "skipped" : r.equal === null ? "failed" : r.equal ? "yes" : "NO";
        process.stdout.write(`| ${r.algo} | ${r.engine} | ${r.seconds === null ? "-" : r.seconds.toFixed(3)} | ${eq} | ${r.note} |\n`);
      }
    }
    const bad = rows.filter((r: CrosscheckRow) => r.equal !== true && !r.skipped);
    if (bad.length > 0) throw failure(`${bad.length} algorithm(s) disagree with SA-IS or failed: ${bad.map((r) => `${r.algo} (${r.engine})`).join(", ")}`);
    return 0;
  },
};
