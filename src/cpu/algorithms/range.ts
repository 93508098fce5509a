// --algo range: parallel prefix doubling with Larsson–Sadakane group refinement, after PBBS's
// parallelRange (Shun, Blelloch et al., pbbsbench benchmarks/suffixArray/parallelRange); group types
// by size as in "Fast in-memory suffix sorting on the GPU" (../shared/seeds/001).
//
//   sort all suffixes by their first `chars` characters, packed in a u64 key (MSD radix; a suffix
//   that runs out is padded with the smallest character)
//   rank[i] = 1 + index of the head of i's group (rank[n] = 0); groups = runs of equal keys, size >= 2
//   for h = chars, 2 chars, 4 chars, ... while groups remain:
//     A: sort every group by rank[SA[j] + h] (a member shorter than h first, by its length; see
//        roundKey in asm/range.ts): small groups whole inside one worker, large ones
//        (more than 1/(threads * LARGE_SHARE) of the unsorted suffixes) with the parallel radix sort,
//        after a split around the group's own rank when most members' suffix + h lies in the group
//     B: split every group into runs of equal keys; rank = head of run; runs of size >= 2 are the
//        next round's groups, singletons are final and drop out for good
//
// Limits: n < 2^32 and 25 n bytes of heap (text, SA, rank, two 8n scratch regions) + 32 MiB, so
// n <= 169,114,337 (rangeMaxLength) in the 4 GiB WebAssembly memory. O(n log n) work in the worst case (one repeated
// byte: every round refines one group of almost n suffixes), so such inputs are handed over to SA-IS
// (HAND_OVER_PREFIX below) and the build result names sais as the algorithm that ran.
// SUFSORT_TRACE=1 (wall time) or =cpu (process CPU time) prints each phase's and round's time to stderr.
import type { BuildContext, HandOver, SuffixSorter } from "../../engine/registry.js";
import { registerSorter } from "../../engine/registry.js";
import { MAX_HEAP_BYTES } from "../memory.js";
import {
  bitsFor, blocks, copy, countingPass, forBlocks, MIN_PARALLEL, MSD_BITS, radixSort, scatterByBuckets, sortMsdBucketsU64,
  splitByPivot,
} from "../primitives.js";
import type { KernelArgs } from "../executor.js";
import { saisSorter } from "./sais.js";
import { PhaseClock } from "../trace.js";

/** A large group is split around its own rank's key first (sortLargeGroup) when at least this share of its keys equal it. */
const SELF_SPLIT_SHARE = 0.5;
/** A group is large (sorted by all workers together) above this share of the unsorted suffixes. */
const LARGE_SHARE = 4;
/** ... and never below this many suffixes (the in-worker introsort handles those well). */
const LARGE_MIN = 1 << 16;
/** Blocks of the group list per thread: piscina's queue balances groups of uneven size. */
const GROUP_BLOCKS_PER_THREAD = 8;
/**
 * Groups of at least this many suffixes are sorted inside a worker by LSD radix on the rank (a few
 * passes) instead of introsort (log2 of the group's size passes). 2-core machine, 2 threads, builds
 * alternating in one engine (median of 11, ms), 1024 -> 512: osdb 336.4 -> 313.5 (331.8 -> 313.2
 * in another run); ooffice, dickens, x-ray, kjv, mr, chr22 within their noise (9 runs each).
 */
const RADIX_GROUP_MIN = 512;
/** Fewest groups in one block of the group list. */
const MIN_GROUPS_PER_BLOCK = 512;
/**
 * Unsorted suffixes per block of the group list, at least: a late round holds few, and a task
 * (30-85 us to hand out) per few hundred of them costs more than it saves; one block runs inline.
 */
