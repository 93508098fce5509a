// The engine policy: which algorithm runs a build, given the engine asked for (auto, cpu, gpu,
// hybrid), an algorithm if one was named, the input's size, the threads and the GPU found.
//
//   --algo NAME alone          NAME (its engine decides where it runs)
//   --engine cpu|gpu|hybrid    with --algo: NAME must run on that engine (gpu-ls under hybrid
//                              means gpu-ls-hybrid); a contradiction is a usage error
//   --engine cpu               AUTO_RANGE rule below
//   --engine gpu               gpu-spd; gpu-skew for texts that look periodic (TextTraits);
//                              over gpu-skew's binding limit gpu-spd in its compact layout (gpu-dc7
//                              for periodic texts), then gpu-dc7 (up to 1 GiB)
//   --engine hybrid            gpu-ls-hybrid (GPU and CPU workers split every large round)
//   --engine auto (default)    the CPU below the GPU threshold or without a hardware adapter
//                              (the software adapter is never chosen); above it, as --engine gpu.
//                              Over range the threshold depends on the text (textTraits): random-
//                              looking texts stay on range up to its limit
//
// The CPU algorithm: range (parallel doubling) with at least AUTO_RANGE_MIN_THREADS threads, or
// with fewer on random-looking texts (TextTraits.random), on inputs from
// AUTO_RANGE_MIN_BYTES up to range's limit; SA-IS otherwise (linear, no input-size limit below 2^31),
// and on texts where doubling degenerates (TextTraits.hardForDoubling: range would hand them over
// to SA-IS after its first rounds), whatever the threads, and where range's heap (about 25n bytes)
// exceeds the memory the process may still use (EngineRequest.memory). A range plan is still subject to the
// placed text's long-repeat scan (src/engine/repeats.ts): on fewer than AUTO_RANGE_MIN_THREADS
// threads long repeats, or memory whose first touch is slow (SLOW_FIRST_TOUCH_MICROS), send it to
// SA-IS (EnginePlan.repeatAlgo, LONG_REPEAT_SHARE; LONG_REPEAT_SHARE_ONE_THREAD on one), on more a
// random-looking text of AUTO_GPU_MIN_BYTES_OVER_RANGE or more to the GPU, and on any a text that
// range would hand over to SA-IS at once (EnginePlan.handOverAlgo, LONG_REPEAT_HAND_OVER_SHARE).
//
// The thresholds come from figures measured on the H200 host (16 cores): SA-IS 10-14 MB/s, range
// on 16 threads 50-150 MB/s on text and ~420 MB/s on random DNA, gpu-spd 400-810 MB/s, and
// 0.26 s to set up a device (about 1 s on a machine whose driver has no compiled shaders cached).
// The GPU pays when n / cpuRate > setup + n / gpuRate: over SA-IS from about 8 MiB, over range
// from about 25-64 MiB on text and not below range's limit on random DNA. Re-measure with
// `sufsort bench --engines cpu,gpu,auto` (bench/results/history.md, section 4) and set them here.
import { usageError } from "../errors.js";
import { getSorter, heapBytesFor, listSorters, type SuffixSorter } from "./registry.js";
import { HAND_OVER_SHARE } from "../cpu/algorithms/range.js";

/** What `--engine` / the `engine` option may say. */
export type EngineChoice = "auto" | "cpu" | "gpu" | "hybrid";
export const ENGINE_CHOICES: readonly EngineChoice[] = ["auto", "cpu", "gpu", "hybrid"];

/** Parses an engine name (undefined: auto); anything else is a one-line usage error. */
export function parseEngine(value: string | undefined): EngineChoice {
  if (value === undefined) return "auto";
  if ((ENGINE_CHOICES as readonly string[]).includes(value)) return value as EngineChoice;
  throw usageError(`invalid engine '${value}' (expected ${ENGINE_CHOICES.join(", ")})`);
}

/** auto runs on the GPU from this many bytes when the CPU would run SA-IS ... */
export const AUTO_GPU_MIN_BYTES_OVER_SAIS = 8 << 20;
/** ... and from this many when it would run range on many threads ... */
export const AUTO_GPU_MIN_BYTES_OVER_RANGE = 64 << 20;
/**
 * ... or SA-IS on a text hard for doubling (TextTraits.hardForDoubling), which SA-IS sorts 3-6x
 * faster than text: H100 machine, 16 threads, one-shot seconds (first build, plus device setup
 * for the GPU on a fresh instance), 48 MiB of runs (`--gen runs`): SA-IS 1.27, gpu-spd 1.90-2.38;
 * 16 MiB of one byte: SA-IS 0.32, gpu-skew 0.80-0.90 (BENCHMARKS.md, section 2).
 */
