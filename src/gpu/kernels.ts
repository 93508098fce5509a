// Shader assembly, the pipeline cache, and GpuBatch (one command encoder: dispatches, copies, uniforms).
//
// A shader = preamble (enable subgroups when used) + compile-time constants + library helpers from
// wgsl/lib/ + one primitive file from wgsl/. Pipelines are cached per device by (file, entry point,
// constants, feature path); values that change per pass travel in a uniform buffer (binding 0).
import { readFileSync } from "node:fs";
import { failure } from "../errors.js";
import { packagePath } from "../paths.js";
import { UNIFORM_USAGE } from "./buffers.js";
import type { GpuContext } from "./device.js";

/** Invocations per workgroup of every primitive (the device is asked for at least this many). */
export const WORKGROUP_SIZE = 256;

const sources = new Map<string, string>();

function source(relative: string): string {
  let text = sources.get(relative);
  if (text === undefined) {
    text = readFileSync(packagePath("wgsl", relative), "utf8");
    sources.set(relative, text);
  }
  return text;
}

export interface ShaderSpec {
  /** File under wgsl/, e.g. "scan.wgsl". */
  file: string;
  entry: string;
  /** Compile-time constants, emitted as `const NAME: u32 = value;`. */
  constants?: Record<string, number>;
  /**
   * Helpers under wgsl/lib/; a name `x` resolves to `x_subgroup.wgsl` on devices with subgroups
   * and `x_plain.wgsl` otherwise, or to `x.wgsl` when it has a single form.
   */
  libs?: string[];
  /** Use subgroup operations when the device has them (default true). */
  subgroups?: boolean;
}

/** The WGSL text of a shader, as compiled (exported so a debugging flag can dump it). */
export function shaderText(ctx: GpuContext, spec: ShaderSpec): string {
  const useSubgroups = ctx.features.subgroups && spec.subgroups !== false;
  const parts: string[] = [];
  if (useSubgroups) parts.push("enable subgroups;\ndiagnostic(off, subgroup_uniformity);");
  const constants = { WG: WORKGROUP_SIZE, ...spec.constants };
  for (const [name, value] of Object.entries(constants)) parts.push(`const ${name}: u32 = ${value >>> 0}u;`);
  parts.push(source("lib/common.wgsl"));
  for (const lib of spec.libs ?? []) {
    let file = `lib/${lib}.wgsl`;
    try {
      parts.push(source(file));
    } catch {
      file = `lib/${lib}_${useSubgroups ? "subgroup" : "plain"}.wgsl`;
      parts.push(source(file));
    }
  }
  parts.push(source(spec.file));
  return parts.join("\n");
}

/** The pipeline for a spec, created once per device. */
export function pipeline(ctx: GpuContext, spec: ShaderSpec): GPUComputePipeline {
  const useSubgroups = ctx.features.subgroups && spec.subgroups !== false;
  const key = `${spec.file}#${spec.entry}#${JSON.stringify(spec.constants ?? {})}#${(spec.libs ?? []).join(",")}#${useSubgroups ? "sg" : "plain"}`;
  let made = ctx.pipelines.get(key);
  if (made) return made;
  const code = shaderText(ctx, spec);
  if (process.env.SUFSORT_DUMP_WGSL) process.stderr.write(`// ${key}\n${code}\n`);
  const module = ctx.device.createShaderModule({ code, label: key });
  made = ctx.device.createComputePipeline({ layout: "auto", compute: { module, entryPoint: spec.entry }, label: key });
  ctx.check();
  ctx.pipelines.set(key, made);
  entryOf.set(made, `${spec.file.replace(/\.wgsl$/, "")}#${spec.entry}`);
  return made;
}

/** A binding: a whole buffer, or a window of it (offset and size in bytes). */
export type Binding = GPUBuffer | { buffer: GPUBuffer; offset?: number; size?: number };

/**
 * One command encoder: dispatches (in one compute pass while possible), copies, clears. With
 * `startAfter` set, the first that many dispatches are submitted as soon as they are encoded, and
 * then each time twice as many more are, so that the GPU works while the host encodes the rest
 * (for long batches that the host then waits on).
 */