const MIN_SUFFIXES_PER_BLOCK = 1 << 14;
/**
 * The doubling worst case (one repeated byte, long periodic runs) costs a full sort of nearly n
 * suffixes in each of log n rounds. When, with groups sorted by HAND_OVER_PREFIX characters, more
 * than HAND_OVER_SHARE of the suffixes are still unsorted, the input goes to SA-IS (linear work).
 * SA-IS rather than skew, which it beat on such inputs at 2 threads and at 16 (`sufsort bench
 * --algos sais,skew`, median of 3; 16 MiB of one byte: 2-core machine 0.16 s against 0.67, H100
 * host 0.41 against 0.47; 48 MiB of runs of 1-200 bytes over 3 symbols: 1.02 against 7.64, 1.46
 * against 1.74).
 */
const HAND_OVER_PREFIX = 64;
/** (auto predicts this rule from the long-repeat scan: choice.ts LONG_REPEAT_HAND_OVER_SHARE.) */
export const HAND_OVER_SHARE = 0.9;
/** Characters sorted first beyond log2(n) / entropy. */
const EXTRA_CHARS = 3;
/**
 * Up to this length the first ranks are stored straight at isa[suffix] (faster than writing them in
 * SA order and moving them by buckets: dickens 170 -> 125 ms, chr22 380 -> 255 ms, nci even).
 */
const DIRECT_RANK_MAX = 1 << 25;

/** Suffixes per bucket the first sort's MSD pass aims at, and its fewest bits (up to MSD_BITS). */
const MSD_BUCKET = 1 << 15;
const MSD_MIN_BITS = 12;

/** Length thresholds that pick a code path; tests lower them to run every path on small inputs. */
export const rangeTuning = {
  directRankMax: DIRECT_RANK_MAX,
  largeMin: LARGE_MIN,
  minGroupsPerBlock: MIN_GROUPS_PER_BLOCK,
  minSuffixesPerBlock: MIN_SUFFIXES_PER_BLOCK,
  radixGroupMin: RADIX_GROUP_MIN,
};
/** Count table of one block's in-worker radix sorts: 2^11 u32. */
const GROUP_COUNTS_BYTES = 4 << 11;
/** Heap bytes per text byte beyond text and SA: rank (4) + keys/groups (8) + scratch (8). */
const SCRATCH_PER_BYTE = 20;
const SCRATCH_FIXED = 32 << 20; // count tables of the MSD pass: up to 64 threads x 2^16 x 4 bytes, and more

export const rangeMaxLength = Math.floor((MAX_HEAP_BYTES - 2 * SCRATCH_FIXED) / (SCRATCH_PER_BYTE + 5));

