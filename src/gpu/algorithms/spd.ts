// gpu-spd: skew and prefix doubling combined (Wang, Baxter, Owens, "Fast parallel skew and
// prefix-doubling suffix array construction on the GPU", 2016, ../shared/seeds/000, section 4.2),
// the fastest of that paper:
//
//   SA12 <- the mod-1/2 suffixes (and the dummy) sorted by their first h0 characters: the paper's
//           3, here as many as a 64-bit key packs (packed-keys.ts), rounded down to a multiple of 3
//   prefix doubling over the sample alone, h = h0, 3 h0, 9 h0, ...: each unsorted group is sorted
//     by the pair (ISA[p + h], ISA[p + 2h]) (p + h and p + 2h have p's residue, so they are in the
//     sample) with a segmented sort of 64-bit keys, which compares 3h characters; singleton
//     groups leave the active list each round (compaction)                            [as gpu-ls]
//   rank[p] <- 1 + final slot of p; SA0 sorted by (t[i], rank[i+1]); merge SA0 and SA12  [as skew]
//
// A round with groups larger than LARGE_GROUP takes gpu-ls's round instead (one key, h doubled),
// which sorts those groups apart by radix sort. "spd.pairKeys=0" makes every round gpu-ls's.
// Layouts: the compact layout of difference-cover.ts (v = 3: every per-suffix array holds the 2n/3
// sample or the n/3 mod-0 suffixes, the SA is written through windows; up to maxSpdLength(gpu),
// 792,723,451 on the H100/H200), except for texts below COMPACT_FROM whose long runs are common:
// those take the position-indexed layout (isa and rank by text position, as skew's, up to
// maxSkewLength(gpu): 528,482,301 there), which has the run round (buildByPositions).
// "spd.compact=1" forces the compact layout, "spd.compact=0" the other where it fits.
import { traceMark, traceReport } from "../trace.js";
import { registerSorter, textOf, type BuildContext, type SuffixSorter } from "../../engine/registry.js";
import type { GpuContext } from "../device.js";
import { earlyStart, GpuBatch, tuned } from "../kernels.js";
import { encodeHeadFlags } from "../primitives/helpers.js";
import { encodeRadixSortPairs64 } from "../primitives/radix-sort.js";
import { dispatchLine, refineGroups, type DoublingBuffers } from "./doubling.js";
import { buildWithCover, COVER_MAX_LENGTH, DC3, maxCoverLength } from "./difference-cover.js";
import { deliverSuffixArray, packedReadback, requireGpu, uploadText } from "./io.js";
import { larssonSadakane } from "./ls.js";
import { CENSUS_RUN, encodeRunCensus, refineByPairs, refineByRuns, runsAreCommon, runsLookCommon } from "./pairs.js";
import { encodePackedKeys, planPackedKeys } from "./packed-keys.js";
import { bitsFor, encodeMod0Sort, maxSkewLength, prepareSkewBuild, skewStep, SkewLevel } from "./skew.js";

/** The sample's first sort compares a multiple of 3 characters, so that p + h stays in the sample. */
const wholeTriples = (chars: number) => chars - (chars % 3);

/**
 * From this length gpu-spd always takes the compact layout (it moves less memory: 53 against 63 GPU
 * bytes per input byte); below it, the compact layout too unless long runs are common (only the
 * position-indexed layout has the run round). Compact was the slower at small sizes (eighth
 * session: dickens 339 / 450 MB/s) until the packed readback and the class sort by successors;
 * H200, thirteenth session, builds alternating in one process (median of 11, ms, compact /
 * position-indexed): nci 60.9 / 65.5, osdb 13.9 / 15.3, dickens 16.26 / 16.59, chr22 31.75 /
 * 31.13, x-ray 14.75 / 15.61, ooffice 11.89 / 12.38, reymont 12.33 / 12.92, xml 14.32 / 15.10, kjv
 * 10.46 / 10.73, ecoli 11.30 / 11.04, world192 5.75 / 5.73; mr (runs) 21.99 / 21.16. Two
 * more instances (9-11 alternations): nci 67.3 / 67.5 and 64.5 / 64.1, osdb 17.47 / 18.19 and
 * 16.06 / 16.66, dickens 21.78 / 21.76 and 17.27 / 17.49, chr22 34.60 / 34.16 and 25.04 / 25.44,
 * x-ray 14.67 / 15.00 and 9.94 / 9.98.
 */
const COMPACT_FROM = 64 * 2 ** 20;

/** The largest text gpu-spd takes on this device (in its compact layout). */
export const maxSpdLength = (gpu: GpuContext) => Math.max(maxSkewLength(gpu), maxCoverLength(gpu, DC3));

