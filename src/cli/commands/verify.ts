// sufsort verify IN SA [--threads N]
import { threadsOption, type Command } from "../command.js";
import { openInput } from "../files.js";
import { lengthVerdict, verifyByWindows, verifyInFreshHeapOn, type Verdict } from "../../engine/verify.js";
import { verifyLarge } from "../../engine/verify-large.js";
import { readByRanges } from "../../engine/placement.js";
import { failure } from "../../errors.js";
import { checkLength, checkMemory, MAX_INPUT_BYTES } from "../../engine/build.js";

export const verifyCommand: Command = {
  name: "verify",
  summary: "check that a file holds the suffix array of another",
  help: `Usage: sufsort verify IN SA [--threads N]

Checks in linear time that SA (little-endian uint32, as 'sufsort build' writes it) is the suffix
array of IN: a permutation of 0..n-1 in which every adjacent pair of suffixes is in order.
Prints OK and exits 0 when correct; prints the first violation found and exits 1 otherwise.

Options:
  --threads N  worker threads for the checks (1-64; default: all cores, at most 64)
  -h, --help   show this help`,
  options: {
    threads: { type: "string" },
  },
  positionals: { min: 2, max: 2, names: "input file IN and suffix array file SA" },
  async run(args) {
    const [input, saPath] = args.positionals;
    const threads = threadsOption(args);
    const textFile = openInput(input, MAX_INPUT_BYTES);
    let verdict: Verdict;
    try {
      const n = textFile.size;
      checkLength(n);
      const saFile = openInput(saPath);
      try {
        const size = saFile.size;
        if (size % 4 !== 0) throw failure(`'${saPath}' is ${size} bytes, not a whole number of uint32 entries`);
        // an SA file can exceed the largest Uint8Array: read by ranges
        const readSA = (into: (off: number, length: number) => Uint8Array) => readByRanges(saFile, into);
        // beyond the heap: plain arrays, brought to the kernels a window at a time (the text and
        // the permutation bits in a heap of their own), or checked in TypeScript
        const inArrays = async () => {
          checkMemory(n, 6 * n + (n >> 3) + (64 << 20), "verify (beyond the 4 GiB WebAssembly memory)");
          const text = new Uint8Array(n);
          textFile.read(text);
          const sa = new Uint32Array(n);
          readSA((off, length) => new Uint8Array(sa.buffer, off, length));
          return (await verifyByWindows(text, sa, threads)) ?? verifyLarge(text, sa);
        };
        if (size !== 4 * n) verdict = lengthVerdict(size / 4, n);
        // both files straight into the verifier's heap: no copy of either
        else verdict = (await verifyInFreshHeapOn(n, threads, (heap, textPtr, saPtr) => {
          textFile.read(heap.u8(textPtr, n));
          readSA((off, length) => heap.u8(saPtr + off, length));
        })) ?? (await inArrays());
      } finally {
        saFile.close();
      }
    } finally {
      textFile.close();
    }
    if (!verdict.ok) throw failure(`not a suffix array of '${input}': ${verdict.message}`);
    process.stdout.write("OK\n");
    return 0;
  },
};
