// Segmented sort: every segment sorted by key (stably), segments in place; mixes of segment lengths
// and key distributions, against a CPU sort of each segment.
import { describe } from "vitest";
import { GpuBatch } from "../../src/gpu/kernels.js";
import { encodeSegmentedSort, SEGSORT_TILE } from "../../src/gpu/primitives/segmented-sort.js";
import { expectEqualArrays, gpuIt, iotaArray, KEY_KINDS, makeHeads, makeKeys, SEGMENT_KINDS } from "./support.js";

/** Indices in output order: each segment's indices stably sorted by key. */
function cpuSegmentedOrder(keys: Uint32Array, heads: Uint32Array): Uint32Array {
  const n = keys.length;
  const order = new Uint32Array(n);
  for (let start = 0; start < n; ) {
    let end = start + 1;
    while (end < n && heads[end] === 0) end++;
    const segment = Array.from({ length: end - start }, (_, i) => start + i).sort((a, b) => keys[a] - keys[b] || a - b);
    order.set(segment, start);
    start = end;
  }
  return order;
}

async function check(ctx: Parameters<Parameters<typeof gpuIt>[1]>[0], buffers: Parameters<Parameters<typeof gpuIt>[1]>[1], keys: Uint32Array, heads: Uint32Array, longest?: number): Promise<void> {
  const n = keys.length;
  const keyBuffer = buffers.upload(keys);
  const valueBuffer = buffers.upload(iotaArray(n));
  const batch = new GpuBatch(ctx);
  encodeSegmentedSort(batch, keyBuffer, valueBuffer, buffers.upload(heads), n, longest);
  batch.submit();
  const order = cpuSegmentedOrder(keys, heads);
  expectEqualArrays(await buffers.read(valueBuffer, n), order, "values (stable order)");
  expectEqualArrays(await buffers.read(keyBuffer, n), order.map((i) => keys[i]), "keys");
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
        const heads = new Uint32Array(n);
        let longest = 0;
        // "straddling": after a quarter tile, segments of exactly half a tile, every other one across a boundary
        for (let at = 0, s = 0; at < n; s++) {
          heads[at] = 1;
          const length = first ? (at === 0 ? half / 2 : half) : 1 + ((s * 7919 + n) % half);
          longest = Math.max(longest, Math.min(length, n - at));
          at += length;
        }
        await check(ctx, buffers, makeKeys(n, "all-bits", n + 7), heads, longest);
        await check(ctx, buffers, makeKeys(n, "few-distinct", n + 8), heads, longest);
      }
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
});
