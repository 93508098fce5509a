// Throughput of the GPU primitives next to the device's streaming bandwidth, measured in the same run.
// GPU time comes from timestamp queries around each batch when the device has them, else from wall
// time around submit + onSubmittedWorkDone. Inputs are generated on the device (hash of the index).
import { failure } from "../errors.js";
import { acquireGpu, type GpuContext, type GpuMode } from "./device.js";
import { GpuBatch, pipeline, readU32 } from "./kernels.js";
import { encodeExclusiveScan } from "./primitives/scan.js";
import { encodeRadixSortPairs, encodeRadixSortPairs64 } from "./primitives/radix-sort.js";
import { encodeCompact } from "./primitives/compact.js";
import { encodeMerge } from "./primitives/merge.js";
import { encodeSegmentedSort } from "./primitives/segmented-sort.js";
import { WORKGROUP_SIZE } from "./kernels.js";
import { encodeIota } from "./primitives/helpers.js";

export interface GpuBenchOptions {
  /** log2 of the element counts (default 20, 22, 24, 26, 27, 28). */
  log2Sizes?: number[];
  /** Primitives to run (default all): see PRIMITIVES. */
  primitives?: string[];
  /** Timed repetitions per case; the median is reported (default 5). */
  repeats?: number;
  mode?: GpuMode;
  /** Check each primitive's output against a CPU reference at the smallest size. */
  check?: boolean;
  /** Print the table (default true). */
  print?: boolean;
  /** Use an existing context (not released here). */
  context?: GpuContext;
}

export interface GpuBenchRow {
  primitive: string;
  n: number;
  /** Median GPU milliseconds per call. */
  ms: number;
  /** Elements (or pairs) per second, in G. */
  gElementsPerSecond: number;
  /** Minimum bytes moved (each input read once, each output written once) per second, in GB/s. */
  gbPerSecond: number;
  /** gbPerSecond over the streaming bandwidth of this run. */
  ofBandwidth: number;
  timer: "timestamp" | "wall";
  features: string;
  checked?: boolean;
}

interface Case {
  /** Bytes a pass over the data must move at least (for the bandwidth comparison). */
  bytes(n: number): number;
  /** Allocates inputs; returns the encoder of one timed call, a reset run before each, and a check. */
  setup(ctx: GpuContext, n: number): Promise<Prepared>;
}

interface Prepared {
  reset(batch: GpuBatch): void;
  run(batch: GpuBatch): void;
  check(): Promise<boolean>;
  free(): void;
}

export const PRIMITIVES = ["bandwidth", "scan", "segmented-scan", "compact", "radix32", "radix64", "segmented-sort", "merge"];

/** Largest size each case allocates at (bytes per element bound the memory it needs). */
const MAX_LOG2: Record<string, number> = { "segmented-sort": 26, radix64: 27 };