export const AUTO_GPU_MIN_BYTES_HARD_FOR_DOUBLING = 64 << 20;
/*
 * ... except on texts that look random (TextTraits.random), which range sorts fast enough to beat
 * the GPU's one-shot time up to range's limit. H200 host, 16 threads, one-shot (first build, plus
 * device setup and an empty pool for the GPU): DNA 64 MiB range 0.23 s against gpu-spd 0.65 s,
 * 128 MiB 0.48 against 1.00; nci (33.5 MB of text) 0.72 against 0.59 (bench/results/history.md,
 * section 4, third session). H100 host, a fresh device (setup 1.1 s): random bytes 64 MiB 0.43
 * against 1.30, 128 MiB 0.71 against 1.56, 160 MB 1.09 against 1.64; 26 symbols 128 MiB 1.00
 * against 1.41 (BENCHMARKS.md, section 2).
 */
/** The CPU runs range instead of SA-IS with at least this many threads ... */
export const AUTO_RANGE_MIN_THREADS = 8;
/**
 * ... or this many on random-looking texts (TextTraits.random): on the 2-core machine range at 2
 * threads built 64 MiB of random DNA in 1.31 s, SA-IS in 8.80 s (bench/results/history.md, section
 * 2, fifth session), and random text of 16-256 symbols 2.2-4.3x faster (RANDOM_REPEAT_SHARE). On
 * the corpus's texts range at 2 threads ranged from 0.45x (nci) to 2.3x (ecoli) of SA-IS's speed;
 * the test sends the two that range led (ecoli, x-ray) to range and the rest to SA-IS. On one
 * thread too (2026-11-30): on an H200 host, pinned to one core, one-shot `build --threads 1`, s,
 * range against SA-IS: DNA 64 MiB 2.79-2.89 against 5.68-5.78 (auto, with its scan for repeats:
 * 2.97-2.99), random bytes 32 MiB 1.89-2.01 against 2.34-2.37, 26 symbols 32 MiB 1.61-1.65 against
 * 3.03-3.41, DNA 8 MiB 0.32-0.37 against 0.44-0.45, 4 MiB 0.16 against 0.22, x-ray 0.41-0.48
 * against 0.52, E. coli 0.21-0.22 against 0.24-0.25. Where a fresh page is slow to touch (the 2-core
 * VM) SLOW_FIRST_TOUCH_MICROS sends such builds to SA-IS, which led there on one thread as on two.
 */
export const AUTO_RANGE_MIN_THREADS_RANDOM = 1;
/** ... on inputs of at least this many bytes (below, SA-IS is done before a worker pool starts). */
export const AUTO_RANGE_MIN_BYTES = 1 << 20;

/**
 * The GPU algorithm of --engine gpu and auto. gpu-spd: fastest on 10 of the 12 corpus files, on
 * their 124 MB concatenation and on random DNA on the H200 (fourth session: concatenation 504 MB/s
 * against gpu-ls 414, nci 411 against 327, dickens 554 against 525, DNA 128 MiB 728 against 706);
 * gpu-ls leads on ecoli (695 against 639) and ooffice (508 against 497): bench/results/history.md, section 4.
 */
export const GPU_DEFAULT_ALGO = "gpu-spd";
/** The algorithm of --engine hybrid (the split is built on gpu-ls's rounds). */
export const HYBRID_DEFAULT_ALGO = "gpu-ls-hybrid";
export const GPU_PERIODIC_ALGO = "gpu-skew";
/** The GPU algorithm for texts over GPU_DEFAULT_ALGO's limit: its per-suffix arrays hold 3n/7 entries. */
export const GPU_LARGE_ALGO = "gpu-dc7";
/** The hybrid form of each GPU algorithm that has one. */
const HYBRID_OF: Record<string, string> = { "gpu-ls": "gpu-ls-hybrid" };

/**
 * The periodicity test (textTraits): PERIODIC_SAMPLES windows of PERIODIC_WINDOW bytes spread
 * over the text; a window is periodic when it equals itself shifted by some p <= PERIODIC_MAX_PERIOD.
 * Every suffix starting in such a window (but its last p) shares more than PERIODIC_WINDOW - p -
 * offset bytes with the suffix p later, so doubling needs at least log2 of that many rounds past
 * its first sort for those suffixes, each round a sort of all of them: on 16 MiB of one repeated byte
 * gpu-ls made 65 MB/s and gpu-skew (linear work) 270-285 MB/s on the H200. When at least
 * PERIODIC_SHARE of the windows are periodic, gpu-skew runs. Cost: at most
 * SAMPLES * MAX_PERIOD * WINDOW byte compares (16 M), a few thousand on random text.
 */
