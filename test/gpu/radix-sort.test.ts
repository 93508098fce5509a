// LSD radix sort of (u32, u32) and (u64, u32) pairs: stable, full keys and bit ranges, against a
// stable CPU sort of the indices.
import { describe, expect } from "vitest";
import { GpuBatch, WORKGROUP_SIZE } from "../../src/gpu/kernels.js";
import { encodeRadixSortPairs, encodeRadixSortPairs64, radixPasses } from "../../src/gpu/primitives/radix-sort.js";
import { expectEqualArrays, gpuIt, iotaArray, KEY_KINDS, makeKeys, withTune } from "./support.js";

const TILE32 = WORKGROUP_SIZE * 8; // the llvmpipe tile; hardware uses WORKGROUP_SIZE * 16
const TILE32_LARGE = WORKGROUP_SIZE * 16;
const TILE64 = WORKGROUP_SIZE * 6; // the llvmpipe tile; hardware uses WORKGROUP_SIZE * 12
const TILE64_LARGE = WORKGROUP_SIZE * 12;

/** Bits [begin, end) of a 32-bit word whose lowest bit is key bit `offset`, as a number. */
function wordBits(word: number, offset: number, begin: number, end: number): number {
  const from = Math.max(begin - offset, 0);
  const to = Math.min(end - offset, 32);
  if (to <= from) return 0;
  return Math.floor((word >>> 0) / 2 ** from) % 2 ** (to - from);
}

/** Indices 0..n-1 stably sorted by the bits [begin, end) of (high:low). */
function cpuOrder(low: Uint32Array, high: Uint32Array | undefined, begin: number, end: number): Uint32Array {
  const n = low.length;
  const lowBits = Float64Array.from(low, (w) => wordBits(w, 0, begin, end));
  const highBits = Float64Array.from({ length: n }, (_, i) => (high ? wordBits(high[i], 32, begin, end) : 0));
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => highBits[a] - highBits[b] || lowBits[a] - lowBits[b] || a - b);
  return Uint32Array.from(order);
}

function permute(source: Uint32Array, order: Uint32Array): Uint32Array {
  return order.map((i) => source[i]);
}

describe("radix passes", () => {
  gpuIt("cover the bit range in digits that never straddle a word", async () => {
    expect(radixPasses(0, 32).length).toBe(8);
    expect(radixPasses(3, 9)).toEqual([
      { word: 0, shift: 3, bits: 4 },
      { word: 0, shift: 7, bits: 2 },
    ]);
    expect(radixPasses(30, 35)).toEqual([
      { word: 0, shift: 30, bits: 2 },
      { word: 1, shift: 0, bits: 3 },
    ]);
  });
});

describe("GPU radix sort of (u32 key, u32 value)", () => {
  const sizes = [0, 1, 2, 7, TILE32 - 1, TILE32, TILE32 + 1, TILE32_LARGE - 1, TILE32_LARGE + 1, 5 * TILE32 + 3, 30_001];
  for (const kind of KEY_KINDS) {
    for (const n of sizes) {
      gpuIt(`${kind}, n = ${n}`, async (ctx, buffers) => {
        const keys = makeKeys(n, kind, n * 31 + 1);
        const values = iotaArray(n);
        const keyBuffer = buffers.upload(keys);
        const valueBuffer = buffers.upload(values);
        const batch = new GpuBatch(ctx);
        encodeRadixSortPairs(batch, keyBuffer, valueBuffer, n);
        batch.submit();
        const order = cpuOrder(keys, undefined, 0, 32);
        expectEqualArrays(await buffers.read(valueBuffer, n), order, "values (stable order)");
        expectEqualArrays(await buffers.read(keyBuffer, n), permute(keys, order), "keys");
      });
    }
  }

  for (const [begin, end] of [
    [0, 9],
    [5, 17],
    [24, 32],
    [12, 12],
  ] as const) {
    gpuIt(`bit range [${begin}, ${end}) sorts by those bits only, stably`, async (ctx, buffers) => {
      const n = 3 * TILE32 + 5;
      const keys = makeKeys(n, "all-bits", begin * 100 + end);
      const keyBuffer = buffers.upload(keys);
      const valueBuffer = buffers.upload(iotaArray(n));
      const batch = new GpuBatch(ctx);
      encodeRadixSortPairs(batch, keyBuffer, valueBuffer, n, { beginBit: begin, endBit: end });
      batch.submit();
      const order = begin === end ? iotaArray(n) : cpuOrder(keys, undefined, begin, end);
      expectEqualArrays(await buffers.read(valueBuffer, n), order, "values");
    });
  }

  gpuIt("2^20 pairs with all key bits", async (ctx, buffers) => {
    const n = 1 << 20;
    const keys = makeKeys(n, "all-bits", 2024);
    const keyBuffer = buffers.upload(keys);
    const valueBuffer = buffers.upload(iotaArray(n));
    const batch = new GpuBatch(ctx);
    encodeRadixSortPairs(batch, keyBuffer, valueBuffer, n);
    batch.submit();
    const order = cpuOrder(keys, undefined, 0, 32);
    expectEqualArrays(await buffers.read(valueBuffer, n), order, "values");
  });

  gpuIt("rejects a bit range outside the key", async (ctx, buffers) => {
    const keyBuffer = buffers.empty(4);
    const batch = new GpuBatch(ctx);
    expect(() => encodeRadixSortPairs(batch, keyBuffer, keyBuffer, 4, { beginBit: 0, endBit: 33 })).toThrow(/bit range/);
    batch.submit();
  });
});