export async function runGpuBench(options: GpuBenchOptions = {}): Promise<GpuBenchRow[]> {
  const ctx = options.context ?? (await acquireGpu({ mode: options.mode ?? "hardware", required: true }));
  if (!ctx) throw failure("no GPU");
  try {
    const sizes = options.log2Sizes ?? [20, 22, 24, 26, 27, 28];
    const wanted = options.primitives ?? PRIMITIVES;
    const repeats = options.repeats ?? 5;
    const features = [ctx.features.subgroups ? "subgroups" : "no-subgroups", ctx.features.timestampQuery ? "timestamps" : "wall-time"].join(",");
    const rows: GpuBenchRow[] = [];
    const bandwidthAt = new Map<number, number>();
    for (const log2 of sizes) {
      const n = 2 ** log2;
      // bandwidth first at every size: the reference for the rows that follow
      for (const name of ["bandwidth", ...wanted.filter((w) => w !== "bandwidth")]) {
        if (!(name in CASES)) throw failure(`unknown GPU primitive '${name}' (known: ${PRIMITIVES.join(", ")})`);
        if (log2 > (MAX_LOG2[name] ?? 28)) continue;
        const c = CASES[name];
        const prepared = await c.setup(ctx, n);
        const times: number[] = [];
        let timer: "timestamp" | "wall" = "wall";
        for (let r = 0; r <= repeats; r++) {
          const reset = new GpuBatch(ctx, "reset");
          prepared.reset(reset);
          reset.submit();
          await ctx.finish();
          const batch = new GpuBatch(ctx, name, true);
          prepared.run(batch);
          const start = performance.now();
          batch.submit();
          await ctx.finish();
          const wall = performance.now() - start;
          const gpu = await batch.gpuNanoseconds();
          if (gpu !== undefined) timer = "timestamp";
          if (r > 0) times.push(gpu !== undefined ? gpu / 1e6 : wall);
        }
        times.sort((a, b) => a - b);
        const ms = times[Math.floor(times.length / 2)];
        const checked = options.check && (log2 === sizes[0] || name === "bandwidth") ? await prepared.check() : undefined;
        prepared.free();
        const gb = c.bytes(n) / (ms * 1e6);
        if (name === "bandwidth") bandwidthAt.set(n, gb);
        if (name === "bandwidth" && !wanted.includes("bandwidth")) continue;
        rows.push({
          primitive: name,
          n,
          ms,
          gElementsPerSecond: n / (ms * 1e6),
          gbPerSecond: gb,
          ofBandwidth: gb / (bandwidthAt.get(n) ?? gb),
          timer,
          features,
          checked,
        });
        if (checked === false) process.stderr.write(`gpu bench: ${name} at n=${n} gave a WRONG result\n`);
      }
    }
    if (options.print !== false) printTable(ctx, rows);
    return rows;
  } finally {
    if (!options.context) ctx.release();
  }
}

function printTable(ctx: GpuContext, rows: GpuBenchRow[]): void {
  const lines = [
    `device: ${ctx.adapterInfo}; features: ${rows[0]?.features ?? ""}`,
    "| primitive | n | ms | G elem/s | GB/s | of bandwidth | checked |",
    "|---|---|---|---|---|---|---|",
  ];
  for (const r of rows) {
    lines.push(
      `| ${r.primitive} | 2^${Math.log2(r.n)} | ${r.ms.toFixed(3)} | ${r.gElementsPerSecond.toFixed(2)} | ${r.gbPerSecond.toFixed(0)} | ${(100 * r.ofBandwidth).toFixed(0)}% | ${r.checked === undefined ? "" : r.checked ? "ok" : "WRONG"} |`,
    );
  }
  process.stdout.write(lines.join("\n") + "\n");
}

/** Fills `buffer` with n pseudo-random values (hash of index and seed) & mask. */
export function encodeRandom(batch: GpuBatch, buffer: GPUBuffer, n: number, seed: number, mask = 0xffffffff): void {
  const pipe = pipeline(batch.ctx, { file: "bench.wgsl", entry: "random" });
  batch.dispatch(pipe, [n, seed, mask], [undefined, undefined, buffer], Math.ceil(n / WORKGROUP_SIZE));
}

/** The CPU twin of bench.wgsl's random(). */
export function hostRandom(n: number, seed: number, mask = 0xffffffff): Uint32Array {
  const hash = (x: number): number => {
    let h = Math.imul(x >>> 0, 0x9e3779b9) >>> 0;
    h ^= h >>> 16;
    h = Math.imul(h, 0x85ebca6b) >>> 0;
    h ^= h >>> 13;
    h = Math.imul(h, 0xc2b2ae35) >>> 0;
    h ^= h >>> 16;
    return h >>> 0;
  };
  const s = hash(seed);
  const out = new Uint32Array(n);
  for (let i = 0; i < n; i++) out[i] = (hash((i ^ s) >>> 0) & mask) >>> 0;
  return out;
}

function buffers(ctx: GpuContext, count: number, n: number): GPUBuffer[] {
  return Array.from({ length: count }, () => ctx.pool.acquire(Math.max(4, n * 4)));
}

