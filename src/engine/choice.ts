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
//                              like texts of at most SMALL_ALPHABET symbols stay on range up to
//                              its limit
//
// The CPU algorithm: range (parallel doubling) with at least AUTO_RANGE_MIN_THREADS threads, or
// with 2 or more on random-looking texts of a small alphabet (TextTraits), on inputs from
// AUTO_RANGE_MIN_BYTES up to range's limit; SA-IS otherwise (linear, no input-size limit below 2^31),
// and on texts where doubling degenerates (TextTraits.hardForDoubling: range would hand them over
// to SA-IS after its first rounds), whatever the threads.
//
// The thresholds come from figures measured on the H200 host (16 cores): SA-IS 10-14 MB/s, range
// on 16 threads 50-150 MB/s on text and ~420 MB/s on random DNA, gpu-spd 400-810 MB/s, and
// 0.26 s to set up a device (about 1 s on a machine whose driver has no compiled shaders cached).
// The GPU pays when n / cpuRate > setup + n / gpuRate: over SA-IS from about 8 MiB, over range
// from about 25-64 MiB on text and not below range's limit on random DNA. Re-measure with
// `sufsort bench --engines cpu,gpu,auto` (bench/results/history.md, section 4) and set them here.
import { usageError } from "../errors.js";
import { getSorter, listSorters, type SuffixSorter } from "./registry.js";

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
/**
 * ... except on texts of at most this many symbols that do not look periodic (random-like DNA),
 * which range sorts fast enough to beat the GPU's one-shot time up to range's limit: H200 host,
 * 16 threads, one-shot (first build, plus device setup and an empty pool for the GPU): DNA 64 MiB
 * range 0.23 s against gpu-spd 0.65 s, 128 MiB 0.48 against 1.00; nci (33.5 MB of text) 0.72
 * against 0.59 (bench/results/history.md, section 4, third session).
 */
export const SMALL_ALPHABET = 4;
/** The CPU runs range instead of SA-IS with at least this many threads ... */
export const AUTO_RANGE_MIN_THREADS = 8;
/**
 * ... or this many on random-looking texts of a small alphabet (TextTraits.randomSmallAlphabet):
 * on the 2-core machine range at 2 threads built 64 MiB of random DNA in 1.31 s, SA-IS in 8.80 s
 * (bench/results/history.md, section 2, fifth session). On other texts range at 2 threads ranged from 0.45x
 * (nci) to 2.3x (ecoli) of SA-IS's speed, so they stay on SA-IS there.
 */
export const AUTO_RANGE_MIN_THREADS_SMALL_ALPHABET = 2;
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
 * A text of a small alphabet goes to range on few threads only when it looks random (looksRandom).
 * 2-core machine, 2 threads, 32 MiB over ACGT in which each byte repeats the one before with
 * probability p, else is one of the other three (median of 3, range against SA-IS): order-1 over
 * order-0 entropy 1.00 (p = 0.25) 0.61 s against 1.83 s, 0.96 0.67 / 1.42, 0.90 0.80 / 1.42, 0.80
 * 1.02 / 1.41, 0.68 1.48 / 1.40, 0.52 1.40 / 1.06. 48 MiB of runs of 1-200 bytes over 3
 * symbols (`--gen runs`): 0.04; range handed it over after 2.7 s, SA-IS alone took 1.3 s.
 */
export const RANDOM_ENTROPY_SHARE = 0.75;
/**
 * ... and repeats: at most this share of the sampled positions may start a string of REPEAT_GRAM
 * bytes that another sampled position starts too. Random texts of 2 or 4 symbols have none (a
 * 32-byte string over 2 symbols is one of 2^32), nor would a genome's few repeats in 64 windows;
 * Thue-Morse and a repeated block of 5000 random bytes repeat almost everywhere, and range at 2
 * threads took 3x SA-IS's time on them (4 MiB: 314 against 103 ms, 254 against 101).
 */
export const RANDOM_REPEAT_SHARE = 1 / 16;
export const REPEAT_GRAM = 32;

/** The GPU a choice can count on: a hardware adapter, only the software one, or none. */
export type GpuAvailability = "hardware" | "software" | "none";

