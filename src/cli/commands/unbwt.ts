// sufsort unbwt IN.bwt [-o OUT] [--threads N]
import type { Command } from "../command.js";
import { stringOption, threadsOption } from "../command.js";
import { checkLength, checkMemory, MAX_INPUT_BYTES } from "../../engine/build.js";
import { createExecutor } from "../../cpu/executor.js";
import { BWT_HEADER_BYTES, checkPrimary, unbwtHeap, unbwtInHeap, unbwtLarge } from "../../apps/bwt.js";
import type { SharedHeap } from "../../cpu/memory.js";
import { failure } from "../../errors.js";
import { openInput, checkOutputPath, defaultOutput, writeFileAtomic } from "../files.js";

export const unbwtCommand: Command = {
  name: "unbwt",
  summary: "restore a file from its Burrows–Wheeler transform",
  help: `Usage: sufsort unbwt IN.bwt [-o OUT] [--threads N]

Inverts a BWT file written by 'sufsort bwt' (primary index as 8 bytes little-endian, then the n
bytes) and writes the original bytes to OUT (default: IN with .bwt replaced by .unbwt, or IN.unbwt).
A primary index out of range (1..n; 0 for an empty BWT) or bytes that are not the BWT of any text
are reported as errors; OUT then does not appear.

Options:
  -o, --out OUT      output file
  --threads N        worker threads (1-64; default: all cores, at most 64)
  -h, --help         show this help`,
  options: {
    out: { type: "string", short: "o" },
    threads: { type: "string" },
  },
  positionals: { min: 1, max: 1, names: "BWT file IN.bwt" },
  async run(args) {
    const input = args.positionals[0];
    const out = stringOption(args, "out") ?? defaultOutput(input, ".unbwt", ".bwt");
    const threads = threadsOption(args);
    checkOutputPath(out, [input]);
    const file = openInput(input, MAX_INPUT_BYTES + BWT_HEADER_BYTES);
    const size = file.size;
    let heap: SharedHeap | undefined;
    let bytes: Uint8Array;
    let primary: number;
    const n = size - BWT_HEADER_BYTES;
    try {
      if (size < BWT_HEADER_BYTES) throw failure(`'${input}' is ${size} bytes: too short for a BWT file (8-byte primary index, then the BWT)`);
      checkLength(n);
      const header = new DataView(new ArrayBuffer(BWT_HEADER_BYTES));
      file.read(new Uint8Array(header.buffer));
      const stored = header.getBigUint64(0, true);
      primary = stored > BigInt(n) ? Number.MAX_SAFE_INTEGER : Number(stored);
      try {
        checkPrimary(n, primary);
      } catch {
        throw failure(`'${input}': primary index ${stored} is out of range (${n === 0 ? "must be 0 for an empty BWT" : `1..${n} for a BWT of ${n} bytes`})`);
      }
      // In place in the heap (the chains, on every thread) when it fits, else in plain arrays.
      heap = unbwtHeap(n);
      // plain arrays: the BWT (then F), psi, the walked chains and the text (apps/bwt.ts unbwtLarge): 7n bytes
      if (heap === undefined) checkMemory(n, 7 * n, "unbwt (beyond the 4 GiB WebAssembly memory)");
      bytes = heap ? heap.u8(heap.alloc(n), n) : new Uint8Array(new SharedArrayBuffer(n)); // shared: the workers read it
      file.read(bytes, BWT_HEADER_BYTES);
    } finally {
      file.close();
    }
    let text = bytes;
    try {
      if (heap !== undefined) {
        // decoded in place: the BWT is no longer read once psi is built
        const executor = createExecutor(heap, threads);
        await unbwtInHeap(heap, executor, bytes.byteOffset, n, primary, bytes.byteOffset).finally(() => executor.close());
      } else {
        text = await unbwtLarge(bytes, primary, { threads, overwrite: true });
      }
    } catch (e) {
      if (e instanceof Error && e.name === "SufsortError") throw failure(`'${input}': ${e.message}`);
      throw e;
    }
    writeFileAtomic(out, [text]);
    return 0;
  },
};