export const gpuSpdSorter: SuffixSorter = {
  name: "gpu-spd",
  engine: "gpu",
  description: "skew's sample sort, prefix doubling of the sample with segmented sorts, skew's mod-0 sort and merge (Wang, Baxter, Owens 2016), WebGPU",
  maxLength: COVER_MAX_LENGTH,
  ...packedReadback,
  outsideHeap: true,
  async build(ctx: BuildContext): Promise<void> {
    if (ctx.n > maxSkewLength(requireGpu(ctx, "gpu-spd"))) return buildWithCover(ctx, DC3, "gpu-spd");
    const compact = tuned("spd.compact", ctx.n >= COMPACT_FROM || !runsLookCommon(textOf(ctx)) ? 1 : 0) === 1;
    return compact ? buildWithCover(ctx, DC3, "gpu-spd") : buildByPositions(ctx);
  },
};

/** gpu-spd in the position-indexed layout (isa and rank by text position, the run round). */
export async function buildByPositions(ctx: BuildContext): Promise<void> {
  const gpu = prepareSkewBuild(ctx, "gpu-spd");
  if (!gpu) return;
  const n = ctx.n;
  const level = new SkewLevel(n);
  const symbolBits = bitsFor(256);
  const pool = gpu.pool;
  const held: GPUBuffer[] = [];
  const take = (count: number, label: string) => {
    const buffer = pool.acquire(Math.max(4, count * 4), undefined, `gpu-spd ${label}`);
    held.push(buffer);
    return buffer;
  };
  traceMark("start");
  const bytes = await uploadText(gpu, textOf(ctx), ctx);
  traceMark("upload");
  const t = pool.acquire((n + 3) * 4, undefined, "symbols");
  held.push(t);
  try {
    const plan = await planPackedKeys(gpu, bytes, n, wholeTriples);
    held.push(plan.code);
    traceMark("alphabet");
    const buffers: DoublingBuffers = {
      text: t,
      isa: take(n + 3, "isa"),
      suffixes: take(level.n02, "sample"),
      positions: take(level.n02, "slots"),
      keyLow: take(level.n02 + 3, "key low"),
      keyHigh: take(level.n02 + 3, "key high"),
      flags: take(level.n02, "flags"),
      aux: take(Math.max(n, level.n02), "aux"),
      groupEnd: take(level.n02, "group end"),
    };
    // The sample sorted by its first h0 characters: suffixes in slot order, flags where keys change.
    const profiling = process.env.SUFSORT_GPU_PROFILE !== undefined;
    const first = new GpuBatch(gpu, "gpu-spd sample", profiling, earlyStart());
    skewStep(first, "to_symbols", n + 3, level, 0, { bytes, t });
    encodePackedKeys(first, plan, "sample", level.n02, n, { ...buffers, text: bytes });
    encodeRadixSortPairs64(first, buffers.keyLow, buffers.keyHigh, buffers.suffixes, level.n02, { endBit: plan.keyBits });
    encodeHeadFlags(first, buffers.keyLow, buffers.flags, level.n02, buffers.keyHigh);
    const census = take(1, "run census");
    encodeRunCensus(first, buffers, n, census);
    await refineGroups(gpu, first, buffers, {
      name: "gpu-spd",
      textLength: n,
      slots: level.n02,
      h0: plan.chars,
      census,
      // the first round sorts long runs whole where they are common
      refine: (state) => {
        if (state.census === undefined) return refineByPairs(state);
        const runs = runsAreCommon(state.census, n);
        if (profiling) process.stderr.write(`gpu-spd run census: ${state.census} of ${Math.ceil(n / CENSUS_RUN)} sites start ${CENSUS_RUN} equal symbols${runs ? ": run round" : ""}\n`);
        return runs ? refineByRuns(state) : refineByPairs(state);
      },
      live: larssonSadakane.live,
      onProgress: ctx.onProgress,
    });

    traceMark("rounds end");
    const rank = take(n + 3, "rank");
    const sa12 = take(level.n02, "sa12");
    const sa0 = take(level.n0, "sa0");
    const batch = new GpuBatch(gpu, "gpu-spd mod 0 and merge", profiling, earlyStart());
    batch.clear(rank, 0, (n + 3) * 4);
    skewStep(batch, "sample_from_isa", level.n02, level, 0, { rank, sa12, aux: buffers.isa });
    const merge = encodeMod0Sort(batch, level, symbolBits, { t, rank, sa12, keyLow: buffers.keyLow, keyHigh: buffers.keyHigh, aux: buffers.aux, sa0 });
    batch.submit();
    const start = performance.now();
    if (process.env.SUFSORT_GPU_PROFILE) {
      await gpu.finish();
      process.stderr.write(`gpu-spd mod 0 sort: ${(performance.now() - start).toFixed(1)} ms after the last round${dispatchLine(await batch.dispatchNanoseconds())}\n`);
    }
    // the merge is encoded piece by piece as the SA is read back
    await deliverSuffixArray(ctx, gpu, buffers.aux, bytes, merge);
    traceMark("mod 0, merge, delivery");
    traceReport("gpu-spd");
    if (process.env.SUFSORT_GPU_PROFILE) process.stderr.write(`gpu-spd merge + delivery: ${(performance.now() - start).toFixed(1)} ms\n`);
  } finally {
    for (const buffer of held) pool.release(buffer);
    pool.release(bytes);
    pool.afterSubmit();
  }
}

registerSorter(gpuSpdSorter);
