// gpu-ls-hybrid (engine "hybrid"): gpu-ls with each round split between the GPU and the CPU
// workers, both sorting at the same time. The rounds are gpu-ls's (ls.ts, frame doubling.ts);
// a round with at least MIN_ACTIVE unsorted suffixes runs as
//
//   GPU:  rank2 keys of the active list (group_keys)
//         mark the members of groups of <= SMALL_GROUP suffixes; number them (scan); gather the
//           first groups of them, at most `share` % of the active suffixes, as (rank2, suffix)
//           pairs; those members stand alone in the GPU's sort              -> submit, read back
//   then, concurrently:
//     GPU:  segmented sort of the other groups, radix sort of the large ones   (gpu-ls's sorts)
//     CPU:  each gathered group sorted whole inside one worker (asm/hybrid.ts)
//   GPU:  sorted pairs uploaded and put back in their slots; split flags; ranks as in gpu-ls
//
// The scheduler balances the two sides: `share` starts at CPU_PERCENT and after each split round
// is scaled by gpu time / cpu time (within MIN_PERCENT .. CPU_PERCENT), so that the CPU takes what
// it can sort while the GPU sorts the rest. A split round that finds no small group makes the next
// 1, 2, 4, ... rounds run on the GPU alone.
//
// Exactness: both sides read rank2 from the same ISA (gathered before either sorts), each group is
// sorted entirely by one side, and the split, rank update and compaction run after both are done,
// exactly as in gpu-ls: the result is gpu-ls's SA.
//
// Why small groups: they are the CPU's best case (contiguous after the gather, each sorted
// whole in a worker's cache, no rank loads: the GPU gathered the keys) and the GPU's cheapest
// (one tile of its segmented sort), so moving them costs the GPU little. What the split can save
// is bounded: the GPU's segmented sort still passes over the CPU's members (as one-member
// segments), and the round adds a readback and an upload of 12 bytes per CPU member plus a sync.
// Rounds with few active suffixes stay on the GPU alone (the round trip would cost more than the
// work). On the H200 the two sides overlapped but the workers took longer than the GPU for their
// share, and hybrid ran at 0.5-0.75x gpu-ls (bench/results/history.md, section 4), so the engine policy never
// picks it by itself (src/engine/choice.ts); `sufsort bench --engines gpu,hybrid` reports both and
// the overlap (BuildResult.overlap).
//
// Limits: those of gpu-ls (n <= 528,482,304 on the H100/H200), plus 12 bytes of WebAssembly heap
// and of GPU memory per suffix the CPU may take (CPU_PERCENT % of n).
import { registerSorter, type BuildContext, type Overlap, type SuffixSorter } from "../../engine/registry.js";
import { blocks } from "../../cpu/primitives.js";
import type { GpuContext } from "../device.js";
import { GpuBatch, pipeline, tuned, WORKGROUP_SIZE, writeInto, type Binding } from "../kernels.js";
import { encodeExclusiveScan } from "../primitives/scan.js";
import { encodeSegmentedSort } from "../primitives/segmented-sort.js";
import { buildByDoubling, DOUBLING_MAX_LENGTH, LARGE_GROUP, step, type DoublingAlgorithm, type Growth, type RoundState } from "./doubling.js";
import { larssonSadakane, sortLargeGroups } from "./ls.js";
import { maxPooledLength, readbackScratchBytes } from "./io.js";

/** Groups of at most this many suffixes go to the CPU ("hybrid.small" overrides; at most LARGE_GROUP). */
export const SMALL_GROUP = 64;
/** The CPU takes at most this share of a round's active suffixes, in percent ("hybrid.cpuPercent"). */
export const CPU_PERCENT = 25;
/** ... and the balancing never lowers its share below this (percent). */
const MIN_PERCENT = 1;
/** Rounds with fewer active suffixes run on the GPU alone ("hybrid.minActive"). */
export const MIN_ACTIVE = 1 << 16;
/** Blocks of the gathered list per worker thread (piscina balances blocks of uneven cost). */
const BLOCKS_PER_THREAD = 4;
/** Fewest pairs in one block of the gathered list. */
const MIN_PAIRS_PER_BLOCK = 1 << 14;

const MAP_READ = 0x1;
const COPY_DST = 0x8;

/** The split's settings; tests pass small values to reach the CPU part on small inputs. */
export interface HybridSettings {
  small: number;
  cpuPercent: number;
  minActive: number;
}

export function hybridSettings(): HybridSettings {
  return {
    small: Math.min(LARGE_GROUP, tuned("hybrid.small", SMALL_GROUP)),
    cpuPercent: Math.min(100, tuned("hybrid.cpuPercent", CPU_PERCENT)),
    minActive: tuned("hybrid.minActive", MIN_ACTIVE),
  };
}

/** Most entries the CPU can take in one round of a text of n bytes. */
function cpuCapacity(n: number, settings: HybridSettings): number {
  return Math.ceil((n * settings.cpuPercent) / 100);
}

