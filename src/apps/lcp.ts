// LCP array from T and SA on the shared heap, by the Φ / PLCP method (kernels: asm/lcp.ts).
// LCP[0] = 0 and LCP[k] = lcp(SA[k-1], SA[k]); output file: n little-endian u32.
import type { SharedHeap } from "../cpu/memory.js";
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
