// sufsort bench [FILES...] [--gen SPEC]... [--algos a,b] [--engines e,f] [--threads N] [--runs R] [--peer divsufsort]
//              [--paired] [--speedup] [--floor] [--json]
import type { Command } from "../command.js";
import { intOption, stringOption, threadsOption } from "../command.js";
import {
  buildPlaced, closePlaced, fitsHeap, placeBytes, resolveSorter, routePlacedByRepeats, selectEngine, type BuildOptions, type BuildResult,
  type PlacedText,
} from "../../engine/build.js";
import type { Overlap, SuffixSorter } from "../../engine/registry.js";
import { ENGINE_CHOICES, parseEngine, routeByText, traitsOf, type EngineChoice, type EnginePlan } from "../../engine/choice.js";
import { overlapLine } from "./build.js";
import { generate, loadInput, parseGenerated, type BenchInput } from "../../bench/inputs.js";
import { checkInput } from "../files.js";
import { openDivsufsort } from "../../bench/peers.js";
import { SufsortError, usageError } from "../../errors.js";
import { acquireGpu, resolveGpuMode, type GpuContext } from "../../gpu/device.js";
import { transferFloor } from "../../gpu/algorithms/transfer.js";
import { collectGarbage } from "../../cpu/memory.js";

interface Row {
  input: string;
  n: number;
  algo: string;
  engine: string;
  threads: number;
  seconds: number;
  mbPerSec: number;
  peerMbPerSec?: number;
  /** --paired: the median of the peer's runs paired with this row's. */
  pairedPeerSeconds?: number;
  ratio?: number;
  /** --speedup: the median of the 1-thread runs of the same algorithm paired with this row's. */
  oneThreadSeconds?: number;
  /** --speedup: oneThreadSeconds / seconds. */
  speedup?: number;
  /** The first, untimed run on the input (GPU buffers; the worker pool's start for CPU rows). */
  firstSeconds?: number;
  /** Engine rows: the engine asked for, and why the policy chose the algorithm. */
  engineChoice?: EngineChoice;
  reason?: string;
  /** Engine rows: what a one-shot `sufsort build` pays: first run + (GPU) device and pipeline setup. */
  oneShotSeconds?: number;
  /** Hybrid rows: the overlap of the median run. */
  overlap?: Overlap;
  /** Why the algorithm handed the input over (the row's algo then reads "asked -> ran"). */
  handOver?: string;
}

/** Device acquisition + a first build of 1 KiB with each GPU algorithm (its pipelines compiled). */
const setupSeconds = new Map<string, number>();

