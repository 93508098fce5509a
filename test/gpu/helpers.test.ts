// iota/fill, gather, scatter and head flags against CPU references.
import { describe } from "vitest";
import { GpuBatch } from "../../src/gpu/kernels.js";
import { encodeGather, encodeHeadFlags, encodeIota, encodeScatter } from "../../src/gpu/primitives/helpers.js";
import { rng } from "../support/inputs.js";
import { expectEqualArrays, gpuIt, iotaArray, makeKeys } from "./support.js";

function permutation(n: number, seed: number): Uint32Array {
  const p = iotaArray(n);
  const r = rng(seed);
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    [p[i], p[j]] = [p[j], p[i]];
  }
  return p;
}

describe("GPU helpers", () => {
  for (const n of [0, 1, 255, 256, 257, 1 << 20]) {
    gpuIt(`iota, fill, gather, scatter, n = ${n}`, async (ctx, buffers) => {
      const out = buffers.empty(n);
      let batch = new GpuBatch(ctx);
      encodeIota(batch, out, n, 5, 3);
      batch.submit();
      expectEqualArrays(await buffers.read(out, n), Uint32Array.from({ length: n }, (_, i) => 5 + 3 * i), "iota");
      batch = new GpuBatch(ctx);
      encodeIota(batch, out, n, 0xdeadbeef, 0);
      batch.submit();
      expectEqualArrays(await buffers.read(out, n), new Uint32Array(n).fill(0xdeadbeef), "fill");

      const source = makeKeys(n, "all-bits", n);
      const index = permutation(n, n + 1);
      const sourceBuffer = buffers.upload(source);
      const indexBuffer = buffers.upload(index);
      batch = new GpuBatch(ctx);
      encodeGather(batch, sourceBuffer, indexBuffer, out, n);
      batch.submit();
      expectEqualArrays(await buffers.read(out, n), index.map((i) => source[i]), "gather");
      batch = new GpuBatch(ctx);
      encodeScatter(batch, sourceBuffer, indexBuffer, out, n);
      batch.submit();
      const scattered = new Uint32Array(n);
      index.forEach((to, from) => (scattered[to] = source[from]));
      expectEqualArrays(await buffers.read(out, n), scattered, "scatter");
    });
  }

  for (const n of [0, 1, 2, 1000, 1 << 20]) {
    gpuIt(`head flags of u32 and u64 keys, n = ${n}`, async (ctx, buffers) => {
      const low = makeKeys(n, "few-distinct", 3).sort();
      const high = makeKeys(n, "few-distinct", 4);
      const flags = buffers.empty(n);
      let batch = new GpuBatch(ctx);
      encodeHeadFlags(batch, buffers.upload(low), flags, n);
      batch.submit();
      expectEqualArrays(await buffers.read(flags, n), low.map((k, i) => (i === 0 || k !== low[i - 1] ? 1 : 0)), "u32 heads");
      batch = new GpuBatch(ctx);
      encodeHeadFlags(batch, buffers.upload(low), flags, n, buffers.upload(high));
      batch.submit();
      const want = low.map((k, i) => (i === 0 || k !== low[i - 1] || high[i] !== high[i - 1] ? 1 : 0));
      expectEqualArrays(await buffers.read(flags, n), want, "u64 heads");
    });
  }
});
