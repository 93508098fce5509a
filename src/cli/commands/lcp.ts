// sufsort lcp IN [--sa SA] [-o OUT] [--engine E] [--algo NAME] [--threads N] [--gpu MODE]
import type { Command } from "../command.js";
import { stringOption } from "../command.js";
import { buildPlaced, checkLength, MAX_INPUT_BYTES } from "../../engine/build.js";
import { verifyInHeap } from "../../engine/verify.js";
import { lcpInHeap } from "../../apps/lcp.js";
import { createExecutor, type Executor } from "../../cpu/executor.js";
import { SharedHeap } from "../../cpu/memory.js";
import { failure } from "../../errors.js";
import { openInput, checkOutputPath, defaultOutput, writeFileAtomic } from "../files.js";
import { engineRequest, placeInputByEngine } from "../placement.js";
import { Progress } from "../progress.js";

export const lcpCommand: Command = {
  name: "lcp",
  summary: "LCP array of a file (from its suffix array)",
  help: `Usage: sufsort lcp IN [--sa SA] [-o OUT] [--engine E] [--algo NAME] [--threads N] [--gpu MODE]

Writes the LCP array of IN to OUT (default IN.lcp) as n little-endian uint32: LCP[0] = 0 and LCP[i]
is the length of the longest common prefix of suffixes SA[i-1] and SA[i]. Linear time (the PLCP /
Phi method of Kärkkäinen, Manzini and Puglisi). With --sa, the suffix array is read from SA (as
'sufsort build' writes it) and checked with the linear verifier first; otherwise it is built, as
'sufsort build' builds it.

Options:
  --sa SA            suffix array of IN (default: build it)
  -o, --out OUT      output file (default: IN.lcp)
  --engine E         auto (default), cpu, gpu or hybrid: the suffix-array engine when building,
                     chosen as 'sufsort build --help' describes (auto: a hardware GPU from 8 or 64 MiB)
  --algo NAME        suffix-array algorithm when building (default: the engine's choice)
  --threads N        worker threads (1-64; default: all cores, at most 64)
  --gpu MODE         adapter for GPU algorithms: hardware (default), software (Mesa
                     llvmpipe, slow) or auto; SUFSORT_GPU sets the default
  -h, --help         show this help`,
  options: {
    sa: { type: "string" },
    out: { type: "string", short: "o" },
    engine: { type: "string" },
    algo: { type: "string" },
    threads: { type: "string" },
    gpu: { type: "string" },
  },
  positionals: { min: 1, max: 1, names: "input file IN" },
  async run(args) {
    const input = args.positionals[0];
    const saPath = stringOption(args, "sa");
    const out = stringOption(args, "out") ?? defaultOutput(input, ".lcp");
    const request = engineRequest(args);
    checkOutputPath(out, saPath === undefined ? [input] : [input, saPath]);
    const progress = new Progress("lcp");
    let n: number;
    let heap: SharedHeap;
    let kernels;
    let executor: Executor;
    let textPtr: number;
    let saPtr: number;
    let close: () => Promise<void>;
    if (saPath === undefined) {
      const placement = await placeInputByEngine(input, request);
      const { placed } = placement;
      const options = { threads: request.threads, gpu: request.gpu, gpuContext: placement.gpuContext, onProgress: (phase: string, f: number) => progress.update(phase, f) };
      const built = await buildPlaced(placed, options).catch(async (e) => {
        await placement.close();
        throw e;
      });
      ({ heap, kernels, textPtr, executor, n } = placed);
      saPtr = built.sa.byteOffset;
      close = () => placement.close();
    } else {
      const file = openInput(input, MAX_INPUT_BYTES);
      n = file.size;
      try {
        checkLength(n);
        heap = new SharedHeap(64 + 9 * n + ((n + 7) >> 3) + (1 << 20));
        textPtr = heap.alloc(n);
        file.read(heap.u8(textPtr, n));
      } finally {
        file.close();
      }
      const sa = openInput(saPath, 4 * MAX_INPUT_BYTES);
      try {
        if (sa.size !== 4 * n) throw failure(`'${saPath}' is ${sa.size} bytes; the suffix array of ${n} bytes is ${4 * n} bytes`);
        saPtr = heap.alloc(4 * n);
        sa.read(heap.u8(saPtr, 4 * n));
      } finally {
        sa.close();
      }
      executor = createExecutor(heap, request.threads);
      kernels = executor.kernels;
      close = () => executor.close();
      progress.update("verifying", 0);
      const verdict = verifyInHeap(heap, kernels, textPtr, saPtr, n);
      if (!verdict.ok) {
        await executor.close();
        throw failure(`'${saPath}' is not the suffix array of '${input}': ${verdict.message}`);
      }
    }
    progress.update("lcp", 0);
    await lcpInHeap(heap, executor, textPtr, saPtr, n, saPtr).finally(close);
    progress.update("writing", 1);
    writeFileAtomic(out, [heap.u32(saPtr, n)]);
    progress.done();
    return 0;
  },
};