export class GpuBatch {
  private encoder: GPUCommandEncoder;
  private dispatches = 0;
  private nextStart: number;
  private pass: GPUComputePassEncoder | undefined;
  private readonly toRelease: GPUBuffer[] = [];
  /** Launch parameters of this batch's dispatches: slots of one uniform buffer, written at submit. */
  private params: { buffer: GPUBuffer; words: Uint32Array; used: number } | undefined;
  private querySet: GPUQuerySet | undefined;
  private submitted = false;
  /** With per-dispatch timestamps (SUFSORT_GPU_PROFILE=dispatch): each timed dispatch's entry point. */
  private readonly timedDispatches: string[] | undefined;

  constructor(
    readonly ctx: GpuContext,
    private readonly label = "sufsort",
    timestamps = false,
    private readonly startAfter = 0,
  ) {
    ctx.check();
    this.nextStart = startAfter;
    this.encoder = ctx.device.createCommandEncoder({ label });
    if (timestamps && ctx.features.timestampQuery) {
      const perDispatch = process.env.SUFSORT_GPU_PROFILE === "dispatch";
      if (perDispatch) this.timedDispatches = [];
      this.querySet = ctx.device.createQuerySet({ type: "timestamp", count: perDispatch ? 2 + 2 * TIMED_DISPATCHES : 2 });
      this.encoder.beginComputePass({ timestampWrites: { querySet: this.querySet, beginningOfPassWriteIndex: 0 } }).end();
    }
  }

  /**
   * Dispatches `groups` workgroups (reshaped into 2D when over the per-dimension limit; kernels
   * flatten with flat_group()). `params` go to binding 0 as a uniform; `bindings[i]` is binding
   * i + 1 (an undefined entry is a binding the entry point does not use).
   */
  dispatch(pipe: GPUComputePipeline, params: ArrayLike<number>, bindings: (Binding | undefined)[], groups: number): void {
    if (groups <= 0) return;
    const group = bindGroup(this.ctx, pipe, this.uniform(params), bindings);
    const timed = this.timedDispatches;
    const querySet = this.querySet;
    let pass: GPUComputePassEncoder;
    let timedApart = false;
    if (timed && querySet && timed.length < TIMED_DISPATCHES) {
      // a pass of its own, timed at both ends
      this.endPass();
      const at = 2 + 2 * timed.length;
      timed.push(entryOf.get(pipe) ?? "?");
      pass = this.encoder.beginComputePass({ timestampWrites: { querySet, beginningOfPassWriteIndex: at, endOfPassWriteIndex: at + 1 } });
      timedApart = true;
    } else {
      pass = this.pass ??= this.encoder.beginComputePass();
    }
    pass.setPipeline(pipe);
    pass.setBindGroup(0, group);
    const [x, y] = gridShape(groups, this.ctx.maxWorkgroupsPerDimension);
    pass.dispatchWorkgroups(x, y);
    if (timedApart) pass.end();
    if (++this.dispatches === this.nextStart) {
      this.submitSoFar();
      this.nextStart = 2 * this.nextStart + this.startAfter;
    }
  }

  /** Submits what is encoded so far and goes on in a new encoder (buffers stay held until submit()). */
  private submitSoFar(): void {
    this.endPass();
    this.flushParams();
    this.ctx.device.queue.submit([this.encoder.finish()]);
    this.encoder = this.ctx.device.createCommandEncoder({ label: this.label });
  }

  copy(src: GPUBuffer, srcOffset: number, dst: GPUBuffer, dstOffset: number, bytes: number): void {
    if (bytes <= 0) return;
    this.endPass();
    this.encoder.copyBufferToBuffer(src, srcOffset, dst, dstOffset, bytes);
  }

  clear(buffer: GPUBuffer, offset = 0, bytes?: number): void {
    this.endPass();
    this.encoder.clearBuffer(buffer, offset, bytes ?? buffer.size - offset);
  }