/** What auto's threshold looks at in a text (from sampled windows: textTraits). */
export interface TextTraits {
  /** At least PERIODIC_SHARE of the windows repeat with a period <= PERIODIC_MAX_PERIOD. */
  periodic: boolean;
  /** The windows hold at most SMALL_ALPHABET distinct bytes, the text does not look periodic, and
   * it looks random: no runs or repeats to speak of (looksRandom). */
  randomSmallAlphabet: boolean;
  /** Prefix doubling degenerates on it: it looks periodic, or its windows hold at most
   * SMALL_ALPHABET distinct bytes but do not look random (runs, repeats). */
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
}

/** Whether a choice needs to know what GPU there is (auto asks only when the GPU could pay). */
export function wantsGpu(engine: EngineChoice, algo: string | undefined, n: number, threads: number, traits?: TextTraits): boolean {
  if (algo !== undefined) return sorterOf(algo).engine !== "cpu";
  if (engine === "gpu" || engine === "hybrid") return true;
  if (engine === "cpu") return false;
  return n >= gpuThreshold(n, threads, traits);
}

/** auto's GPU threshold for a machine with `threads` threads, facing input size n. */
export function gpuThreshold(n: number, threads: number, traits?: TextTraits): number {
  if (traits?.hardForDoubling) return AUTO_GPU_MIN_BYTES_HARD_FOR_DOUBLING;
  // range on few threads (~50 MB/s on DNA at 2) loses to the GPU's one-shot time from ~15 MB.
  if (cpuAlgorithm(n, threads, traits) !== "range" || threads < AUTO_RANGE_MIN_THREADS) return AUTO_GPU_MIN_BYTES_OVER_SAIS;
  if (traits?.randomSmallAlphabet) return getSorter("range")!.maxLength + 1;
  return AUTO_GPU_MIN_BYTES_OVER_RANGE;
}