export const PERIODIC_SAMPLES = 64;
export const PERIODIC_WINDOW = 1024;
export const PERIODIC_MAX_PERIOD = 256;
export const PERIODIC_SHARE = 0.5;
/**
 * A text looks random (looksRandom) when at most RANDOM_REPEAT_SHARE of the sampled positions
 * start a string of L bytes that another sampled position starts too, L = RANDOM_GRAM_BITS /
 * (order-0 entropy in bits per byte), rounded up: in a random text such strings are one of 2^28,
 * and 82 K samples share few. Runs, words, records and repeats of any period share many. range
 * sorts random-looking texts by its first sort, and a few rounds at most. Sampled shares
 * (L-byte strings) and the 2-core machine's seconds at 2 threads, range against SA-IS:
 * - shares at most 0.07, so range: 32 MiB over 16 symbols 0.000 (range 0.67 s against 2.86 s),
 *   over 26 0.000 (0.86 / 2.77), over 256 0.000 (0.90 / 1.99); random DNA 0.000; E. coli
 *   0.001; chr22 with only ACGT kept 0.022 (0.48 / 0.89); silesia-x-ray 0.069 (range 1.9x
 *   SA-IS's speed, BENCHMARKS.md section 2).
 * - shares of 0.139 and more, so SA-IS: the chr22 subset (FASTA, 0.139; the two even), world192
 *   0.54, kjv 0.44, dickens 0.29, ooffice 0.29, mr 0.35, osdb 0.58, reymont 0.69, xml 0.74, nci
 *   0.75: SA-IS led on all of them but osdb (even).
 * - ACGT where each byte repeats the one before with probability p (32 MiB, range / SA-IS):
 *   p = 0.5: 0.002, 0.80 / 1.42 s; 0.6: 0.026, 1.02 / 1.41; 0.7: 0.160, 1.48 / 1.40. 48 MiB of runs
 *   of 1-200 bytes over 3 symbols: range handed it over after 2.7 s, SA-IS alone took 1.3 s.
 */
export const RANDOM_REPEAT_SHARE = 0.1;
export const RANDOM_GRAM_BITS = 28;
/** Longest string the test compares (texts of under 0.44 bits per byte). */
const MAX_GRAM = 64;
/**
 * A text is hard for doubling (TextTraits.hardForDoubling) when it looks periodic, or when at
 * least this share of the sampled positions start a string of HARD_GRAM bytes (range's hand-over
 * prefix) seen at another: then most suffixes share 64 bytes with another one, and range would
 * hand the text over after its first rounds. Shares: one byte, periodic texts, Thue-Morse and
 * Fibonacci words 1.00, long runs 0.99, 3 symbols in runs of 1-200 0.95, a repeated block of 5000
 * bytes 0.94; then ACGT in runs of 1-40 0.31 (range led SA-IS on 16 threads, 0.47 against 0.64
 * s), silesia-mr 0.22, xml 0.15, the other corpus files 0.07 or less, random DNA 0.
 */
const HARD_REPEAT_SHARE = 0.5;
const HARD_GRAM = 64;
/**
 * Repeats far apart escape the sampled windows: a collection of similar genomes, a file stored
 * twice. So before range runs a random-looking text on fewer than AUTO_RANGE_MIN_THREADS threads,
 * the whole placed text is scanned (src/engine/repeats.ts: the share of content-sampled positions
 * whose 32-byte string occurs elsewhere), and from this share on SA-IS runs instead
 * (EnginePlan.repeatAlgo). 2-core machine, 2 threads, median of 3, range against SA-IS:
 * random DNA with copies of earlier stretches at the end of every MiB, 32 MiB: share 0.17-0.19
 * (copies of 100 KB) 1.83 against 2.42 s; 0.24 (150 KB) 2.54 against 3.24; 0.42 (250 KB) 3.84
 * against 2.28; 0.59 (400 KB) 4.21 against 2.87. 9 copies of a 3.7 MB genome with 0.5% of
 * its bytes changed in each: 0.90, 3.35 against 1.90. 5 copies of 3.1 MB of random bytes: 1.00,
 * range handed it over after 2.04 s, SA-IS 0.95. Random texts, E. coli and x-ray: 0.00-0.01.
 */
export const LONG_REPEAT_SHARE = 0.3;
/**
 * The same on one thread, where range's lead shrinks (range gains 1.6-2x from a second thread, SA-IS
 * with its helper 1.1-1.4x): random DNA with copies of 100 KB at the end of every MiB (`--gen
 * dnarep`, share 0.19), H200 host, one-shot `build --threads 1`: SA-IS 3.37-4.27 s, range 4.58-5.57
 * (auto, range then: 4.12-4.56). One input; the 2-thread break-even (between 0.19 and 0.24 above),
 * scaled by those gains, puts it near 0.15.
 */
export const LONG_REPEAT_SHARE_ONE_THREAD = 0.15;
/*
 * On AUTO_RANGE_MIN_THREADS or more, a random-looking text stays on range up to its limit (the
 * exemption above); with long repeats it takes the GPU threshold of other text instead
 * (repeatAlgo GPU_DEFAULT_ALGO, from AUTO_GPU_MIN_BYTES_OVER_RANGE, when a hardware GPU is found).
 * H100 machine, 16 threads, one-shot `build` wall seconds, before -> after: 9 copies of a 14.9 MB
 * genome (share 0.90) range 4.85-5.30 -> gpu-spd 2.01-2.24; 5 copies of 20 MB of random bytes
 * (1.00) range handing over to SA-IS 14.86-16.10 -> 2.27-2.28; random DNA 128 MiB stays on range.
 */