export const benchCommand: Command = {
  name: "bench",
  summary: "time algorithms (and libdivsufsort) on files or generated inputs",
  help: `Usage: sufsort bench [FILES...] [--gen KIND:SIZE]... [--algos a,b] [--engines e,f]
                    [--threads N] [--gpu MODE] [--runs R] [--peer divsufsort] [--paired] [--speedup]
                    [--floor] [--json]

Times suffix-array construction (median of R runs, construction only: no I/O) and prints a table:
input, n, engine, algo, threads, seconds, MB/s (1 MB = 10^6 bytes). With --peer divsufsort, libdivsufsort
2.0.1 (Debian libdivsufsort-dev; our driver bench/peers/divsufsort.c is compiled on first use) is
timed on the same inputs in the same run and the ratio ours/peer is printed (the driver touches its
SA's pages before its clock starts, as ours are touched by the untimed first build below). A row whose algorithm
handed the input over (range, where doubling degenerates) names both, e.g. "range -> sais", and
--json gives the reason as "handOver". Every row starts with
one untimed build (the worker pool's start, the heap's first touch; for GPU algorithms shader
compilation and buffer allocation), reported apart as "first s". GPU algorithms get one device for
the whole run and more untimed builds until 1 s has passed (the
GPU's clocks fall while only the CPU works, e.g. during the peer's run); their timed builds include
uploading the text and downloading the SA.

With --engines, each engine choice (auto, cpu, gpu, hybrid) gets a row per input with the
algorithm the engine policy picks for it (and why: --json "reason"), placed as \`sufsort build\`
places it (a text too short for the sorter's workers runs on one thread: its "threads" says so),
its first run ("first s"),
and "one-shot s": what one \`sufsort build\` would spend constructing, i.e. the first run plus,
for GPU algorithms, the device's setup (acquiring it and compiling the algorithm's pipelines,
timed once), and the scan for long repeats that may send a random-looking text from range to
SA-IS (fewer than 8 threads) or to the GPU (8 or more, from 64 MiB). auto's GPU thresholds are where the gpu row's one-shot beats the cpu row's.
Hybrid rows also print the overlap of the median run: GPU and CPU busy time and the wall time
of the part where both sorted (gpu + cpu > wall means they overlapped). The split's settings
can be changed for a run: SUFSORT_GPU_TUNE=hybrid.small=64,hybrid.cpuPercent=25,hybrid.minActive=65536
(the defaults: groups of at most 64 suffixes go to the CPU, at most 25 % of a round's active
suffixes, in rounds of at least 65536 active suffixes).

Options:
  --gen KIND:SIZE    a generated input: dna, dnarep (DNA, every MiB ending in a copy of 100 KB
                     from earlier), random (256 symbols), text26, repeat (one byte), dnaruns
                     (DNA in runs of 1-40), runs (3 symbols in runs of 1-200);
                     SIZE like 64MiB or 10MB; repeatable (default when no FILES: dna:8MiB)
  --algos a,b        algorithms to time (default: sais, or none when --engines is given)
  --engines e,f      engine choices to time: auto, cpu, gpu, hybrid (or all)
  --threads N        worker threads for parallel algorithms (1-64; default: all cores, at most 64)
  --gpu MODE         adapter for GPU algorithms: hardware (default), software or auto
  --runs R           runs per measurement, median reported (default 3, at least 3)
  --peer divsufsort  also time libdivsufsort (one thread)
  --paired           with --peer: libdivsufsort also runs once right before each timed run of
                     every CPU row, and that row's ratio is against the median of those runs, so
                     that a slow spell of the machine slows both sides of the ratio (GPU rows keep
                     the ratio to the first libdivsufsort row: the peer's CPU-only seconds would
                     let the GPU's clocks fall before each run)
  --speedup          for CPU rows with more than one thread: the same algorithm also runs on one
                     thread right before each timed run, and the row prints its speedup, the
                     median of those 1-thread runs over the row's median (a slow spell of the
                     machine slows both)
  --floor            also time each input's transfer floor on the GPU (row gpu-transfer): the text
                     uploaded and an n-entry array delivered into the heap the ways the GPU
                     sorters take, nothing sorted; a GPU row's seconds minus it is what its
                     sorting adds on this host
  --json             one JSON line per row instead of the table
  -h, --help         show this help`,
  options: {
    gen: { type: "string", multiple: true },
    algos: { type: "string" },
    engines: { type: "string" },
    threads: { type: "string" },
    gpu: { type: "string" },
    runs: { type: "string" },
    peer: { type: "string" },
    json: { type: "boolean" },
    paired: { type: "boolean" },
    speedup: { type: "boolean" },
    floor: { type: "boolean" },
  },
  positionals: { min: 0, max: 1000, names: "" },
  async run(args) {
    const runs = intOption(args, "runs", 3, 3);
    const threads = threadsOption(args);
    const engineList = stringOption(args, "engines");
    const engines = engineList === undefined ? [] : engineList === "all" ? [...ENGINE_CHOICES] : engineList.split(",").map((e) => parseEngine(e.trim()));
    const algoList = stringOption(args, "algos") ?? (engines.length > 0 ? "" : "sais");
    const algos = algoList === "" ? [] : algoList.split(",").map((a) => resolveSorter(a.trim()));
    if (args.values.floor === true) algos.unshift(transferFloor);
    const peer = stringOption(args, "peer");
    if (peer !== undefined && peer !== "divsufsort") throw usageError(`unknown peer '${peer}' (available: divsufsort)`);
    const paired = args.values.paired === true;
    if (paired && peer === undefined) throw usageError("--paired needs --peer divsufsort");
    const speedup = args.values.speedup === true;
    const gens = (args.values.gen as string[] | undefined) ?? [];
    // bad inputs fail before the table starts, not after the rows before them
    for (const g of gens) parseGenerated(g);
    for (const p of args.positionals) checkInput(p);
    const specs: Array<() => BenchInput> = [
      ...args.positionals.map((p) => () => loadInput(p)),
      ...gens.map((g) => () => generate(g)),
    ];
    if (specs.length === 0) specs.push(() => generate("dna:8MiB"));
    const json = args.values.json === true;
    const gpuMode = resolveGpuMode(stringOption(args, "gpu"));
    // one device for the whole run (Dawn misbehaves with several per process); auto alone may go without
    const needsGpu = algos.some((s) => s.engine !== "cpu") || engines.some((e) => e === "gpu" || e === "hybrid");
    const wantsGpu = needsGpu || engines.includes("auto");
    const acquireStart = performance.now();
    const gpu = wantsGpu ? ((await acquireGpu({ mode: gpuMode, required: needsGpu })) ?? undefined) : undefined;
    const acquireSeconds = (performance.now() - acquireStart) / 1000;
    try {
      if (gpu) {
        for (const sorter of [...["gpu-spd", "gpu-ls", "gpu-skew", "gpu-ls-hybrid"].map(resolveSorter), ...algos]) {
          const name = sorter.name;
          if (sorter.engine === "cpu" || setupSeconds.has(name)) continue;
          const placed = placeBytes(generate("text26:1KiB").bytes, sorter, threads);
          const t0 = performance.now();
          await buildPlaced(placed, { gpuContext: gpu });
          await closePlaced(placed);
          setupSeconds.set(name, acquireSeconds + (performance.now() - t0) / 1000);
        }
      }
      await benchAll(specs, algos, engines, { runs, threads, peer, paired, speedup, json, gpu });
    } finally {
      gpu?.release();
    }
    return 0;
  },
};

