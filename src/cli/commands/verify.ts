// sufsort verify IN SA
import type { Command } from "../command.js";
import { openInput, readInput } from "../files.js";
import { verifySuffixArrayOf } from "../../engine/verify.js";
import { failure } from "../../errors.js";
import { checkLength, checkMemory, MAX_INPUT_BYTES } from "../../engine/build.js";

export const verifyCommand: Command = {
  name: "verify",
  summary: "check that a file holds the suffix array of another",
  help: `Usage: sufsort verify IN SA

Checks in linear time that SA (little-endian uint32, as 'sufsort build' writes it) is the suffix
array of IN: a permutation of 0..n-1 in which every adjacent pair of suffixes is in order.
Prints OK and exits 0 when correct; prints the first violation found and exits 1 otherwise.

Options:
  -h, --help   show this help`,
  options: {},
  positionals: { min: 2, max: 2, names: "input file IN and suffix array file SA" },
  async run(args) {
    const [input, saPath] = args.positionals;
    const text = readInput(input, MAX_INPUT_BYTES);
    checkLength(text.length);
    // read straight into a Uint32Array: an SA file can exceed the largest Uint8Array
    const file = openInput(saPath);
    const size = file.size;
    let sa: Uint32Array;
    try {
      if (size % 4 !== 0) throw failure(`'${saPath}' is ${size} bytes, not a whole number of uint32 entries`);
      // the SA beside the text (the verifier's heap is checked as it grows)
      checkMemory(text.length, size, "verify's copy of the suffix array");
      sa = new Uint32Array(size / 4);
      const CHUNK = 1 << 30;
      for (let off = 0; off < size; off += CHUNK) file.read(new Uint8Array(sa.buffer, off, Math.min(CHUNK, size - off)), off);
    } finally {
      file.close();
    }
    const verdict = verifySuffixArrayOf(text, sa);
    if (!verdict.ok) throw failure(`not a suffix array of '${input}': ${verdict.message}`);
    process.stdout.write("OK\n");
    return 0;
  },
};