/**
 * range hands a text over to SA-IS when, sorted by 64 characters, more than 90% of its suffixes are
 * still unsorted (src/cpu/algorithms/range.ts, HAND_OVER_SHARE). The scan's 64-byte share measures
 * the same thing, so from it on SA-IS runs at once (EnginePlan.handOverAlgo), on any number of
 * threads. H100 machine's host, 16 threads: 5 copies of 20 MB of random bytes (share 1.00), range
 * handing over 19.1 s, SA-IS 12.4 s; 9 copies of a 14.9 MB genome with 0.5% of bytes changed
 * (64-byte share 0.81-0.82) stays on range, 3.6 s against SA-IS 11.8. H200 machine's host, 16
 * threads, one-shot build wall seconds before -> after, two rounds: dickens twice 2.26, 2.36 ->
 * 2.06, 1.93; 5 copies of 6.7 MB of random bytes 4.12, 4.55 -> 3.77, 3.43; of 20 MB (no GPU)
 * 11.84, 13.72 -> 12.69, 11.00.
 */
export const LONG_REPEAT_HAND_OVER_SHARE = HAND_OVER_SHARE;
/**
 * range's heap is about 25 bytes per input byte, SA-IS's about 6, and a one-shot build touches every
 * page of it for the first time. Where that is slow, range's lead on few threads is gone: on the
 * 2-core VM a fresh page costs 15-17 µs (4 s per GiB), and one-shot `build --threads 2` took, s,
 * SA-IS against range (2026-11-30): random DNA 64 MiB 4.56-4.64 against 5.79-6.07 (range's warm
 * runs: 1.2 s against 3.1), 8 MiB 0.54 against 0.61-0.67, random bytes 32 MiB 2.33-2.43 against
 * 3.19-3.31, E. coli 0.34-0.35 against 0.39, x-ray 0.60-0.63 against 0.66-0.77; 26 random symbols
 * 32 MiB 3.22-3.56 against 2.99-3.16, the one such input range still led. On an H200 host, where a
 * page costs 2.3-3.3 µs, range led every one of them at 2 threads: DNA 64 MiB 2.00-2.64 against
 * 4.83-4.95, 8 MiB 0.28-0.31 against 0.45-0.47, random bytes 1.31-1.35 against 2.22-2.26, x-ray
 * 0.40-0.48 against 0.54-0.71, E. coli 0.19-0.29 against 0.38-0.41. From the VM's figures the
 * break-even is about 9 µs on random DNA (range's one-shot grows 0.31 s per µs, SA-IS's 0.10) and
 * 12 on x-ray. So before range runs a random-looking text on fewer than AUTO_RANGE_MIN_THREADS
 * threads, FIRST_TOUCH_PROBE_BYTES of the fresh heap after the text are touched and timed
 * (cpu/memory.ts firstTouchMicros), and from SLOW_FIRST_TOUCH_MICROS per page SA-IS runs instead
 * (EnginePlan.repeatAlgo). A long-lived engine's heap, touched by the builds before, measures fast
 * and keeps range.
 */
export const SLOW_FIRST_TOUCH_MICROS = 8;
export const FIRST_TOUCH_PROBE_BYTES = 1 << 20;

/** Fewest anchors the share is trusted on (a text of at least AUTO_RANGE_MIN_BYTES has ~8192). */
export const LONG_REPEAT_MIN_ANCHORS = 256;

/** The GPU a choice can count on: a hardware adapter, only the software one, or none. */
export type GpuAvailability = "hardware" | "software" | "none";

/** What auto's threshold looks at in a text (from sampled windows: textTraits). */
export interface TextTraits {
  /** At least PERIODIC_SHARE of the windows repeat with a period <= PERIODIC_MAX_PERIOD. */
  periodic: boolean;
  /** The text does not look periodic, and looks random: few repeated strings (looksRandom). */
  random: boolean;
  /** Prefix doubling degenerates on it: it looks periodic, or most of its sampled positions start
   * a 64-byte string seen at another (HARD_REPEAT_SHARE). */
  hardForDoubling: boolean;
}

export interface EngineRequest {
  engine: EngineChoice;
  algo?: string;
  n: number;
  threads: number;
  /** The text's traits, when known before the choice (auto's threshold over range uses them). */
  traits?: TextTraits;
  /** What acquiring a device found (auto asks only when n reaches the GPU threshold). */
  gpu: GpuAvailability;
  /** Bytes of memory this process may still use (availableMemory() in cpu/memory.ts); absent: not asked.
   * auto passes range over for SA-IS when range's heap would not fit in it. */
  memory?: number;
  /** The largest n GPU_PERIODIC_ALGO takes on this device, and GPU_DEFAULT_ALGO in its own layout
   * (binding limits). */
  gpuMaxLength?: number;
  /** The largest n GPU_DEFAULT_ALGO takes in its compact layout (beyond gpuMaxLength). */
  gpuDefaultMaxLength?: number;
  /** The largest n GPU_LARGE_ALGO takes on this device (beyond gpuDefaultMaxLength). */
  gpuLargeMaxLength?: number;
}

