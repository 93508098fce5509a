// gpu-skew: the skew (DC3) algorithm of Kärkkäinen and Sanders on the GPU, as parallelized by
// Wang, Baxter, Owens ("Fast parallel skew and prefix-doubling suffix array construction on the
// GPU", 2016, ../shared/seeds/000, section 4.1). One level, on a text t of n symbols >= 1:
//
//   SA12 <- the mod-1/2 positions (and a dummy at n when n mod 3 = 1) sorted by their triples
//           (one radix sort of packed triples; two LSD sorts when three symbols exceed 64 bits)
//   names <- inclusive scan of "triple differs from the previous" flags
//   if the last name < |SA12|: SA12 <- recurse on the reduced text (names, mod-1 half first)
//   rank[p] <- 1 + index of p in SA12                         (ISA12, by text position)
//   SA0 <- the mod-0 positions i sorted by (t[i], rank[i+1])  (i = p - 1 for the mod-1 p in
//           SA12's order, compacted, then a stable radix sort by t[i])
//   SA <- merge of SA0 and SA12 (merge path; compare (t[i], rank[i+1]) with a mod-1 suffix j,
//         (t[i], t[i+1], rank[i+2]) with a mod-2 one)
//
// The host reads back one number per level (the last name) to choose between recursion and ranks.
// Limits: n <= maxSkewLength(gpu) (n + 3 u32 in one pooled binding: 528,482,301 on the H100/H200); at
// the top level GPU memory peaks near 60-80 bytes per input byte (bench/results/gpu-sorters.md).
import { limitError } from "../../errors.js";
import { registerSorter, suffixArrayOf, textOf, type BuildContext, type SuffixSorter } from "../../engine/registry.js";
import type { GpuContext } from "../device.js";
import { earlyStart, GpuBatch, pipeline, readU32, tuned, WORKGROUP_SIZE } from "../kernels.js";
import { encodeRadixSortPairs, encodeRadixSortPairs64 } from "../primitives/radix-sort.js";
import { encodeExclusiveScan } from "../primitives/scan.js";
import { encodeCompact } from "../primitives/compact.js";
import { bitsFor } from "./bits.js";
import { deliverSuffixArray, maxPooledLength, packedReadback, requireGpu, uploadText, type ProducePiece } from "./io.js";

/** Outputs each invocation of the merge produces (after one binary search); "skew.mergeItems"
 * overrides it. 32 beat 8 on the H200: fewer searches, each a chain of random reads (merge and
 * mod-0 sort of 128 MiB DNA 86 -> 64 ms in gpu-spd). */
const MERGE_ITEMS = 32;

export { bitsFor };

/** The sizes of one skew level of a text of length n. */
export class SkewLevel {
  readonly n0: number;
  readonly n1: number;
  readonly n2: number;
  /** Sample size, the dummy included. */
  readonly n02: number;
  /** 1 when the dummy (position n) is in the sample: it sorts first and is skipped by the merge. */
  readonly skip: number;
  constructor(readonly n: number) {
    this.n0 = Math.floor((n + 2) / 3);
    this.n1 = Math.floor((n + 1) / 3);
    this.n2 = Math.floor(n / 3);
    this.n02 = this.n0 + this.n2;
    this.skip = this.n0 - this.n1;
  }
}

/** Buffers of one level: t has n + 3 symbols (three 0s after the text), rank n + 3 entries. */
export interface SkewBuffers {
  bytes?: GPUBuffer;
  t?: GPUBuffer;
  rank?: GPUBuffer;
  sa12?: GPUBuffer;
  keyLow?: GPUBuffer;
  keyHigh?: GPUBuffer;
  aux?: GPUBuffer;
  sa0?: GPUBuffer;
}

