// LCP array from T and SA on the shared heap, by the Φ / PLCP method (kernels: asm/lcp.ts).
// LCP[0] = 0 and LCP[k] = lcp(SA[k-1], SA[k]); output file: n little-endian u32.
import { collectGarbage, MAX_HEAP_BYTES, SharedHeap, sharedCopy, sharedU32, sharedU8 } from "../cpu/memory.js";
import type { BuildOptions } from "../engine/build.js";
import { buildOfPlacement, readByRanges, type Placement, type TextSource } from "../engine/placement.js";
import { verifyByWindows, verifyInHeapOn } from "../engine/verify.js";
import { seenBitsBytes, verifyLarge } from "../engine/verify-large.js";
import { createExecutor, defaultThreads, PlainSteps } from "../cpu/executor.js";
import { lcpBlock, phiBlock, plcpBlock } from "./lcp-steps.js";
import { forEachWindow, SA_WINDOW_ENTRIES } from "./windows.js";
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
 * The LCP array where not even the text and Φ fit the WebAssembly memory (about 5n bytes, so over
 * about 850 MB): asm/lcp.ts's three steps over plain arrays (lcp-steps.ts), Φ (4n bytes) outside the
 * heap, by blocks on `threads` workers when the SA lies in a SharedArrayBuffer (the text is copied
 * into one when it does not), else on this thread. `text` and `sa` may be views into a heap; the LCP
 * is written over `sa`, which is returned. (Tests lower `minBlock`.)
 */
export async function lcpLarge(text: Uint8Array, sa: Uint32Array, threads = 1, minBlock = MIN_BLOCK): Promise<Uint32Array> {
  const n = text.length;
  if (n === 0) return sa;
  const onWorkers = threads > 1 && sa.buffer instanceof SharedArrayBuffer;
  await collectGarbage(); // the SA's build's arrays, before Φ's 4n bytes
  if (onWorkers && !(text.buffer instanceof SharedArrayBuffer)) text = sharedCopy(text);
  const phi = onWorkers ? sharedU32(n) : new Uint32Array(n);
  const steps = new PlainSteps(onWorkers ? threads : 1);
  try {
    const blocks = splitRange(n, threads * TASKS_PER_THREAD, minBlock).map(([from, to]) => ({ text, sa, phi, from, to }));
    await steps.map("phiBlock", phiBlock, blocks);
    await steps.map("plcpBlock", plcpBlock, blocks);
    await steps.map("lcpBlock", lcpBlock, blocks);
    return sa;
  } finally {
    await steps.close();
  }
}

/**
 * lcpInHeap's three steps for an SA in a plain array: text (textPtr) and Φ (phi, 4n bytes) in the
 * heap, the SA streamed through `window` (room for w + 1 entries) for steps 1 and 3, the LCP
 * written over the plain SA.
 */
async function lcpByWindows(
  heap: SharedHeap, runner: Executor, textPtr: number, phi: number, sa: Uint32Array, window: number, w: number, minBlock: number,
): Promise<void> {
  const n = sa.length;
  const parts = runner.threads * TASKS_PER_THREAD;
  const blocksOf = (a: number, b: number) => splitRange(b - a, parts, minBlock).map(([k0, k1]) => [a + k0, a + k1]);
  await forEachWindow(heap.memory, sa, window, w, async (a, b, base) => {
    await runner.map("phiFromSA", blocksOf(a, b).map(([k0, k1]) => [base, n, phi, k0, k1]));
  }, { previous: true });
  await runner.map("plcpFromPhi", blocksOf(0, n).map(([i0, i1]) => [textPtr, n, phi, i0, i1]));
  await forEachWindow(heap.memory, sa, window, w, async (a, b, base) => {
    await runner.map("lcpFromPlcp", blocksOf(a, b).map(([k0, k1]) => [base, phi, base, k0, k1]));
  }, { writeBack: true });
}

/** Heap bytes of lcpOverPlainSuffixArray: the text, Φ and a window of w + 1 SA entries. */
function plainLcpHeapBytes(n: number, w: number): number {
  return 64 + align64(n) + 4 * n + 64 + 4 * (w + 1) + 64;
}

function align64(bytes: number): number {
  return Math.ceil(bytes / 64) * 64;
}

/**
 * The LCP array of a text and an SA in a plain array, written over the SA (returned): the text and
 * Φ in a heap of their own (about 5n bytes, so to about 850 MB) on `threads` workers, the SA
 * streamed through it; past that, lcpLarge. (Tests lower `windowEntries` and `minBlock`.)
 */
