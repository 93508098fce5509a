// Merge path merge of two sorted runs: stable (A first on ties), all size combinations and key mixes.
import { describe } from "vitest";
import { GpuBatch, WORKGROUP_SIZE } from "../../src/gpu/kernels.js";
import { encodeMerge } from "../../src/gpu/primitives/merge.js";
import { expectEqualArrays, gpuIt, iotaArray, makeKeys, type KeyKind } from "./support.js";

const TILE = WORKGROUP_SIZE * 4;

function sortedKeys(n: number, kind: KeyKind, seed: number): Uint32Array {
  return makeKeys(n, kind === "reverse" ? "sorted" : kind, seed).sort();
}

async function check(ctx: Parameters<Parameters<typeof gpuIt>[1]>[0], buffers: Parameters<Parameters<typeof gpuIt>[1]>[1], a: Uint32Array, b: Uint32Array): Promise<void> {
  const total = a.length + b.length;
  const outKeys = buffers.empty(total);
  const outValues = buffers.empty(total);
  const batch = new GpuBatch(ctx);
  encodeMerge(
    batch,
    { keys: buffers.upload(a), values: buffers.upload(iotaArray(a.length)), n: a.length },
    { keys: buffers.upload(b), values: buffers.upload(iotaArray(b.length, a.length)), n: b.length },
    { keys: outKeys, values: outValues },
  );
  batch.submit();
  const all = new Uint32Array(total);
  all.set(a);
  all.set(b, a.length);
  const order = Uint32Array.from(Array.from({ length: total }, (_, i) => i).sort((x, y) => all[x] - all[y] || x - y));
  expectEqualArrays(await buffers.read(outValues, total), order, "values (A first on ties)");
  expectEqualArrays(await buffers.read(outKeys, total), order.map((i) => all[i]), "keys");
}

describe("GPU merge", () => {
  const pairs: [number, number][] = [
    [0, 0],
    [0, 5],
    [5, 0],
    [1, 1],
    [TILE - 1, 1],
    [TILE, TILE],
    [TILE + 1, 2 * TILE - 1],
    [2 * TILE + 1, 2 * TILE + 1],
    [4097, 3],
    [3, 9999],
    [12_345, 23_457],
  ];
  for (const [na, nb] of pairs) {
    for (const kind of ["all-bits", "few-distinct"] as const) {
      gpuIt(`${na} + ${nb} keys, ${kind}`, async (ctx, buffers) => {
        await check(ctx, buffers, sortedKeys(na, kind, na + 1), sortedKeys(nb, kind, nb + 2));
      });
    }
  }

  gpuIt("all of A before all of B, and B before A", async (ctx, buffers) => {
    const low = iotaArray(3 * TILE + 5);
    const high = iotaArray(2 * TILE + 7, 1 << 30);
    await check(ctx, buffers, low, high);
    await check(ctx, buffers, high, low);
  });

  gpuIt("2^19 + 2^19 keys", async (ctx, buffers) => {
    await check(ctx, buffers, sortedKeys(1 << 19, "all-bits", 1), sortedKeys(1 << 19, "all-bits", 2));
  });
});
