// sufsort search IDX PATTERN... [--count] [--locate [--limit M]] [--patterns-file F] [--engine E] [--gpu MODE]
import type { Command } from "../command.js";
import { intOption, stringOption, threadsOption } from "../command.js";
import { FMIndexImage } from "../../apps/fmindex.js";
import { SharedHeap } from "../../cpu/memory.js";
import { createExecutor } from "../../cpu/executor.js";
import { usageError } from "../../errors.js";
import { acquireGpu, resolveGpuMode } from "../../gpu/device.js";
import { DeviceFMIndex } from "../../gpu/apps/fm-search.js";
import { openInput, readInput } from "../files.js";

export const searchCommand: Command = {
  name: "search",
  summary: "count or locate patterns with an FM-index",
  help: `Usage: sufsort search IDX [PATTERN...] [--count] [--locate [--limit M]] [--patterns-file F]
                     [--threads N] [--engine cpu|gpu|auto] [--gpu MODE]

Searches an index written by 'sufsort index' for each pattern (those given as arguments first, then
one per line of F; a line ends at \\n, and a \\r before it is dropped). Prints one line per pattern,
in input order, the pattern's bytes as given:
  --count (default)  PATTERN<TAB>COUNT
  --locate           PATTERN<TAB>COUNT<TAB>POSITIONS: 0-based start positions, ascending, separated
                     by spaces (with --limit M: at most M of them, those first in suffix order)
Patterns must be non-empty; one longer than the indexed text occurs nowhere (count 0). Put -- before
patterns that begin with '-'.

Options:
  --count              print the number of occurrences (default)
  --locate             also print where they occur
  --limit M            with --locate: report at most M positions per pattern
  --patterns-file F    read patterns from F, one per line
  --threads N          worker threads (1-64; default: all cores, at most 64)
  --engine E           where the queries run: cpu (default), gpu (the index is uploaded to the
                       GPU; one invocation per pattern), or auto (the GPU when one is found and
                       the index fits one storage binding, else the CPU); same output everywhere
  --gpu MODE           adapter: hardware (default), software (Mesa llvmpipe, slow) or auto;
                       SUFSORT_GPU sets the default; --gpu alone implies --engine gpu
  -h, --help           show this help`,
  options: {
    count: { type: "boolean" },
    locate: { type: "boolean" },
    limit: { type: "string" },
    "patterns-file": { type: "string" },
    threads: { type: "string" },
    engine: { type: "string" },
    gpu: { type: "string" },
  },
  positionals: { min: 1, max: Number.MAX_SAFE_INTEGER, names: "index file IDX" },
  async run(args) {
    const [indexPath, ...given] = args.positionals;
    const locate = args.values.locate === true;
    if (stringOption(args, "limit") !== undefined && !locate) throw usageError("--limit needs --locate");
    const limit = intOption(args, "limit", Number.MAX_SAFE_INTEGER, 0);
    const threads = threadsOption(args);
    const gpuOption = stringOption(args, "gpu");
    const gpuMode = resolveGpuMode(gpuOption);
    const engine = stringOption(args, "engine") ?? (gpuOption !== undefined ? "gpu" : "cpu");
    if (engine !== "cpu" && engine !== "gpu" && engine !== "auto") throw usageError(`invalid engine '${engine}' (expected cpu, gpu or auto)`);
    const file = stringOption(args, "patterns-file");
    const { bytes, spans, nameOf } = packPatterns(given, file);
    const m = spans.length / 2;
    if (m === 0) throw usageError("search: no patterns (give them as arguments or with --patterns-file)");

    const indexFile = openInput(indexPath);
    const size = indexFile.size;
    let heap: SharedHeap;
    let ptr: number;
    try {
      heap = new SharedHeap(64 + size + (1 << 20));
      ptr = heap.alloc(size, 64);
      indexFile.read(heap.u8(ptr, size));
    } finally {
      indexFile.close();
    }
    const executor = createExecutor(heap, threads);
    const index = FMIndexImage.checked(heap, executor.kernels, ptr, indexPath);
    index.useExecutor(executor);
    for (let i = 0; i < m; i++) {
      const length = spans[2 * i + 1] - spans[2 * i];
      if (length === 0) throw usageError(`${nameOf(i)} is empty`);
    }

    const gpu = engine === "cpu" ? null : await acquireGpu({ mode: gpuMode, required: engine === "gpu" });
    let found;
    if (gpu && (engine === "gpu" || index.layout.fileBytes <= gpu.maxBindingBytes)) {
      await executor.close();
      const onDevice = new DeviceFMIndex(gpu, index);
      try {
        found = await onDevice.searchPacked(bytes, spans, { locate, limit });
      } finally {
        onDevice.release();
        gpu.release();
      }
    } else {
      gpu?.release();
      found = await index.searchPacked(bytes, spans, { locate, limit }).finally(() => executor.close());
    }
    const out = new LineWriter();
    for (let i = 0; i < m; i++) {
      out.bytes(bytes.subarray(spans[2 * i], spans[2 * i + 1]));
      out.text(`\t${found.ranges[2 * i + 1] - found.ranges[2 * i]}`);
      if (locate) {
        out.text("\t");
        const from = found.positionStarts![i];
        const to = found.positionStarts![i + 1];
        for (let k = from; k < to; k++) out.text(k === from ? `${found.positions![k]}` : ` ${found.positions![k]}`);
      }
      out.text("\n");
    }
    out.flush();
    return 0;
  },
};

