// Runs the linear verifier (asm/verify.ts) on a text and SA and turns its record into a message.
import { MAX_HEAP_BYTES, SharedHeap } from "../cpu/memory.js";
import { verifyLarge } from "./verify-large.js";
import { instantiate, type Kernels } from "../cpu/wasm.js";

export type Verdict =
  | { ok: true }
  | { ok: false; kind: "length" | "range" | "duplicate" | "order"; position: number; message: string };

interface VerifyKernels {
  verifySuffixArray(text: number, sa: number, n: number, bits: number, buckets: number, result: number): number;
  firstViolation(text: number, sa: number, n: number, rank: number): number;
}

const KIND = ["ok", "range", "duplicate", "order"] as const;

/** Verifies an SA already in the heap; scratch is reserved and released here. */
export function verifyInHeap(heap: SharedHeap, kernels: Kernels, textPtr: number, saPtr: number, n: number): Verdict {
  const k = kernels as unknown as VerifyKernels;
  const mark = heap.used;
  try {
    const bits = heap.alloc((n + 7) >> 3);
    const buckets = heap.alloc(1024);
    const result = heap.alloc(8);
    const kind = k.verifySuffixArray(textPtr, saPtr, n, bits, buckets, result) >>> 0;
    if (kind === 0) return { ok: true };
    const at = heap.u32(result, 2)[1];
    const sa = heap.u32(saPtr, n);
    if (kind === 1) {
      return { ok: false, kind: "range", position: at, message: `SA[${at}] = ${sa[at]} is out of range (n = ${n})` };
    }
    if (kind === 2) {
      return { ok: false, kind: "duplicate", position: at, message: `SA[${at}] = ${sa[at]} appears twice` };
    }
    heap.release(mark);
    const rank = heap.alloc(4 * n);
    const k0 = k.firstViolation(textPtr, saPtr, n, rank) >>> 0;
    const pos = k0 < n ? k0 : at;
    const message =
      k0 < n
        ? `suffixes out of order at SA[${k0}] = ${sa[k0]}, SA[${k0 + 1}] = ${sa[k0 + 1]}`
        : `suffixes out of order near SA[${at}]`;
    return { ok: false, kind: KIND[kind] as "order", position: pos, message };
  } finally {
    heap.release(mark);
  }
}

/** The verdict for an SA of `entries` entries given for a text of n bytes (entries != n). */
export function lengthVerdict(entries: number, n: number): Verdict {
  return { ok: false, kind: "length", position: Math.min(entries, n), message: `SA has ${entries} entries; the text has ${n} bytes` };
}

/**
 * Verifies a text of n bytes and its SA in a fresh heap (text, SA and the verifier's bitmap) that
 * `fill` writes them into: undefined when a fault's rank array would not fit in the 4 GiB memory
 * (then verifyLarge, in TypeScript).
 */
export function verifyInFreshHeap(n: number, fill: (heap: SharedHeap, textPtr: number, saPtr: number) => void): Verdict | undefined {
  if (64 + 9 * n + ((n + 7) >> 3) + 8192 > MAX_HEAP_BYTES) return undefined;
  const heap = new SharedHeap(64 + n + 4 * n + ((n + 7) >> 3) + 8192);
  const textPtr = heap.alloc(n);
  const saPtr = heap.alloc(4 * n);
  fill(heap, textPtr, saPtr);
  return verifyInHeap(heap, instantiate(heap.memory), textPtr, saPtr, n);
}

/** Verifies any text and SA (copied into a fresh heap, or checked in TypeScript when too large for one). */
export function verifySuffixArrayOf(text: Uint8Array, sa: Uint32Array): Verdict {
  const n = text.length;
  if (sa.length !== n) return lengthVerdict(sa.length, n);
  const copied = verifyInFreshHeap(n, (heap, textPtr, saPtr) => {
    heap.u8(textPtr, n).set(text);
    heap.u32(saPtr, n).set(sa);
  });
  return copied ?? verifyLarge(text, sa);
}
