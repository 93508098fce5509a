// Prefix doubling on the GPU with ranks by group head, the frame shared by gpu-osipov and gpu-ls.
// The two differ only in how one round orders the active suffixes (see DoublingAlgorithm.refine):
// Osipov sorts all of them globally by (group head, rank2); LS sorts each group by rank2 alone.
//
// Steps (Wang, Deng, Lin, Hu: "Fast in-memory suffix sorting on the GPU", Algorithm 1 and Figures
// 2-3, ../shared/seeds/001; Osipov 2012 for the filtering):
//   sort all suffixes by their first h0 characters (one radix sort of packed keys)
//   flags <- head flags of equal keys; rank of a group = its first SA slot (segmented sum)
//   ISA[s] <- rank; drop singleton groups from the active list (compaction)
//   while the active list is not empty:
//     order each group's suffixes by rank2(s) = ISA[s + h] + 1 (0 past the end)   [refine]
//     flags <- group starts; spread head slots; ISA <- new ranks; drop singletons
//     h <- 2h (3h when refine sorted by (rank2, rank3) = (ISA[s + h], ISA[s + 2h]): gpu-spd)
//   SA[ISA[i]] <- i
//
// The host reads each round's active count back to size the next round, except in live rounds
// (gpu-ls, gpu-spd; at most LIVE_MAX active entries): those are submitted ahead over the last
// known count, an upper bound, and their kernels take the true count from the device.
//
// Limits: n <= maxDoublingLength(gpu) (every per-suffix array is one u32 binding of a pooled buffer,
// whose size class must fit maxStorageBufferBindingSize): 528,482,304 on the H100/H200. GPU memory
// peaks at 57-102 bytes per input byte (text, ISA, two active lists of suffixes and slots, keys,
// flags, group ends, the sorts' scratch, pool size classes; the most when gpu-ls radix-sorts large
// groups; bench/results/gpu-sorters.md).
import { traceMark } from "../trace.js";
import { suffixArrayOf, textOf, type BuildContext } from "../../engine/registry.js";
import { failure, limitError } from "../../errors.js";
import type { GpuContext } from "../device.js";
import { earlyStart, encodeReadU32, GpuBatch, pipeline, tuned, WORKGROUP_SIZE } from "../kernels.js";
import { encodeCompact } from "../primitives/compact.js";
import { encodeExclusiveScan } from "../primitives/scan.js";
import { shortSegmentBound } from "../primitives/segmented-sort.js";
import { deliverSuffixArray, maxPooledLength, requireGpu, uploadText } from "./io.js";

/** The buffers of one doubling build; per-suffix arrays hold n u32 each. */
export interface DoublingBuffers {
  /** The text, 4 bytes per word (little-endian), zero-padded. */
  text: GPUBuffer;
  isa: GPUBuffer;
  /** The active list: suffixes and the SA slots of their groups (ascending). */
  suffixes: GPUBuffer;
  positions: GPUBuffer;
  keyLow: GPUBuffer;
  keyHigh: GPUBuffer;
  /** 1 at the first slot of each group in the active list. */
  flags: GPUBuffer;
  aux: GPUBuffer;
  /** groupEnd[head slot] = one past the group's last slot (written for every group each round). */
  groupEnd: GPUBuffer;
}

/**
 * What a round's refine returns: how many times longer the prefixes that define the groups become
 * (2 when groups are ordered by rank2 alone; 3 by (rank2, rank3), gpu-spd's pairs; 1 after
 * gpu-spd's run round, whose classes may share only h + 1 characters).
 */
export type Growth = 1 | 2 | 3;

/** Buffers a step may bind besides DoublingBuffers. */
export interface ExtraBindings {
  /** u32 counters: [0] entries kept by the last compaction, [1] members of large groups, [2] the
   * largest group kept if it is longer than half a segmented-sort tile, else 0. */
  counters?: GPUBuffer;
  largeIndex?: GPUBuffer;
  scan?: GPUBuffer;
}

