// Device handling: modes, errors that surface as SufsortErrors, binding limits, the buffer pool,
// and a process that exits once its work is done.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { SufsortError } from "../../src/errors.js";
import { acquireGpu, resolveGpuMode } from "../../src/gpu/device.js";
import { sizeClass } from "../../src/gpu/buffers.js";
import { checkBinding, downloadInto, GpuBatch, gridShape, pipeline, readU32 } from "../../src/gpu/kernels.js";
import { packagePath } from "../../src/paths.js";
import { buildPlaced, closePlaced, placeText } from "../../src/engine/build.js";
import { gpuSpdSorter } from "../../src/gpu/algorithms/spd.js";
import { randomText } from "../support/inputs.js";
import { gpuIt, sharedGpu, testGpuMode } from "./support.js";

describe("GPU mode", () => {
  it("comes from the option, else SUFSORT_GPU, else auto; rejects other words", () => {
    const saved = process.env.SUFSORT_GPU;
    try {
      delete process.env.SUFSORT_GPU;
      expect(resolveGpuMode()).toBe("auto");
      process.env.SUFSORT_GPU = "software";
      expect(resolveGpuMode()).toBe("software");
      expect(resolveGpuMode("hardware")).toBe("hardware");
      expect(() => resolveGpuMode("fast")).toThrow(SufsortError);
    } finally {
      if (saved === undefined) delete process.env.SUFSORT_GPU;
      else process.env.SUFSORT_GPU = saved;
    }
  });

  it("hardware never yields the software adapter; when required and absent, fails with one line", async (test) => {
    // One device per process on hardware: on the H200, test processes that opened several devices
    // crashed or hung in Dawn's teardown (the freed instance of GpuContext.release's comment, fixed
    // since; the test below opens two), so the file's own context stands for this check there.
    if (testGpuMode() !== "software") {
      const ctx = sharedGpu();
      if (!ctx) test.skip();
      else expect(ctx.software).toBe(false);
      return;
    }
    let ctx = null;
    try {
      ctx = await acquireGpu({ mode: "hardware", required: true });
      expect(ctx?.software).toBe(false);
    } catch (error) {
      expect(error).toBeInstanceOf(SufsortError);
      expect((error as Error).message).toMatch(/^no hardware GPU available: [^\n]*$/);
    } finally {
      ctx?.release();
    }
  });
});