export interface EnginePlan {
  sorter: SuffixSorter;
  /** Why, in a few words (shown by build --json). */
  reason: string;
  /** Where routeByText sends the build once the text is seen to be periodic; absent: nowhere else. */
  periodicAlgo?: string;
  /** Where the build goes when the placed text's long-repeat share reaches LONG_REPEAT_SHARE
   * (routeByRepeats; a GPU algorithm only when a hardware GPU is found then), and, when it is a CPU
   * algorithm, when a fresh page of the build's heap is slow to touch (SLOW_FIRST_TOUCH_MICROS);
   * absent: neither is asked. */
  repeatAlgo?: string;
  /** The long-repeat share from which repeatAlgo takes over (default LONG_REPEAT_SHARE;
   * LONG_REPEAT_SHARE_ONE_THREAD on one thread). */
  longRepeatShare?: number;
  /** Where the build goes when the scan finds that range would hand the text over (at least
   * LONG_REPEAT_HAND_OVER_SHARE of the sampled positions share 64 bytes with another); absent: not asked. */
  handOverAlgo?: string;
}

/** Whether a choice needs to know what GPU there is (auto asks only when the GPU could pay). */
export function wantsGpu(engine: EngineChoice, algo: string | undefined, n: number, threads: number, traits?: TextTraits, memory?: number): boolean {
  if (algo !== undefined) return sorterOf(algo).engine !== "cpu";
  if (engine === "gpu" || engine === "hybrid") return true;
  if (engine === "cpu") return false;
  return n >= gpuThreshold(n, threads, traits, memory);
}

/** auto's GPU threshold for a machine with `threads` threads, facing input size n. */
export function gpuThreshold(n: number, threads: number, traits?: TextTraits, memory?: number): number {
  if (traits?.hardForDoubling) return AUTO_GPU_MIN_BYTES_HARD_FOR_DOUBLING;
  // range on few threads (~50 MB/s on DNA at 2) loses to the GPU's one-shot time from ~15 MB.
  if (cpuAlgorithm(n, threads, traits, memory) !== "range" || threads < AUTO_RANGE_MIN_THREADS) return AUTO_GPU_MIN_BYTES_OVER_SAIS;
  if (traits?.random) return getSorter("range")!.maxLength + 1;
  return AUTO_GPU_MIN_BYTES_OVER_RANGE;
}

/** Whether the policy would run range for n bytes on `threads` threads, memory aside. */
function rangeWanted(n: number, threads: number, traits?: TextTraits): boolean {
  const range = getSorter("range");
  const fits = range !== undefined && n <= range.maxLength;
  const enoughThreads =
    threads >= AUTO_RANGE_MIN_THREADS || (threads >= AUTO_RANGE_MIN_THREADS_RANDOM && traits?.random === true);
  return enoughThreads && n >= AUTO_RANGE_MIN_BYTES && fits && traits?.hardForDoubling !== true;
}

/** Whether range's heap (about 25 bytes per input byte, SA-IS's about 6) exceeds `memory`. */
function rangeOverMemory(n: number, memory: number | undefined): boolean {
  const range = getSorter("range");
  return memory !== undefined && range !== undefined && heapBytesFor(n, range) > memory;
}

/** The CPU algorithm for n bytes on `threads` threads (traits: the text's, when known; memory:
 * the bytes this process may still use, availableMemory() in cpu/memory.ts, when known): range as the
 * policy above says, unless its heap would not fit in that memory, where SA-IS's may. */
export function cpuAlgorithm(n: number, threads: number, traits?: TextTraits, memory?: number): string {
  return rangeWanted(n, threads, traits) && !rangeOverMemory(n, memory) ? "range" : "sais";
}