/** One step's view of the state: the active list has m entries; rank2 looks h characters ahead. */
export interface RoundState {
  batch: GpuBatch;
  buffers: DoublingBuffers;
  n: number;
  m: number;
  h: number;
  /** Bits that hold any rank (head slot < n) or rank2 (<= n). */
  rankBits: number;
  /** Suffixes in groups larger than LARGE_GROUP (counted by the previous split). */
  large: number;
  /** An upper bound of the largest group's size, when known (the last split read back; 0 when no
   * group is longer than half a segmented-sort tile). */
  longest?: number;
  /** u32 counters of the rounds: [0] the active count the last compaction left, [1] see ExtraBindings. */
  counters?: GPUBuffer;
  /**
   * A live round: m is only an upper bound of the active count, which the kernels read from
   * counters[0] (wgsl/sa_doubling.wgsl Params.live); large is 0.
   */
  live?: boolean;
  /** In the first round: the word of Refinement.census, read back with the initial sort's counts. */
  census?: number;
}

/**
 * Groups larger than this are "large": gpu-ls radix-sorts them apart ("ls.largeGroup" overrides it;
 * tests use a small value to reach that path on small inputs). Wang et al. 2014 use R2 = 65536; here
 * the segmented sort beats the radix sort of (head, rank2) keys up to groups of millions (H200:
 * 2^22 against 2^16 took silesia-mr from 248 to 312 MB/s and nci 271 -> 288, the concatenation
 * and 16 MiB of one byte unchanged; with no large path at all one repeated byte fell 77 -> 55).
 */
export const LARGE_GROUP = 1 << 22;

export interface DoublingAlgorithm {
  name: string;
  /**
   * Encodes the sort of all n suffixes by their first h0 characters (the text's end sorting
   * first): leaves suffixes sorted, positions = 0 .. n - 1 and flags at key changes. Returns h0.
   */
  initialSort(state: RoundState): Promise<number>;
  /**
   * Orders each active group by rank2 and leaves flags = 1 at the start of every new group, in
   * state.batch (a refine that submits work of its own leaves a fresh, unsubmitted batch there).
   */
  refine(state: RoundState): Growth | Promise<Growth>;
  /** Whether refine can run live rounds (Refinement.live). */
  live?: boolean;
}

/** Largest n a doubling sorter can take on this device (every per-suffix array is one binding). */
export function maxDoublingLength(gpu: GpuContext): number {
  return maxPooledLength(gpu);
}

/** Enough for any device (the real limit is checked against the device in build). */
export const DOUBLING_MAX_LENGTH = 2 ** 31 - 1;

/**
 * Dispatches one entry of wgsl/sa_doubling.wgsl over `count` elements with the named buffers;
 * `swap` binds other buffers in the named slots.
 */
export function step(
  state: RoundState,
  entry: string,
  count: number,
  use: (keyof DoublingBuffers | keyof ExtraBindings)[],
  swap: Partial<DoublingBuffers> & ExtraBindings = {},
): void {
  const order: (keyof DoublingBuffers | keyof ExtraBindings)[] = [
    "text", "isa", "suffixes", "positions", "keyLow", "keyHigh", "flags", "aux", "groupEnd", "counters", "largeIndex", "scan",
  ];
  const all: Partial<DoublingBuffers> & ExtraBindings = { ...state.buffers, counters: state.counters, ...swap };
  const bindings = order.map((name) => (use.includes(name) ? all[name] : undefined));
  const ctx = state.batch.ctx;
  const constants = { LARGE_GROUP: tuned("ls.largeGroup", LARGE_GROUP), LONG_GROUP: shortSegmentBound(ctx) };
  const pipe = pipeline(ctx, { file: "sa_doubling.wgsl", entry, constants });
  state.batch.dispatch(pipe, [count, state.h, state.n, state.rankBits, state.live ? 1 : 0], bindings, Math.ceil(count / WORKGROUP_SIZE));
}

/**
 * After a sort of the active list (flags at every group start): each suffix's rank becomes its
 * group's first slot (segmented sum of head slots, Wang et al. 4.3 step 2), singletons leave the
 * active list, and the survivors' suffixes and slots go to the other list; counters[0] gets their
 * number, counters[1] the number in groups larger than LARGE_GROUP.
 */
