// gpu-dc7: the difference-cover algorithm of Kärkkäinen, Sanders and Burkhardt ("Linear work
// suffix array construction", 2006: DC-v) with v = 7 and the cover D = {1, 2, 4}, its sample sorted
// by gpu-spd's prefix doubling. Skew (gpu-skew, gpu-spd) is the same scheme with v = 3; its sample
// is 2n/3 suffixes, v = 7 samples 3n/7, so that every per-suffix array of a 1 GiB text fits one
// storage binding (2 GiB on the H100/H200) and only the merges of long runs read and write windows:
//
//   R <- the sample positions q <= n with q mod 7 in D, class 1, then 2, then 4 (the reduced string;
//        each class ends with a unique key, wgsl/sa_dc7.wgsl)
//   sort R's suffixes by their first 7 h0 characters (packed keys), then prefix doubling over R
//     with (ISA[k + h], ISA[k + 2h]) pairs, h = h0, 3 h0, ...                         [as gpu-spd]
//   rank(q) <- slot of q's suffix among the sample; S <- the sample in slot order
//   for each residue r in {0, 3, 5, 6}: C_r <- the positions i = r mod 7 sorted by
//     (t[i .. i + k_r), rank(i + k_r)), k_r the distance to the next sample residue   (radix sort)
//   SA <- merge(S, merge(merge(C_0, C_3), merge(C_5, C_6))), comparing suffixes i and j by their
//     first l characters and rank(i + l) against rank(j + l), l = the offset that puts both in D
//
// Runs longer than one binding (from 4n/7 entries: the last two merges at 1 GiB) are bound as two
// windows; the SA buffer (4n bytes) is written window by window. Limits: n <= 2^30 (the SA must
// also fit one JavaScript array) and 3n/7 within one pooled binding.
import { limitError } from "../../errors.js";
import { registerSorter, suffixArrayOf, textOf, type BuildContext, type SuffixSorter } from "../../engine/registry.js";
import { STORAGE_USAGE } from "../buffers.js";
import type { GpuContext } from "../device.js";
import { GpuBatch, pipeline, tuned, WORKGROUP_SIZE, type Binding } from "../kernels.js";
import { encodeHeadFlags } from "../primitives/helpers.js";
import { encodeRadixSortPairs, encodeRadixSortPairs64 } from "../primitives/radix-sort.js";
import { bitsFor } from "./bits.js";
import { dispatchLine, refineGroups, type DoublingBuffers } from "./doubling.js";
import { deliverSuffixArray, maxPooledLength, requireGpu, uploadText } from "./io.js";
import { larssonSadakane } from "./ls.js";
import { encodePackedKeys, planPackedKeys } from "./packed-keys.js";
import { refineByPairs } from "./spd.js";

/** Longest text: its SA (4n bytes) must fit one JavaScript typed array. */
export const DC7_MAX_LENGTH = 2 ** 30;

/** Outputs per merge invocation (after one binary search; "dc7.mergeItems" overrides it). */
const MERGE_ITEMS = 32;

/** Texts longer than this run lean (see build). Up to it a build holds at most ~60 bytes of GPU
 * memory per input byte (H100, bench/gpu-scaling.mjs), 32 GB at 512 MiB. */
const LEAN_FROM = 2 ** 29;

/** The cover's residues in R's order, and the other residues with the distance to the cover. */
const COVER = [1, 2, 4] as const;
const OTHERS = [
  { residue: 0, ahead: 1 },
  { residue: 3, ahead: 1 },
  { residue: 5, ahead: 3 },
  { residue: 6, ahead: 2 },
] as const;

/** The sizes of the sample and the classes of a text of length n. */
export class Dc7Layout {
  /** Entries of R from class 1, 2, 4: the positions c, c + 7, ... up to the first past n - 7. */
  readonly lengths: number[];
  readonly start2: number;
  readonly start4: number;
  /** Length of R. */
  readonly m: number;
  /** 1 when position n (the empty suffix) is in the sample: it sorts first and is dropped. */
  readonly skip: number;
  constructor(readonly n: number) {
    this.lengths = COVER.map((c) => (n >= c ? Math.floor((n - c) / 7) + 1 : 0));
    this.start2 = this.lengths[0];
    this.start4 = this.lengths[0] + this.lengths[1];
    this.m = this.start4 + this.lengths[2];
    this.skip = (COVER as readonly number[]).includes(n % 7) ? 1 : 0;
  }
  /** Positions i < n with i mod 7 = r. */
  count(r: number): number {
    return this.n > r ? Math.floor((this.n - 1 - r) / 7) + 1 : 0;
  }
}

