// Exclusive scan (plain, segmented, inclusive, flag counting) and stream compaction against CPU references.
import { describe } from "vitest";
import { encodeCompact } from "../../src/gpu/primitives/compact.js";
import { encodeExclusiveScan, SCAN_ITEMS, SEGMENTED_SCAN_ITEMS } from "../../src/gpu/primitives/scan.js";
import { GpuBatch, WORKGROUP_SIZE } from "../../src/gpu/kernels.js";
import { rng } from "../support/inputs.js";
import { expectEqualArrays, gpuIt, makeHeads, SEGMENT_KINDS } from "./support.js";

const TILE = WORKGROUP_SIZE * SCAN_ITEMS;
const SEGMENTED_TILE = WORKGROUP_SIZE * SEGMENTED_SCAN_ITEMS;
const SIZES = [0, 1, 2, 3, 255, TILE - 1, TILE, TILE + 1, SEGMENTED_TILE - 1, SEGMENTED_TILE + 1, 3 * TILE + 7, 40_001, 1 << 20];

function randomValues(n: number, seed: number, bound = 4294967296): Uint32Array {
  const r = rng(seed);
  const out = new Uint32Array(n);
  for (let i = 0; i < n; i++) out[i] = Math.floor(r() * bound);
  return out;
}

function cpuScan(values: Uint32Array, heads?: Uint32Array, inclusive = false, countNonzero = false): Uint32Array {
  const out = new Uint32Array(values.length);
  let sum = 0;
  for (let i = 0; i < values.length; i++) {
    if (heads && heads[i] !== 0) sum = 0;
    const v = countNonzero ? (values[i] !== 0 ? 1 : 0) : values[i];
    if (!inclusive) out[i] = sum;
    sum = (sum + v) >>> 0;
    if (inclusive) out[i] = sum;
  }
  return out;
}

describe("GPU exclusive scan", () => {
  for (const n of SIZES) {
    gpuIt(`plain scan of ${n} random u32 (sums wrap)`, async (ctx, buffers) => {
      const values = randomValues(n, n + 1);
      const input = buffers.upload(values);
      const output = buffers.empty(n);
      const batch = new GpuBatch(ctx);
      encodeExclusiveScan(batch, input, output, n);
      batch.submit();
      expectEqualArrays(await buffers.read(output, n), cpuScan(values), "scan");
    });
  }

  // Buffers padded to whole vec4s take the 16-byte path; the last quad reaches past n there.
  for (const n of [5, TILE + 3, 2 * TILE - 2]) {
    gpuIt(`vec4 path: ${n} values in padded buffers, words past n kept`, async (ctx, buffers) => {
      const padded = Math.ceil(n / 4) * 4 + 4;
      const values = randomValues(padded, n + 3);
      const before = randomValues(padded, n + 4);
      const output = buffers.upload(before);
      const batch = new GpuBatch(ctx);
      encodeExclusiveScan(batch, buffers.upload(values), output, n);
      batch.submit();
      const got = await buffers.read(output, padded);
      expectEqualArrays(got.subarray(0, n), cpuScan(values.subarray(0, n)), "scan");
      expectEqualArrays(got.subarray(n), before.subarray(n), "words past n");
    });
  }

  gpuIt("inclusive scan and flag counting", async (ctx, buffers) => {
    const n = 3 * TILE + 11;
    const values = randomValues(n, 5, 3); // zeros and nonzeros
    const input = buffers.upload(values);
    const output = buffers.empty(n);
    let batch = new GpuBatch(ctx);
    encodeExclusiveScan(batch, input, output, n, { inclusive: true });
    batch.submit();
    expectEqualArrays(await buffers.read(output, n), cpuScan(values, undefined, true), "inclusive");
    batch = new GpuBatch(ctx);
    encodeExclusiveScan(batch, input, output, n, { countNonzero: true });
    batch.submit();
    expectEqualArrays(await buffers.read(output, n), cpuScan(values, undefined, false, true), "count nonzero");
  });
});

describe("GPU segmented scan", () => {
  for (const kind of SEGMENT_KINDS) {
    for (const n of [1, SEGMENTED_TILE - 1, SEGMENTED_TILE + 1, TILE, 2 * TILE + 4, 20_011]) {
      gpuIt(`segments ${kind}, n = ${n}`, async (ctx, buffers) => {
        const values = randomValues(n, n + 7);
        const heads = makeHeads(n, kind, n);
        if (kind === "random" && n > 1) heads[0] = 0; // a first segment without a head flag
        const output = buffers.empty(n);
        const batch = new GpuBatch(ctx);
        encodeExclusiveScan(batch, buffers.upload(values), output, n, { heads: buffers.upload(heads) });
        batch.submit();
        expectEqualArrays(await buffers.read(output, n), cpuScan(values, heads), "segmented scan");
      });
    }
  }

  gpuIt("2^20 elements in random segments, one huge segment across tiles", async (ctx, buffers) => {
    const n = 1 << 20;
    const values = randomValues(n, 99);
    const heads = makeHeads(n, "random", 3);
    heads.fill(0, 1000, 300_000); // one segment spanning many tiles
    const output = buffers.empty(n);
    const batch = new GpuBatch(ctx);
    encodeExclusiveScan(batch, buffers.upload(values), output, n, { heads: buffers.upload(heads) });
    batch.submit();
    expectEqualArrays(await buffers.read(output, n), cpuScan(values, heads), "segmented scan");
  });
});

describe("GPU stream compaction", () => {
  for (const [n, density] of [
    [0, 0.5],
    [1, 1],
    [1, 0],
    [TILE - 1, 0.5],
    [TILE + 1, 0.01],
    [50_003, 0.3],
    [1 << 20, 0.5],
  ] as const) {
    gpuIt(`n = ${n}, keep fraction ${density}`, async (ctx, buffers) => {
      const r = rng(n + 17);
      const values = randomValues(n, n + 3);
      const flags = new Uint32Array(n);
      for (let i = 0; i < n; i++) flags[i] = r() < density ? 1 + (i % 5) : 0; // any nonzero keeps
      const want = values.filter((_, i) => flags[i] !== 0);
      const output = buffers.empty(n);
      const count = buffers.upload(new Uint32Array([12345]));
      const batch = new GpuBatch(ctx);
      encodeCompact(batch, buffers.upload(values), buffers.upload(flags), output, count, n);
      // the pair form: two value arrays by one set of flags
      const second = values.map((v) => v ^ 0x5a5a5a5a);
      const pairOutput = [buffers.empty(n), buffers.empty(n)];
      const pairCount = buffers.upload(new Uint32Array([12345]));
      encodeCompact(batch, buffers.upload(values), buffers.upload(flags), pairOutput[0], pairCount, n, {
        values: buffers.upload(second),
        output: pairOutput[1],
      });
      batch.submit();
      const kept = (await buffers.read(count, 1))[0];
      expectEqualArrays(new Uint32Array([kept]), new Uint32Array([want.length]), "count");
      expectEqualArrays(await buffers.read(output, kept), want, "compacted");
      expectEqualArrays(await buffers.read(pairCount, 1), new Uint32Array([want.length]), "pair count");
      expectEqualArrays(await buffers.read(pairOutput[0], kept), want, "pair, first array");
      expectEqualArrays(await buffers.read(pairOutput[1], kept), second.filter((_, i) => flags[i] !== 0), "pair, second array");
    });
  }
});