function encodeSplitGroups(state: RoundState, next: { suffixes: GPUBuffer; positions: GPUBuffer }, count: GPUBuffer): void {
  const { batch, buffers, m } = state;
  step(state, "head_slots", m, ["positions", "flags", "aux"]);
  encodeExclusiveScan(batch, buffers.aux, buffers.keyLow, m, { heads: buffers.flags, inclusive: true });
  batch.clear(count, 4, 8);
  step(state, "update_ranks", m, ["isa", "suffixes", "positions", "keyLow", "keyHigh", "flags", "groupEnd", "counters"], { counters: count });
  encodeCompact(batch, buffers.suffixes, buffers.keyHigh, next.suffixes, count, m, { values: buffers.positions, output: next.positions });
}

/** What refineGroups needs: the state after an initial sort of `slots` suffixes (flags set). */
export interface Refinement {
  name: string;
  /** Length of the text (rank2 is 0 at or past it). */
  textLength: number;
  /** Entries of the initially sorted list (its slots 0 .. slots - 1). */
  slots: number;
  /** Characters the initial sort compared. */
  h0: number;
  refine(state: RoundState): Growth | Promise<Growth>;
  /** Whether refine can run live rounds (RoundState.live): it must leave the padding alone. */
  live?: boolean;
  onProgress?: (fraction: number) => void;
  /** Called after each round whose count was read back (the GPU is idle then). */
  afterRound?: () => Promise<void>;
  /** A u32 that the first batch computes for the first round's refine (gpu-spd's run census): it
   * comes back with the initial sort's counts (as counters[3]) instead of in a readback of its own. */
  census?: GPUBuffer;
}

/**
 * Rounds with at most this many active entries run live: encoded and submitted without waiting for
 * the last round's count ("doubling.liveMax" overrides it; 0 turns live rounds off). Late rounds
 * on text are short (dickens on the H200: 0.2 ms of GPU work against 0.7 ms of encoding and a
 * readback each), so the host encodes ahead instead of waiting. H200, 2^20 -> 2^22: silesia-mr
 * 290/298 -> 317/332 MB/s (gpu-ls/gpu-spd), nci gpu-spd 301 -> 321, the concatenation gpu-spd
 * 397 -> 427; 2^18 was no better than 2^20. No group of a live round is large (LARGE_GROUP).
 */
const LIVE_MAX = 1 << 22;
/**
 * Live rounds submitted before the host waits for the oldest one's count ("doubling.liveAhead"
 * overrides it). Fewer ahead keep the bounds fresher: H200, gpu-spd, sum of MB/s over dickens, mr,
 * nci, osdb, chr22 and the concatenation in two interleaved runs: 2: 2899/2865, 3: 2888/2939,
 * 4: 2771/2841 (8 was worse still in an earlier run).
 */
const LIVE_AHEAD = 3;

/**
 * Runs the doubling rounds on `first`, a batch that has sorted the suffixes into buffers.suffixes
 * (positions = 0 .. slots - 1, flags at group starts) and is not yet submitted. Leaves
 * isa[s] = the final slot of every suffix s of the list. buffers.suffixes and .positions may come
 * back swapped with scratch buffers of the same size (their contents are spent). Returns the
 * number of rounds run: with none, the initial sort left every suffix alone, and
 * buffers.suffixes still holds the list in its final order.
 */
