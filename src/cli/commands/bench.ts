// sufsort bench [FILES...] [--gen SPEC]... [--algos a,b] [--threads N] [--runs R] [--peer divsufsort] [--json]
import { availableParallelism } from "node:os";
import type { Command } from "../command.js";
import { intOption, stringOption } from "../command.js";
import { buildPlaced, closePlaced, placeText, resolveSorter } from "../../engine/build.js";
import type { SuffixSorter } from "../../engine/registry.js";
import { generate, loadInput, type BenchInput } from "../../bench/inputs.js";
import { timeDivsufsort } from "../../bench/peers.js";
import { usageError } from "../../errors.js";
import { acquireGpu, resolveGpuMode, type GpuContext } from "../../gpu/device.js";

interface Row {
  input: string;
  n: number;
  algo: string;
  engine: string;
  threads: number;
  seconds: number;
  mbPerSec: number;
  peerMbPerSec?: number;
  ratio?: number;
  /** GPU algorithms: the first, untimed run (device buffers and shader compilation included). */
  firstSeconds?: number;
}

export const benchCommand: Command = {
  name: "bench",
  summary: "time algorithms (and libdivsufsort) on files or generated inputs",
  help: `Usage: sufsort bench [FILES...] [--gen KIND:SIZE]... [--algos a,b] [--threads N]
                    [--runs R] [--peer divsufsort] [--json]

Times suffix-array construction (median of R runs, construction only: no I/O) and prints a table:
input, n, algo, threads, seconds, MB/s (1 MB = 10^6 bytes). With --peer divsufsort, libdivsufsort
2.0.1 (Debian libdivsufsort-dev; our driver bench/peers/divsufsort.c is compiled on first use) is
timed on the same inputs in the same run and the ratio ours/peer is printed. GPU algorithms get one
device for the whole run and one untimed first build per input (shader compilation and buffer
allocation; reported apart as "first s"); their timed builds include uploading the text and
downloading the SA.

Options:
  --gen KIND:SIZE    a generated input: dna, random (256 symbols), text26, repeat (one byte);
                     SIZE like 64MiB or 10MB; repeatable (default when no FILES: dna:8MiB)
  --algos a,b        algorithms to time (default: sais)
  --threads N        worker threads for parallel algorithms (default: all cores)
  --gpu MODE         adapter for GPU algorithms: hardware (default), software or auto
  --runs R           runs per measurement, median reported (default 3, at least 3)
  --peer divsufsort  also time libdivsufsort (one thread)
  --json             one JSON line per row instead of the table
  -h, --help         show this help`,
  options: {
    gen: { type: "string", multiple: true },
    algos: { type: "string" },
    threads: { type: "string" },
    gpu: { type: "string" },
    runs: { type: "string" },
    peer: { type: "string" },
    json: { type: "boolean" },
  },
  positionals: { min: 0, max: 1000, names: "" },
  async run(args) {
    const runs = intOption(args, "runs", 3, 3);
    const threads = intOption(args, "threads", availableParallelism());
    const algos = (stringOption(args, "algos") ?? "sais").split(",").map((a) => resolveSorter(a.trim()));
    const peer = stringOption(args, "peer");
    if (peer !== undefined && peer !== "divsufsort") throw usageError(`unknown peer '${peer}' (available: divsufsort)`);
    const gens = (args.values.gen as string[] | undefined) ?? [];
    const specs: Array<() => BenchInput> = [
      ...args.positionals.map((p) => () => loadInput(p)),
      ...gens.map((g) => () => generate(g)),
    ];
    if (specs.length === 0) specs.push(() => generate("dna:8MiB"));
    const json = args.values.json === true;
    const gpuMode = resolveGpuMode(stringOption(args, "gpu"));
    // one device for the whole run (Dawn misbehaves with several per process)
    const gpu = algos.some((s) => s.engine === "gpu") ? ((await acquireGpu({ mode: gpuMode, required: true })) ?? undefined) : undefined;
    try {
      await benchAll(specs, algos, { runs, threads, peer, json, gpu });
    } finally {
      gpu?.release();
    }
    return 0;
  },
};

async function benchAll(
  specs: Array<() => BenchInput>,
  algos: SuffixSorter[],
  o: { runs: number; threads: number; peer: string | undefined; json: boolean; gpu: GpuContext | undefined },
): Promise<void> {
  const { runs, threads, peer, json, gpu } = o;
  if (!json) {
    process.stdout.write(header(peer !== undefined));
  }
  for (const load of specs) {
    const input = load();
    const n = input.bytes.length;
    let peerMb: number | undefined;
    if (peer !== undefined) {
      const t = median(timeDivsufsort(input, runs).seconds);
      peerMb = n / 1e6 / t;
      emit({ input: input.name, n, algo: "divsufsort", engine: "C", threads: 1, seconds: t, mbPerSec: peerMb }, json, true);
    }
    for (const sorter of algos) {
      const placed = placeText(n, sorter, threads);
      placed.heap.u8(placed.textPtr, n).set(input.bytes);
      const mark = placed.heap.used;
      const times: number[] = [];
      const options = gpu ? { gpuContext: gpu } : {};
      let firstSeconds: number | undefined;
      if (sorter.engine === "gpu") {
        firstSeconds = (await buildPlaced(placed, options)).seconds;
        placed.heap.release(mark);
      }
      for (let r = 0; r < runs; r++) {
        placed.heap.release(mark);
        times.push((await buildPlaced(placed, options)).seconds);
      }
      await closePlaced(placed);
      const t = median(times);
      const mb = n / 1e6 / t;
      const row: Row = { input: input.name, n, algo: sorter.name, engine: sorter.engine, threads, seconds: t, mbPerSec: mb };
      if (firstSeconds !== undefined) row.firstSeconds = firstSeconds;
      if (peerMb !== undefined) {
        row.peerMbPerSec = peerMb;
        row.ratio = mb / peerMb;
      }
      emit(row, json, peer !== undefined);
    }
  }
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[s.length >> 1];
}

function header(withPeer: boolean): string {
  const cols = ["input", "n", "algo", "threads", "seconds", "MB/s"];
  if (withPeer) cols.push("vs divsufsort");
  cols.push("first s");
  return `| ${cols.join(" | ")} |\n|${cols.map(() => "---").join("|")}|\n`;
}

function emit(row: Row, json: boolean, withPeer: boolean): void {
  if (json) {
    process.stdout.write(JSON.stringify(row) + "\n");
    return;
  }
  const cells = [row.input, String(row.n), row.algo, String(row.threads), row.seconds.toFixed(3), row.mbPerSec.toFixed(1)];
  if (withPeer) cells.push(row.ratio !== undefined ? `${row.ratio.toFixed(2)}x` : "");
  cells.push(row.firstSeconds !== undefined ? row.firstSeconds.toFixed(3) : "");
  process.stdout.write(`| ${cells.join(" | ")} |\n`);
}
