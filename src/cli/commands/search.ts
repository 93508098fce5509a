// sufsort search IDX PATTERN... [--count] [--locate [--limit M]] [--patterns-file F]
import { closeSync } from "node:fs";
import type { Command } from "../command.js";
import { intOption, stringOption } from "../command.js";
import { FMIndexImage } from "../../apps/fmindex.js";
import { checkPatterns } from "../../apps/api.js";
import { SharedHeap } from "../../cpu/memory.js";
import { instantiate } from "../../cpu/wasm.js";
import { usageError } from "../../errors.js";
import { openInput, readInput, readInto } from "../files.js";

export const searchCommand: Command = {
  name: "search",
  summary: "count or locate patterns with an FM-index",
  help: `Usage: sufsort search IDX [PATTERN...] [--count] [--locate [--limit M]] [--patterns-file F]

Searches an index written by 'sufsort index' for each pattern (those given as arguments first, then
one per line of F; a line ends at \\n, and a \\r before it is dropped). Prints one line per pattern,
in input order, the pattern's bytes as given:
  --count (default)  PATTERN<TAB>COUNT
  --locate           PATTERN<TAB>COUNT<TAB>POSITIONS: 0-based start positions, ascending, separated
                     by spaces (with --limit M: at most M of them, those first in suffix order)
Patterns must be non-empty and no longer than the indexed text. Put -- before patterns that begin
with '-'.

Options:
  --count              print the number of occurrences (default)
  --locate             also print where they occur
  --limit M            with --locate: report at most M positions per pattern
  --patterns-file F    read patterns from F, one per line
  -h, --help           show this help`,
  options: {
    count: { type: "boolean" },
    locate: { type: "boolean" },
    limit: { type: "string" },
    "patterns-file": { type: "string" },
  },
  positionals: { min: 1, max: Number.MAX_SAFE_INTEGER, names: "index file IDX" },
  async run(args) {
    const [indexPath, ...given] = args.positionals;
    const locate = args.values.locate === true;
    if (stringOption(args, "limit") !== undefined && !locate) throw usageError("--limit needs --locate");
    const limit = intOption(args, "limit", Number.MAX_SAFE_INTEGER, 0);
    const encoder = new TextEncoder();
    const patterns: Uint8Array[] = given.map((p) => encoder.encode(p));
    const names = given.map((_, i) => `pattern ${i + 1}`);
    const file = stringOption(args, "patterns-file");
    if (file !== undefined) {
      const lines = splitLines(readInput(file));
      lines.forEach((line, i) => {
        patterns.push(line);
        names.push(`line ${i + 1} of '${file}'`);
      });
    }
    if (patterns.length === 0) throw usageError("search: no patterns (give them as arguments or with --patterns-file)");

    const { fd, size } = openInput(indexPath);
    let heap: SharedHeap;
    let ptr: number;
    try {
      heap = new SharedHeap(64 + size + (1 << 20));
      ptr = heap.alloc(size, 64);
      readInto(fd, heap.u8(ptr, size), indexPath);
    } finally {
      closeSync(fd);
    }
    const index = FMIndexImage.checked(heap, instantiate(heap.memory), ptr, indexPath);
    checkPatterns(patterns, index.layout.n, (i) => names[i]);

    const results = await index.search(patterns, { locate, limit });
    const chunks: Uint8Array[] = [];
    let pending = 0;
    const flush = () => {
      process.stdout.write(Buffer.concat(chunks));
      chunks.length = 0;
      pending = 0;
    };
    results.forEach((r, i) => {
      let line = `\t${r.count}`;
      if (locate) line += `\t${Array.from(r.positions!).join(" ")}`;
      const tail = encoder.encode(line + "\n");
      chunks.push(patterns[i], tail);
      pending += patterns[i].length + tail.length;
      if (pending >= 1 << 20) flush();
    });
    flush();
    return 0;
  },
};

/** Lines of a patterns file: split at \n, a \r before it dropped, no line after a final \n. */
function splitLines(bytes: Uint8Array): Uint8Array[] {
  const lines: Uint8Array[] = [];
  let start = 0;
  for (let i = 0; i <= bytes.length; i++) {
    if (i === bytes.length || bytes[i] === 10) {
      if (i === bytes.length && start === i) break;
      let end = i;
      if (end > start && bytes[end - 1] === 13) end--;
      lines.push(bytes.subarray(start, end));
      start = i + 1;
    }
  }
  return lines;
}