/** Dispatches one entry of wgsl/sa_skew.wgsl over `count` elements. */
export function skewStep(batch: GpuBatch, entry: string, count: number, level: SkewLevel, bits: number, use: SkewBuffers, extra: { nb?: number; outputs?: [number, number] } = {}): void {
  const order: (keyof SkewBuffers)[] = ["bytes", "t", "rank", "sa12", "keyLow", "keyHigh", "aux", "sa0"];
  const items = tuned("skew.mergeItems", MERGE_ITEMS);
  const pipe = pipeline(batch.ctx, { file: "sa_skew.wgsl", entry, constants: { ITEMS: items }, libs: ["merge_path_global"] });
  const [first, end] = extra.outputs ?? [0, count + (extra.nb ?? 0)];
  const params = [count, level.n, level.n0, bits, level.skip, extra.nb ?? 0, first, end];
  // the merge covers outputs [first, end), ITEMS per invocation; reduced_text also writes 3 pads
  const threads = entry === "merge" ? Math.ceil((end - first) / items) : entry === "reduced_text" ? count + 3 : count;
  batch.dispatch(pipe, params, order.map((name) => use[name]), Math.ceil(threads / WORKGROUP_SIZE));
}

/** Sorts (key, value) pairs by the low `bits` of a packed key (u32 sort when it fits). */
function sortPacked(batch: GpuBatch, low: GPUBuffer, high: GPUBuffer, values: GPUBuffer, count: number, bits: number): void {
  if (bits <= 32) encodeRadixSortPairs(batch, low, values, count, { endBit: bits });
  else encodeRadixSortPairs64(batch, low, high, values, count, { endBit: bits });
}

/**
 * Encodes the sort of the sample (positions into sa12, sorted by triple) and the names (in aux,
 * 1-based, equal for equal triples). t holds symbols of `symbolBits` bits.
 */
export function encodeSortSample(batch: GpuBatch, level: SkewLevel, symbolBits: number, b: Required<Pick<SkewBuffers, "t" | "sa12" | "keyLow" | "keyHigh" | "aux">>): void {
  const { n02 } = level;
  // "skew.tripleBits" lowers the packed-key width so that tests reach the two-sort path on small inputs
  if (3 * symbolBits <= tuned("skew.tripleBits", 64)) {
    skewStep(batch, "sample_keys_triple", n02, level, symbolBits, { t: b.t, sa12: b.sa12, keyLow: b.keyLow, keyHigh: b.keyHigh });
    sortPacked(batch, b.keyLow, b.keyHigh, b.sa12, n02, 3 * symbolBits);
  } else {
    skewStep(batch, "sample_keys_last", n02, level, symbolBits, { t: b.t, sa12: b.sa12, keyLow: b.keyLow });
    encodeRadixSortPairs(batch, b.keyLow, b.sa12, n02, { endBit: symbolBits });
    skewStep(batch, "sample_keys_first2", n02, level, symbolBits, { t: b.t, sa12: b.sa12, keyLow: b.keyLow, keyHigh: b.keyHigh });
    sortPacked(batch, b.keyLow, b.keyHigh, b.sa12, n02, 2 * symbolBits);
  }
  skewStep(batch, "triple_flags", n02, level, symbolBits, { t: b.t, sa12: b.sa12, keyHigh: b.keyHigh });
  encodeExclusiveScan(batch, b.keyHigh, b.aux, n02, { inclusive: true });
}

type Mod0Buffers = Required<Pick<SkewBuffers, "t" | "rank" | "sa12" | "keyLow" | "keyHigh" | "aux" | "sa0">>;

/**
 * Encodes SA0 (sorted by (t[i], rank[i+1])) and returns the merge of SA0 with SA12 into aux
 * (n entries), to be encoded whole or piece by piece (outputs [first, end) at a time).
 */
