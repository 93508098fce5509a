// Segmented sort: every segment sorted by key (stably), segments in place; mixes of segment lengths
// and key distributions, u32 and u64 keys, against a CPU sort of each segment.
import { describe } from "vitest";
import { GpuBatch } from "../../src/gpu/kernels.js";
import { encodeSegmentedSort, SEGSORT_TILE, segmentedSortTile } from "../../src/gpu/primitives/segmented-sort.js";
import { expectEqualArrays, gpuIt, iotaArray, KEY_KINDS, makeHeads, makeKeys, SEGMENT_KINDS, withTune } from "./support.js";

/** Indices in output order: each segment's indices stably sorted by key ((high, low) with high words). */
function cpuSegmentedOrder(keys: Uint32Array, heads: Uint32Array, high?: Uint32Array): Uint32Array {
  const n = keys.length;
  const order = new Uint32Array(n);
  const highOf = (i: number) => (high ? high[i] : 0);
  for (let start = 0; start < n; ) {
    let end = start + 1;
    while (end < n && heads[end] === 0) end++;
    const segment = Array.from({ length: end - start }, (_, i) => start + i).sort((a, b) => highOf(a) - highOf(b) || keys[a] - keys[b] || a - b);
    order.set(segment, start);
    start = end;
  }
  return order;
}

async function check(ctx: Parameters<Parameters<typeof gpuIt>[1]>[0], buffers: Parameters<Parameters<typeof gpuIt>[1]>[1], keys: Uint32Array, heads: Uint32Array, longest?: number, high?: Uint32Array): Promise<void> {
  const n = keys.length;
  const keyBuffer = buffers.upload(keys);
  const highBuffer = high ? buffers.upload(high) : undefined;
  const valueBuffer = buffers.upload(iotaArray(n));
  const batch = new GpuBatch(ctx);
  encodeSegmentedSort(batch, keyBuffer, valueBuffer, buffers.upload(heads), n, { longest, ...(highBuffer ? { keysHigh: highBuffer } : {}) });
  batch.submit();
  const order = cpuSegmentedOrder(keys, heads, high);
  expectEqualArrays(await buffers.read(valueBuffer, n), order, "values (stable order)");
  expectEqualArrays(await buffers.read(keyBuffer, n), order.map((i) => keys[i]), "keys");
  if (high && highBuffer) expectEqualArrays(await buffers.read(highBuffer, n), order.map((i) => high[i]), "high words of the keys");
}

/** Segments of at most `half` pairs (when `straddling`: after one of half / 2, all of `half`) and their longest. */
function shortSegments(n: number, half: number, straddling: boolean): { heads: Uint32Array; longest: number } {
  const heads = new Uint32Array(n);
  let longest = 0;
  for (let at = 0, s = 0; at < n; s++) {
    heads[at] = 1;
    const length = straddling ? (at === 0 ? Math.max(1, Math.floor(half / 2)) : half) : 1 + ((s * 7919 + n) % half);
    longest = Math.max(longest, Math.min(length, n - at));
    at += length;
  }
  return { heads, longest };
}

