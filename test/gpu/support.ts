// Shared harness of the GPU tests: one device per test file (the software adapter unless
// SUFSORT_GPU says otherwise), a validation error scope around every test asserted empty, and every
// pooled buffer given back and destroyed afterwards. Without an adapter the tests skip, except under
// CI=true, where they fail.
import { afterAll, beforeAll, expect, it } from "vitest";
import { acquireGpu, type GpuContext, type GpuMode } from "../../src/gpu/device.js";
import { GpuBatch, readU32, upload } from "../../src/gpu/kernels.js";
import { rng } from "../support/inputs.js";

export { withTune } from "../support/tune.js";

let context: GpuContext | null = null;

/** The file's context (null without an adapter); tests that must see uncaptured errors use it directly. */
export function sharedGpu(): GpuContext | null {
  return context;
}

export function testGpuMode(): GpuMode {
  const mode = process.env.SUFSORT_GPU ?? "software";
  return mode === "hardware" || mode === "auto" ? mode : "software";
}

beforeAll(async () => {
  context = await acquireGpu({ mode: testGpuMode(), required: process.env.CI === "true" });
});

afterAll(() => {
  context?.release();
  context = null;
});

/** Buffers a test allocates; all released at the end of the test. */
export class TestBuffers {
  private readonly held: GPUBuffer[] = [];
  constructor(readonly ctx: GpuContext) {}

  upload(data: Uint32Array): GPUBuffer {
    const buffer = upload(this.ctx, data);
    this.held.push(buffer);
    return buffer;
  }

  empty(n: number): GPUBuffer {
    const buffer = this.ctx.pool.acquire(Math.max(4, n * 4));
    this.held.push(buffer);
    return buffer;
  }

  read(buffer: GPUBuffer, n: number): Promise<Uint32Array> {
    return readU32(this.ctx, buffer, n);
  }

  releaseAll(): void {
    for (const buffer of this.held) this.ctx.pool.release(buffer);
    this.held.length = 0;
  }
}

/** Encodes, submits and waits. */
export async function runBatch(ctx: GpuContext, encode: (batch: GpuBatch) => void): Promise<void> {
  const batch = new GpuBatch(ctx, "test");
  encode(batch);
  batch.submit();
  await ctx.finish();
}

/** A GPU test: skipped without an adapter (outside CI), wrapped in a validation error scope. */
export function gpuIt(name: string, body: (ctx: GpuContext, buffers: TestBuffers) => Promise<void>, timeout?: number): void {
  it(
    name,
    async (test) => {
      const ctx = context;
      if (!ctx) {
        test.skip();
        return;
      }
      const buffers = new TestBuffers(ctx);
      ctx.device.pushErrorScope("validation");
      try {
        await body(ctx, buffers);
      } finally {
        buffers.releaseAll();
        ctx.pool.afterSubmit();
        const error = await ctx.device.popErrorScope();
        expect(error?.message ?? null).toBeNull();
      }
      expect(ctx.pool.inUseBytes).toBe(0);
      ctx.pool.trim();
      expect(ctx.pool.allocatedBytes).toBe(0);
    },
    timeout,
  );
}

/** Key distributions every sorting primitive is tested on. */
export type KeyKind = "all-bits" | "few-distinct" | "sorted" | "reverse";
export const KEY_KINDS: KeyKind[] = ["all-bits", "few-distinct", "sorted", "reverse"];

export function makeKeys(n: number, kind: KeyKind, seed: number): Uint32Array {
  const r = rng(seed);
  const keys = new Uint32Array(n);
  for (let i = 0; i < n; i++) keys[i] = Math.floor(r() * 4294967296);
  if (kind === "few-distinct") for (let i = 0; i < n; i++) keys[i] = [7, 0x80000000, 0xffffffff][keys[i] % 3];
  if (kind === "sorted") keys.sort();
  if (kind === "reverse") keys.sort().reverse();
  return keys;
}

/** Segment length mixes for the segmented primitives. */
export type SegmentKind = "all-one" | "all-small" | "one-huge" | "random";
export const SEGMENT_KINDS: SegmentKind[] = ["all-one", "all-small", "one-huge", "random"];

/** Head flags (1 at each segment start; position 0 always starts a segment). */
export function makeHeads(n: number, kind: SegmentKind, seed: number): Uint32Array {
  const r = rng(seed);
  const heads = new Uint32Array(n);
  let at = 0;
  while (at < n) {
    heads[at] = 1;
    if (kind === "all-one") at += 1;
    else if (kind === "all-small") at += 1 + Math.floor(r() * 8);
    else if (kind === "one-huge") at = n;
    else at += 1 + Math.floor(r() * 1000);
  }
  return heads;
}

export function iotaArray(n: number, start = 0): Uint32Array {
  const out = new Uint32Array(n);
  for (let i = 0; i < n; i++) out[i] = start + i;
  return out;
}

/** First index where two arrays differ, or -1 (to keep failure messages short). */
export function firstMismatch(got: Uint32Array, want: Uint32Array): number {
  if (got.length !== want.length) return Math.min(got.length, want.length);
  for (let i = 0; i < got.length; i++) if (got[i] !== want[i]) return i;
  return -1;
}

export function expectEqualArrays(got: Uint32Array, want: Uint32Array, what: string): void {
  const at = firstMismatch(got, want);
  expect(at, `${what}: first mismatch at ${at} (got ${got[at]}, want ${want[at]})`).toBe(-1);
}
