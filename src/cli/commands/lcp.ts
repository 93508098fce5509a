// sufsort lcp IN [--sa SA] [-o OUT] [--engine E] [--algo NAME] [--threads N] [--gpu MODE]
import type { Command } from "../command.js";
import { stringOption } from "../command.js";
import { checkLength, MAX_INPUT_BYTES } from "../../engine/build.js";
import { lcpOfGivenSuffixArray, lcpOfPlacement } from "../../apps/lcp.js";
import { failure } from "../../errors.js";
import { openInput, checkOutputPath, defaultOutput, writeFileAtomic } from "../files.js";
import { ENGINE_OPTIONS, ENGINE_OPTIONS_HELP, engineRequest, placeInputByEngine } from "../placement.js";
import { Progress } from "../progress.js";

export const lcpCommand: Command = {
  name: "lcp",
  summary: "LCP array of a file (from its suffix array)",
  help: `Usage: sufsort lcp IN [--sa SA] [-o OUT] [--engine E] [--algo NAME] [--threads N] [--gpu MODE]

Writes the LCP array of IN to OUT (default IN.lcp) as n little-endian uint32: LCP[0] = 0 and LCP[i]
is the length of the longest common prefix of suffixes SA[i-1] and SA[i]. Linear time (the PLCP /
Phi method of Kärkkäinen, Manzini and Puglisi). With --sa, the suffix array is read from SA (as
'sufsort build' writes it) and checked with the linear verifier first; otherwise it is built, as
'sufsort build' builds it. The steps run on the worker threads: in the 4 GiB WebAssembly memory
while text and Φ fit there (to about 850 MB), beyond it over shared plain arrays.

Options:
  --sa SA            suffix array of IN (default: build it)
  -o, --out OUT      output file (default: IN.lcp)
${ENGINE_OPTIONS_HELP}
                     (--engine, --algo and --gpu: for building the SA, without --sa)
  -h, --help         show this help`,
  options: {
    sa: { type: "string" },
    out: { type: "string", short: "o" },
    ...ENGINE_OPTIONS,
  },
  positionals: { min: 1, max: 1, names: "input file IN" },
  async run(args) {
    const input = args.positionals[0];
    const saPath = stringOption(args, "sa");
    const out = stringOption(args, "out") ?? defaultOutput(input, ".lcp");
    const request = engineRequest(args);
    checkOutputPath(out, saPath === undefined ? [input] : [input, saPath]);
    const progress = new Progress("lcp");
    let lcpArray: Uint32Array;
    if (saPath === undefined) {
      const placement = await placeInputByEngine(input, request);
      lcpArray = await lcpOfPlacement(placement, { threads: request.threads, gpu: request.gpu, onProgress: (phase, f) => progress.update(phase, f) });
    } else {
      lcpArray = await lcpOfSuffixArrayFile(input, saPath, request.threads, progress);
    }
    progress.update("writing", 1);
    writeFileAtomic(out, [lcpArray]);
    progress.done();
    return 0;
  },
};

/** The LCP array of IN from the SA in the file `saPath`, checked first with the linear verifier. */
async function lcpOfSuffixArrayFile(input: string, saPath: string, threads: number, progress: Progress): Promise<Uint32Array> {
  const file = openInput(input, MAX_INPUT_BYTES);
  try {
    checkLength(file.size);
    const saFile = openInput(saPath, 4 * MAX_INPUT_BYTES);
    try {
      if (saFile.size !== 4 * file.size) throw failure(`'${saPath}' is ${saFile.size} bytes; the suffix array of ${file.size} bytes is ${4 * file.size} bytes`);
      const notTheSA = (why: string) => failure(`'${saPath}' is not the suffix array of '${input}': ${why}`);
      return await lcpOfGivenSuffixArray(file, saFile, threads, notTheSA, (phase: string, f: number) => progress.update(phase, f));
    } finally {
      saFile.close();
    }
  } finally {
    file.close();
  }
}