async function buildRange(ctx: BuildContext): Promise<void | HandOver> {
  const { executor: exec, heap, textPtr: text, n, saPtr: sa } = ctx;
  if (n <= 1) {
    if (n === 1) heap.u32(sa, 1)[0] = 0;
    return;
  }
  // buildPlaced reserved scratchBytes(n) after the SA: allocate from there, not on top of it
  heap.release(sa + 4 * n);
  const mark = heap.used;
  const clock = new PhaseClock("range");
  const isa = heap.alloc(4 * (n + 1));
  const regionA = heap.alloc(8 * n); // u64 keys of the first sort; then u32 keys + the group list
  const regionB = heap.alloc(8 * n); // radix scratch; u64 (key, suffix) of small groups; new groups
  const keys = regionA;
  const groupList = regionA + 4 * n;
  const codes = heap.alloc(4 * 256);
  // Phase B tasks: the group-list blocks, cut once more around each large group, plus one slice per
  // thread of each large group (at most threads * LARGE_SHARE of them).
  const groupBlocksMax = exec.threads * GROUP_BLOCKS_PER_THREAD;
  const largeCap = exec.threads * LARGE_SHARE + 1;
  const maxTasks = Math.max(exec.threads, groupBlocksMax + largeCap * (exec.threads + 1));
  const totals = heap.alloc(4 * maxTasks);
  const copyList = heap.alloc(12 * maxTasks);
  const largeLists = heap.alloc(4 * largeCap * groupBlocksMax);
  const groupCounts = heap.alloc(GROUP_COUNTS_BYTES * groupBlocksMax);
  const histograms = heap.alloc(1024 * exec.threads);

  // Alphabet: codes 0..sigma-1 in byte order; keys pad with 0 past the end of the text.
  const parts = blocks(0, n, exec.threads);
  heap.u32(histograms, 256 * parts.length).fill(0); // the kernel adds to its row
  await exec.map("byteHistogram", parts.map(([a, b], i) => [text, a, b, histograms + 1024 * i]));
  const counts = heap.u32(histograms, 256 * parts.length);
  const codeOf = heap.u32(codes, 256);
  let sigma = 0;
  let entropy = 0; // order-0, bits per character
  for (let c = 0; c < 256; c++) {
    let seen = 0;
    for (let p = 0; p < parts.length; p++) seen += counts[256 * p + c];
    codeOf[c] = seen > 0 ? sigma++ : 0;
    if (seen > 0) entropy -= (seen / n) * Math.log2(seen / n);
  }
  clock.lap("histogram");
  const bits = Math.max(1, bitsFor(sigma - 1));
  // As many characters as fit in 64 bits, but no more than a text of this entropy needs to leave
  // few suffixes unsorted (random DNA: ~16 of 32): a pass over bits that decide nothing is waste.
  const chars = Math.min(Math.floor(64 / bits), Math.ceil(Math.log2(n) / Math.max(entropy, 0.5)) + EXTRA_CHARS);

  // Small texts write first ranks straight to text order (random stores that mostly hit cache);
  // large ones in SA order, moved by buckets afterwards, and not at all when no group is left.
  const inSAOrder = n > rangeTuning.directRankMax;
  // First sort: all suffixes by their first `chars` characters, packed in u64 keys. Its MSD pass
  // reads the keys straight from the text (no pass that writes them first), into regionB and isa.
  const keyBits = bits * chars;
  // The MSD digit: buckets of about MSD_BUCKET suffixes (an entropy of E bits a character makes about
  // 2^(E d / bits) buckets of d bits), large enough that each bucket's LSD count tables pay off
  // and few enough write streams for the scatter, small enough to sort in cache.
  const msdWanted = Math.ceil((bits * Math.log2(Math.max(2, n / MSD_BUCKET))) / Math.max(entropy, 0.5));
  const msd = Math.min(keyBits, MSD_BITS, Math.max(MSD_MIN_BITS, msdWanted));
  const keyArgs = [text, n, codes, bits, chars];
  const starts = await countingPass(
    exec, 0, n, msd,
    ["rangeCountKeys", (a, b, row) => [...keyArgs, a, b, msd, row]],
    ["rangeScatterKeys", (a, b, row) => [...keyArgs, a, b, msd, row, regionB, isa]],
  );
  clock.lap("pack");
  const sortArrays = { keys: regionA, vals: sa, tmpKeys: regionB, tmpVals: isa, keyBytes: 8 } as const;
  await sortMsdBucketsU64(exec, sortArrays, starts, 64 - keyBits, 64 - msd);
  clock.lap("sort");
  let written = await rankRuns(
    "rangeRankSliceU64",
    parts.map(([a, b]) => ({ args: [regionA, sa, isa, 0, n, a, b, inSAOrder ? 1 : 0], at: a })),
  );
  let groups = written.groups;
  if (groups > 0 && inSAOrder) {
    // move the ranks to text order in cache-sized windows
    await scatterByBuckets(exec, isa, sa, isa, n, n, { keys: regionB, vals: regionB + 4 * n });
  }
  heap.u32(isa + 4 * n, 1)[0] = 0; // the empty suffix ranks below all others
  let unsorted = written.suffixes;
  clock.lap("rank+scatter");
  clock.line(`n ${n} sigma ${sigma} chars ${chars} groups ${groups} unsorted ${unsorted}`);

  // Invariants at the top of each round: SA is sorted by the first h characters; rank[i] is 1 + the
  // position of the head of i's group in SA and rank[n] = 0; groupList holds the groups of size >= 2
  // in SA order, together `unsorted` suffixes. Equal first h characters with the padding: a suffix
  // shorter than h may share a group with suffixes that go on with the smallest character.
  for (let h = chars; groups > 0; h *= 2) {
    ctx.onProgress?.(1 - unsorted / n);
    if (h >= HAND_OVER_PREFIX && unsorted > HAND_OVER_SHARE * n) {
      heap.release(mark); // SA-IS places its workspace right after the SA
      await saisSorter.build(ctx);
      return {
        algorithm: saisSorter.name,
        reason: `range handed over to sais: ${unsorted} of ${n} suffixes share a prefix of ${h} bytes`,
      };
    }
    const large = Math.max(rangeTuning.largeMin, Math.ceil(unsorted / (exec.threads * LARGE_SHARE)));
    const wantBlocks = Math.min(groupBlocksMax, Math.ceil(unsorted / rangeTuning.minSuffixesPerBlock));
    const groupBlocks = blocks(0, groups, wantBlocks, rangeTuning.minGroupsPerBlock);

    // A: small groups sorted inside workers; large ones listed.
    const listed = await exec.map(
      "rangeSortGroups",
      groupBlocks.map(([g0, g1], i) => [
        groupList, g0, g1, sa, isa, keys, regionB, h, n, large, largeLists + 4 * largeCap * i,
        rangeTuning.radixGroupMin, bitsFor(n + h), groupCounts + GROUP_COUNTS_BYTES * i,
      ]),
    );
    clock.lap("A");
    const list = heap.u32(groupList, 2 * groups);
    const largeGroups: number[] = [];
    listed.forEach((count, i) => {
      const ids = heap.u32(largeLists + 4 * largeCap * i, count);
      for (const g of ids) largeGroups.push(g);
    });
    const largeSizes: number[] = [];
    for (const g of largeGroups) {
      const s = list[2 * g];
      const e = s + list[2 * g + 1];
      largeSizes.push(e - s);
      await sortLargeGroup(s, e, h);
    }

    clock.lap("large");
    // B: ranks and next groups; the group list is cut around large groups so that every task's
    // output (at most half its suffixes, written from its first suffix on) stays inside its range.
    const tasks: RankTask[] = [];
    let next = 0; // largeGroups is ascending (blocks in order, each listing its groups in order)
    for (const [g0, g1] of groupBlocks) {
      let from = g0;
      while (true) {
        const g = next < largeGroups.length && largeGroups[next] < g1 ? largeGroups[next++] : g1;
        if (g > from) tasks.push({ args: [groupList, from, g, sa, isa, keys, large], at: list[2 * from], kernel: "rangeRankGroups" });
        if (g === g1) break;
        const s = list[2 * g];
        const e = s + list[2 * g + 1];
        for (const [a, b] of blocks(s, e, exec.threads)) {
          tasks.push({ args: [keys, sa, isa, s, e, a, b], at: a, kernel: "rangeRankSliceU32" });
        }
        from = g + 1;
      }
    }
    written = await rankRuns(undefined, tasks);
    clock.lap("B");
    clock.line(`h ${h} groups ${groups} unsorted ${unsorted} large ${largeGroups.length}${largeSizes.length ? ` (${largeSizes.join(", ")})` : ""} tasks ${groupBlocks.length}/${tasks.length}`);
    groups = written.groups;
    unsorted = written.suffixes;
  }
  ctx.onProgress?.(1);
  heap.release(mark);

  /**
   * Sorts the group SA[s..e) by round key with every worker. The members whose suffix + h lies in
   * the group itself share one key, h + s + 1: in a long run of one character nearly all of them
   * (mr: 2.63 M of a group of 2.71 M), so when they are most of the group they are only split from
   * the others, and the others sorted.
   */
  async function sortLargeGroup(s: number, e: number, h: number): Promise<void> {
    const self = h + s + 1;
    const same = await forBlocks(exec, "rangeGatherKeys", s, e, (a, b) => [sa, isa, keys, a, b, h, n, self]);
    const arrays = { keys, vals: sa, tmpKeys: regionB, tmpVals: regionB + 4 * n, keyBytes: 4 } as const;
    if (same.reduce((x, y) => x + y, 0) < SELF_SPLIT_SHARE * (e - s)) {
      await radixSort(exec, arrays, s, e, 0, bitsFor(n + h));
      return;
    }
    const tmp = { keys: arrays.tmpKeys, vals: arrays.tmpVals };
    const [equalFrom, aboveFrom] = await splitByPivot(exec, { keys, vals: sa }, tmp, s, e, self);
    await Promise.all([copy(exec, keys, tmp.keys, s, e), copy(exec, sa, tmp.vals, s, e)]);
    await radixSort(exec, arrays, s, equalFrom, 0, bitsFor(self - 1));
    await radixSort(exec, arrays, aboveFrom, e, 0, bitsFor(n + h));
  }

  interface RankTask {
    args: KernelArgs;
    /** Pair index in regionB where the task writes its groups (its first suffix). */
    at: number;
    kernel?: string;
  }

  /** Runs rank tasks (each writing groups at regionB[at..]) and compacts their groups into the list. */
  async function rankRuns(kernel: string | undefined, tasks: RankTask[]): Promise<{ groups: number; suffixes: number }> {
    const byKernel = new Map<string, number[]>();
    tasks.forEach((t, i) => {
      const k = t.kernel ?? kernel!;
      if (!byKernel.has(k)) byKernel.set(k, []);
      byKernel.get(k)!.push(i);
    });
    const counts = new Array<number>(tasks.length);
    await Promise.all(
      [...byKernel].map(async ([k, ids]) => {
        const got = await exec.map(k, ids.map((i) => [...tasks[i].args, regionB + 8 * tasks[i].at, totals + 4 * i]));
        ids.forEach((i, j) => (counts[i] = got[j]));
      }),
    );
    const sums = heap.u32(totals, tasks.length);
    const order = tasks.map((_, i) => i).sort((a, b) => tasks[a].at - tasks[b].at);
    let groupCount = 0;
    let suffixes = 0;
    // the outputs move in one phase: runs of whole outputs of about equal size per worker
    const list = heap.u32(copyList, 3 * tasks.length);
    let outputs = 0;
    for (const i of order) {
      if (counts[i] > 0) {
        list.set([groupList + 8 * groupCount, regionB + 8 * tasks[i].at, 2 * counts[i]], 3 * outputs++);
        groupCount += counts[i];
        suffixes += sums[i];
      }
    }
    const share = Math.max((2 * groupCount) / exec.threads, MIN_PARALLEL);
    const runs: KernelArgs[] = [];
    let from = 0;
    let words = 0;
    for (let k = 0; k < outputs; k++) {
      words += list[3 * k + 2];
      if (words >= share || k === outputs - 1) {
        runs.push([copyList, from, k + 1]);
        from = k + 1;
        words = 0;
      }
    }
    await exec.map("copyListU32", runs);
    return { groups: groupCount, suffixes };
  }
}

