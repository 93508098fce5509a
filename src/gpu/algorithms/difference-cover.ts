// Difference-cover sorters (Kärkkäinen, Sanders and Burkhardt, "Linear work suffix array
// construction", 2006: DC-v) whose sample is sorted by gpu-spd's prefix doubling, over a compact
// layout: every per-suffix array holds sample or class entries, never one per text position.
//   - v = 3, D = {1, 2}: gpu-spd's algorithm (skew's sample, pair doubling, mod-0 sort, one merge)
//     with arrays of 2n/3 entries; gpu-spd takes this layout for texts over its own limit.
//   - v = 7, D = {1, 2, 4} (gpu-dc7): a 3n/7 sample, so that every per-suffix array of a 1 GiB text
//     fits one storage binding (2 GiB on the H100/H200).
//
//   R <- the sample positions q <= n with q mod v in D, class 1, then 2, then 4 (the reduced string;
//        each class ends with a unique key, wgsl/sa_cover.wgsl)
//   sort R's suffixes by their first v h0 characters (packed keys), then prefix doubling over R
//     with (ISA[k + h], ISA[k + 2h]) pairs, h = h0, 3 h0, ...                         [as gpu-spd]
//   rank(q) <- slot of q's suffix among the sample; S <- the sample in slot order
//   for each residue r not in D: C_r <- the positions i = r mod v sorted by
//     (t[i .. i + k_r), rank(i + k_r)), k_r the distance to the next sample residue: the
//     successors i + k_r taken from S in order, then a stable radix sort by t[i .. i + k_r)
//   SA <- merge(S, the C_r merged pairwise), comparing suffixes i and j by their first l
//     characters and rank(i + l) against rank(j + l), l = the offset that puts both in D
//
// Runs longer than one binding (from 4n/7 entries: the last two merges of gpu-dc7 at 1 GiB) are
// bound as two windows; the SA buffer (4n bytes) is written window by window. Limits: n <= 2^30
// (the SA must also fit one JavaScript array) and R within one pooled binding.
import { limitError } from "../../errors.js";
import { traceMark, traceReport } from "../trace.js";
import { registerSorter, suffixArrayOf, textOf, type BuildContext, type SuffixSorter } from "../../engine/registry.js";
import type { GpuContext } from "../device.js";
import { bindingWindow, earlyStart, GpuBatch, pipeline, tuned, WORKGROUP_SIZE, type Binding } from "../kernels.js";
import { encodeHeadFlags } from "../primitives/helpers.js";
import { encodeRadixSortPairs, encodeRadixSortPairs64 } from "../primitives/radix-sort.js";
import { encodeCompact } from "../primitives/compact.js";
import { dispatchLine, refineGroups, type DoublingBuffers } from "./doubling.js";
import { deliverSuffixArray, maxPooledLength, packedReadback, requireGpu, uploadText } from "./io.js";
import { larssonSadakane } from "./ls.js";
import { encodePackedKeys, planPackedKeys } from "./packed-keys.js";
import { refineByPairs } from "./pairs.js";

/** Longest text: its SA (4n bytes) must fit one JavaScript typed array. */
export const COVER_MAX_LENGTH = 2 ** 30;

/** Outputs per merge invocation (after one binary search; "cover.mergeItems" overrides it). */
const MERGE_ITEMS = 32;

/** Texts longer than this run lean (see build). Up to it a build holds at most ~60 bytes of GPU
 * memory per input byte (H100, bench/gpu-scaling.mjs), 32 GB at 512 MiB. */
const LEAN_FROM = 2 ** 29;

/** A difference cover: its period, its residues in R's order (a prefix of 1, 2, 4), and the other
 * residues with their distance to the next one in the cover. */
export interface Cover {
  v: number;
  residues: readonly number[];
  others: readonly { residue: number; ahead: number }[];
}