  /** A pooled buffer that lives until this batch is submitted (`lane`: see BufferPool.acquire). */
  scratch(bytes: number, lane?: string): GPUBuffer {
    const buffer = this.ctx.pool.acquire(bytes, undefined, undefined, lane);
    this.toRelease.push(buffer);
    return buffer;
  }

  /** Gives `buffer` back to the pool once this batch is submitted. */
  releaseAfter(buffer: GPUBuffer): void {
    this.toRelease.push(buffer);
  }

  /** Ends encoding, submits, recycles the buffers this batch released. */
  submit(): void {
    if (this.submitted) throw new Error("sufsort: GpuBatch submitted twice");
    this.submitted = true;
    this.endPass();
    let resolveBuffer: GPUBuffer | undefined;
    if (this.querySet) {
      this.encoder.beginComputePass({ timestampWrites: { querySet: this.querySet, endOfPassWriteIndex: 1 } }).end();
      const count = 2 + 2 * (this.timedDispatches?.length ?? 0);
      resolveBuffer = this.ctx.device.createBuffer({ size: 8 * count, usage: 0x200 /* QUERY_RESOLVE */ | 0x4 });
      this.timestampBuffer = this.ctx.device.createBuffer({ size: 8 * count, usage: 0x1 /* MAP_READ */ | 0x8 });
      this.encoder.resolveQuerySet(this.querySet, 0, count, resolveBuffer, 0);
      this.encoder.copyBufferToBuffer(resolveBuffer, 0, this.timestampBuffer, 0, 8 * count);
    }
    this.flushParams();
    this.ctx.device.queue.submit([this.encoder.finish()]);
    for (const buffer of this.toRelease) this.ctx.pool.release(buffer);
    this.ctx.pool.afterSubmit();
    resolveBuffer?.destroy();
    this.ctx.check();
  }

  private timestampBuffer: GPUBuffer | undefined;

  private timestamps: BigUint64Array | undefined;

  /** GPU nanoseconds between the batch's start and end, or undefined without timestamp-query. */
  async gpuNanoseconds(): Promise<number | undefined> {
    const t = await this.readTimestamps();
    return t && Number(t[1] - t[0]);
  }

  /** GPU nanoseconds per entry point of the timed dispatches (SUFSORT_GPU_PROFILE=dispatch). */
  async dispatchNanoseconds(): Promise<Map<string, number> | undefined> {
    const t = await this.readTimestamps();
    if (!t || !this.timedDispatches) return undefined;
    const byEntry = new Map<string, number>();
    this.timedDispatches.forEach((entry, k) => {
      byEntry.set(entry, (byEntry.get(entry) ?? 0) + Number(t[3 + 2 * k] - t[2 + 2 * k]));
    });
    return byEntry;
  }

  private async readTimestamps(): Promise<BigUint64Array | undefined> {
    if (this.timestamps) return this.timestamps;
    if (!this.timestampBuffer || !this.querySet) return undefined;
    await this.ctx.race(this.timestampBuffer.mapAsync(1 /* READ */));
    this.timestamps = new BigUint64Array(this.timestampBuffer.getMappedRange().slice(0));
    this.timestampBuffer.unmap();
    this.timestampBuffer.destroy();
    this.querySet.destroy();
    return this.timestamps;
  }

  /**
   * A slot for `params` in the batch's parameter buffer (slots at the device's uniform offset
   * alignment; a full buffer is written and another taken). One writeBuffer per 64 dispatches
   * instead of a pooled buffer and a write each: host time per dispatch is what the short doubling
   * rounds of text spend most on.
   */
  private uniform(params: ArrayLike<number>): GPUBufferBinding {
    const align = this.ctx.device.limits.minUniformBufferOffsetAlignment;
    const bytes = Math.max(16, Math.ceil(params.length / 4) * 16);
    if (this.params === undefined || this.params.used + bytes > this.params.words.byteLength) {
      this.flushParams();
      const size = PARAM_SLOTS * Math.max(align, bytes);
      const buffer = this.ctx.pool.acquire(size, UNIFORM_USAGE, "params");
      this.toRelease.push(buffer);
      this.params = { buffer, words: new Uint32Array(size / 4), used: 0 };
    }
    const offset = this.params.used;
    for (let i = 0; i < params.length; i++) this.params.words[offset / 4 + i] = params[i] >>> 0;
    this.params.used = Math.ceil((offset + bytes) / align) * align;
    return { buffer: this.params.buffer, offset, size: bytes };
  }