export async function refineGroups(gpu: GpuContext, first: GpuBatch, buffers: DoublingBuffers, job: Refinement): Promise<number> {
  const pool = gpu.pool;
  const spare = {
    suffixes: pool.acquire(job.slots * 4, undefined, `${job.name} suffixes'`),
    positions: pool.acquire(job.slots * 4, undefined, `${job.name} positions'`),
  };
  const count = pool.acquire(16, undefined, `${job.name} counters`);
  const own = [spare.suffixes, spare.positions, count]; // the swaps below trade them with the caller's
  const rankBits = 32 - Math.clz32(job.slots);
  const n = job.textLength;
  const profile = process.env.SUFSORT_GPU_PROFILE ? (what: string) => process.stderr.write(`${job.name} ${what}: ${(performance.now() - started).toFixed(1)} ms\n`) : undefined;
  const started = performance.now();
  try {
    // Rank by group head, keep the unsorted groups.
    let state: RoundState = { batch: first, buffers, n, m: job.slots, h: job.h0, rankBits, large: 0, counters: count };
    encodeSplitGroups(state, spare, count);
    if (job.census) first.copy(job.census, 0, count, 12, 4);
    const firstCounts = encodeReadU32(first, count, job.census ? 4 : 3);
    first.submit();
    traceMark("encode sort");
    const counts = await firstCounts();
    traceMark("sort");
    let [m, large, longest] = counts;
    let census: number | undefined = job.census ? counts[3] : undefined;
    let h = job.h0;
    if (profile) profile(`initial sort by ${h} characters, ${m} of ${job.slots} unsorted${dispatchLine(await first.dispatchNanoseconds())}`);
    const liveMax = job.live ? tuned("doubling.liveMax", LIVE_MAX, 0) : 0;
    const liveAhead = tuned("doubling.liveAhead", LIVE_AHEAD);
    /** Counts of submitted live rounds not yet taken into m, oldest first. */
    const ahead: Array<{ counts: Promise<Uint32Array>; got?: Uint32Array }> = [];
    let rounds = 0;

    // Invariants at the top of each round: groups are runs of suffixes equal in their first h
    // characters (the text's end counting as a unique smallest character), in the suffixes' order:
    // maximal ones, except after gpu-spd's run round, whose classes share more than h; isa[s] is
    // the first slot of s's group; the active list holds exactly the groups of >= 2 suffixes, each
    // in its slots' order; suffixes in one group that reach past the text's end at s + h are none
    // (two such would be equal), so rank2 = 0 there is the true order. m is the active count, or
    // after live rounds (still in `ahead`) an upper bound of it: counts only fall.
    while (true) {
      while (ahead.length > 0 && (ahead[0].got !== undefined || ahead.length >= liveAhead || h >= n)) {
        [m, , longest] = ahead[0].got ?? (await ahead[0].counts);
        traceMark(`live wait`);
        ahead.shift();
      }
      if (m === 0) return rounds;
      rounds++;
      if (h >= n) throw failure(`${job.name}: ${m} suffixes still unsorted after h = ${h} (internal error)`);
      const live = m <= liveMax;
      [buffers.suffixes, spare.suffixes] = [spare.suffixes, buffers.suffixes];
      [buffers.positions, spare.positions] = [spare.positions, buffers.positions];
      const encodeStart = performance.now();
      state = { batch: new GpuBatch(gpu, `${job.name} h=${h}`, profile !== undefined && !live, live ? 0 : earlyStart()), buffers, n, m, h, rankBits, large: live ? 0 : large, longest, counters: count, live, census };
      census = undefined;
      const growth = await job.refine(state);
      encodeSplitGroups(state, spare, count);
      const roundCounts = encodeReadU32(state.batch, count, 3);
      state.batch.submit();
      traceMark(live ? `encode live h=${h}` : `encode h=${h}`);
      const encodeMs = performance.now() - encodeStart;
      if (live) {
        const entry: (typeof ahead)[number] = { counts: roundCounts() };
        entry.counts.then((got) => (entry.got = got), () => undefined); // awaited above
        ahead.push(entry);
        // let Dawn deliver finished readbacks (a mapAsync resolves only from the event loop), so
        // that the last round is seen without encoding LIVE_AHEAD more
        await new Promise((resolve) => setImmediate(resolve));
        profile?.(`round h=${h}: live, at most ${m} active, ${longestGroup(longest)}; encode ${encodeMs.toFixed(2)} ms`);
      } else {
        const active = m;
        [m, large, longest] = await roundCounts();
        traceMark(`round h=${h}`);
        await job.afterRound?.();
        if (profile) {
          const gpuNs = await state.batch.gpuNanoseconds();
          profile(`round h=${h}: ${active} active (${state.large} in large groups), ${m} left, ${longestGroup(longest)}; encode ${encodeMs.toFixed(2)} ms, GPU ${gpuNs === undefined ? "?" : (gpuNs / 1e6).toFixed(2)} ms${dispatchLine(await state.batch.dispatchNanoseconds())}`);
        }
      }
      h *= growth;
      job.onProgress?.(1 - m / job.slots);
    }
  } finally {
    for (const buffer of own) pool.release(buffer);
  }
}

