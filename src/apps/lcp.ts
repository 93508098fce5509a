// LCP array from T and SA on the shared heap, by the Φ / PLCP method (kernels: asm/lcp.ts).
// LCP[0] = 0 and LCP[k] = lcp(SA[k-1], SA[k]); output file: n little-endian u32.
import { MAX_HEAP_BYTES, SharedHeap } from "../cpu/memory.js";
import type { BuildOptions } from "../engine/build.js";
import { buildOfPlacement, type Placement, type TextSource } from "../engine/placement.js";
import { verifyInHeap } from "../engine/verify.js";
import { verifyLarge } from "../engine/verify-large.js";
import { createExecutor } from "../cpu/executor.js";
import { splitRange, TASKS_PER_THREAD } from "./blocks.js";
import type { Executor } from "../cpu/executor.js";

/** Smallest block of one LCP phase task. */
const MIN_BLOCK = 1 << 20;

/**
 * Writes the LCP array of T (textPtr) and SA (saPtr) to lcpPtr (n u32; may be saPtr itself, then the
 * SA is overwritten). Scratch: 4n bytes for Φ/PLCP, reserved and released here. (Tests lower
 * `minBlock` to exercise the block splits on small inputs.)
 */
export async function lcpInHeap(
  heap: SharedHeap, runner: Executor, textPtr: number, saPtr: number, n: number, lcpPtr: number,
  minBlock = MIN_BLOCK,
): Promise<void> {
  if (n === 0) return;
  const mark = heap.used;
  try {
    const phi = heap.alloc(4 * n);
    const blocks = splitRange(n, runner.threads * TASKS_PER_THREAD, minBlock);
    await runner.map("phiFromSA", blocks.map(([k0, k1]) => [saPtr, n, phi, k0, k1]));
    await runner.map("plcpFromPhi", blocks.map(([i0, i1]) => [textPtr, n, phi, i0, i1]));
    await runner.map("lcpFromPlcp", blocks.map(([k0, k1]) => [saPtr, phi, lcpPtr, k0, k1]));
  } finally {
    heap.release(mark);
  }
}

/**
 * The LCP array where Φ does not fit the WebAssembly memory beside the text and SA (about 9n bytes
 * in all, so over about 477 MB): asm/lcp.ts's three steps in plain arrays on one thread, Φ (4n
 * bytes) outside the heap. `text` and `sa` may be views into a heap; the LCP is written over `sa`.
 */
export function lcpLarge(text: Uint8Array, sa: Uint32Array): Uint32Array {
  const n = text.length;
  if (n === 0) return sa;
  const phi = new Uint32Array(n);
  phi[sa[0]] = n; // no predecessor
  for (let k = 1; k < n; k++) phi[sa[k]] = sa[k - 1];
  let l = 0;
  for (let i = 0; i < n; i++) {
    const j = phi[i];
    if (j === n) {
      phi[i] = 0;
      l = 0;
      continue;
    }
    while (i + l < n && j + l < n && text[i + l] === text[j + l]) l++;
    phi[i] = l; // PLCP[i]; PLCP[i + 1] >= PLCP[i] - 1
    if (l > 0) l--;
  }
  for (let k = 0; k < n; k++) sa[k] = phi[sa[k]];
  return sa;
}

/** The LCP array of a text and SA in `heap`, written over the SA: in the heap when Φ fits there, else by lcpLarge. */
export async function lcpOverSuffixArray(heap: SharedHeap, runner: Executor, textPtr: number, saPtr: number, n: number): Promise<Uint32Array> {
  if (heap.fits(4 * n)) await lcpInHeap(heap, runner, textPtr, saPtr, n, saPtr);
  else lcpLarge(heap.u8(textPtr, n), heap.u32(saPtr, n));
  return heap.u32(saPtr, n);
}

/**
 * The LCP array of a placed text (placeForApp): its SA built where the text lies (buildOfPlacement),
 * then the LCP written over it, by lcpOverSuffixArray in the heap or lcpLarge past it. The result is
 * a view of the SA's array; the placement is closed after.
 */
export async function lcpOfPlacement(placement: Placement, options: BuildOptions = {}): Promise<Uint32Array> {
  try {
    const { sa } = await buildOfPlacement(placement, options);
    options.onProgress?.("lcp", 0);
    const { placed } = placement;
    return placed !== undefined ? await lcpOverSuffixArray(placed.heap, placed.executor, placed.textPtr, sa.byteOffset, placed.n) : lcpLarge(placement.large!, sa);
  } finally {
    await placement.close();
  }
}

/**
 * The LCP array of a text and a given SA (its 4n bytes from `saBytes`), once the linear verifier
 * accepts the SA (else `notTheSA(why)` is thrown): text, SA and Φ in a heap of their own when they
 * fit it (about 9n bytes), on `threads` workers; else in plain arrays (verifyLarge, lcpLarge), the
 * text taken where it lies in memory already. The result is a view of the SA's array, a fresh one.
 */
export async function lcpOfGivenSuffixArray(
  text: TextSource, saBytes: TextSource, threads: number, notTheSA: (why: string) => Error, onProgress?: BuildOptions["onProgress"],
): Promise<Uint32Array> {
  const n = text.size;
  const heapBytes = 64 + 9 * n + ((n + 7) >>> 3) + (1 << 20);
  if (heapBytes > MAX_HEAP_BYTES) {
    let plain = text.bytes;
    if (plain === undefined) {
      plain = new Uint8Array(n);
      text.read(plain);
    }
    const sa = new Uint32Array(n);
    saBytes.read(new Uint8Array(sa.buffer, 0, 4 * n));
    onProgress?.("verifying", 0);
    const verdict = verifyLarge(plain, sa);
    if (!verdict.ok) throw notTheSA(verdict.message);
    onProgress?.("lcp", 0);
    return lcpLarge(plain, sa);
  }
  const heap = new SharedHeap(heapBytes);
  const textPtr = heap.alloc(n);
  text.read(heap.u8(textPtr, n));
  const saPtr = heap.alloc(4 * n);
  saBytes.read(heap.u8(saPtr, 4 * n));
  const executor = createExecutor(heap, threads);
  try {
    onProgress?.("verifying", 0);
    const verdict = verifyInHeap(heap, executor.kernels, textPtr, saPtr, n);
    if (!verdict.ok) throw notTheSA(verdict.message);
    onProgress?.("lcp", 0);
    return await lcpOverSuffixArray(heap, executor, textPtr, saPtr, n);
  } finally {
    await executor.close();
  }
}