function freeAll(ctx: GpuContext, list: GPUBuffer[]): void {
  for (const b of list) ctx.pool.release(b);
  ctx.pool.afterSubmit();
  ctx.pool.trim();
}

async function generated(ctx: GpuContext, fill: (batch: GpuBatch) => void): Promise<void> {
  const batch = new GpuBatch(ctx, "generate");
  fill(batch);
  batch.submit();
  await ctx.finish();
}

const CASES: Record<string, Case> = {
  bandwidth: {
    bytes: (n) => 2 * 4 * n,
    async setup(ctx, n) {
      const [src, dst] = buffers(ctx, 2, n);
      await generated(ctx, (b) => encodeRandom(b, src, n, 1));
      const pipe = pipeline(ctx, { file: "bench.wgsl", entry: "stream" });
      return {
        reset() {},
        run(b) {
          b.dispatch(pipe, [n / 4], [src, dst], Math.ceil(n / 4 / WORKGROUP_SIZE));
        },
        async check() {
          const a = await readU32(ctx, src, 1024);
          const c = await readU32(ctx, dst, 1024);
          return a.every((v, i) => c[i] === ((v + 1) >>> 0));
        },
        free: () => freeAll(ctx, [src, dst]),
      };
    },
  },
  scan: scanCase(false),
  "segmented-scan": scanCase(true),
  compact: {
    bytes: (n) => 4 * n * 2 + 4 * n / 2,
    async setup(ctx, n) {
      const [values, flags, out, count] = buffers(ctx, 4, n);
      await generated(ctx, (b) => {
        encodeRandom(b, values, n, 3);
        encodeRandom(b, flags, n, 4, 1);
      });
      return {
        reset() {},
        run: (b) => encodeCompact(b, values, flags, out, count, n),
        async check() {
          const v = await readU32(ctx, values, n);
          const f = await readU32(ctx, flags, n);
          const kept = v.filter((_, i) => f[i] !== 0);
          const got = await readU32(ctx, out, kept.length);
          const c = await readU32(ctx, count, 1);
          return c[0] === kept.length && got.every((x, i) => x === kept[i]);
        },
        free: () => freeAll(ctx, [values, flags, out, count]),
      };
    },
  },
  radix32: radixCase(1),
  radix64: radixCase(2),
  "segmented-sort": {
    bytes: (n) => 4 * n * 5,
    async setup(ctx, n) {
      const [keys0, keys, values, heads] = buffers(ctx, 4, n);
      const headsHost = randomHeads(n, 2, 1000, 7);
      const staging = ctx.device.createBuffer({ size: n * 4, usage: 0x2 | 0x4, mappedAtCreation: true });
      new Uint32Array(staging.getMappedRange()).set(headsHost);
      staging.unmap();
      await generated(ctx, (b) => {
        encodeRandom(b, keys0, n, 5);
        b.copy(staging, 0, heads, 0, n * 4);
      });
      staging.destroy();
      return {
        reset(b) {
          b.copy(keys0, 0, keys, 0, n * 4);
          encodeIota(b, values, n);
        },
        run: (b) => encodeSegmentedSort(b, keys, values, heads, n),
        async check() {
          const k0 = await readU32(ctx, keys0, n);
          const k = await readU32(ctx, keys, n);
          const v = await readU32(ctx, values, n);
          for (let s = 0; s < n; ) {
            let e = s + 1;
            while (e < n && headsHost[e] === 0) e++;
            const order = Array.from({ length: e - s }, (_, i) => s + i).sort((a, b) => k0[a] - k0[b] || a - b);
            for (let i = 0; i < order.length; i++) if (v[s + i] !== order[i] || k[s + i] !== k0[order[i]]) return false;
            s = e;
          }
          return true;
        },
        free: () => freeAll(ctx, [keys0, keys, values, heads]),
      };
    },
  },
  merge: {
    bytes: (n) => 4 * n * 4,
    async setup(ctx, n) {
      const half = n / 2;
      const [a, av, b, bv, out, outv] = buffers(ctx, 6, n);
      await generated(ctx, (batch) => {
        encodeRandom(batch, a, half, 8);
        encodeRandom(batch, b, half, 9);
        encodeIota(batch, av, half);
        encodeIota(batch, bv, half, half);
        encodeRadixSortPairs(batch, a, av, half);
        encodeRadixSortPairs(batch, b, bv, half);
      });
      return {
        reset() {},
        run: (batch) => encodeMerge(batch, { keys: a, values: av, n: half }, { keys: b, values: bv, n: half }, { keys: out, values: outv }),
        async check() {
          const ka = await readU32(ctx, a, half);
          const kb = await readU32(ctx, b, half);
          const ko = await readU32(ctx, out, n);
          const vo = await readU32(ctx, outv, n);
          const all = Array.from({ length: n }, (_, i) => i).map((i) => (i < half ? ka[i] : kb[i - half]));
          const va = await readU32(ctx, av, half);
          const vb = await readU32(ctx, bv, half);
          const vals = [...va, ...vb];
          const order = Array.from({ length: n }, (_, i) => i).sort((x, y) => all[x] - all[y] || x - y);
          return order.every((i, j) => ko[j] === all[i] && vo[j] === vals[i]);
        },
        free: () => freeAll(ctx, [a, av, b, bv, out, outv]),
      };
    },
  },
};