describe("GPU segmented sort", () => {
  const tile = SEGSORT_TILE;
  for (const segments of SEGMENT_KINDS) {
    // tile is llvmpipe's; hardware tiles hold 15 pairs per invocation
    for (const n of [0, 1, 2, tile - 1, tile, tile + 1, (tile / 8) * 15 - 1, (tile / 8) * 15 + 1, 4 * tile + 13, 25_001]) {
      gpuIt(`segments ${segments}, random keys, n = ${n}`, async (ctx, buffers) => {
        await check(ctx, buffers, makeKeys(n, "all-bits", n + 3), makeHeads(n, segments, n + 4));
      });
    }
  }

  for (const kind of KEY_KINDS) {
    gpuIt(`keys ${kind} in random segments`, async (ctx, buffers) => {
      const n = 6 * tile + 1;
      await check(ctx, buffers, makeKeys(n, kind, 11), makeHeads(n, "random", 12));
    });
  }

  gpuIt("segments crossing many tile boundaries (lengths up to 5 tiles)", async (ctx, buffers) => {
    const n = 40 * tile + 5;
    const heads = new Uint32Array(n);
    for (let at = 0, s = 0; at < n; s++) {
      heads[at] = 1;
      at += 1 + ((s * 7919) % (5 * tile));
    }
    await check(ctx, buffers, makeKeys(n, "few-distinct", 5), heads);
  });

  // With the longest segment known to be at most half a tile, a blocksort over tiles shifted by half
  // a tile takes the place of the merge passes.
  for (const [label, first] of [["random starts", 0], ["segments straddling every tile boundary", 1]] as const) {
    gpuIt(`segments of at most half a tile, longest given (${label})`, async (ctx, buffers) => {
      const half = tile / 2;
      for (const n of [tile + 1, 9 * tile + 7, 25_001]) {
        // "straddling": after a quarter tile, segments of exactly half a tile, every other one across a boundary
        const { heads, longest } = shortSegments(n, half, first === 1);
        await check(ctx, buffers, makeKeys(n, "all-bits", n + 7), heads, longest);
        await check(ctx, buffers, makeKeys(n, "few-distinct", n + 8), heads, longest);
      }
    });
  }

  // Segments of at most a tile cross one tile boundary at most: two merge passes of width one tile
  // (odd boundaries, then even ones) take the place of the doubling merge passes.
  for (const [label, first] of [["random starts", 0], ["segments straddling every tile boundary", 1]] as const) {
    gpuIt(`segments of at most a tile, longest given (${label})`, async (ctx, buffers) => {
      const tile = segmentedSortTile(ctx, 1);
      for (const n of [2 * tile, 2 * tile + 1, 3 * tile + 5, 9 * tile + 7, 25_001]) {
        // "straddling": after half a tile, segments of exactly a tile, each across a boundary
        const { heads, longest } = shortSegments(n, tile, first === 1);
        await check(ctx, buffers, makeKeys(n, "all-bits", n + 17), heads, longest);
        await check(ctx, buffers, makeKeys(n, "few-distinct", n + 18), heads, longest);
      }
    });
  }

  // Segments longer than a tile, longest given: the doubling merge passes stop at runs of at least
  // `longest` pairs, then two passes (odd boundaries, then even ones) finish. Lengths just over a
  // run width and exactly one; "straddling" puts segments of exactly `longest` across every kind
  // of run boundary.
  for (const [label, first] of [["random starts", 0], ["straddling", 1]] as const) {
    gpuIt(`segments longer than a tile, longest given (${label}; u32 and u64 keys)`, async (ctx, buffers) => {
      for (const keyWords of [1, 2] as const) {
        const tile = segmentedSortTile(ctx, keyWords);
        for (const [half, n] of [[tile + 1, 9 * tile + 5], [2 * tile, 17 * tile + 3], [3 * tile + 1, 21 * tile], [4 * tile, 33 * tile + 1]]) {
          const { heads, longest } = shortSegments(n, half, first === 1);
          const high = keyWords === 2 ? makeKeys(n, "few-distinct", n + 29) : undefined;
          await check(ctx, buffers, makeKeys(n, "all-bits", n + 27), heads, longest, high);
          await check(ctx, buffers, makeKeys(n, "few-distinct", n + 28), heads, longest, high);
        }
      }
      // a bound over the true longest segment is still a bound
      const n = 12 * SEGSORT_TILE + 3;
      await check(ctx, buffers, makeKeys(n, "all-bits", 71), makeHeads(n, "random", 72), 5 * SEGSORT_TILE);
    });
  }

  // The blocksort runs 256, 512 or 1024 invocations per tile (fewer pairs each); each width sorts alike.
  for (const width of [1, 2, 4]) {
    gpuIt(`blocksort workgroups ${width}x as wide (u32 and u64 keys)`, async (ctx, buffers) => {
      await withTune(`segsort.blocksortWidth=${width}`, async () => {
        for (const segments of ["random", "one-huge"] as const) {
          const n = 5 * segmentedSortTile(ctx, 1) + 17;
          await check(ctx, buffers, makeKeys(n, "few-distinct", 61 + width), makeHeads(n, segments, 62));
          await check(ctx, buffers, makeKeys(n, "all-bits", 63), makeHeads(n, segments, 64), undefined, makeKeys(n, "few-distinct", 65));
        }
        const { heads, longest } = shortSegments(3 * segmentedSortTile(ctx, 2) + 9, segmentedSortTile(ctx, 2) / 2, true);
        const m = heads.length;
        await check(ctx, buffers, makeKeys(m, "all-bits", 66), heads, longest, makeKeys(m, "few-distinct", 67));
      });
    });
  }

  gpuIt("2^20 pairs in random segments of length 1..1000", async (ctx, buffers) => {
    const n = 1 << 20;
    await check(ctx, buffers, makeKeys(n, "all-bits", 21), makeHeads(n, "random", 22));
  });

  gpuIt("2^20 pairs in one segment (a full merge sort)", async (ctx, buffers) => {
    const n = 1 << 20;
    await check(ctx, buffers, makeKeys(n, "all-bits", 31), makeHeads(n, "one-huge", 32));
  });

  describe("64-bit keys (high, low)", () => {
    // the tile of u64 keys is the device's (7 pairs per invocation on llvmpipe, 11 on an H200)
    const keys64 = (n: number, seed: number) => {
      const high = makeKeys(n, "few-distinct", seed); // many ties in the high words
      return { low: makeKeys(n, "all-bits", seed + 1), high };
    };
    for (const segments of SEGMENT_KINDS) {
      gpuIt(`segments ${segments}, n around the tile`, async (ctx, buffers) => {
        const tile = segmentedSortTile(ctx, 2);
        for (const n of [0, 1, 2, tile - 1, tile, tile + 1, 4 * tile + 13, 25_001]) {
          const { low, high } = keys64(n, n + 5);
          await check(ctx, buffers, low, makeHeads(n, segments, n + 6), undefined, high);
        }
      });
    }

    gpuIt("equal high words (the low words decide), and equal low words", async (ctx, buffers) => {
      const n = 6 * segmentedSortTile(ctx, 2) + 1;
      await check(ctx, buffers, makeKeys(n, "all-bits", 41), makeHeads(n, "random", 42), undefined, new Uint32Array(n).fill(9));
      await check(ctx, buffers, new Uint32Array(n).fill(3), makeHeads(n, "random", 43), undefined, makeKeys(n, "all-bits", 44));
    });

    gpuIt("segments of at most half a tile, longest given", async (ctx, buffers) => {
      const tile = segmentedSortTile(ctx, 2);
      for (const straddling of [false, true]) {
        for (const n of [tile + 1, 9 * tile + 7, 25_001]) {
          const { heads, longest } = shortSegments(n, tile / 2, straddling);
          const { low, high } = keys64(n, n + 9);
          await check(ctx, buffers, low, heads, longest, high);
        }
      }
    });

    gpuIt("segments of at most a tile, longest given", async (ctx, buffers) => {
      const tile = segmentedSortTile(ctx, 2);
      for (const straddling of [false, true]) {
        for (const n of [2 * tile + 1, 9 * tile + 7, 25_001]) {
          const { heads, longest } = shortSegments(n, tile, straddling);
          const { low, high } = keys64(n, n + 19);
          await check(ctx, buffers, low, heads, longest, high);
        }
      }
    });

    gpuIt("2^18 pairs in one segment (a full merge sort)", async (ctx, buffers) => {
      const n = 1 << 18;
      const { low, high } = keys64(n, 51);
      await check(ctx, buffers, low, makeHeads(n, "one-huge", 52), undefined, high);
    });
  });
});
