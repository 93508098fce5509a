// sufsort build IN [-o OUT] [--algo NAME] [--threads N] [--verify] [--json]
import { availableParallelism } from "node:os";
import { closeSync } from "node:fs";
import type { Command } from "../command.js";
import { intOption, stringOption } from "../command.js";
import { buildLarge, buildPlaced, checkLength, closePlaced, placeText, resolveSorter, usesLargePath, type BuildResult } from "../../engine/build.js";
import { openInput, readInto, checkOutputPath, writeFileAtomic } from "../files.js";
import { Progress } from "../progress.js";
import { resolveGpuMode } from "../../gpu/device.js";

export const buildCommand: Command = {
  name: "build",
  summary: "build the suffix array of a file",
  help: `Usage: sufsort build IN [-o OUT] [--algo NAME] [--threads N] [--gpu MODE] [--verify] [--json]

Builds the suffix array of the bytes of IN and writes it to OUT (default IN.sa) as n
little-endian uint32 values: the start positions of the suffixes in lexicographic order
(unsigned bytes; a proper prefix sorts first; no sentinel entry). IN is never modified; OUT
appears only when complete.

Options:
  -o, --out OUT      output file (default: IN.sa)
  --algo NAME        algorithm (default: sais; 'sufsort algorithms' lists them)
  --threads N        worker threads for parallel algorithms (default: all cores)
  --gpu MODE         adapter for GPU algorithms: hardware (default), software (Mesa
                     llvmpipe: slow, for tests) or auto; SUFSORT_GPU sets the default
  --verify           check the result with the linear-time verifier before writing it
  --json             print one JSON line: n, algo, engine, seconds (construction only),
                     mbPerSec, peakRssBytes, verified
  -h, --help         show this help`,
  options: {
    out: { type: "string", short: "o" },
    algo: { type: "string" },
    threads: { type: "string" },
    gpu: { type: "string" },
    verify: { type: "boolean" },
    json: { type: "boolean" },
  },
  positionals: { min: 1, max: 1, names: "input file IN" },
  async run(args) {
    const input = args.positionals[0];
    const out = stringOption(args, "out") ?? `${input}.sa`;
    const sorter = resolveSorter(stringOption(args, "algo"));
    const threads = intOption(args, "threads", availableParallelism());
    checkOutputPath(out, [input]);
    const progress = new Progress("build");
    const gpu = resolveGpuMode(stringOption(args, "gpu"));
    const options = { threads, gpu, verify: args.values.verify === true, onProgress: (phase: string, f: number) => progress.update(phase, f) };
    const { fd, size } = openInput(input);
    let load: () => Promise<BuildResult>;
    let close = async () => {};
    try {
      checkLength(size);
      if (usesLargePath(size, sorter)) {
        // beyond the WebAssembly memory: the text in a plain buffer, SA-IS in TypeScript
        const text = new Uint8Array(size);
        readInto(fd, text, input);
        load = () => buildLarge(text, options);
      } else {
        // the file goes straight into the shared heap: the text is never copied
        const placed = placeText(size, sorter, threads);
        close = () => closePlaced(placed);
        readInto(fd, placed.heap.u8(placed.textPtr, size), input);
        load = () => buildPlaced(placed, options);
      }
    } finally {
      closeSync(fd);
    }
    const result = await load().finally(close);
    progress.update("writing", 1);
    writeFileAtomic(out, [result.sa]);
    progress.done();
    if (args.values.json) {
      const mb = size / 1e6;
      process.stdout.write(
        JSON.stringify({
          n: size,
          algo: result.algo,
          ...(result.handOver !== undefined ? { handOver: result.handOver } : {}),
          engine: result.engine,
          threads,
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