/** The profile's words for counters[2]. */
function longestGroup(longest: number): string {
  return longest === 0 ? "no group over half a segmented-sort tile" : `groups of at most ${longest}`;
}

/** " (GPU ms by entry point: ...)" for SUFSORT_GPU_PROFILE=dispatch, largest first. */
export function dispatchLine(byEntry: Map<string, number> | undefined): string {
  if (!byEntry) return "";
  const parts = [...byEntry].sort((a, b) => b[1] - a[1]).map(([entry, ns]) => `${entry} ${(ns / 1e6).toFixed(2)}`);
  return `\n    GPU ms by entry point: ${parts.join(", ")}`;
}

/** Builds ctx's suffix array with `algorithm` on ctx.gpu. */
export async function buildByDoubling(ctx: BuildContext, algorithm: DoublingAlgorithm): Promise<void> {
  const gpu = requireGpu(ctx, algorithm.name);
  const n = ctx.n;
  if (n <= 1) {
    if (n === 1) suffixArrayOf(ctx)[0] = 0;
    return;
  }
  const most = maxDoublingLength(gpu);
  if (n > most) throw limitError(`input is ${n} bytes; ${algorithm.name} on this GPU accepts at most ${most} (one storage binding)`);

  const pool = gpu.pool;
  const held: GPUBuffer[] = [];
  const take = (label: string) => {
    const buffer = pool.acquire(n * 4, undefined, `${algorithm.name} ${label}`);
    held.push(buffer);
    return buffer;
  };
  const text = await uploadText(gpu, textOf(ctx), ctx);
  try {
    const buffers: DoublingBuffers = {
      text,
      isa: take("isa"),
      suffixes: take("suffixes"),
      positions: take("positions"),
      keyLow: take("key low"),
      keyHigh: take("key high"),
      flags: take("flags"),
      aux: take("aux"),
      groupEnd: take("group end"),
    };
    const rankBits = 32 - Math.clz32(n);
    const first = new GpuBatch(gpu, `${algorithm.name} h0`, process.env.SUFSORT_GPU_PROFILE !== undefined, earlyStart());
    const h0 = await algorithm.initialSort({ batch: first, buffers, n, m: n, h: 0, rankBits, large: 0 });
    const job = { name: algorithm.name, textLength: n, slots: n, h0, refine: algorithm.refine, live: algorithm.live, onProgress: ctx.onProgress };
    const rounds = await refineGroups(gpu, first, buffers, job);

    // After rounds the SA is the inverse of the ranks; with none (random DNA: 29 characters a
    // key), the initially sorted list is the SA already ("doubling.invertAlways" = 1 inverts anyway).
    const invert = rounds > 0 || tuned("doubling.invertAlways", 0, 0) === 1;
    if (invert) {
      const batch = new GpuBatch(gpu, `${algorithm.name} invert`);
      step({ batch, buffers, n, m: n, h: 0, rankBits, large: 0 }, "invert", n, ["isa", "aux"]);
      batch.submit();
    }
    const downloadStart = performance.now();
    await deliverSuffixArray(ctx, gpu, invert ? buffers.aux : buffers.suffixes, text);
    if (process.env.SUFSORT_GPU_PROFILE) process.stderr.write(`${algorithm.name} invert + delivery: ${(performance.now() - downloadStart).toFixed(1)} ms\n`);
  } finally {
    for (const buffer of held) pool.release(buffer);
    pool.release(text);
    pool.afterSubmit();
  }
}