/** Untimed builds of a GPU algorithm before its timed ones: for at least this long (the first
 * included)... (0.3 s left gpu-ls on chr22 and dickens at half its standalone speed right after the
 * peer's CPU-only seconds in the third session's corpus run.) */
const GPU_WARMUP_MS = 1000;
/** ... but no more builds than this. */
const GPU_WARMUP_BUILDS = 50;

async function benchAll(
  specs: Array<() => BenchInput>,
  algos: SuffixSorter[],
  engines: EngineChoice[],
  o: {
    runs: number; threads: number; peer: string | undefined; paired: boolean; speedup: boolean; json: boolean;
    gpu: GpuContext | undefined;
  },
): Promise<void> {
  const { runs, threads, peer, paired, json, gpu } = o;
  const speedup = o.speedup && threads > 1;
  if (!json) {
    process.stdout.write(header(peer !== undefined, speedup));
  }
  for (const load of specs) {
    // the rows before this one leave heaps and workers for the collector: gone before it is timed
    await collectGarbage();
    const input = load();
    const n = input.bytes.length;
    const divsufsort = peer !== undefined ? openDivsufsort(input) : undefined;
    try {
      let peerMb: number | undefined;
      if (divsufsort) {
        const t = median(divsufsort.time(runs).seconds);
        peerMb = n / 1e6 / t;
        emit({ input: input.name, n, algo: "divsufsort", engine: "C", threads: 1, seconds: t, mbPerSec: peerMb }, json, true, speedup);
      }
      const jobs: Array<{ sorter: SuffixSorter; engine?: EngineChoice; plan?: EnginePlan }> = algos.map((sorter) => ({ sorter }));
      const traits = traitsOf(input.bytes);
      for (const engine of engines) {
        const selection = await selectEngine({ engine, n, threads, traits, ...(gpu ? { gpuContext: gpu } : {}) });
        const plan = routeByText(selection.plan, traits);
        jobs.push({ sorter: plan.sorter, engine, plan });
      }
      for (const job of jobs) {
        let { sorter } = job;
        const { engine } = job;
        let plan = job.plan;
        if (n > sorter.maxLength || !fitsHeap(n, sorter)) {
          skipRow(input.name, n, sorter.name, `${n} bytes are over its limit (max ${sorter.maxLength}, 4 GiB heap)`, json);
          continue;
        }
        // an engine row is placed as `sufsort build` places it (a short text on one thread)
        const timed = placeForRuns(input.bytes, sorter, threads, engine === undefined);
        // an engine row's long-repeat scan (range -> SA-IS or the GPU), counted in its one-shot seconds
        let scanSeconds = 0;
        if (plan !== undefined) {
          const t0 = performance.now();
          const routed = await routePlacedByRepeats(timed.placed, plan, traits, gpu ? { gpuContext: gpu } : {});
          routed.release(); // with gpuContext given it owns no device
          scanSeconds = (performance.now() - t0) / 1000;
          plan = routed.plan;
          sorter = plan.sorter;
        }
        const runsDone: Array<{ seconds: number; overlap?: Overlap; ran: string; handOver?: string }> = [];
        const pairedPeer: number[] = [];
        const pairs = paired && sorter.engine === "cpu";
        // --speedup: the same algorithm on one thread, on its own heap, before each timed run
        let single: PlacedInput | undefined;
        const singleRuns: number[] = [];
        const options = gpu ? { gpuContext: gpu } : {};
        let firstSeconds: number | undefined;
        try {
          if (speedup && sorter.engine === "cpu" && engine === undefined) {
            single = placeForRuns(input.bytes, sorter, 1);
            await single.build(options); // untimed, like the row's own first run
          }
          const warmStart = performance.now();
          firstSeconds = (await timed.build(options)).seconds;
          // Short GPU builds timed right after CPU-only seconds (the peer) ran far below their speed
          // (H200: gpu-ls on silesia-mr 155 MB/s without these untimed builds, 382 with them),
          // most likely the GPU's clocks dropping meanwhile.
          for (let w = 0; sorter.engine !== "cpu" && w < GPU_WARMUP_BUILDS && performance.now() - warmStart < GPU_WARMUP_MS; w++) {
            await timed.build(options);
          }
          for (let r = 0; r < runs; r++) {
            if (pairs) pairedPeer.push(divsufsort!.time(1).seconds[0]!);
            if (single) singleRuns.push((await single.build(options)).seconds);
            const result = await timed.build(options);
            runsDone.push({
              seconds: result.seconds,
              ran: result.algo,
              ...(result.overlap ? { overlap: result.overlap } : {}),
              ...(result.handOver !== undefined ? { handOver: result.handOver } : {}),
            });
          }
        } catch (e) {
          // a limit known only at build time (the device's binding size) skips the row, like those above
          if (!(e instanceof SufsortError && e.overLimit)) throw e;
          skipRow(input.name, n, sorter.name, e.message, json);
          continue;
        } finally {
          await closePlaced(timed.placed);
          if (single) await closePlaced(single.placed);
        }
        const middle = [...runsDone].sort((a, b) => a.seconds - b.seconds)[runsDone.length >> 1];
        const t = middle.seconds;
        const mb = n / 1e6 / t;
        const algo = middle.ran === sorter.name ? sorter.name : `${sorter.name} -> ${middle.ran}`;
        const row: Row = { input: input.name, n, algo, engine: sorter.engine, threads: timed.placed.executor.threads, seconds: t, mbPerSec: mb };
        if (middle.handOver !== undefined) row.handOver = middle.handOver;
        if (firstSeconds !== undefined) row.firstSeconds = firstSeconds;
        if (engine !== undefined) {
          row.engineChoice = engine;
          row.reason = plan!.reason + timed.placed.threadsNote;
          row.oneShotSeconds = firstSeconds! + scanSeconds + (sorter.engine === "cpu" ? 0 : (setupSeconds.get(sorter.name) ?? 0));
        }
        if (middle.overlap) row.overlap = middle.overlap;
        if (singleRuns.length > 0) {
          row.oneThreadSeconds = median(singleRuns);
          row.speedup = row.oneThreadSeconds / t;
        }
        if (peerMb !== undefined) {
          if (pairs) row.pairedPeerSeconds = median(pairedPeer);
          row.peerMbPerSec = pairs ? n / 1e6 / row.pairedPeerSeconds! : peerMb;
          row.ratio = mb / row.peerMbPerSec;
        }
        emit(row, json, peer !== undefined, speedup);
      }
    } finally {
      divsufsort?.close();
    }
  }
}