/** The policy (pure: the caller found the GPU). Contradictions are usage errors. */
export function planEngine(req: EngineRequest): EnginePlan {
  const { engine, algo, n, threads } = req;
  if (algo !== undefined) {
    const named = sorterOf(algo);
    if (engine === "auto" || engine === named.engine) return { sorter: named, reason: `--algo ${algo}${engine === "auto" ? "" : ` (--engine ${engine})`}` };
    if (engine === "hybrid" && HYBRID_OF[algo] !== undefined) {
      return { sorter: sorterOf(HYBRID_OF[algo]), reason: `--engine hybrid --algo ${algo}` };
    }
    const fitting = listSorters().filter((s) => s.engine === engine).map((s) => s.name);
    const hybridNote = engine === "hybrid" ? ` (or ${Object.keys(HYBRID_OF).join(", ")})` : "";
    throw usageError(`--engine ${engine} contradicts --algo ${algo}, which runs on the ${named.engine} engine (${engine} algorithms: ${fitting.join(", ")}${hybridNote})`);
  }
  const cpu = cpuAlgorithm(n, threads, req.traits, req.memory);
  const hard = req.traits?.hardForDoubling ? " (the text looks hard for doubling: periodic, runs or repeats)" : "";
  const random = cpu === "range" && threads < AUTO_RANGE_MIN_THREADS ? " (the text looks random)" : "";
  // sais where the policy wanted range: only memory turns it down
  const short = cpu === "sais" && rangeWanted(n, threads, req.traits)
    ? ` (range would take ${heapBytesFor(n, getSorter("range")!)} bytes of memory; ${req.memory} are available)` : "";
  const onCpu = `${cpu} for ${n} bytes on ${threads} thread${threads === 1 ? "" : "s"}${hard}${random}${short}`;
  // range on few threads only because the windows looked random: repeats far apart may undo that;
  // on any threads, a text that range would hand over goes to SA-IS at once
  const fewThreads = threads < AUTO_RANGE_MIN_THREADS ? { repeatAlgo: "sais", ...(threads === 1 ? { longRepeatShare: LONG_REPEAT_SHARE_ONE_THREAD } : {}) } : {};
  const repeats = cpu === "range" ? { ...fewThreads, handOverAlgo: "sais" } : {};
  if (engine === "cpu") return { sorter: sorterOf(cpu), reason: `--engine cpu: ${onCpu}`, ...repeats };
  const large = overGpuLimit(req);
  if (engine === "gpu") return large ?? { sorter: sorterOf(GPU_DEFAULT_ALGO), reason: "--engine gpu", periodicAlgo: GPU_PERIODIC_ALGO };
  if (engine === "hybrid") return { sorter: sorterOf(HYBRID_DEFAULT_ALGO), reason: "--engine hybrid" };
  const threshold = gpuThreshold(n, threads, req.traits, req.memory);
  if (n < threshold) {
    const kind = req.traits?.random && cpu === "range" && threads >= AUTO_RANGE_MIN_THREADS ? " for a random-looking text" : "";
    // kept off the GPU only because the windows looked random: long repeats send it there
    const gpuIfRepeats = kind !== "" && n >= AUTO_GPU_MIN_BYTES_OVER_RANGE ? { repeatAlgo: GPU_DEFAULT_ALGO } : {};
    return { sorter: sorterOf(cpu), reason: `--engine auto: ${onCpu}, below the GPU threshold of ${threshold} bytes${kind}`, ...repeats, ...gpuIfRepeats };
  }
  if (req.gpu !== "hardware") return { sorter: sorterOf(cpu), reason: `--engine auto: ${onCpu}, no hardware GPU`, ...repeats };
  if (large) return { ...large, reason: `--engine auto: the GPU from ${threshold} bytes; ${large.reason}` };
  if (req.gpuMaxLength !== undefined && n > req.gpuMaxLength) {
    const most = Math.max(req.gpuMaxLength, req.gpuDefaultMaxLength ?? 0, req.gpuLargeMaxLength ?? 0);
    return { sorter: sorterOf(cpu), reason: `--engine auto: ${onCpu}, over the GPU's limit of ${most} bytes`, ...repeats };
  }
  return { sorter: sorterOf(GPU_DEFAULT_ALGO), reason: `--engine auto: the GPU from ${threshold} bytes (n = ${n})`, periodicAlgo: GPU_PERIODIC_ALGO };
}

/**
 * Over gpuMaxLength: GPU_DEFAULT_ALGO (its compact layout) while it takes n, then GPU_LARGE_ALGO
 * within its own limit; undefined below gpuMaxLength or over every limit. GPU_PERIODIC_ALGO stops
 * at gpuMaxLength, so periodic texts go to GPU_LARGE_ALGO there: both double, but its sample is 3/7
 * of the text against 2/3 (H200, 600,000,000 bytes: one repeated byte 16.8 s against 26.3, a
 * 4096-byte block repeated 9.8 s against 13.7; SA-IS on 16 threads 26.4 s and over 40 s).
 */
function overGpuLimit(req: EngineRequest): EnginePlan | undefined {
  const { n, gpuMaxLength, gpuDefaultMaxLength, gpuLargeMaxLength } = req;
  if (gpuMaxLength === undefined || n <= gpuMaxLength) return undefined;
  if (gpuDefaultMaxLength !== undefined && n <= gpuDefaultMaxLength) {
    const plan: EnginePlan = { sorter: sorterOf(GPU_DEFAULT_ALGO), reason: `${GPU_DEFAULT_ALGO}'s compact layout over ${gpuMaxLength} bytes` };
    if (gpuLargeMaxLength !== undefined && n <= gpuLargeMaxLength) plan.periodicAlgo = GPU_LARGE_ALGO;
    return plan;
  }
  if (gpuLargeMaxLength === undefined || n > gpuLargeMaxLength) return undefined;
  const limit = Math.max(gpuMaxLength, gpuDefaultMaxLength ?? 0);
  return { sorter: sorterOf(GPU_LARGE_ALGO), reason: `${GPU_LARGE_ALGO} over ${GPU_DEFAULT_ALGO}'s limit of ${limit} bytes` };
}