/** Device and heap space of one build's CPU share, made on the first split round. */
interface Exchange {
  capacity: number;
  pairs: GPUBuffer;
  index: GPUBuffer;
  counter: GPUBuffer;
  readPairs: GPUBuffer;
  readIndex: GPUBuffer;
  readCounter: GPUBuffer;
  /** Heap addresses of the pairs (u64) and head flags (u32) the workers sort. */
  heapPairs: number;
  heapHeads: number;
}

/** A gpu-ls whose rounds are split with the CPU workers of ctx; `overlap` sums what they measured. */
function hybridRounds(ctx: BuildContext, settings: HybridSettings): { algorithm: DoublingAlgorithm; overlap: Overlap; close(): void } {
  const overlap: Overlap = { rounds: 0, cpuSuffixes: 0, gpuSuffixes: 0, gpuMs: 0, cpuMs: 0, wallMs: 0 };
  let exchange: Exchange | undefined;
  // After a split round that found no small group, the next `backoff` rounds run on the GPU alone
  // (groups only shrink, so small ones may appear later; one repeated byte has none for log n rounds).
  let backoff = 1;
  let skip = 0;
  /** The CPU's share of the next split round, in percent of the active suffixes. */
  let share = settings.cpuPercent;

  function open(gpu: GpuContext): Exchange {
    // the pairs (2 u32 per entry) must fit one binding
    const capacity = Math.min(cpuCapacity(ctx.n, settings), Math.floor(maxPooledLength(gpu) / 2));
    // the heap scratch announced by scratchBytes: after the SA, 8-aligned
    const heapPairs = ctx.saPtr + align8(4 * ctx.n);
    return {
      capacity,
      pairs: gpu.pool.acquire(8 * capacity, undefined, "hybrid pairs"),
      index: gpu.pool.acquire(4 * capacity, undefined, "hybrid index"),
      counter: gpu.pool.acquire(16, undefined, "hybrid counter"),
      readPairs: gpu.device.createBuffer({ size: 8 * capacity, usage: MAP_READ | COPY_DST, label: "hybrid pairs read" }),
      readIndex: gpu.device.createBuffer({ size: 4 * capacity, usage: MAP_READ | COPY_DST, label: "hybrid index read" }),
      readCounter: gpu.device.createBuffer({ size: 16, usage: MAP_READ | COPY_DST, label: "hybrid counter read" }),
      heapPairs,
      heapHeads: heapPairs + 8 * capacity,
    };
  }

  async function splitRound(state: RoundState): Promise<void> {
    const gpu = state.batch.ctx;
    const x = (exchange ??= open(gpu));
    const { buffers, m } = state;
    const cap = Math.min(x.capacity, Math.floor((m * share) / 100));
    const params = (count: number) => [count, cap, settings.small, 0];

    // 1. keys for all, then the CPU's groups gathered and copied out
    const gather = state.batch;
    step(state, "group_keys", m, ["isa", "suffixes", "positions", "keyLow", "keyHigh", "flags", "aux", "groupEnd", "counters"]);
    const mark = gather.scratch(4 * m);
    const scan = gather.scratch(4 * m);
    hybridStep(gather, "cpu_mark", params(m), { isa: buffers.isa, suffixes: buffers.suffixes, positions: buffers.positions, groupEnd: buffers.groupEnd, mark }, m);
    encodeExclusiveScan(gather, mark, scan, m, { countNonzero: true });
    gather.clear(x.counter, 0, 4);
    hybridStep(gather, "cpu_gather", params(m), {
      suffixes: buffers.suffixes, keyLow: buffers.keyLow, aux: buffers.aux, mark, scan, pairs: x.pairs, index: x.index, counters: x.counter,
    }, m);
    gather.copy(x.counter, 0, x.readCounter, 0, 4);
    gather.copy(x.pairs, 0, x.readPairs, 0, 8 * cap);
    gather.copy(x.index, 0, x.readIndex, 0, 4 * cap);
    gather.submit();
    // mapped once the gather is done (asked before the GPU's sort is queued behind it)
    const mapped = gpu.race(Promise.all([
      x.readCounter.mapAsync(MAP_READ),
      cap > 0 ? x.readPairs.mapAsync(MAP_READ, 0, 8 * cap) : Promise.resolve(),
      cap > 0 ? x.readIndex.mapAsync(MAP_READ, 0, 4 * cap) : Promise.resolve(),
    ]));

    // 2. the GPU sorts the other groups ...
    const sorts = new GpuBatch(gpu, `gpu-ls-hybrid sorts h=${state.h}`, true);
    encodeSegmentedSort(sorts, buffers.keyLow, buffers.suffixes, buffers.aux, m);
    if (state.large > 0) sortLargeGroups({ ...state, batch: sorts });
    sorts.submit();
    const gpuDone = gpu.finish().then(() => performance.now());

    // ... while the CPU workers sort the gathered ones
    await mapped;
    const start = performance.now();
    const count = new Uint32Array(x.readCounter.getMappedRange(0, 4))[0];
    if (count === 0) {
      skip = backoff;
      backoff *= 2;
    }
    const heap = ctx.heap;
    if (count > 0) {
      heap.u32(x.heapPairs, 2 * count).set(new Uint32Array(x.readPairs.getMappedRange(0, 8 * count)));
      heap.u32(x.heapHeads, count).set(new Uint32Array(x.readIndex.getMappedRange(0, 4 * count)));
    }
    x.readCounter.unmap();
    if (cap > 0) {
      x.readPairs.unmap();
      x.readIndex.unmap();
    }
    const parts = blocks(0, count, ctx.executor.threads * BLOCKS_PER_THREAD, MIN_PAIRS_PER_BLOCK);
    if (count > 0) await ctx.executor.map("sortHeadedGroupsU64", parts.map(([a, b]) => [x.heapPairs, x.heapHeads, a, b, count]));
    const cpuEnd = performance.now();
    const gpuEnd = await gpuDone;
    const gpuNs = await sorts.gpuNanoseconds();
    const cpuMs = cpuEnd - start;
    const gpuMs = gpuNs !== undefined ? gpuNs / 1e6 : Math.max(0, gpuEnd - start);
    overlap.rounds++;
    overlap.cpuSuffixes += count;
    overlap.gpuSuffixes += m - count;
    overlap.cpuMs += cpuMs;
    overlap.gpuMs += gpuMs;
    overlap.wallMs += Math.max(cpuEnd, gpuEnd) - start;
    // balance the next round: the CPU should finish when the GPU does
    if (count >= cap / 2 && cpuMs > 0 && gpuMs > 0) {
      share = Math.min(settings.cpuPercent, Math.max(MIN_PERCENT, (share * gpuMs) / cpuMs));
    }

    // 3. the CPU's order back into the active list, then gpu-ls's split
    if (count > 0) writeInto(gpu, x.pairs, 0, heap.u32(x.heapPairs, 2 * count));
    const merge = new GpuBatch(gpu, `gpu-ls-hybrid merge h=${state.h}`);
    hybridStep(merge, "cpu_return", params(count), { suffixes: buffers.suffixes, keyLow: buffers.keyLow, pairs: x.pairs, index: x.index }, count);
    state.batch = merge;
    step(state, "split_flags", m, ["keyLow", "flags"]);
  }

  const algorithm: DoublingAlgorithm = {
    name: "gpu-ls-hybrid",
    initialSort: larssonSadakane.initialSort,
    async refine(state: RoundState): Promise<Growth> {
      if (state.m < settings.minActive || Math.floor((state.m * share) / 100) < 2 || skip > 0) {
        skip = Math.max(0, skip - 1);
        return larssonSadakane.refine(state);
      }
      await splitRound(state);
      return 2;
    },
  };

  function close(): void {
    if (exchange === undefined) return;
    const gpu = ctx.gpu!;
    for (const buffer of [exchange.pairs, exchange.index, exchange.counter]) gpu.pool.release(buffer);
    for (const buffer of [exchange.readPairs, exchange.readIndex, exchange.readCounter]) buffer.destroy();
    exchange = undefined;
  }
  return { algorithm, overlap, close };
}