export const DC3: Cover = { v: 3, residues: [1, 2], others: [{ residue: 0, ahead: 1 }] };
export const DC7: Cover = {
  v: 7,
  residues: [1, 2, 4],
  others: [
    { residue: 0, ahead: 1 },
    { residue: 3, ahead: 1 },
    { residue: 5, ahead: 3 },
    { residue: 6, ahead: 2 },
  ],
};

/** The sizes of the sample and the classes of a text of length n. */
export class CoverLayout {
  /** Entries of R from each class c: the positions c, c + v, ... up to the first past n - v. */
  readonly lengths: number[];
  readonly start2: number;
  /** R index of class 4 (R's length when the cover has no 4). */
  readonly start4: number;
  /** Length of R. */
  readonly m: number;
  /** 1 when position n (the empty suffix) is in the sample: it sorts first and is dropped. */
  readonly skip: number;
  constructor(
    readonly cover: Cover,
    readonly n: number,
  ) {
    const v = cover.v;
    this.lengths = cover.residues.map((c) => (n >= c ? Math.floor((n - c) / v) + 1 : 0));
    this.start2 = this.lengths[0];
    this.start4 = this.lengths[0] + this.lengths[1];
    this.m = this.lengths.reduce((a, b) => a + b, 0);
    this.skip = cover.residues.includes(n % v) ? 1 : 0;
  }
  /** Positions i < n with i mod v = r. */
  count(r: number): number {
    return this.n > r ? Math.floor((this.n - 1 - r) / this.cover.v) + 1 : 0;
  }
}

/** The largest text a difference-cover sorter with this cover takes on this device. */
export function maxCoverLength(gpu: GpuContext, cover: Cover): number {
  // R (m <= |D| n / v + 3) in one pooled binding
  return Math.min(COVER_MAX_LENGTH, Math.floor(((maxPooledLength(gpu) - 3) * cover.v) / cover.residues.length));
}

/** The largest text gpu-dc7 takes on this device. */
export const maxDc7Length = (gpu: GpuContext) => maxCoverLength(gpu, DC7);

/** A sorted run of text positions, held from offset 0 of `buffer`. */
interface Run {
  buffer: GPUBuffer;
  n: number;
}

/** A run in the pairwise merging of the classes: a class (no parts), or the merge of two nodes,
 * of which entries [0, done) are encoded so far. */
interface MergeNode {
  run: Run;
  parts?: [MergeNode, MergeNode];
  done: number;
}

/** The classes merged pairwise, level by level (an odd one out goes up as it is), into one tree;
 * `allocate(count)` gives each merge's buffer. */
function mergeTree(classes: Run[], allocate: (count: number) => GPUBuffer): MergeNode {
  let level: MergeNode[] = classes.map((run) => ({ run, done: run.n }));
  while (level.length > 1) {
    const next: MergeNode[] = [];
    for (let k = 0; k + 1 < level.length; k += 2) {
      const parts: [MergeNode, MergeNode] = [level[k], level[k + 1]];
      const count = parts[0].run.n + parts[1].run.n;
      next.push({ run: { buffer: allocate(count), n: count }, parts, done: 0 });
    }
    if (level.length % 2 === 1) next.push(level[level.length - 1]);
    level = next;
  }
  return level[0];
}

/** The runs of a tree's merges below its root. */
function innerRuns(root: MergeNode): Run[] {
  const runs: Run[] = [];
  const visit = (node: MergeNode) => {
    if (node.parts === undefined) return;
    if (node !== root) runs.push(node.run);
    node.parts.forEach(visit);
  };
  visit(root);
  return runs;
}

/** A run as two windows (the second a stand-in when one holds it all) and the first one's length. */
function windowsOf(run: Run, window: number): [Binding, Binding, number] {
  if (run.n <= window) {
    const whole = { buffer: run.buffer, offset: 0, size: Math.max(4, run.n * 4) };
    return [whole, whole, run.n];
  }
  if (run.n > 2 * window) throw new Error(`difference cover: a run of ${run.n} entries exceeds two windows of ${window} (internal error)`);
  return [{ buffer: run.buffer, offset: 0, size: window * 4 }, { buffer: run.buffer, offset: window * 4, size: (run.n - window) * 4 }, window];
}