export const rangeSorter: SuffixSorter = {
  name: "range",
  engine: "cpu",
  description: "parallel prefix doubling with Larsson-Sadakane group refinement (PBBS parallelRange)",
  maxLength: rangeMaxLength,
  // One-shot builds (fresh workers each), median of 7 ms, 1 thread / 2 threads: dickens' first
  // 1 MiB 92 / 114, 2 MiB 215 / 185; 1 MiB of random DNA 54 / 90, 2 MiB 111 / 124, 4 MiB 583 / 408.
  workersFrom: 2 << 20,
  // One-shot builds on an H200 machine's 16 cores, median of 5 ms, 8 / 16 threads: dickens' first
  // 2 MiB 85 / 100, 4 MiB 133 / 129, 8 MiB 205 / 181; random DNA 2 MiB 68 / 88, 4 MiB 90 / 98,
  // 8 MiB 135 / 117; nci's first 2 MiB 122 / 136, 4 MiB 186 / 194, 8 MiB 331 / 299.
  bytesPerWorker: 256 << 10,
  // a hand-over to SA-IS releases range's scratch first, so the peak is the larger of the two
  scratchBytes: (n) => Math.max(SCRATCH_PER_BYTE * n + SCRATCH_FIXED, saisSorter.scratchBytes(n)),
  build: buildRange,
};

registerSorter(rangeSorter);