export async function lcpOverPlainSuffixArray(
  text: Uint8Array, sa: Uint32Array, threads: number, windowEntries = SA_WINDOW_ENTRIES, minBlock = MIN_BLOCK,
): Promise<Uint32Array> {
  const n = text.length;
  if (n === 0) return sa;
  const w = Math.min(n, windowEntries);
  if (plainLcpHeapBytes(n, w) > MAX_HEAP_BYTES) return lcpLarge(text, sa, threads);
  await collectGarbage(); // the SA's build's arrays, before the heap's 5n bytes
  const heap = new SharedHeap(plainLcpHeapBytes(n, w));
  const textPtr = heap.alloc(n);
  heap.u8(textPtr, n).set(text);
  const phi = heap.alloc(4 * n);
  const window = heap.alloc(4 * (w + 1));
  const runner = createExecutor(heap, threads);
  try {
    await lcpByWindows(heap, runner, textPtr, phi, sa, window, w, minBlock);
    return sa;
  } finally {
    await runner.close();
  }
}

/**
 * The LCP array of a text and SA in `heap`: in the heap, over the SA, when Φ fits there; else the SA
 * is copied out to a plain array, Φ takes its place, and the LCP is written over the copy
 * (lcpByWindows). Returns the array that holds it.
 */
export async function lcpOverSuffixArray(
  heap: SharedHeap, runner: Executor, textPtr: number, saPtr: number, n: number, windowEntries = SA_WINDOW_ENTRIES, minBlock = MIN_BLOCK,
): Promise<Uint32Array> {
  if (heap.fits(4 * n)) {
    await lcpInHeap(heap, runner, textPtr, saPtr, n, saPtr, minBlock);
    return heap.u32(saPtr, n);
  }
  await collectGarbage();
  const sa = sharedU32(n);
  sa.set(heap.u32(saPtr, n));
  const w = Math.max(1, Math.min(n, windowEntries, Math.floor((MAX_HEAP_BYTES - heap.used - 128) / 4) - 1));
  if (!heap.fits(4 * (w + 1))) return lcpLarge(heap.u8(textPtr, n), sa, runner.threads);
  const mark = heap.used;
  try {
    await lcpByWindows(heap, runner, textPtr, saPtr, sa, heap.alloc(4 * (w + 1)), w, minBlock);
    return sa;
  } finally {
    heap.release(mark);
  }
}

/**
 * The LCP array of a placed text (placeForApp): its SA built where the text lies (buildOfPlacement),
 * then the LCP written over it: by lcpOverSuffixArray in the heap, or lcpOverPlainSuffixArray past it.
 * The placement is closed after.
 */
export async function lcpOfPlacement(placement: Placement, options: BuildOptions = {}): Promise<Uint32Array> {
  try {
    const { sa } = await buildOfPlacement(placement, options);
    options.onProgress?.("lcp", 0);
    const { placed } = placement;
    return placed !== undefined
      ? await lcpOverSuffixArray(placed.heap, placed.executor, placed.textPtr, sa.byteOffset, placed.n)
      : await lcpOverPlainSuffixArray(placement.large!, sa, options.threads ?? defaultThreads());
  } finally {
    await placement.close();
  }
}

/**
 * The LCP array of a text and a given SA (its 4n bytes from `saBytes`), once the linear verifier
 * accepts the SA (else `notTheSA(why)` is thrown): text and SA in a heap of their own when they fit
 * it (about 5n bytes, to about 850 MB), checked and then taken to their LCP by lcpOverSuffixArray
 * (Φ beside the SA, or in its place) on `threads` workers; else in plain arrays (verifyLarge,
 * lcpOverPlainSuffixArray), the text taken where it lies in memory already. The result is a fresh array.
 */
export async function lcpOfGivenSuffixArray(
  text: TextSource, saBytes: TextSource, threads: number, notTheSA: (why: string) => Error, onProgress?: BuildOptions["onProgress"],
): Promise<Uint32Array> {
  const n = text.size;
  // text, SA and the verifier's scratch; the heap grows for Φ where it has room (lcpOverSuffixArray)
  const heapBytes = 64 + 5 * n + seenBitsBytes(n) + (1 << 20);
  if (heapBytes > MAX_HEAP_BYTES) {
    let plain = text.bytes;
    if (plain === undefined) {
      plain = sharedU8(n);
      text.read(plain);
    }
    const sa = sharedU32(n);
    readByRanges(saBytes, (offset, length) => new Uint8Array(sa.buffer, offset, length));
    onProgress?.("verifying", 0);
    const verdict = (await verifyByWindows(plain, sa, threads)) ?? verifyLarge(plain, sa);
    if (!verdict.ok) throw notTheSA(verdict.message);
    onProgress?.("lcp", 0);
    return lcpOverPlainSuffixArray(plain, sa, threads);
  }
  const heap = new SharedHeap(heapBytes);
  const textPtr = heap.alloc(n);
  text.read(heap.u8(textPtr, n));
  const saPtr = heap.alloc(4 * n);
  saBytes.read(heap.u8(saPtr, 4 * n));
  const executor = createExecutor(heap, threads);
  try {
    onProgress?.("verifying", 0);
    const verdict = await verifyInHeapOn(heap, executor, textPtr, saPtr, n);
    if (!verdict.ok) throw notTheSA(verdict.message);
    onProgress?.("lcp", 0);
    return await lcpOverSuffixArray(heap, executor, textPtr, saPtr, n);
  } finally {
    await executor.close();
  }
}