/** The largest text gpu-dc7 takes on this device. */
export function maxDc7Length(gpu: GpuContext): number {
  // R (m <= 3n/7 + 3) in one pooled binding
  return Math.min(DC7_MAX_LENGTH, Math.floor(((maxPooledLength(gpu) - 3) * 7) / 3));
}

/** A sorted run of text positions, held from offset 0 of `buffer`. */
interface Run {
  buffer: GPUBuffer;
  n: number;
}

/** Entries per window: whole 256-byte units of one binding ("dc7.window" lowers it for tests). */
function windowEntries(gpu: GpuContext): number {
  const most = Math.floor(gpu.maxBindingBytes / 256) * 64;
  const wanted = tuned("dc7.window", most);
  return Math.min(most, Math.max(64, wanted - (wanted % 64)));
}

/** A run as two windows (the second a stand-in when one holds it all) and the first one's length. */
function windowsOf(run: Run, window: number): [Binding, Binding, number] {
  if (run.n <= window) {
    const whole = { buffer: run.buffer, offset: 0, size: Math.max(4, run.n * 4) };
    return [whole, whole, run.n];
  }
  if (run.n > 2 * window) throw new Error(`gpu-dc7: a run of ${run.n} entries exceeds two windows of ${window} (internal error)`);
  return [{ buffer: run.buffer, offset: 0, size: window * 4 }, { buffer: run.buffer, offset: window * 4, size: (run.n - window) * 4 }, window];
}

