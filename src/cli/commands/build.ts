// sufsort build IN [-o OUT] [--engine E] [--algo NAME] [--threads N] [--gpu MODE] [--verify] [--json]
import type { Command } from "../command.js";
import { stringOption } from "../command.js";
import { MAX_INPUT_BYTES, type BuildOptions } from "../../engine/build.js";
import type { Overlap } from "../../engine/registry.js";
import { openInput, checkOutputPath, defaultOutput, writeFileAtomic } from "../files.js";
import { Progress } from "../progress.js";
import { ENGINE_OPTIONS, engineRequest } from "../placement.js";
import { buildOfPlacement, placeByEngine, type Placement } from "../../engine/placement.js";
import { usageError } from "../../errors.js";

export const buildCommand: Command = {
  name: "build",
  summary: "build the suffix array of a file",
  help: `Usage: sufsort build IN [-o OUT] [--engine E] [--algo NAME] [--threads N] [--gpu MODE]
                    [--verify] [--json]

Builds the suffix array of the bytes of IN and writes it to OUT (default IN.sa) as n
little-endian uint32 values: the start positions of the suffixes in lexicographic order
(unsigned bytes; a proper prefix sorts first; no sentinel entry). IN is never modified; OUT
appears only when complete. IN may be a pipe or device (/dev/stdin), read to its end first;
then -o is required.

Options:
  -o, --out OUT      output file (default: IN.sa for a regular file; - is the standard output)
  --engine E         auto (default), cpu, gpu or hybrid:
                       cpu     range for a text of 1 MiB or more on 8+ threads, or on fewer
                               when it looks random and, scanned whole, has few repeats far apart
                               (under 30% of sampled 32-byte strings found again; 15% on one
                               thread), where a
                               fresh page of memory takes under 8 µs to touch (timed on 1 MiB;
                               SUFSORT_FIRST_TOUCH_MICROS sets it); else sais,
                               and sais on any threads for a text hard for doubling (periodic,
                               or most sampled 64-byte strings repeated) or where range's memory
                               (about 25 bytes per input byte) exceeds what is available
                       gpu     gpu-spd; gpu-skew for a text that looks periodic (gpu-dc7 over
                               gpu-skew's limit); gpu-dc7 over gpu-spd's limit
                       hybrid  gpu-ls, each round's small groups sorted by the CPU workers while
                               the GPU sorts the rest (prints the overlap)
                       auto    as gpu from a size threshold on a hardware GPU (never the
                               software adapter), else as cpu. The threshold: 8 MiB where cpu
                               runs sais or range on fewer than 8 threads; 64 MiB where it runs
                               range on 8+ threads, and for a text hard for doubling; a
                               random-looking text on 8+ threads stays on range up to its limit
                               unless the scan finds long repeats
  --algo NAME        algorithm ('sufsort algorithms' lists them); with --engine, they must agree
                     (--engine hybrid --algo gpu-ls is gpu-ls-hybrid)
  --threads N        worker threads for parallel algorithms (1-64; default: all cores, at most 64);
                     a short text runs on one (under 4 MiB for sais, 2 MiB for range, 1 MiB for
                     skew), where starting the workers costs more than they save
  --gpu MODE         adapter for GPU algorithms: hardware (default), software (Mesa
                     llvmpipe: slow, for tests) or auto; SUFSORT_GPU sets the default.
                     --engine auto never takes the software adapter
  --verify           check the result with the linear-time verifier before writing it
  --json             print one JSON line: n, algo, engine, reason (the engine policy's),
                     seconds (construction only), mbPerSec, peakRssBytes, verified, and for
                     hybrid builds overlap {rounds, cpuSuffixes, gpuSuffixes, gpuMs, cpuMs, wallMs}
  -h, --help         show this help`,
  options: {
    out: { type: "string", short: "o" },
    ...ENGINE_OPTIONS,
    verify: { type: "boolean" },
    json: { type: "boolean" },
  },
  positionals: { min: 1, max: 1, names: "input file IN" },
  async run(args) {
    const input = args.positionals[0];
    const out = stringOption(args, "out") ?? defaultOutput(input, ".sa");
    const request = engineRequest(args);
    if (out === "-" && args.values.json === true) throw usageError("--json and -o - would both write to the standard output");
    checkOutputPath(out, [input]);
    const progress = new Progress("build");
    const options: BuildOptions = { threads: request.threads, gpu: request.gpu, verify: args.values.verify === true, onProgress: (phase: string, f: number) => progress.update(phase, f) };
    const file = openInput(input, MAX_INPUT_BYTES);
    let placement: Placement;
    try {
      placement = await placeByEngine(file, request);
    } finally {
      file.close();
    }
    const { placed, large, reason } = placement;
    const result = await buildOfPlacement(placement, options).finally(() => placement.close());
    const size = placed?.n ?? large!.length;
    progress.update("writing", 1);
    writeFileAtomic(out, [result.sa]);
    progress.done();
    if (result.overlap !== undefined && !args.values.json) process.stderr.write(`${overlapLine(result.overlap)}\n`);
    if (args.values.json) {
      const mb = size / 1e6;
      process.stdout.write(
        JSON.stringify({
          n: size,
          algo: result.algo,
          ...(result.handOver !== undefined ? { handOver: result.handOver } : {}),
          engine: result.engine,
          reason,
          ...(result.overlap !== undefined ? { overlap: roundOverlap(result.overlap) } : {}),
          threads: placement.threads,
          seconds: round(result.seconds),
          mbPerSec: result.seconds > 0 ? round(mb / result.seconds) : null,
          peakRssBytes: process.resourceUsage().maxRSS * 1024,
          verified: result.verdict !== null ? result.verdict.ok : null,
          output: out,
        }) + "\n",
      );
    }
    return 0;
  },
};

function round(x: number): number {
  return Math.round(x * 1e6) / 1e6;
}

function roundOverlap(o: Overlap): Overlap {
  return { ...o, gpuMs: round(o.gpuMs), cpuMs: round(o.cpuMs), wallMs: round(o.wallMs) };
}

/** e.g. "overlap: gpu 120 ms, cpu 95 ms, wall 130 ms (7 rounds; CPU sorted 1234 of 56789 suffixes)". */
export function overlapLine(o: Overlap): string {
  const ms = (x: number) => `${x.toFixed(x < 10 ? 1 : 0)} ms`;
  const all = o.cpuSuffixes + o.gpuSuffixes;
  return `overlap: gpu ${ms(o.gpuMs)}, cpu ${ms(o.cpuMs)}, wall ${ms(o.wallMs)} (${o.rounds} split rounds; CPU sorted ${o.cpuSuffixes} of ${all} suffixes)`;
}