interface PlacedInput {
  placed: PlacedText;
  /** A build from the text alone: whatever the last build left in the heap is released first. */
  build(options: BuildOptions): Promise<BuildResult>;
}

/** The input in a heap of its own with `threads` workers (see PlaceOptions.reuse), for repeated builds. */
function placeForRuns(bytes: Uint8Array, sorter: SuffixSorter, threads: number, reuse = true): PlacedInput {
  const placed = placeBytes(bytes, sorter, threads, { reuse });
  const mark = placed.heap.used;
  return {
    placed,
    build(options) {
      placed.heap.release(mark);
      return buildPlaced(placed, options);
    },
  };
}

/** A row for an algorithm that cannot take this input, saying why. */
function skipRow(input: string, n: number, algo: string, reason: string, json: boolean): void {
  const why = `${input}: ${algo} skipped: ${reason}`;
  if (json) process.stdout.write(JSON.stringify({ input, n, algo, skipped: true, note: why }) + "\n");
  else process.stdout.write(`| ${why} |\n`);
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[s.length >> 1];
}

function header(withPeer: boolean, withSpeedup = false): string {
  const cols = ["input", "n", "engine", "algo", "threads", "seconds", "MB/s"];
  if (withPeer) cols.push("vs divsufsort");
  if (withSpeedup) cols.push("vs 1 thread");
  cols.push("first s", "one-shot s", "one-shot MB/s");
  return `| ${cols.join(" | ")} |\n|${cols.map(() => "---").join("|")}|\n`;
}