export const gpuDc7Sorter: SuffixSorter = {
  name: "gpu-dc7",
  engine: "gpu",
  description: "difference cover mod 7 (Kärkkäinen-Sanders-Burkhardt): the 3n/7 sample by gpu-spd's doubling, four radix-sorted classes, merge-path merges; takes texts up to 1 GiB, WebGPU",
  maxLength: DC7_MAX_LENGTH,
  scratchBytes: () => 0,
  outsideHeap: true,
  async build(ctx: BuildContext): Promise<void> {
    const gpu = requireGpu(ctx, "gpu-dc7");
    const n = ctx.n;
    const most = maxDc7Length(gpu);
    if (n > most) throw limitError(`input is ${n} bytes; gpu-dc7 on this GPU accepts at most ${most}`);
    if (n <= 1) {
      if (n === 1) suffixArrayOf(ctx)[0] = 0;
      return;
    }
    const layout = new Dc7Layout(n);
    const { m, skip } = layout;
    const pool = gpu.pool;
    let held: GPUBuffer[] = [];
    const owned: GPUBuffer[] = [];
    const take = (count: number, label: string) => {
      const buffer = pool.acquire(Math.max(4, count * 4), undefined, `gpu-dc7 ${label}`);
      held.push(buffer);
      return buffer;
    };
    const mergeItems = tuned("dc7.mergeItems", MERGE_ITEMS);
    // Texts over LEAN_FROM give idle buffers back to the device after every doubling round and
    // between phases, so that no phase holds what an earlier one needed ("dc7.lean=1" forces it
    // for tests). On the H100 a 1 GiB text ran out of its 80 GB when the pool kept them; Dawn
    // frees a destroyed buffer's memory only once the queue is idle, hence the waits.
    const lean = tuned("dc7.lean", n > LEAN_FROM ? 1 : 0) === 1;
    const trim = async () => {
      if (!lean) return;
      pool.trim();
      await gpu.finish();
    };
    const giveBack = async (spent: GPUBuffer[]) => {
      for (const buffer of spent) pool.release(buffer);
      held = held.filter((buffer) => !spent.includes(buffer));
      pool.afterSubmit();
      await trim();
    };
    // runs of any length: pooled while one binding holds their size class, else a buffer of their own
    const runBuffer = (count: number, label: string) => {
      if (count <= maxPooledLength(gpu)) return take(count, label);
      const buffer = gpu.device.createBuffer({ size: Math.ceil((count * 4) / 256) * 256, usage: STORAGE_USAGE, label: `gpu-dc7 ${label}` });
      owned.push(buffer);
      return buffer;
    };
    const text = await uploadText(gpu, textOf(ctx));
    const profiling = process.env.SUFSORT_GPU_PROFILE !== undefined;
    try {
      // R sorted by its first 7 h0 characters, then refined by doubling
      const plan = await planPackedKeys(gpu, text, n, (chars) => chars - (chars % 7));
      held.push(plan.code);
      const buffers: DoublingBuffers = {
        text,
        isa: take(m, "isa"),
        suffixes: take(m, "sample"),
        positions: take(m, "slots"),
        keyLow: take(m, "key low"),
        keyHigh: take(m, "key high"),
        flags: take(m, "flags"),
        aux: take(m, "aux"),
        groupEnd: take(m, "group end"),
      };
      const spent = { ...buffers }; // refineGroups may swap suffixes and positions with its own
      const first = new GpuBatch(gpu, "gpu-dc7 sample", profiling);
      encodePackedKeys(first, plan, "dc7", m, n, buffers, [layout.start2, layout.start4]);
      encodeRadixSortPairs64(first, buffers.keyLow, buffers.keyHigh, buffers.suffixes, m, { endBit: plan.keyBits });
      encodeHeadFlags(first, buffers.keyLow, buffers.flags, m, buffers.keyHigh);
      await refineGroups(gpu, first, buffers, {
        name: "gpu-dc7",
        textLength: m,
        slots: m,
        h0: plan.chars / 7,
        refine: refineByPairs,
        live: larssonSadakane.live,
        onProgress: ctx.onProgress,
        afterRound: trim,
      });
      await giveBack([spent.suffixes, spent.positions, spent.flags, spent.aux, spent.groupEnd]);

      // isa[k] is now the slot of R's suffix k: the sample in slot order, and the four classes
      const isa = buffers.isa;
      const batch = new GpuBatch(gpu, "gpu-dc7 classes and merges", profiling);
      /** Dispatches an entry of wgsl/sa_dc7.wgsl (params in Params order, the rest 0). */
      const dc7 = (into: GpuBatch, entry: string, groups: number, params: number[], bindings: (Binding | undefined)[]) => {
        const pipe = pipeline(gpu, { file: "sa_dc7.wgsl", entry, constants: { ITEMS: mergeItems }, libs: ["merge_path_global"] });
        into.dispatch(pipe, [...params, ...new Array(16 - params.length).fill(0)], bindings, groups);
      };
      const base = [n, layout.start2, layout.start4];
      const sample: Run = { buffer: take(m - skip, "sample order"), n: m - skip };
      dc7(batch, "sample_order", Math.ceil(m / WORKGROUP_SIZE), [m, ...base, skip], [undefined, isa, undefined, undefined, undefined, undefined, undefined, sample.buffer]);

      const rankBits = bitsFor(m);
      const charBits = plan.charBits + 1;
      const classes: Run[] = [];
      for (const { residue, ahead } of OTHERS) {
        const count = layout.count(residue);
        const run: Run = { buffer: take(count, `class ${residue}`), n: count };
        classes.push(run);
        if (count === 0) continue;
        dc7(batch, "class_keys", Math.ceil(count / WORKGROUP_SIZE), [count, ...base, residue, rankBits, charBits], [text, isa, plan.code, run.buffer, buffers.keyLow, buffers.keyHigh]);
        const keyBits = ahead * charBits + rankBits;
        if (keyBits <= 32) encodeRadixSortPairs(batch, buffers.keyLow, run.buffer, count, { endBit: keyBits });
        else encodeRadixSortPairs64(batch, buffers.keyLow, buffers.keyHigh, run.buffer, count, { endBit: keyBits });
      }

      const window = windowEntries(gpu);
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
          dc7(into, "merge", groups, [a.n, ...base, 0, 0, 0, wa, b.n, wb, lo, hi, w], [text, isa, undefined, a0, a1, b0, b1, { buffer: out, offset: w * 4, size }]);
        }
      };
      const merged = (a: Run, b: Run, label: string): Run => {
        const run: Run = { buffer: runBuffer(a.n + b.n, label), n: a.n + b.n };
        if (run.n > 0) mergeInto(batch, a, b, run.buffer, 0, run.n);
        return run;
      };
      const [c0, c3, c5, c6] = classes;
      const pairs = [merged(c0, c3, "classes 0+3"), merged(c5, c6, "classes 5+6")];
      const others = merged(pairs[0], pairs[1], "non-sample");
      batch.submit();
      await giveBack([buffers.keyLow, buffers.keyHigh, ...classes.map((run) => run.buffer), ...pairs.map((run) => run.buffer)].filter((buffer) => held.includes(buffer)));
      if (profiling) {
        const start = performance.now();
        await gpu.finish();
        process.stderr.write(`gpu-dc7 classes and first merges: ${(performance.now() - start).toFixed(1)} ms after the last round${dispatchLine(await batch.dispatchNanoseconds())}\n`);
      }

      // the last merge writes each piece of the SA right before it is read back
      const sa = runBuffer(n, "SA");
      await deliverSuffixArray(ctx, gpu, sa, text, (into, from, to) => mergeInto(into, sample, others, sa, from, to));
    } finally {
      for (const buffer of held) pool.release(buffer);
      pool.afterSubmit();
      text.destroy();
      for (const buffer of owned) buffer.destroy(); // destruction waits for the queued work
    }
  },
};

registerSorter(gpuDc7Sorter);