describe("GPU device", () => {
  gpuIt("reports its adapter and features", async (ctx) => {
    expect(ctx.software).toBe(testGpuMode() === "software");
    expect(ctx.adapterInfo.length).toBeGreaterThan(0);
    expect(typeof ctx.features.subgroups).toBe("boolean");
    expect(ctx.device.limits.maxComputeInvocationsPerWorkgroup).toBeGreaterThanOrEqual(256);
  });

  gpuIt("arrays beyond one storage binding are rejected with the limit named", async (ctx) => {
    const most = Math.floor(ctx.maxBindingBytes / 4);
    expect(() => checkBinding(ctx, "scan", most)).not.toThrow();
    expect(() => checkBinding(ctx, "scan", most + 1)).toThrow(/storage binding limit/);
  });

  gpuIt("large grids are reshaped within the per-dimension limit", async () => {
    expect(gridShape(10, 65535)).toEqual([10, 1]);
    const [x, y] = gridShape(1 << 20, 65535);
    expect(x).toBeLessThanOrEqual(65535);
    expect(x * y).toBeGreaterThanOrEqual(1 << 20);
  });

  gpuIt("uploads from and downloads into views of shared memory at non-zero offsets", async (ctx, buffers) => {
    const heap = new Uint32Array(new SharedArrayBuffer(4 * 4096));
    for (let i = 0; i < heap.length; i++) heap[i] = (i * 2654435761) >>> 0;
    const source = heap.subarray(100, 1100);
    const buffer = buffers.upload(source);
    const target = new Uint32Array(new SharedArrayBuffer(4 * 2048)).subarray(7, 1007);
    await downloadInto(ctx, buffer, target);
    expect(Array.from(target)).toEqual(Array.from(source));
    const tail = new Uint32Array(new SharedArrayBuffer(4 * 10));
    await downloadInto(ctx, buffer, tail, 990);
    expect(Array.from(tail)).toEqual(Array.from(source.subarray(990)));
  });

  gpuIt("pooled buffers are recycled after the submit that used them", async (ctx) => {
    const first = ctx.pool.acquire(1000);
    expect(first.size).toBe(sizeClass(1000));
    ctx.pool.release(first);
    const beforeSubmit = ctx.pool.acquire(1000);
    expect(beforeSubmit).not.toBe(first); // not reusable until a submit has been queued
    const batch = new GpuBatch(ctx);
    batch.releaseAfter(beforeSubmit);
    batch.submit();
    const again = ctx.pool.acquire(1000);
    expect([first, beforeSubmit]).toContain(again);
    ctx.pool.release(again);
    ctx.pool.afterSubmit();
  });

  gpuIt("exact-size buffers (arrays over one binding) are pooled at their size, apart from the size classes", async (ctx) => {
    const bytes = (1 << 20) + 4; // its size class is 1.125 MiB
    const exact = ctx.pool.acquireExact(bytes);
    expect(exact.size).toBe((1 << 20) + 256);
    ctx.pool.release(exact);
    ctx.pool.afterSubmit();
    const classed = ctx.pool.acquire(exact.size);
    expect(classed).not.toBe(exact);
    expect(classed.size).toBe(sizeClass(exact.size));
    expect(ctx.pool.acquireExact(bytes + 100)).toBe(exact); // the same size in 256-byte units: recycled
    ctx.pool.release(exact);
    ctx.pool.release(classed);
    ctx.pool.afterSubmit();
  });

  gpuIt("a batch that repeats an earlier one gets the same buffers in the same order; lanes keep theirs apart", async (ctx) => {
    const take = (batch: GpuBatch) => [batch.scratch(3000), batch.scratch(3000), batch.scratch(3000, "lane a"), batch.scratch(3000)];
    const first = new GpuBatch(ctx);
    const got = take(first);
    first.submit();
    // something else takes a buffer of that size in between; the lane's buffer is not handed to it
    const other = ctx.pool.acquire(3000);
    expect(other).not.toBe(got[2]);
    const second = new GpuBatch(ctx);
    const again = take(second);
    second.submit();
    expect(again[2]).toBe(got[2]);
    // without the intruder, the order repeats exactly (bind groups kept for them are found again)
    ctx.pool.release(other);
    ctx.pool.afterSubmit();
    const third = new GpuBatch(ctx);
    const once = take(third);
    third.submit();
    const fourth = new GpuBatch(ctx);
    // by identity: toEqual would compare the buffers' (empty) own properties
    take(fourth).forEach((buffer, k) => expect(buffer).toBe(once[k]));
    fourth.submit();
  });

  gpuIt("between builds the idle buffers go back in creation order: a repeated build gets the same buffer in each role", async (ctx) => {
    // held to the end and released in another order than taken, as a build's long-lived buffers are
    const held = [ctx.pool.acquire(5000), ctx.pool.acquire(5000), ctx.pool.acquire(5000)];
    for (const k of [1, 2, 0]) ctx.pool.release(held[k]!);
    ctx.pool.afterSubmit();
    ctx.pool.canonicalize();
    const again = [ctx.pool.acquire(5000), ctx.pool.acquire(5000), ctx.pool.acquire(5000)];
    // buffers by identity (toEqual would compare their empty own properties)
    const ids = new Map<GPUBuffer, number>();
    const idOf = (buffer: GPUBuffer) => ids.get(buffer) ?? (ids.set(buffer, ids.size), ids.size - 1);
    expect(again.map(idOf)).toEqual(held.map(idOf));
    expect(new Set(again.map(idOf)).size).toBe(3);
    for (const buffer of again) ctx.pool.release(buffer);
    ctx.pool.afterSubmit();

    // whole builds: the third build of a text takes the same buffers in the same order as the
    // second (they cycled through four assignments before, missing the kept bind groups)
    const text = randomText(70_000, 4, 11);
    const roles: number[][] = [];
    const acquire = ctx.pool.acquire.bind(ctx.pool);
    for (let b = 0; b < 3; b++) {
      const taken: GPUBuffer[] = [];
      ctx.pool.acquire = (...args: Parameters<typeof acquire>) => {
        const buffer = acquire(...args);
        taken.push(buffer);
        return buffer;
      };
      const placed = placeText(text.length, gpuSpdSorter, 1);
      try {
        placed.heap.u8(placed.textPtr, text.length).set(text);
        await buildPlaced(placed, { gpuContext: ctx });
      } finally {
        ctx.pool.acquire = acquire;
        await closePlaced(placed);
      }
      roles.push(taken.map(idOf));
    }
    expect(roles[2]!.length).toBeGreaterThan(10);
    expect(roles[2]).toEqual(roles[1]);
  });

  it("a validation error surfaces as a SufsortError, not as silent output", (test) => {
    const ctx = sharedGpu();
    if (!ctx) {
      test.skip();
      return;
    }
    const bad = () => pipeline(ctx, { file: "bench.wgsl", entry: "no_such_entry_point" });
    expect(bad).toThrow(SufsortError);
    // the error was reported once; a healthy call afterwards works
    expect(() => pipeline(ctx, { file: "bench.wgsl", entry: "random" })).not.toThrow();
  });

  it("device loss surfaces as a SufsortError from every later wait, not as a hang", async (test) => {
    // A second device of its own (software only: on hardware each test process opens one device).
    if (testGpuMode() !== "software" || !sharedGpu()) {
      test.skip();
      return;
    }
    const ctx = await acquireGpu({ mode: "software", required: true });
    if (!ctx) throw new Error("unreachable: required");
    const buffer = ctx.pool.acquire(16);
    ctx.device.destroy();
    await expect(ctx.finish()).rejects.toThrow(/GPU device lost/);
    await expect(readU32(ctx, buffer, 4)).rejects.toThrow(SufsortError);
    expect(() => new GpuBatch(ctx)).toThrow(/GPU device lost/);
    ctx.release();
  });

  it("a process that used the GPU exits on its own after release()", (test) => {
    const script = packagePath("dist", "src", "gpu", "device.js");
    if (!existsSync(script)) {
      test.skip(); // needs the build (npm test builds first)
      return;
    }
    const code = `
      const { acquireGpu } = await import(${JSON.stringify(script)});
      const { GpuBatch, upload, readU32 } = await import(${JSON.stringify(packagePath("dist", "src", "gpu", "kernels.js"))});
      const { encodeExclusiveScan } = await import(${JSON.stringify(packagePath("dist", "src", "gpu", "primitives", "scan.js"))});
      const ctx = await acquireGpu({ mode: ${JSON.stringify(testGpuMode())} });
      if (!ctx) { console.log("no-gpu"); } else {
        const input = upload(ctx, new Uint32Array([1, 2, 3, 4]));
        const output = ctx.pool.acquire(16);
        const batch = new GpuBatch(ctx);
        encodeExclusiveScan(batch, input, output, 4);
        batch.submit();
        console.log(Array.from(await readU32(ctx, output, 4)).join(","));
        ctx.release();
        try { ctx.check(); console.log("usable after release"); } catch (error) { console.error(error.message); }
      }`;
    const child = spawnSync(process.execPath, ["--input-type=module", "-e", code], { timeout: 60_000, encoding: "utf8", env: { ...process.env, SUFSORT_GPU_WAIT_S: "30" } });
    expect(child.error).toBeUndefined(); // a timeout would mean the process hung
    if (child.stdout.trim() === "no-gpu") {
      if (process.env.CI === "true") throw new Error("CI=true but no GPU adapter");
      test.skip();
      return;
    }
    expect(child.status).toBe(0);
    expect(child.stdout.trim()).toBe("0,1,3,6");
    expect(child.stderr).toContain("GPU context used after release()");
  });

  it("releasing the last context never lets the instance be collected while Dawn still polls it", (test) => {
    // Dawn's bindings poll the instance through a raw pointer until the device's loss is delivered:
    // with the instance dropped at once, this script hung on a freed mutex or died with
    // "std::system_error: Invalid argument" in 6 runs of 6. Two contexts (one destroyed, as the
    // device-loss test above does), then collections while the event loop turns.
    if (!sharedGpu()) {
      test.skip();
      return;
    }
    const dist = (...p: string[]) => JSON.stringify(packagePath("dist", "src", ...p));
    if (!existsSync(JSON.parse(dist("gpu", "device.js")) as string)) {
      test.skip(); // needs the build (npm test builds first)
      return;
    }
    const code = `
      const { acquireGpu } = await import(${dist("gpu", "device.js")});
      const { GpuBatch, upload, readU32 } = await import(${dist("gpu", "kernels.js")});
      const { encodeExclusiveScan } = await import(${dist("gpu", "primitives", "scan.js")});
      const a = await acquireGpu({ mode: ${JSON.stringify(testGpuMode())}, required: true });
      const input = upload(a, new Uint32Array([1, 2, 3, 4]));
      const output = a.pool.acquire(16);
      const batch = new GpuBatch(a);
      encodeExclusiveScan(batch, input, output, 4);
      batch.submit();
      const scanned = Array.from(await readU32(a, output, 4)).join(",");
      a.pool.release(input);
      a.pool.release(output);
      const b = await acquireGpu({ mode: ${JSON.stringify(testGpuMode())}, required: true });
      const held = b.pool.acquire(16);
      b.device.destroy();
      await b.finish().catch(() => undefined);
      await readU32(b, held, 4).catch(() => undefined);
      b.release();
      a.release();
      const junk = [];
      for (let i = 0; i < 200; i++) {
        junk.push(new Array(10000).fill(i));
        if (junk.length > 20) junk.shift();
        if (i % 10 === 0) globalThis.gc();
        await new Promise((resolve) => setImmediate(resolve));
      }
      console.log(scanned);`;
    const child = spawnSync(process.execPath, ["--expose-gc", "--input-type=module", "-e", code], {
      timeout: 60_000, encoding: "utf8", env: { ...process.env, SUFSORT_GPU_WAIT_S: "30" },
    });
    expect(child.error).toBeUndefined(); // a timeout would mean the process hung
    expect(child.stderr).not.toMatch(/terminate called|system_error/);
    expect(child.status).toBe(0);
    expect(child.stdout.trim()).toBe("0,1,3,6");
  });
});
