// sufsort index IN [-o IDX] [--sample K] [--engine E] [--algo NAME] [--threads N] [--gpu MODE]
// (The file is not named index.ts: that name holds the command list.)
import type { Command } from "../command.js";
import { intOption, stringOption } from "../command.js";
import { DEFAULT_SAMPLE_RATE, indexOfPlacement, MAX_SAMPLE_RATE } from "../../apps/fmindex.js";
import { usageError } from "../../errors.js";
import { checkOutputPath, defaultOutput, writeFileAtomic } from "../files.js";
import { ENGINE_OPTIONS, ENGINE_OPTIONS_HELP, engineRequest, placeInputByEngine } from "../placement.js";
import { Progress } from "../progress.js";

export const indexCommand: Command = {
  name: "index",
  summary: "build an FM-index of a file (for 'sufsort search')",
  help: `Usage: sufsort index IN [-o IDX] [--sample K] [--engine E] [--algo NAME] [--threads N]
                    [--gpu MODE]

Builds the FM-index of the bytes of IN and writes it to IDX (default IN.fmi): one file holding the
BWT in blocks interleaved with occurrence counts (one block per rank query), the C table, and the
suffix-array entry of every K-th text position, behind a header (magic SUFSFMIX, version, n, K)
that 'sufsort search' checks. Size: about (1 + 4 sigma / b) n + 4n/K bytes (b = block rows).
The suffix array is built as 'sufsort build' builds it. Texts over the WebAssembly memory (about
845 MB) are indexed up to about 1.2 GB (the image, L and the sampled rows in 4 GiB).

Options:
  -o, --out IDX      output file (default: IN.fmi)
  --sample K         sample rate: locate walks at most K-1 steps per occurrence (default: ${DEFAULT_SAMPLE_RATE})
${ENGINE_OPTIONS_HELP}
  -h, --help         show this help`,
  options: {
    out: { type: "string", short: "o" },
    sample: { type: "string" },
    ...ENGINE_OPTIONS,
  },
  positionals: { min: 1, max: 1, names: "input file IN" },
  async run(args) {
    const input = args.positionals[0];
    const out = stringOption(args, "out") ?? defaultOutput(input, ".fmi");
    const sampleRate = intOption(args, "sample", DEFAULT_SAMPLE_RATE);
    if (sampleRate > MAX_SAMPLE_RATE) throw usageError(`--sample must be at most ${MAX_SAMPLE_RATE} (got ${sampleRate})`);
    const request = engineRequest(args);
    checkOutputPath(out, [input]);
    const placement = await placeInputByEngine(input, request);
    const progress = new Progress("index");
    const { heap, ptr, layout } = await indexOfPlacement(placement, sampleRate, { threads: request.threads, gpu: request.gpu, onProgress: (phase, f) => progress.update(phase, f) });
    progress.update("writing", 1);
    writeFileAtomic(out, [heap.u8(ptr, layout.fileBytes)]);
    progress.done();
    return 0;
  },
};