function emit(row: Row, json: boolean, withPeer: boolean, withSpeedup = false): void {
  if (json) {
    process.stdout.write(JSON.stringify(row) + "\n");
    return;
  }
  const engine = row.engineChoice !== undefined ? `${row.engineChoice} -> ${row.engine}` : row.engine;
  const cells = [row.input, String(row.n), engine, row.algo, String(row.threads), row.seconds.toFixed(3), row.mbPerSec.toFixed(1)];
  const paired = row.pairedPeerSeconds !== undefined ? ` (paired ${row.pairedPeerSeconds.toFixed(3)} s)` : "";
  if (withPeer) cells.push(row.ratio !== undefined ? `${row.ratio.toFixed(2)}x${paired}` : "");
  if (withSpeedup) {
    cells.push(row.speedup !== undefined ? `${row.speedup.toFixed(2)}x (1 thread ${row.oneThreadSeconds!.toFixed(3)} s)` : "");
  }
  cells.push(row.firstSeconds !== undefined ? row.firstSeconds.toFixed(3) : "");
  cells.push(row.oneShotSeconds !== undefined ? row.oneShotSeconds.toFixed(3) : "");
  cells.push(row.oneShotSeconds !== undefined ? (row.n / 1e6 / row.oneShotSeconds).toFixed(1) : "");
  process.stdout.write(`| ${cells.join(" | ")} |\n`);
  if (row.overlap) process.stdout.write(`|   ${overlapLine(row.overlap)} |\n`);
}
