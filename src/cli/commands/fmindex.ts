// sufsort index IN [-o IDX] [--sample K] [--algo NAME] [--threads N]
// (The file is not named index.ts: that name holds the command list.)
import type { Command } from "../command.js";
import { intOption, stringOption, threadsOption } from "../command.js";
import { buildPlaced, closePlaced, resolveSorter } from "../../engine/build.js";
import { buildIndexInHeap, DEFAULT_SAMPLE_RATE, MAX_SAMPLE_RATE } from "../../apps/fmindex.js";
import { usageError } from "../../errors.js";
import { checkOutputPath, defaultOutput, placeInputFile, writeFileAtomic } from "../files.js";
import { Progress } from "../progress.js";

export const indexCommand: Command = {
  name: "index",
  summary: "build an FM-index of a file (for 'sufsort search')",
  help: `Usage: sufsort index IN [-o IDX] [--sample K] [--algo NAME] [--threads N]

Builds the FM-index of the bytes of IN and writes it to IDX (default IN.fmi): one file holding the
BWT in blocks interleaved with occurrence counts (one block per rank query), the C table, and the
suffix-array entry of every K-th text position, behind a header (magic SUFSFMIX, version, n, K)
that 'sufsort search' checks. Size: about (1 + 4 sigma / b) n + 4n/K bytes (b = block rows).

Options:
  -o, --out IDX      output file (default: IN.fmi)
  --sample K         sample rate: locate walks at most K-1 steps per occurrence (default: ${DEFAULT_SAMPLE_RATE})
  --algo NAME        suffix-array algorithm (default: sais)
  --threads N        worker threads (1-64; default: all cores, at most 64)
  -h, --help         show this help`,
  options: {
    out: { type: "string", short: "o" },
    sample: { type: "string" },
    algo: { type: "string" },
    threads: { type: "string" },
  },
  positionals: { min: 1, max: 1, names: "input file IN" },
  async run(args) {
    const input = args.positionals[0];
    const out = stringOption(args, "out") ?? defaultOutput(input, ".fmi");
    const sampleRate = intOption(args, "sample", DEFAULT_SAMPLE_RATE);
    if (sampleRate > MAX_SAMPLE_RATE) throw usageError(`--sample must be at most ${MAX_SAMPLE_RATE} (got ${sampleRate})`);
    const sorter = resolveSorter(stringOption(args, "algo"));
    const threads = threadsOption(args);
    checkOutputPath(out, [input]);
    const placed = placeInputFile(input, sorter, threads);
    const size = placed.n;
    const progress = new Progress("index");
    const { ptr, layout } = await (async () => {
      const built = await buildPlaced(placed, { threads, onProgress: (phase, f) => progress.update(phase, f) });
      progress.update("indexing", 1);
      return buildIndexInHeap(placed.heap, placed.executor, placed.textPtr, built.sa.byteOffset, size, sampleRate);
    })().finally(() => closePlaced(placed));
    progress.update("writing", 1);
    writeFileAtomic(out, [placed.heap.u8(ptr, layout.fileBytes)]);
    progress.done();
    return 0;
  },
};