  private flushParams(): void {
    if (this.params === undefined || this.params.used === 0) return;
    this.ctx.device.queue.writeBuffer(this.params.buffer, 0, this.params.words, 0, Math.min(this.params.used, this.params.words.byteLength) / 4);
    this.params = undefined;
  }

  private endPass(): void {
    this.pass?.end();
    this.pass = undefined;
  }
}

/** Dispatches per parameter buffer of a batch. */
const PARAM_SLOTS = 64;
/** Dispatches of one batch timed apart (SUFSORT_GPU_PROFILE=dispatch); later ones share passes. */
const TIMED_DISPATCHES = 1024;
/** file#entry of each pipeline, for per-dispatch profiles. */
const entryOf = new WeakMap<GPUComputePipeline, string>();

const layouts = new WeakMap<GPUComputePipeline, GPUBindGroupLayout>();

/**
 * Bind groups kept per device, keyed by pipeline and bound ranges. A doubling round repeats the
 * same dispatches on the same pooled buffers (parameter slots included), and createBindGroup is
 * most of a dispatch's host cost (H200: 10.5 of 15.9 us). A destroyed buffer's key never comes back
 * (identities are per object), and the table is emptied when it grows past BIND_GROUPS_KEPT.
 */
const bindGroups = new WeakMap<GpuContext, Map<string, GPUBindGroup>>();
const BIND_GROUPS_KEPT = 4096;
const identities = new WeakMap<object, number>();
let nextIdentity = 1;

function identity(of: object): number {
  let id = identities.get(of);
  if (id === undefined) identities.set(of, (id = nextIdentity++));
  return id;
}

function bindGroup(ctx: GpuContext, pipe: GPUComputePipeline, uniform: GPUBufferBinding, bindings: (Binding | undefined)[]): GPUBindGroup {
  let key = `${identity(pipe)}|${identity(uniform.buffer)}:${uniform.offset}:${uniform.size}`;
  for (let i = 0; i < bindings.length; i++) {
    const b = bindings[i];
    if (b === undefined) continue;
    key += "buffer" in b ? `|${i}:${identity(b.buffer)}:${b.offset ?? 0}:${b.size ?? -1}` : `|${i}:${identity(b)}`;
  }
  let table = bindGroups.get(ctx);
  if (table === undefined) bindGroups.set(ctx, (table = new Map()));
  let group = table.get(key);
  if (group !== undefined) return group;
  const entries: GPUBindGroupEntry[] = [{ binding: 0, resource: uniform }];
  bindings.forEach((b, i) => {
    if (b === undefined) return;
    const resource: GPUBufferBinding = "buffer" in b ? b : { buffer: b };
    entries.push({ binding: i + 1, resource });
  });
  group = ctx.device.createBindGroup({ layout: layoutOf(pipe), entries });
  if (table.size >= BIND_GROUPS_KEPT) table.clear();
  table.set(key, group);
  return group;
}

/** The bind group layout of a pipeline's group 0, asked of Dawn once. */
function layoutOf(pipe: GPUComputePipeline): GPUBindGroupLayout {
  let layout = layouts.get(pipe);
  if (layout === undefined) layouts.set(pipe, (layout = pipe.getBindGroupLayout(0)));
  return layout;
}

/** Splits `groups` into x*y >= groups with x, y within the per-dimension limit. */
export function gridShape(groups: number, maxPerDimension: number): [number, number] {
  if (groups <= maxPerDimension) return [groups, 1];
  const y = Math.ceil(groups / maxPerDimension);
  const x = Math.ceil(groups / y);
  if (y > maxPerDimension) throw failure(`GPU dispatch of ${groups} workgroups exceeds the device's grid`);
  return [x, y];
}