function scanCase(segmented: boolean): Case {
  return {
    bytes: (n) => 4 * n * (segmented ? 3 : 2),
    async setup(ctx, n) {
      const [input, heads, out] = buffers(ctx, 3, n);
      await generated(ctx, (b) => {
        encodeRandom(b, input, n, 11);
        encodeRandom(b, heads, n, 12, 63);
      });
      return {
        reset() {},
        run: (b) => encodeExclusiveScan(b, input, out, n, segmented ? { heads } : {}),
        async check() {
          const x = await readU32(ctx, input, n);
          const h = await readU32(ctx, heads, n);
          const got = await readU32(ctx, out, n);
          let sum = 0;
          for (let i = 0; i < n; i++) {
            if (segmented && h[i] !== 0) sum = 0;
            if (got[i] !== sum) return false;
            sum = (sum + x[i]) >>> 0;
          }
          return true;
        },
        free: () => freeAll(ctx, [input, heads, out]),
      };
    },
  };
}

function radixCase(keyWords: 1 | 2): Case {
  return {
    bytes: (n) => 4 * n * 2 * (1 + keyWords),
    async setup(ctx, n) {
      const [low0, high0, low, high, values] = buffers(ctx, 5, n);
      await generated(ctx, (b) => {
        encodeRandom(b, low0, n, 21);
        encodeRandom(b, high0, n, 22);
      });
      return {
        reset(b) {
          b.copy(low0, 0, low, 0, n * 4);
          b.copy(high0, 0, high, 0, n * 4);
          encodeIota(b, values, n);
        },
        run: (b) => (keyWords === 1 ? encodeRadixSortPairs(b, low, values, n) : encodeRadixSortPairs64(b, low, high, values, n)),
        async check() {
          const l0 = await readU32(ctx, low0, n);
          const h0 = await readU32(ctx, high0, n);
          const v = await readU32(ctx, values, n);
          const order = Array.from({ length: n }, (_, i) => i).sort((a, b) =>
            keyWords === 2 ? h0[a] - h0[b] || l0[a] - l0[b] || a - b : l0[a] - l0[b] || a - b,
          );
          return order.every((i, j) => v[j] === i);
        },
        free: () => freeAll(ctx, [low0, high0, low, high, values]),
      };
    },
  };
}

/** Head flags of segments with lengths uniform in [minLength, maxLength] (the last one may be shorter). */
export function randomHeads(n: number, minLength: number, maxLength: number, seed: number): Uint32Array {
  const heads = new Uint32Array(n);
  const r = hostRandom(Math.max(1, Math.ceil(n / minLength) + 1), seed);
  let at = 0;
  for (let s = 0; at < n; s++) {
    heads[at] = 1;
    at += minLength + (r[s] % (maxLength - minLength + 1));
  }
  return heads;
}