/** The CPU algorithm for n bytes on `threads` threads (traits: the text's, when known). */
export function cpuAlgorithm(n: number, threads: number, traits?: TextTraits): string {
  const range = getSorter("range");
  const fits = range !== undefined && n <= range.maxLength;
  const enoughThreads =
    threads >= AUTO_RANGE_MIN_THREADS || (threads >= AUTO_RANGE_MIN_THREADS_SMALL_ALPHABET && traits?.randomSmallAlphabet === true);
  return enoughThreads && n >= AUTO_RANGE_MIN_BYTES && fits && traits?.hardForDoubling !== true ? "range" : "sais";
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
  const cpu = cpuAlgorithm(n, threads, req.traits);
  const hard = req.traits?.hardForDoubling ? " (the text looks hard for doubling: periodic, runs or repeats)" : "";
  const onCpu = `${cpu} for ${n} bytes on ${threads} thread${threads === 1 ? "" : "s"}${hard}`;
  if (engine === "cpu") return { sorter: sorterOf(cpu), reason: `--engine cpu: ${onCpu}` };
  const large = overGpuLimit(req);
  if (engine === "gpu") return large ?? { sorter: sorterOf(GPU_DEFAULT_ALGO), reason: "--engine gpu", periodicAlgo: GPU_PERIODIC_ALGO };
  if (engine === "hybrid") return { sorter: sorterOf(HYBRID_DEFAULT_ALGO), reason: "--engine hybrid" };
  const threshold = gpuThreshold(n, threads, req.traits);
  if (n < threshold) {
    const kind = req.traits?.randomSmallAlphabet && cpu === "range" && threads >= AUTO_RANGE_MIN_THREADS ? ` for a random-looking text of at most ${SMALL_ALPHABET} symbols` : "";
    return { sorter: sorterOf(cpu), reason: `--engine auto: ${onCpu}, below the GPU threshold of ${threshold} bytes${kind}` };
  }
  if (req.gpu !== "hardware") return { sorter: sorterOf(cpu), reason: `--engine auto: ${onCpu}, no hardware GPU` };
  if (large) return { ...large, reason: `--engine auto: the GPU from ${threshold} bytes; ${large.reason}` };
  if (req.gpuMaxLength !== undefined && n > req.gpuMaxLength) {
    const most = Math.max(req.gpuMaxLength, req.gpuDefaultMaxLength ?? 0, req.gpuLargeMaxLength ?? 0);
    return { sorter: sorterOf(cpu), reason: `--engine auto: ${onCpu}, over the GPU's limit of ${most} bytes` };
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

/** The traits of a text from its sampled windows (sampleWindows). */
export function textTraits(windows: Uint8Array[]): TextTraits {
  let periodicWindows = 0;
  const seen = new Uint8Array(256);
  let distinct = 0;
  for (const window of windows) {
    if (hasShortPeriod(window)) periodicWindows++;
    for (const byte of window) {
      if (seen[byte] === 0) {
        seen[byte] = 1;
        distinct++;
      }
    }
  }
  const periodic = windows.length > 0 && periodicWindows >= PERIODIC_SHARE * PERIODIC_SAMPLES;
  const small = windows.length > 0 && distinct <= SMALL_ALPHABET && !periodic;
  const random = small && looksRandom(windows);
  return { periodic, randomSmallAlphabet: random, hardForDoubling: periodic || (small && !random) };
}

/**
 * Whether the windows look random to range: their order-1 (conditional) entropy is at least
 * RANDOM_ENTROPY_SHARE of their order-0 entropy, and at most RANDOM_REPEAT_SHARE of their
 * positions start a REPEAT_GRAM-byte string seen at another of their positions. Runs lower the
 * first, and repeats of any period (Thue-Morse, Fibonacci, a block repeated) raise the second; both
 * lengthen the prefixes that range must double through, its first sort covering log(n) / (order-0
 * entropy) characters. Windows that overlap (texts under PERIODIC_SAMPLES windows) repeat too.
 */
function looksRandom(windows: Uint8Array[]): boolean {
  const pairs = new Float64Array(256 * 256);
  const before = new Float64Array(256);
  const after = new Float64Array(256);
  let total = 0;
  for (const window of windows) {
    for (let i = 1; i < window.length; i++) {
      pairs[(window[i - 1] << 8) | window[i]]++;
      before[window[i - 1]]++;
      after[window[i]]++;
      total++;
    }
  }
  let order0 = 0;
  let order1 = 0;
  for (let a = 0; a < 256; a++) {
    if (after[a] > 0) order0 -= (after[a] / total) * Math.log2(after[a] / total);
    if (before[a] === 0) continue;
    for (let b = 0; b < 256; b++) {
      const count = pairs[(a << 8) | b];
      if (count > 0) order1 -= (count / total) * Math.log2(count / before[a]);
    }
  }
  if (!(order0 > 0 && order1 >= RANDOM_ENTROPY_SHARE * order0)) return false;
  // Strings of REPEAT_GRAM bytes by two rolling hashes (64 bits together), counted where seen
  // before: an open-addressing table at most half full.
  let slots = 1;
  for (const window of windows) slots += window.length;
  const bits = Math.ceil(Math.log2(2 * slots));
  const mask = 2 ** bits - 1;
  const used = new Uint8Array(mask + 1);
  const keys1 = new Int32Array(mask + 1);
  const keys2 = new Int32Array(mask + 1);
  let positions = 0;
  let repeats = 0;
  const power1 = powerOf(HASH_BASE_1, REPEAT_GRAM);
  const power2 = powerOf(HASH_BASE_2, REPEAT_GRAM);
  for (const window of windows) {
    let hash1 = 0;
    let hash2 = 0;
    for (let i = 0; i < window.length; i++) {
      hash1 = (Math.imul(hash1, HASH_BASE_1) + window[i] + 1) | 0;
      hash2 = (Math.imul(hash2, HASH_BASE_2) + window[i] + 1) | 0;
      if (i >= REPEAT_GRAM) {
        hash1 = (hash1 - Math.imul(window[i - REPEAT_GRAM] + 1, power1)) | 0;
        hash2 = (hash2 - Math.imul(window[i - REPEAT_GRAM] + 1, power2)) | 0;
      }
      if (i < REPEAT_GRAM - 1) continue;
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
  return repeats <= RANDOM_REPEAT_SHARE * positions;
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
  return textTraits(sampleWindows(text.length, (offset, length) => text.subarray(offset, offset + length)));
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