/** Builds ctx's SA with this cover (`name`: the algorithm, for messages and labels). */
export async function buildWithCover(ctx: BuildContext, cover: Cover, name: string): Promise<void> {
  const gpu = requireGpu(ctx, name);
  const n = ctx.n;
  const most = maxCoverLength(gpu, cover);
  if (n > most) throw limitError(`input is ${n} bytes; ${name} on this GPU accepts at most ${most}`);
  if (n <= 1) {
    if (n === 1) suffixArrayOf(ctx)[0] = 0;
    return;
  }
  const v = cover.v;
  const layout = new CoverLayout(cover, n);
  const { m, skip } = layout;
  const pool = gpu.pool;
  let held: GPUBuffer[] = [];
  const take = (count: number, label: string) => {
    const buffer = pool.acquire(Math.max(4, count * 4), undefined, `${name} ${label}`);
    held.push(buffer);
    return buffer;
  };
  const mergeItems = tuned("cover.mergeItems", MERGE_ITEMS);
  // Texts over LEAN_FROM give idle buffers back to the device after every doubling round and
  // between phases, so that no phase holds what an earlier one needed ("cover.lean=1" forces it
  // for tests). On the H100 a 1 GiB text ran out of its 80 GB when the pool kept them; Dawn
  // frees a destroyed buffer's memory only once the queue is idle, hence the waits.
  const lean = tuned("cover.lean", n > LEAN_FROM ? 1 : 0) === 1;
  const trim = async () => {
    if (!lean) return;
    pool.trim();
    await gpu.finish();
  };
  // Spent buffers go back to the pool mid-build only when lean: otherwise the build holds them to
  // its end, so that every build takes the same buffers in the same order and finds its bind
  // groups again (a warm 1 MiB gpu-spd build on llvmpipe created 106 of them when it gave back
  // mid-build, 58 without: the rest bind the text, a new buffer in every build).
  const giveBack = async (spent: GPUBuffer[]) => {
    if (!lean) return;
    for (const buffer of spent) pool.release(buffer);
    held = held.filter((buffer) => !spent.includes(buffer));
    pool.afterSubmit();
    await trim();
  };
  // runs of any length: pooled in size classes while one binding holds their class, else at their
  // exact size ("cover.exactFrom" lowers the bound for tests)
  const classedMost = tuned("cover.exactFrom", maxPooledLength(gpu) + 1) - 1;
  const runBuffer = (count: number, label: string) => {
    if (count <= classedMost) return take(count, label);
    const buffer = pool.acquireExact(count * 4, `${name} ${label}`);
    held.push(buffer);
    return buffer;
  };
  traceMark("start");
  const text = await uploadText(gpu, textOf(ctx), ctx);
  traceMark("upload");
  const profiling = process.env.SUFSORT_GPU_PROFILE !== undefined;
  try {
    // R sorted by its first v h0 characters, then refined by doubling
    const plan = await planPackedKeys(gpu, text, n, (chars) => chars - (chars % v));
    held.push(plan.code);
    traceMark("alphabet");
    const buffers: DoublingBuffers = {
      text,
      isa: take(m, "isa"),
      suffixes: take(m, "sample"),
      positions: take(m, "slots"),
      keyLow: take(m + 1, "key low"), // + 1: a class's flags and values (class_by_successor)
      keyHigh: take(m + 1, "key high"),
      flags: take(m, "flags"),
      aux: take(m, "aux"),
      groupEnd: take(m, "group end"),
    };
    const spent = { ...buffers }; // refineGroups may swap suffixes and positions with its own
    const first = new GpuBatch(gpu, `${name} sample`, profiling, earlyStart());
    encodePackedKeys(first, plan, "cover", m, n, buffers, { v, starts: [layout.start2, layout.start4] });
    encodeRadixSortPairs64(first, buffers.keyLow, buffers.keyHigh, buffers.suffixes, m, { endBit: plan.keyBits });
    encodeHeadFlags(first, buffers.keyLow, buffers.flags, m, buffers.keyHigh);
    await refineGroups(gpu, first, buffers, {
      name,
      textLength: m,
      slots: m,
      h0: plan.chars / v,
      refine: refineByPairs,
      live: larssonSadakane.live,
      onProgress: ctx.onProgress,
      afterRound: trim,
    });
    traceMark("rounds end");
    // the sample order and the classes (each of at most m entries) take the doubling's spent buffers
    const reusable = [spent.suffixes, spent.positions, spent.flags, spent.aux, spent.groupEnd];
    const reuse = () => reusable.shift()!;
    const sampleBuffer = reuse();
    const classBuffers = cover.others.map(() => reuse());
    await giveBack(reusable);

    // isa[k] is now the slot of R's suffix k: the sample in slot order, and the other classes
    const isa = buffers.isa;
    const batch = new GpuBatch(gpu, `${name} classes and merges`, profiling, earlyStart());
    /** Dispatches an entry of wgsl/sa_cover.wgsl (params in Params order, the rest 0). */
    const coverMask = cover.residues.reduce((mask, r) => mask | (1 << r), 0);
    const dc = (into: GpuBatch, entry: string, groups: number, params: number[], bindings: (Binding | undefined)[]) => {
      const pipe = pipeline(gpu, { file: "sa_cover.wgsl", entry, constants: { ITEMS: mergeItems, V: v, COVER_MASK: coverMask }, libs: ["merge_path_global", "cover_sample"] });
      into.dispatch(pipe, [...params, ...new Array(16 - params.length).fill(0)], bindings, groups);
    };
    const base = [n, layout.start2, layout.start4];
    const sample: Run = { buffer: sampleBuffer, n: m - skip };
    dc(batch, "sample_order", Math.ceil(m / WORKGROUP_SIZE), [m, ...base, skip], [undefined, isa, undefined, undefined, undefined, undefined, undefined, sample.buffer]);

    const charBits = plan.charBits;
    const classes: Run[] = [];
    for (const [k, { residue, ahead }] of cover.others.entries()) {
      const count = layout.count(residue);
      const run: Run = { buffer: classBuffers[k], n: count };
      classes.push(run);
      if (count === 0) continue;
      // The sample lists the class's successors i + k_r in rank order: take the class in that
      // order (the one whose successor lies past n first), then sort it stably by its k_r
      // characters, a u32 sort of at most 3 * 8 bits (one by characters and rank took u64 keys).
      const fit = n - ahead - residue >= 0 ? Math.floor((n - ahead - residue) / v) + 1 : 0;
      const extra = count - fit; // 0 or 1: k_r < V
      dc(batch, "class_by_successor", Math.ceil((extra + m) / WORKGROUP_SIZE), [extra + m, ...base, residue, 0, 0, 0, 0, 0, 0, count, 0, ahead, skip, extra], [undefined, undefined, undefined, undefined, buffers.keyLow, buffers.keyHigh, undefined, sample.buffer]);
      encodeCompact(batch, buffers.keyHigh, buffers.keyLow, run.buffer, batch.scratch(4), extra + m);
      dc(batch, "class_symbols", Math.ceil(count / WORKGROUP_SIZE), [count, ...base, 0, 0, charBits, 0, 0, 0, 0, 0, 0, ahead], [text, undefined, plan.code, run.buffer, buffers.keyLow]);
      encodeRadixSortPairs(batch, buffers.keyLow, run.buffer, count, { endBit: ahead * charBits });
    }

    const window = bindingWindow(gpu, "cover.window");
    /** Encodes the outputs [from, to) of merge(a, b) into `out` (window by window). */
    const mergeInto = (into: GpuBatch, a: Run, b: Run, out: GPUBuffer, from: number, to: number) => {
      const [a0, a1, wa] = windowsOf(a, window);
      const [b0, b1, wb] = windowsOf(b, window);
      const total = a.n + b.n;
      for (let w = Math.floor(from / window) * window; w < to; w += window) {
        const lo = Math.max(from, w);
        const hi = Math.min(to, w + window);
        if (hi <= lo) continue;
        const size = Math.min(window, total - w) * 4;
        const groups = Math.ceil((hi - lo) / (mergeItems * WORKGROUP_SIZE));
        dc(into, "merge", groups, [a.n, ...base, 0, 0, 0, wa, b.n, wb, lo, hi, w], [text, isa, undefined, a0, a1, b0, b1, { buffer: out, offset: w * 4, size }]);
      }
    };
    // The classes merged pairwise into one run of the non-sample suffixes. A merge's outputs
    // [0, k) read only its inputs' entries [0, k) (merge path), so these merges run piece by piece
    // as the SA's pieces need them, while the host copies the pieces before (nci with gpu-dc7:
    // 7.3 ms of GPU merging that nothing overlapped). A lean build merges them at once and gives
    // the spent runs back before the SA's buffer is taken.
    const tree = mergeTree(classes, (count) => runBuffer(count, "non-sample"));
    /** Encodes the merges that make tree node `node`'s entries [0, upTo) (its inputs' first). */
    const extend = (into: GpuBatch, node: MergeNode, upTo: number): void => {
      const end = Math.min(upTo, node.run.n);
      if (node.parts === undefined || node.done >= end) return;
      for (const part of node.parts) extend(into, part, end);
      mergeInto(into, node.parts[0].run, node.parts[1].run, node.run.buffer, node.done, end);
      node.done = end;
    };
    // ("cover.lazyMerges" = 0 merges at once in every build)
    const atOnce = lean || tuned("cover.lazyMerges", 1, 0) === 0;
    if (atOnce) extend(batch, tree, tree.run.n);
    batch.submit();
    const spentRuns = lean ? [...classes, ...innerRuns(tree)].filter((run) => run !== tree.run) : [];
    await giveBack([buffers.keyLow, buffers.keyHigh, ...spentRuns.map((run) => run.buffer)].filter((buffer) => held.includes(buffer)));
    if (profiling) {
      const start = performance.now();
      await gpu.finish();
      process.stderr.write(`${name} classes${atOnce ? " and their merges" : ""}: ${(performance.now() - start).toFixed(1)} ms after the last round${dispatchLine(await batch.dispatchNanoseconds())}\n`);
    }

    // the last merge (and the merges it reads) writes each piece of the SA right before its readback
    const others = tree.run;
    const sa = runBuffer(n, "SA");
    const start = performance.now();
    await deliverSuffixArray(ctx, gpu, sa, text, (into, from, to) => {
      extend(into, tree, to);
      mergeInto(into, sample, others, sa, from, to);
    });
    traceMark("classes, merges, delivery");
    traceReport(name);
    if (profiling) process.stderr.write(`${name} last merge + delivery: ${(performance.now() - start).toFixed(1)} ms\n`);
  } finally {
    for (const buffer of held) pool.release(buffer);
    pool.release(text);
    pool.afterSubmit();
  }
}

export const gpuDc7Sorter: SuffixSorter = {
  name: "gpu-dc7",
  engine: "gpu",
  description: "difference cover mod 7 (Kärkkäinen-Sanders-Burkhardt): the 3n/7 sample by gpu-spd's doubling, four radix-sorted classes, merge-path merges; takes texts up to 1 GiB, WebGPU",
  maxLength: COVER_MAX_LENGTH,
  ...packedReadback,
  outsideHeap: true,
  build: (ctx: BuildContext) => buildWithCover(ctx, DC7, "gpu-dc7"),
};

registerSorter(gpuDc7Sorter);