export function encodeMod0Sort(batch: GpuBatch, level: SkewLevel, symbolBits: number, b: Mod0Buffers): ProducePiece {
  const rankBits = bitsFor(level.n02);
  // SA12 lists the mod-0 suffixes' successors in rank order: take them in that order, then sort
  // stably by the first symbol (the paper's one radix pass by (t[i], rank[i + 1]) needed a u64 key
  // of rankBits + symbolBits bits: H200, nci's mod 0 sort 3.4 -> 2.35 ms, gpu-spd 69.0 -> 66.4 ms,
  // gpu-skew 91.8 -> 87.5, builds alternating in one process).
  skewStep(batch, "mod0_by_successor", level.n02, level, 0, { sa12: b.sa12, keyLow: b.keyLow, keyHigh: b.keyHigh });
  encodeCompact(batch, b.keyHigh, b.keyLow, b.sa0, batch.scratch(4), level.n02);
  skewStep(batch, "mod0_symbols", level.n0, level, 0, { t: b.t, keyLow: b.keyLow, sa0: b.sa0 });
  encodeRadixSortPairs(batch, b.keyLow, b.sa0, level.n0, { endBit: symbolBits });
  return (into, first, end) =>
    skewStep(into, "merge", level.n0, level, rankBits, { t: b.t, rank: b.rank, sa12: b.sa12, aux: b.aux, sa0: b.sa0 }, { nb: level.n02 - level.skip, outputs: [first, end] });
}

/**
 * The suffix array of t[0 .. n) (symbols in 1 .. 2^symbolBits - 1, three 0s after), in a pooled
 * buffer of at least n u32 that the caller releases.
 */
async function skewSort(gpu: GpuContext, t: GPUBuffer, n: number, symbolBits: number): Promise<GPUBuffer>;
/** With `lastMerge`, the top level's merge is left to the caller (sorted.produce, e.g. piece by piece
 * as the SA is read back); sorted.release() gives back the buffers it reads, once it is encoded. */
async function skewSort(gpu: GpuContext, t: GPUBuffer, n: number, symbolBits: number, lastMerge: "deferred"): Promise<DeferredMerge>;
async function skewSort(gpu: GpuContext, t: GPUBuffer, n: number, symbolBits: number, lastMerge?: "deferred"): Promise<GPUBuffer | DeferredMerge> {
  const level = new SkewLevel(n);
  const pool = gpu.pool;
  const take = (count: number, label: string) => pool.acquire(Math.max(4, count * 4), undefined, `gpu-skew ${label}`);
  const rank = take(n + 3, "rank");
  const sa12 = take(level.n02, "sa12");
  const keyLow = take(level.n02 + 3, "key low");
  const keyHigh = take(level.n02 + 3, "key high");
  const sa0 = take(level.n0, "sa0");
  const aux = take(Math.max(n, level.n02), "aux");
  const reads = [rank, sa12, keyLow, keyHigh, sa0];
  let deferred = false;
  const started = performance.now();
  const profile = process.env.SUFSORT_GPU_PROFILE ? (what: string) => process.stderr.write(`gpu-skew n=${n} ${what}: ${(performance.now() - started).toFixed(1)} ms\n`) : undefined;
  try {
    // Sort the sample by its triples and name them.
    let batch = new GpuBatch(gpu, `gpu-skew n=${n} sample`, false, earlyStart());
    batch.clear(rank, 0, (n + 3) * 4);
    encodeSortSample(batch, level, symbolBits, { t, sa12, keyLow, keyHigh, aux });
    batch.submit();
    const names = (await readU32(gpu, aux, 1, level.n02 - 1))[0];
    profile?.(`sample sorted, ${names} names for ${level.n02}`);

    batch = new GpuBatch(gpu, `gpu-skew n=${n} ranks`, false, earlyStart());
    if (names === level.n02) {
      skewStep(batch, "rank_sample", level.n02, level, 0, { rank, sa12 });
    } else {
      // Equal triples: sort the reduced text of names recursively (2/3 of the size).
      const reduced = take(level.n02 + 3, "reduced text");
      skewStep(batch, "reduced_text", level.n02, level, 0, { sa12, keyLow: reduced, aux });
      batch.submit();
      const reducedSa = await skewSort(gpu, reduced, level.n02, bitsFor(names));
      pool.release(reduced);
      batch = new GpuBatch(gpu, `gpu-skew n=${n} ranks from recursion`, false, earlyStart());
      skewStep(batch, "ranks_from_reduced", level.n02, level, 0, { rank, sa12, aux: reducedSa });
      batch.releaseAfter(reducedSa);
    }
    const merge = encodeMod0Sort(batch, level, symbolBits, { t, rank, sa12, keyLow, keyHigh, aux, sa0 });
    if (lastMerge === "deferred") {
      batch.submit();
      deferred = true;
      return { sa: aux, produce: merge, release: () => reads.forEach((buffer) => pool.release(buffer)) };
    }
    merge(batch, 0, n);
    batch.submit();
    if (profile) {
      await gpu.finish();
      profile("mod 0 sorted and merged");
    }
    return aux;
  } catch (error) {
    pool.release(aux);
    throw error;
  } finally {
    if (!deferred) reads.forEach((buffer) => pool.release(buffer));
  }
}