/** Throws a clear error when `count` elements of `bytesPerElement` exceed one storage binding. */
export function checkBinding(ctx: GpuContext, what: string, count: number, bytesPerElement = 4): void {
  const bytes = count * bytesPerElement;
  if (bytes > ctx.maxBindingBytes) {
    const most = Math.floor(ctx.maxBindingBytes / bytesPerElement);
    throw failure(
      `GPU ${what}: ${count} elements exceed the device's storage binding limit (${most} elements of ${bytesPerElement} bytes, ${ctx.maxBindingBytes} bytes)`,
    );
  }
}

/** Workgroups needed to cover `n` items, `perGroup` each. */
export function groupsFor(n: number, perGroup: number): number {
  return Math.ceil(n / perGroup);
}

/** Copies host data into a new pooled storage buffer (through a mapped staging buffer, which also
 * accepts views of shared memory). */
export function upload(ctx: GpuContext, data: Uint32Array, label = "upload"): GPUBuffer {
  const target = ctx.pool.acquire(Math.max(4, data.byteLength), undefined, label);
  writeInto(ctx, target, 0, data);
  return target;
}

/** Writes `data` into `target` at a byte offset, through a staging buffer mapped at creation. */
export function writeInto(ctx: GpuContext, target: GPUBuffer, offset: number, data: Uint32Array): void {
  if (data.length === 0) return;
  const staging = ctx.device.createBuffer({ size: data.byteLength, usage: 0x2 /* MAP_WRITE */ | 0x4, mappedAtCreation: true });
  new Uint32Array(staging.getMappedRange()).set(data);
  staging.unmap();
  const encoder = ctx.device.createCommandEncoder();
  encoder.copyBufferToBuffer(staging, 0, target, offset, data.byteLength);
  ctx.device.queue.submit([encoder.finish()]);
  staging.destroy(); // destruction waits for the queued copy
  ctx.check();
}

/** Reads `count` u32 values starting at element `first` of `source`. */
export async function readU32(ctx: GpuContext, source: GPUBuffer, count: number, first = 0): Promise<Uint32Array> {
  if (count === 0) return new Uint32Array(0);
  const bytes = count * 4;
  const { staging, kept } = readStaging(ctx, bytes);
  const encoder = ctx.device.createCommandEncoder();
  encoder.copyBufferToBuffer(source, first * 4, staging, 0, bytes);
  ctx.device.queue.submit([encoder.finish()]);
  return mapBack(ctx, staging, kept, bytes);
}

/**
 * Encodes into `batch` a copy of the first `count` (at most 64) u32 of `source`; the function it
 * returns, called once the batch is submitted, reads them back. A doubling round's counters come
 * back so without a command buffer and a submit of their own.
 */
export function encodeReadU32(batch: GpuBatch, source: GPUBuffer, count: number): () => Promise<Uint32Array> {
  const bytes = count * 4;
  if (bytes > SMALL_READ_BYTES) throw new Error("sufsort: encodeReadU32 reads at most 64 values");
  const ctx = batch.ctx;
  const { staging, kept } = readStaging(ctx, bytes);
  batch.copy(source, 0, staging, 0, bytes);
  return () => mapBack(ctx, staging, kept, bytes);
}

/** A staging buffer to read `bytes` back through: small reads (a doubling round's counters) take
 * a kept one (`kept`, where mapBack returns it), which saves a buffer per round. */
function readStaging(ctx: GpuContext, bytes: number): { staging: GPUBuffer; kept: GPUBuffer[] | undefined } {
  const kept = bytes <= SMALL_READ_BYTES ? smallReadStaging(ctx) : undefined;
  const staging = kept?.pop() ?? ctx.device.createBuffer({ size: kept ? SMALL_READ_BYTES : bytes, usage: 0x1 /* MAP_READ */ | 0x8 });
  return { staging, kept };
}