/**
 * The patterns as one byte buffer and [start, end) spans: the arguments (UTF-8) first, then the
 * lines of the patterns file (split at \n, a \r before it dropped, no line after a final \n).
 */
function packPatterns(given: string[], file: string | undefined): { bytes: Uint8Array; spans: Uint32Array; nameOf: (i: number) => string } {
  const encoder = new TextEncoder();
  const encoded = given.map((p) => encoder.encode(p));
  const fromFile = file === undefined ? new Uint8Array(0) : readInput(file);
  const head = encoded.reduce((sum, p) => sum + p.length, 0);
  const bytes = new Uint8Array(head + fromFile.length);
  const spans: number[] = [];
  let at = 0;
  for (const p of encoded) {
    bytes.set(p, at);
    spans.push(at, (at += p.length));
  }
  bytes.set(fromFile, head);
  let start = 0;
  for (let i = 0; i <= fromFile.length; i++) {
    if (i < fromFile.length && fromFile[i] !== 10) continue;
    if (i === fromFile.length && start === i) break;
    const end = i > start && fromFile[i - 1] === 13 ? i - 1 : i;
    spans.push(head + start, head + end);
    start = i + 1;
  }
  const nameOf = (i: number) => (i < given.length ? `pattern ${i + 1}` : `line ${i - given.length + 1} of '${file}'`);
  return { bytes, spans: Uint32Array.from(spans), nameOf };
}

/** Buffers stdout writes in 1 MiB pieces (pattern bytes pass through unchanged). */
class LineWriter {
  private readonly buffer = Buffer.allocUnsafe(1 << 20);
  private used = 0;

  bytes(b: Uint8Array): void {
    if (this.used + b.length > this.buffer.length) this.flush();
    if (b.length > this.buffer.length) {
      process.stdout.write(b);
      return;
    }
    this.buffer.set(b, this.used);
    this.used += b.length;
  }

  text(s: string): void {
    if (this.used + s.length > this.buffer.length) this.flush();
    if (s.length > this.buffer.length) {
      process.stdout.write(s);
      return;
    }
    this.used += this.buffer.write(s, this.used, "latin1");
  }

  flush(): void {
    if (this.used > 0) process.stdout.write(Buffer.from(this.buffer.subarray(0, this.used)));
    this.used = 0;
  }
}