/** The SA of skewSort before its last merge: produce encodes it, release frees what it reads. */
interface DeferredMerge {
  sa: GPUBuffer;
  produce: ProducePiece;
  release(): void;
}

/** Largest n the skew sorters take on this device (t and rank hold n + 3 u32 in one binding). */
export function maxSkewLength(gpu: GpuContext): number {
  return maxPooledLength(gpu, 3);
}

/** Uploads the text of ctx (packed bytes, kept for a consumer of the result: release it to the pool when done)
 * and converts it to symbols (byte + 1) followed by three 0s (a pooled buffer). */
export async function uploadSymbols(gpu: GpuContext, ctx: BuildContext, level: SkewLevel): Promise<{ bytes: GPUBuffer; t: GPUBuffer }> {
  const bytes = await uploadText(gpu, textOf(ctx), ctx);
  const t = gpu.pool.acquire((ctx.n + 3) * 4, undefined, "symbols");
  const batch = new GpuBatch(gpu, "symbols");
  skewStep(batch, "to_symbols", ctx.n + 3, level, 0, { bytes, t });
  batch.submit();
  return { bytes, t };
}

/** Checks the device and length; writes the SA of n <= 1 directly. Returns false when done. */
export function prepareSkewBuild(ctx: BuildContext, name: string): GpuContext | undefined {
  const gpu = requireGpu(ctx, name);
  if (ctx.n <= 1) {
    if (ctx.n === 1) suffixArrayOf(ctx)[0] = 0;
    return undefined;
  }
  const most = maxSkewLength(gpu);
  if (ctx.n > most) throw limitError(`input is ${ctx.n} bytes; ${name} on this GPU accepts at most ${most} (one storage binding)`);
  return gpu;
}

export const gpuSkewSorter: SuffixSorter = {
  name: "gpu-skew",
  engine: "gpu",
  description: "skew / DC3 with radix-sorted triples, recursion and a merge-path merge (Wang, Baxter, Owens 2016), WebGPU",
  maxLength: 2 ** 31 - 1,
  ...packedReadback,
  async build(ctx: BuildContext): Promise<void> {
    const gpu = prepareSkewBuild(ctx, "gpu-skew");
    if (!gpu) return;
    const { bytes, t } = await uploadSymbols(gpu, ctx, new SkewLevel(ctx.n));
    let sorted: DeferredMerge | undefined;
    try {
      sorted = await skewSort(gpu, t, ctx.n, bitsFor(256), "deferred");
      await deliverSuffixArray(ctx, gpu, sorted.sa, bytes, sorted.produce);
    } finally {
      gpu.pool.release(bytes);
      gpu.pool.release(t);
      if (sorted) {
        sorted.release();
        gpu.pool.release(sorted.sa);
      }
      gpu.pool.afterSubmit();
    }
  },
};

registerSorter(gpuSkewSorter);
