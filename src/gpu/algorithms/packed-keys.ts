// Initial keys packed by the text's alphabet (wgsl/sa_packed.wgsl): one pass finds the bytes that
// occur (one 32-byte readback), each byte gets an order-preserving code of ceil(log2 sigma) bits,
// and a 64-bit key holds as many codes as fit beside the length field. Random DNA gets 29
// characters per key instead of 8, so its first sort leaves almost every suffix alone.
import { bitsFor } from "./bits.js";
import type { GpuContext } from "../device.js";
import { GpuBatch, pipeline, readU32, WORKGROUP_SIZE } from "../kernels.js";

/** Text words each invocation of the alphabet pass reads. */
const ALPHABET_WORDS_PER_THREAD = 16;

export interface PackedKeyPlan {
  /** Characters each key compares. */
  chars: number;
  charBits: number;
  lenBits: number;
  /** Key bits in all (sort [0, keyBits)). */
  keyBits: number;
  /** 256 u32 codes (pooled; release with releasePlan). */
  code: GPUBuffer;
}

/** The largest chars with chars * charBits + bits(chars + 1) <= 64, then `round`ed down. */
export function charsPerKey(charBits: number, round: (chars: number) => number = (c) => c): number {
  let chars = 1;
  while ((chars + 1) * charBits + bitsFor(chars + 2) <= 64) chars++;
  return round(chars);
}

/** Finds the text's alphabet and the key layout. `round` adjusts the character count (gpu-spd
 * wants a multiple of 3). */
export async function planPackedKeys(gpu: GpuContext, text: GPUBuffer, n: number, round?: (chars: number) => number): Promise<PackedKeyPlan> {
  const words = Math.ceil(n / 4);
  const mask = gpu.pool.acquire(32, undefined, "alphabet");
  const batch = new GpuBatch(gpu, "alphabet");
  batch.clear(mask, 0, 32);
  const pipe = pipeline(gpu, { file: "sa_packed.wgsl", entry: "alphabet", constants: { WORDS_PER_THREAD: ALPHABET_WORDS_PER_THREAD }, libs: ["cover_sample"] });
  batch.dispatch(pipe, [words, n, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0], [text, mask], Math.ceil(words / (WORKGROUP_SIZE * ALPHABET_WORDS_PER_THREAD)));
  batch.releaseAfter(mask);
  batch.submit();
  const seen = await readU32(gpu, mask, 8);
  const table = new Uint32Array(256);
  let sigma = 0;
  for (let b = 0; b < 256; b++) if ((seen[b >> 5] >>> (b & 31)) & 1) table[b] = sigma++;
  const charBits = bitsFor(Math.max(1, sigma - 1));
  const chars = charsPerKey(charBits, round);
  const lenBits = bitsFor(chars + 1);
  const code = gpu.pool.acquire(table.byteLength, undefined, "alphabet codes");
  gpu.device.queue.writeBuffer(code, 0, table);
  return { chars, charBits, lenBits, keyBits: chars * charBits + lenBits, code };
}

export function releasePlan(gpu: GpuContext, plan: PackedKeyPlan): void {
  gpu.pool.release(plan.code);
}

export interface PackedKeyTargets {
  text: GPUBuffer;
  suffixes: GPUBuffer;
  positions: GPUBuffer;
  keyLow: GPUBuffer;
  keyHigh: GPUBuffer;
}

/**
 * Writes keys for every suffix ("all": entries i = suffix i), for the skew sample ("sample":
 * entry k = its k-th position, n0 = (n + 2) / 3), with suffixes[k] and positions[k] = k, or for
 * a difference-cover sample ("cover": entry k of the reduced string of period `cover.v` whose
 * classes 2 and 4 start at `cover.starts`; suffixes[k] = positions[k] = k).
 */
export function encodePackedKeys(batch: GpuBatch, plan: PackedKeyPlan, which: "all" | "sample" | "cover", count: number, n: number, b: PackedKeyTargets, cover = { v: 0, starts: [0, 0] }): void {
  const entry = { all: "keys_all", sample: "keys_sample", cover: "keys_cover" }[which];
  const pipe = pipeline(batch.ctx, { file: "sa_packed.wgsl", entry, constants: { WORDS_PER_THREAD: ALPHABET_WORDS_PER_THREAD }, libs: ["cover_sample"] });
  const params = [count, n, Math.floor((n + 2) / 3), plan.chars, plan.charBits, plan.lenBits, ...cover.starts, cover.v, 0, 0, 0];
  batch.dispatch(pipe, params, [b.text, undefined, plan.code, b.suffixes, b.positions, b.keyLow, b.keyHigh], Math.ceil(count / WORKGROUP_SIZE));
}
