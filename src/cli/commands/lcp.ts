// sufsort lcp IN [--sa SA] [-o OUT] [--engine E] [--algo NAME] [--threads N] [--gpu MODE]
import type { Command } from "../command.js";
import { stringOption } from "../command.js";
import { buildLarge, buildPlaced, checkLength, MAX_INPUT_BYTES } from "../../engine/build.js";
import { verifyInHeap } from "../../engine/verify.js";
import { verifyLarge } from "../../engine/verify-large.js";
import { lcpLarge, lcpOverSuffixArray } from "../../apps/lcp.js";
import { createExecutor } from "../../cpu/executor.js";
import { MAX_HEAP_BYTES, SharedHeap } from "../../cpu/memory.js";
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
'sufsort build' builds it. Over about 477 MB (where text, SA and Φ no longer fit the 4 GiB
WebAssembly memory together) Φ is kept in plain memory and the steps run on one thread.

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
    let lcpArray: Uint32Array;
    if (saPath === undefined) {
      const placement = await placeInputByEngine(input, request, true);
      const options = { threads: request.threads, gpu: request.gpu, gpuContext: placement.gpuContext, onProgress: (phase: string, f: number) => progress.update(phase, f) };
      lcpArray = await (async () => {
        const { placed, large } = placement;
        if (placed === undefined) {
          // beyond the WebAssembly memory: the SA as build makes it there, then Φ in plain arrays too
          const { sa } = await buildLarge(large!, options, placement.sorter);
          progress.update("lcp", 0);
          return lcpLarge(large!, sa);
        }
        const built = await buildPlaced(placed, options);
        progress.update("lcp", 0);
        return lcpOverSuffixArray(placed.heap, placed.executor, placed.textPtr, built.sa.byteOffset, placed.n);
      })().finally(() => placement.close());
    } else {
      lcpArray = await lcpOfGivenSuffixArray(input, saPath, request.threads, progress);
    }
    progress.update("writing", 1);
    writeFileAtomic(out, [lcpArray]);
    progress.done();
    return 0;
  },
};

/** The LCP array of IN from the SA in the file `saPath`, checked first with the linear verifier. */
async function lcpOfGivenSuffixArray(input: string, saPath: string, threads: number, progress: Progress): Promise<Uint32Array> {
  const file = openInput(input, MAX_INPUT_BYTES);
  const n = file.size;
  // text, SA, Φ and the verifier's bitmap in the heap when they fit; else plain arrays
  const heapBytes = 64 + 9 * n + ((n + 7) >>> 3) + (1 << 20);
  let heap: SharedHeap | undefined;
  let text: Uint8Array;
  try {
    checkLength(n);
    if (heapBytes <= MAX_HEAP_BYTES) {
      heap = new SharedHeap(heapBytes);
      text = heap.u8(heap.alloc(n), n);
    } else {
      text = new Uint8Array(n);
    }
    file.read(text);
  } finally {
    file.close();
  }
  const saFile = openInput(saPath, 4 * MAX_INPUT_BYTES);
  let sa: Uint32Array;
  try {
    if (saFile.size !== 4 * n) throw failure(`'${saPath}' is ${saFile.size} bytes; the suffix array of ${n} bytes is ${4 * n} bytes`);
    sa = heap !== undefined ? heap.u32(heap.alloc(4 * n), n) : new Uint32Array(n);
    saFile.read(new Uint8Array(sa.buffer, sa.byteOffset, 4 * n));
  } finally {
    saFile.close();
  }
  progress.update("verifying", 0);
  if (heap === undefined) {
    const verdict = verifyLarge(text, sa);
    if (!verdict.ok) throw failure(`'${saPath}' is not the suffix array of '${input}': ${verdict.message}`);
    progress.update("lcp", 0);
    return lcpLarge(text, sa);
  }
  const executor = createExecutor(heap, threads);
  try {
    const verdict = verifyInHeap(heap, executor.kernels, text.byteOffset, sa.byteOffset, n);
    if (!verdict.ok) throw failure(`'${saPath}' is not the suffix array of '${input}': ${verdict.message}`);
    progress.update("lcp", 0);
    return await lcpOverSuffixArray(heap, executor, text.byteOffset, sa.byteOffset, n);
  } finally {
    await executor.close();
  }
}