describe("GPU radix sort of (u64 key, u32 value)", () => {
  const sizes = [0, 1, 3, TILE64 - 1, TILE64, TILE64 + 1, TILE64_LARGE - 1, TILE64_LARGE + 1, 4 * TILE64 + 9];
  for (const kind of KEY_KINDS) {
    for (const n of sizes) {
      gpuIt(`${kind}, n = ${n}`, async (ctx, buffers) => {
        const low = makeKeys(n, kind, n + 5);
        const high = makeKeys(n, kind, n + 6);
        if (kind === "sorted" || kind === "reverse") low.set(makeKeys(n, "few-distinct", 1)); // ties in high, order by low
        const lowBuffer = buffers.upload(low);
        const highBuffer = buffers.upload(high);
        const valueBuffer = buffers.upload(iotaArray(n));
        const batch = new GpuBatch(ctx);
        encodeRadixSortPairs64(batch, lowBuffer, highBuffer, valueBuffer, n);
        batch.submit();
        const order = cpuOrder(low, high, 0, 64);
        expectEqualArrays(await buffers.read(valueBuffer, n), order, "values");
        expectEqualArrays(await buffers.read(lowBuffer, n), permute(low, order), "low words");
        expectEqualArrays(await buffers.read(highBuffer, n), permute(high, order), "high words");
      });
    }
  }

  gpuIt("bit range [20, 44) across the word boundary", async (ctx, buffers) => {
    const n = 2 * TILE64 + 77;
    const low = makeKeys(n, "all-bits", 8);
    const high = makeKeys(n, "all-bits", 9);
    const valueBuffer = buffers.upload(iotaArray(n));
    const batch = new GpuBatch(ctx);
    encodeRadixSortPairs64(batch, buffers.upload(low), buffers.upload(high), valueBuffer, n, { beginBit: 20, endBit: 44 });
    batch.submit();
    expectEqualArrays(await buffers.read(valueBuffer, n), cpuOrder(low, high, 20, 44), "values");
  });

  gpuIt("2^20 pairs, few distinct high words", async (ctx, buffers) => {
    const n = 1 << 20;
    const low = makeKeys(n, "all-bits", 77);
    const high = makeKeys(n, "few-distinct", 78);
    const valueBuffer = buffers.upload(iotaArray(n));
    const batch = new GpuBatch(ctx);
    encodeRadixSortPairs64(batch, buffers.upload(low), buffers.upload(high), valueBuffer, n);
    batch.submit();
    expectEqualArrays(await buffers.read(valueBuffer, n), cpuOrder(low, high, 0, 64), "values");
  }, 120_000);
});

// The 8-bit passes (wgsl/radix_sort_wide.wgsl) run where subgroups have 32 lanes or more (the
// hardware runs of these tests); elsewhere these cases take the 4-bit passes again. Sizes around
// the runs of 32 lanes and the tiles of 256 * items pairs, for several items per invocation.
describe("GPU radix sort by 8-bit digits", () => {
  for (const items of [1, 3, 4]) {
    const tile = WORKGROUP_SIZE * items;
    for (const n of new Set([31, 33, 32 * items + 1, tile - 1, tile, tile + 1, 3 * tile + 40])) {
      gpuIt(`items ${items}, n = ${n}: u32 and u64 keys, every key kind, in the stable CPU order`, async (ctx, buffers) => {
        for (const kind of KEY_KINDS) {
          const low = makeKeys(n, kind, n * 7 + items);
          const high = makeKeys(n, kind === "all-bits" ? "few-distinct" : kind, n * 7 + items + 1);
          const sorted = await withTune(`radix.wideItems=${items}`, async () => {
            const keys32 = buffers.upload(low);
            const values32 = buffers.upload(iotaArray(n));
            const lowBuffer = buffers.upload(low);
            const highBuffer = buffers.upload(high);
            const values64 = buffers.upload(iotaArray(n));
            const batch = new GpuBatch(ctx);
            encodeRadixSortPairs(batch, keys32, values32, n, { beginBit: 3, endBit: 29 });
            encodeRadixSortPairs64(batch, lowBuffer, highBuffer, values64, n, { endBit: 58 });
            batch.submit();
            return [await buffers.read(values32, n), await buffers.read(values64, n)];
          });
          expectEqualArrays(sorted[0], cpuOrder(low, undefined, 3, 29), `${kind}: u32 keys, bits [3, 29)`);
          expectEqualArrays(sorted[1], cpuOrder(low, high, 0, 58), `${kind}: u64 keys, bits [0, 58)`);
        }
      });
    }
  }
});