/** A plan with a periodicAlgo switches to it when the text looks periodic (traits: textTraits / traitsOf). */
export function routeByText(plan: EnginePlan, traits: TextTraits): EnginePlan {
  if (plan.periodicAlgo === undefined || !traits.periodic) return plan;
  return { sorter: sorterOf(plan.periodicAlgo), reason: `${plan.reason}; the text looks periodic` };
}

/** What the long-repeat scan found (src/engine/repeats.ts). */
export interface LongRepeats {
  /** Share (0..1) of the anchors whose 32-byte string another anchor starts too. */
  share: number;
  /** The same for 64-byte strings. */
  share64: number;
  anchors: number;
  ms: number;
  /** µs per page that a first touch of the build's heap took (SLOW_FIRST_TOUCH_MICROS); absent: not measured. */
  firstTouchMicros?: number;
}

/** The plan's repeatAlgo when it is a CPU algorithm (range on few threads: the first touch decides too); else undefined. */
export function cpuRepeatAlgo(plan: EnginePlan): string | undefined {
  const { repeatAlgo } = plan;
  return repeatAlgo !== undefined && sorterOf(repeatAlgo).engine === "cpu" ? repeatAlgo : undefined;
}

/** Whether the scan found enough long repeats to take a plan's repeatAlgo. */
export function hasLongRepeats(repeats: LongRepeats, from = LONG_REPEAT_SHARE): boolean {
  return repeats.anchors >= LONG_REPEAT_MIN_ANCHORS && repeats.share >= from;
}

/** Whether range would hand the text over (a plan's handOverAlgo). */
export function wouldHandOver(repeats: LongRepeats): boolean {
  return repeats.anchors >= LONG_REPEAT_MIN_ANCHORS && repeats.share64 >= LONG_REPEAT_HAND_OVER_SHARE;
}

/** What the scan found, for a plan's reason. */
export function describeRepeats(repeats: LongRepeats): string {
  return `${repeats.share.toFixed(2)} of ${repeats.anchors} sampled positions start a 32-byte string found elsewhere, ${repeats.share64.toFixed(2)} a 64-byte one (scanned in ${repeats.ms.toFixed(0)} ms)`;
}

/**
 * A plan after the scan, on the CPU: its repeatAlgo when the scan found enough long repeats (a GPU
 * repeatAlgo needs a device: src/engine/build.ts routePlacedByRepeats handles it before), else its
 * handOverAlgo when range would hand the text over, else the plan itself; the reason says what the
 * scan found.
 */
export function routeByRepeats(plan: EnginePlan, repeats: LongRepeats): EnginePlan {
  const { repeatAlgo, handOverAlgo, longRepeatShare, ...rest } = plan;
  if (repeatAlgo === undefined && handOverAlgo === undefined) return plan;
  const found = describeRepeats(repeats);
  const onCpu = cpuRepeatAlgo(plan);
  if (onCpu !== undefined && hasLongRepeats(repeats, longRepeatShare)) {
    return { ...rest, sorter: sorterOf(onCpu), reason: `${plan.reason}, but ${found}: ${onCpu}` };
  }
  const touch = repeats.firstTouchMicros;
  if (onCpu !== undefined && touch !== undefined && touch >= SLOW_FIRST_TOUCH_MICROS) {
    const why = `a fresh page takes ${touch.toFixed(1)} µs to touch here, more than range's heap (about 25 bytes per input byte) saves`;
    return { ...rest, sorter: sorterOf(onCpu), reason: `${plan.reason}, but ${why}: ${onCpu}; ${found}` };
  }
  if (handOverAlgo !== undefined && wouldHandOver(repeats)) {
    return { ...rest, sorter: sorterOf(handOverAlgo), reason: `${plan.reason}, but ${found}, so range would hand it over: ${handOverAlgo}` };
  }
  return { ...rest, reason: `${plan.reason}; ${found}` };
}

/**
 * The windows the text tests read: PERIODIC_SAMPLES windows of PERIODIC_WINDOW + PERIODIC_MAX_PERIOD
 * bytes spread over a text of n bytes (none when it is shorter), through read(offset, length), so
 * that a file can be tested before it is loaded.
 */
export function sampleWindows(n: number, read: (offset: number, length: number) => Uint8Array): Uint8Array[] {
  const length = PERIODIC_WINDOW + PERIODIC_MAX_PERIOD;
  const span = n - length;
  if (span < 0) return [];
  return Array.from({ length: PERIODIC_SAMPLES }, (_, s) => read(Math.floor((s * span) / PERIODIC_SAMPLES), length));
}