type HybridBindings = Partial<Record<"isa" | "suffixes" | "positions" | "keyLow" | "aux" | "groupEnd" | "mark" | "scan" | "pairs" | "index" | "counters", Binding>>;

/** Dispatches one entry of wgsl/sa_hybrid.wgsl over `count` elements. */
function hybridStep(batch: GpuBatch, entry: string, params: number[], use: HybridBindings, count: number): void {
  const order: (keyof HybridBindings)[] = ["isa", "suffixes", "positions", "keyLow", "aux", "groupEnd", "mark", "scan", "pairs", "index", "counters"];
  const pipe = pipeline(batch.ctx, { file: "sa_hybrid.wgsl", entry });
  batch.dispatch(pipe, params, order.map((name) => use[name]), Math.ceil(count / WORKGROUP_SIZE));
}

function align8(x: number): number {
  return Math.ceil(x / 8) * 8;
}

/** The hybrid sorter with the given split settings (the registered one reads hybridSettings() per build). */
export function hybridSorter(fixed?: HybridSettings): SuffixSorter {
  return {
    name: "gpu-ls-hybrid",
    engine: "hybrid",
    description: "gpu-ls with each round's small groups sorted by the CPU workers while the GPU sorts the rest",
    maxLength: DOUBLING_MAX_LENGTH,
    scratchBytes: (n) => Math.max(8 + 12 * cpuCapacity(n, fixed ?? hybridSettings()), readbackScratchBytes(n)),
    busyWorkers: (_n, threads) => threads, // each round's small groups, on all of them
    async build(ctx: BuildContext): Promise<void> {
      const rounds = hybridRounds(ctx, fixed ?? hybridSettings());
      try {
        await buildByDoubling(ctx, rounds.algorithm);
      } finally {
        rounds.close();
      }
      ctx.onOverlap?.(rounds.overlap);
    },
  };
}

export const gpuLsHybridSorter = hybridSorter();

registerSorter(gpuLsHybridSorter);