/** Maps a staging buffer whose copy is queued, returns its first `bytes`, and keeps it for reuse
 * (in `kept`) or destroys it. */
async function mapBack(ctx: GpuContext, staging: GPUBuffer, kept: GPUBuffer[] | undefined, bytes: number): Promise<Uint32Array> {
  let mapped = false;
  try {
    await ctx.race(staging.mapAsync(1 /* READ */, 0, bytes));
    mapped = true;
    return new Uint32Array(staging.getMappedRange(0, bytes).slice(0));
  } finally {
    if (kept && mapped) {
      staging.unmap();
      kept.push(staging);
    } else {
      staging.destroy();
    }
  }
}

const SMALL_READ_BYTES = 256;
const smallReads = new WeakMap<GpuContext, GPUBuffer[]>();

function smallReadStaging(ctx: GpuContext): GPUBuffer[] {
  let list = smallReads.get(ctx);
  if (list === undefined) smallReads.set(ctx, (list = []));
  return list;
}

/**
 * Dispatches of a long batch that the host then waits on (a sort's first batch, a doubling round
 * that reads its count back) submitted ahead of the rest: the GPU starts while the host encodes
 * ("batch.startAfter" overrides it; 0 turns it off).
 */
export function earlyStart(): number {
  return tuned("batch.startAfter", EARLY_START, 0);
}
/** H200, gpu-spd, builds alternating in one process (median of 15, ms, 8 / 0): osdb 17.60/19.03,
 * dickens 21.17/22.63, nci 73.5/76.8, chr22 34.1/35.0, mr 22.2/24.2, the concatenation 218/217;
 * osdb's initial sort 3.30 -> 2.14 ms and first round 1.43 -> 0.72 (SUFSORT_GPU_TRACE). 4 and 16
 * measured the same as 8. */
const EARLY_START = 8;

/**
 * A launch parameter: `fallback`, unless SUFSORT_GPU_TUNE names it (e.g. "merge.items=12,scan.items=8"),
 * which the benchmark uses to compare settings in one run. Values below `least` are ignored.
 */
export function tuned(name: string, fallback: number, least = 1): number {
  const spec = process.env.SUFSORT_GPU_TUNE;
  if (!spec) return fallback;
  for (const part of spec.split(",")) {
    const [key, value] = part.split("=");
    if (key === name && Number.isInteger(Number(value)) && Number(value) >= least) return Number(value);
  }
  return fallback;
}

/**
 * Entries of 4 bytes per window of one binding, in whole 256-byte units (the binding-offset
 * alignment), for arrays bound piece by piece; the tune key `name` lowers it for tests (values below
 * `least` are ignored, and a window holds at least 64 entries).
 */
export function bindingWindow(gpu: GpuContext, name: string, least = 1): number {
  const most = Math.floor(gpu.maxBindingBytes / 256) * 64;
  const wanted = tuned(name, most, least);
  return Math.min(most, Math.max(64, wanted - (wanted % 64)));
}

/** Bytes of shared memory per workgroup the device allows. */
export function sharedBytes(ctx: GpuContext): number {
  return ctx.device.limits.maxComputeWorkgroupStorageSize;
}

/** Copies `target.length` u32 values starting at element `first` of `source` into `target` (which may
 * be a view of the shared WebAssembly memory). */
export async function downloadInto(ctx: GpuContext, source: GPUBuffer, target: Uint32Array, first = 0): Promise<void> {
  if (target.length === 0) return;
  const bytes = target.length * 4;
  const staging = ctx.device.createBuffer({ size: bytes, usage: 0x1 /* MAP_READ */ | 0x8 });
  const encoder = ctx.device.createCommandEncoder();
  encoder.copyBufferToBuffer(source, first * 4, staging, 0, bytes);
  ctx.device.queue.submit([encoder.finish()]);
  try {
    await ctx.race(staging.mapAsync(1 /* READ */));
    target.set(new Uint32Array(staging.getMappedRange()));
  } finally {
    staging.destroy();
  }
}