/**
 * The traits of a text of n bytes from its sampled windows (sampleWindows). Below
 * AUTO_RANGE_MIN_BYTES no choice asks whether the text looks random or hard for doubling beyond
 * periodic (SA-IS runs either way), and the repeat tests (2-5 ms) are skipped.
 */
export function textTraits(windows: Uint8Array[], n: number): TextTraits {
  let periodicWindows = 0;
  for (const window of windows) if (hasShortPeriod(window)) periodicWindows++;
  const periodic = windows.length > 0 && periodicWindows >= PERIODIC_SHARE * PERIODIC_SAMPLES;
  const judged = windows.length > 0 && n >= AUTO_RANGE_MIN_BYTES && !periodic;
  const random = judged && looksRandom(windows);
  const hard = periodic || (judged && !random && repeatShare(windows, HARD_GRAM) >= HARD_REPEAT_SHARE);
  return { periodic, random, hardForDoubling: hard };
}

/**
 * Whether the windows look random to range (RANDOM_REPEAT_SHARE): few of their positions start a
 * string of L bytes seen at another of their positions, L from their order-0 entropy. Windows that
 * overlap (texts under PERIODIC_SAMPLES windows) repeat themselves, and do not look random.
 */
function looksRandom(windows: Uint8Array[]): boolean {
  const counts = new Float64Array(256);
  let total = 0;
  for (const window of windows) {
    for (const byte of window) counts[byte]++;
    total += window.length;
  }
  let entropy = 0;
  for (const count of counts) if (count > 0) entropy -= (count / total) * Math.log2(count / total);
  if (!(entropy > 0)) return false;
  return repeatShare(windows, Math.min(MAX_GRAM, Math.ceil(RANDOM_GRAM_BITS / entropy))) <= RANDOM_REPEAT_SHARE;
}

/**
 * The share of the windows' positions that start a string of `gram` bytes seen at an earlier
 * position of theirs (1 when no position starts one). Strings by two rolling hashes (64 bits
 * together) in an open-addressing table at most half full.
 */
function repeatShare(windows: Uint8Array[], gram: number): number {
  let total = 0;
  for (const window of windows) total += window.length;
  const bits = Math.ceil(Math.log2(2 * (total + 1)));
  const mask = 2 ** bits - 1;
  const used = new Uint8Array(mask + 1);
  const keys1 = new Int32Array(mask + 1);
  const keys2 = new Int32Array(mask + 1);
  let positions = 0;
  let repeats = 0;
  const power1 = powerOf(HASH_BASE_1, gram);
  const power2 = powerOf(HASH_BASE_2, gram);
  for (const window of windows) {
    let hash1 = 0;
    let hash2 = 0;
    for (let i = 0; i < window.length; i++) {
      hash1 = (Math.imul(hash1, HASH_BASE_1) + window[i] + 1) | 0;
      hash2 = (Math.imul(hash2, HASH_BASE_2) + window[i] + 1) | 0;
      if (i >= gram) {
        hash1 = (hash1 - Math.imul(window[i - gram] + 1, power1)) | 0;
        hash2 = (hash2 - Math.imul(window[i - gram] + 1, power2)) | 0;
      }
      if (i < gram - 1) continue;
      positions++;
      let slot = Math.imul(hash1 ^ (hash2 >>> 15), 0x2c1b3c6d) >>> (32 - bits);
      while (used[slot] === 1 && (keys1[slot] !== hash1 || keys2[slot] !== hash2)) slot = (slot + 1) & mask;
      if (used[slot] === 1) {
        repeats++;
      } else {
        used[slot] = 1;
        keys1[slot] = hash1;
        keys2[slot] = hash2;
      }
    }
  }
  return positions > 0 ? repeats / positions : 1;
}

const HASH_BASE_1 = 0x01000193;
const HASH_BASE_2 = 0x5bd1e995;

/** base^k modulo 2^32 (as an i32, for Math.imul). */
function powerOf(base: number, k: number): number {
  let power = 1;
  for (let i = 0; i < k; i++) power = Math.imul(power, base);
  return power;
}

/** The traits of a text held in memory. */
export function traitsOf(text: Uint8Array): TextTraits {
  return textTraits(sampleWindows(text.length, (offset, length) => text.subarray(offset, offset + length)), text.length);
}

/** Whether window[0 .. PERIODIC_WINDOW) equals itself shifted by some p <= PERIODIC_MAX_PERIOD. */
function hasShortPeriod(window: Uint8Array): boolean {
  for (let p = 1; p <= PERIODIC_MAX_PERIOD; p++) {
    let i = 0;
    while (i < PERIODIC_WINDOW && window[i] === window[i + p]) i++;
    if (i === PERIODIC_WINDOW) return true;
  }
  return false;
}

function sorterOf(name: string): SuffixSorter {
  const sorter = getSorter(name);
  if (sorter === undefined) {
    const names = listSorters().map((s) => s.name).join(", ");
    throw usageError(`unknown algorithm '${name}' (available: ${names})`);
  }
  return sorter;
}
