// sufsort bwt IN [-o OUT] [--engine E] [--algo NAME] [--threads N] [--gpu MODE]
import type { Command } from "../command.js";
import { stringOption } from "../command.js";
import { bwtOfPlacement } from "../../apps/bwt.js";
import { checkOutputPath, defaultOutput, writeFileAtomic } from "../files.js";
import { ENGINE_OPTIONS, ENGINE_OPTIONS_HELP, engineRequest, placeInputByEngine } from "../placement.js";
import { Progress } from "../progress.js";

export const bwtCommand: Command = {
  name: "bwt",
  summary: "Burrows–Wheeler transform of a file",
  help: `Usage: sufsort bwt IN [-o OUT] [--engine E] [--algo NAME] [--threads N] [--gpu MODE]

Writes the Burrows–Wheeler transform of the bytes of IN to OUT (default IN.bwt): the primary index
as 8 bytes little-endian, then n bytes. Convention (libsais's): the n+1 suffixes of IN$ are sorted
with $ smaller than every byte; byte r of the BWT is the byte before the r-th suffix; the row of the
whole text has none: it is left out and its row number is the primary index (banana -> annbaa, 4).
'sufsort unbwt' restores IN. The suffix array is built as 'sufsort build' builds it; with a GPU
algorithm (gpu-ls, gpu-osipov, gpu-skew, gpu-spd, gpu-dc7) the BWT is derived on the GPU from the
suffix array there, and only the BWT comes back. A text too large for the WebAssembly memory
(over about 845 MB with sais) takes build's path beyond it, up to 2^31 - 1 bytes.

Options:
  -o, --out OUT      output file (default: IN.bwt)
${ENGINE_OPTIONS_HELP}
  -h, --help         show this help`,
  options: {
    out: { type: "string", short: "o" },
    ...ENGINE_OPTIONS,
  },
  positionals: { min: 1, max: 1, names: "input file IN" },
  async run(args) {
    const input = args.positionals[0];
    const out = stringOption(args, "out") ?? defaultOutput(input, ".bwt");
    const request = engineRequest(args);
    checkOutputPath(out, [input]);
    const placement = await placeInputByEngine(input, request);
    const progress = new Progress("bwt");
    const { primary, parts } = await bwtOfPlacement(placement, { threads: request.threads, gpu: request.gpu, onProgress: (phase, f) => progress.update(phase, f) });
    progress.update("writing", 1);
    const header = new DataView(new ArrayBuffer(8));
    header.setBigUint64(0, BigInt(primary), true);
    writeFileAtomic(out, [header, ...parts]);
    progress.done();
    return 0;
  },
};
