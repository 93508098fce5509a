// Burrows–Wheeler transform and its inverse on the shared heap (kernels: asm/bwt.ts).
//
// Convention (libsais's): sort the n+1 suffixes of T$ with $ smaller than every byte; L[r] is the
// byte before row r's suffix; the row of the whole text (suffix 0) has none: it is dropped from L and
// its row number is the primary index. banana -> "annbaa", primary 4. For n = 0 the BWT is empty
// and the primary index 0. File format (.bwt): primary index as u64 little-endian, then the n bytes.
import { collectGarbage, MAX_HEAP_BYTES, SharedHeap, sharedCopy } from "../cpu/memory.js";
import { buildLarge, buildPlaced, type BuildOptions, type BuildResult, type PlacedText } from "../engine/build.js";
import { placementOptions, type Placement } from "../engine/placement.js";
import { suffixArrayOf, type SuffixSorter } from "../engine/registry.js";
import { failure } from "../errors.js";
import { PhaseClock } from "../cpu/trace.js";
import { bucketStarts, slotsByBlock, splitRange, TASKS_PER_THREAD } from "./blocks.js";
import { forEachWindow, SA_WINDOW_ENTRIES } from "./windows.js";
import { createExecutor, defaultThreads, PlainSteps } from "../cpu/executor.js";
import { copyChain, rowCounts, scatterPsi, START_BIT, walkChains, type ChainWalk } from "./chains.js";
import type { Executor } from "../cpu/executor.js";
import { bwtOnDevice, bwtWords } from "../gpu/apps/bwt.js";

/** Bytes of a .bwt file before the BWT itself. */
export const BWT_HEADER_BYTES = 8;
/** Rows per block for the forward gather and the psi scatter (one task each). */
const MIN_BLOCK_ROWS = 1 << 20;
/** Average text bytes per decoding chain: enough chains to keep every worker's loads in flight. */
const BYTES_PER_CHAIN = 1 << 12;
/** Most chains: linking them is a host loop, and each costs a few words of state. */
const MAX_CHAINS = 1 << 16;
/** Rows per wave of bwtOverSuffixArray (its scratch). */
const BWT_WAVE_BYTES = 1 << 24;
/** Scratch of one unbwtWalk call: INTERLEAVE (32) slots of 24 bytes (asm/bwt.ts). */
const WALK_SLOTS_BYTES = 32 * 24;
/** Chains write into chunks of 2^CHUNK_SHIFT bytes; each chain wastes less than one. */
const CHUNK_SHIFT = 10;

/** The BWT as two views into the heap: L up to the primary row and after it (no copy). */
export interface BwtInHeap {
  primary: number;
  parts: [Uint8Array, Uint8Array];
  /** Seconds to build the SA, and to derive the BWT from it. */
  saSeconds: number;
  bwtSeconds: number;
}

/**
 * Builds the SA of a placed text, then its BWT (the gather's blocks through `runner`). With a GPU
 * sorter the BWT is derived on the device from the SA there (src/gpu/apps/bwt.ts) and lands in the
 * heap's SA region; only its n bytes come back.
 */
export async function bwtPlaced(
  placed: PlacedText, options: BuildOptions = {}, runner: Executor = placed.executor,
): Promise<BwtInHeap> {
  const { heap, textPtr, n } = placed;
  if (n === 0) return { primary: 0, parts: [new Uint8Array(0), new Uint8Array(0)], saSeconds: 0, bwtSeconds: 0 };
  if (placed.sorter.engine === "gpu") {
    const { bwt, built } = await buildWithDeviceBwt((withConsumer) => buildPlaced(placed, withConsumer), options, n);
    // The sorter hands nothing over when it finishes on the host (n = 1): the CPU gather does the rest.
    return bwt ?? bwtFromBuilt(heap, runner, textPtr, n, built.sa.byteOffset, built.seconds);
  }
  const built = await buildPlaced(placed, options);
  return bwtFromBuilt(heap, runner, textPtr, n, built.sa.byteOffset, built.seconds);
}

/**
 * Runs `build` with a consumer that derives the rows of L on the device from a GPU sorter's SA
 * (bwtOnDevice) into the SA's own array (suffixArrayOf: the heap's SA region, or the plain array of
 * the large path), so that only L comes back. `bwt` is undefined where the sorter finished on the
 * host and handed nothing over (n = 1).
 */
async function buildWithDeviceBwt(
  build: (options: BuildOptions) => Promise<BuildResult>, options: BuildOptions, n: number,
): Promise<{ bwt?: BwtInHeap; built: BuildResult }> {
  let onDevice: { primary: number; seconds: number } | undefined;
  const built = await build({
    ...options,
    consumeDeviceSuffixArray: async (gpu, sa, text, ctx, produce) => {
      const t0 = performance.now();
      const primary = await bwtOnDevice(gpu, sa, text, ctx.n, suffixArrayOf(ctx).subarray(0, bwtWords(ctx.n)), produce);
      onDevice = { primary, seconds: (performance.now() - t0) / 1000 };
    },
  });
  if (onDevice === undefined) return { built };
  // rows 0..n of L; the primary row is no part of the stored BWT
  const rows = new Uint8Array(built.sa.buffer, built.sa.byteOffset, n + 1);
  const { primary, seconds } = onDevice;
  return { bwt: { primary, parts: [rows.subarray(0, primary), rows.subarray(primary + 1)], saSeconds: built.seconds - seconds, bwtSeconds: seconds }, built };
}

async function bwtFromBuilt(heap: SharedHeap, runner: Executor, textPtr: number, n: number, saPtr: number, saSeconds: number): Promise<BwtInHeap> {
  const t0 = performance.now();
  // L beside the SA when the heap has room for it, else over the SA itself.
  const out = heap.fits(n + 1) ? heap.alloc(n + 1) : saPtr;
  const primary = out === saPtr
    ? await bwtOverSuffixArray(heap, runner, textPtr, saPtr, n)
    : await bwtFromSAInHeap(heap, runner, textPtr, saPtr, n, out);
  const bwtSeconds = (performance.now() - t0) / 1000;
  return {
    primary,
    parts: [heap.u8(out, primary), heap.u8(out + primary + 1, n - primary)],
    saSeconds,
    bwtSeconds,
  };
}

/** Writes L (n+1 rows, the primary row's byte left 0) at out from T and SA; returns the primary index. */
export async function bwtFromSAInHeap(
  heap: SharedHeap, runner: Executor, textPtr: number, saPtr: number, n: number, out: number,
  minBlockRows = MIN_BLOCK_ROWS,
): Promise<number> {
  heap.u8(out, 1)[0] = heap.u8(textPtr + n - 1, 1)[0];
  return gatherRows(runner, textPtr, saPtr, out, 0, n, minBlockRows);
}

/** Rows k + 1 of L for k in [a, b), from SA[k], to out + k + 1 (u32 arithmetic), in blocks on the
 * runner; returns the primary index when it is among them, else 0. */
async function gatherRows(runner: Executor, textPtr: number, saPtr: number, out: number, a: number, b: number, minBlockRows: number): Promise<number> {
  const blocks = splitRange(b - a, runner.threads * TASKS_PER_THREAD, minBlockRows);
  const found = await runner.map("bwtFromSA", blocks.map(([k0, k1]) => [textPtr, saPtr, out | 0, a + k0, a + k1]));
  return Math.max(0, ...found);
}

/**
 * bwtFromSAInHeap with L written over the SA (n + 1 bytes at saPtr), for texts whose heap has no
 * room for L beside it. Row k + 1 comes from SA[k] and lands in entry (k + 1) / 4 <= k, so once
 * the entries before a wave's end are read, the wave's rows (gathered in parallel into a scratch
 * of waveBytes) can be copied into place; row 0 (T[n-1]) goes last over entry 0.
 */
export async function bwtOverSuffixArray(
  heap: SharedHeap, runner: Executor, textPtr: number, saPtr: number, n: number,
  waveBytes = BWT_WAVE_BYTES, minBlockRows = MIN_BLOCK_ROWS,
): Promise<number> {
  const wave = Math.min(n, waveBytes);
  const mark = heap.used;
  try {
    const scratch = heap.alloc(wave + 1);
    let primary = 0;
    for (let a = 0; a < n; a += wave) {
      const b = Math.min(n, a + wave);
      // row k + 1 goes to out + k + 1: with out = scratch - a (mod 2^32), to scratch + (k - a) + 1
      primary = Math.max(primary, await gatherRows(runner, textPtr, saPtr, scratch - a, a, b, minBlockRows));
      heap.u8(0, heap.memory.buffer.byteLength).copyWithin(saPtr + a + 1, scratch + 1, scratch + 1 + (b - a));
    }
    heap.u8(saPtr, 1)[0] = heap.u8(textPtr + n - 1, 1)[0];
    return primary;
  } finally {
    heap.release(mark);
  }
}

/**
 * The BWT of a text too large for the WebAssembly memory, in plain arrays: its SA by buildLarge
 * (SA-IS in TypeScript, or `sorter` where it takes its text outside the heap: gpu-dc7), then L
 * written over the SA's own bytes (about 5n bytes in all besides what the SA's build needs). A GPU
 * sorter's SA never comes back: L is derived on the device, as in bwtPlaced.
 */
export async function bwtLarge(text: Uint8Array, options: BuildOptions = {}, sorter?: SuffixSorter): Promise<BwtInHeap> {
  const n = text.length;
  if (n === 0) return { primary: 0, parts: [new Uint8Array(0), new Uint8Array(0)], saSeconds: 0, bwtSeconds: 0 };
  const onDevice = sorter?.outsideHeap === true && sorter.engine === "gpu";
  const { bwt, built } = onDevice
    ? await buildWithDeviceBwt((withConsumer) => buildLarge(text, withConsumer, sorter), options, n)
    : { bwt: undefined, built: await buildLarge(text, options, sorter) };
  if (bwt !== undefined) return bwt;
  const t0 = performance.now();
  const { L, primary } = await bwtOverPlainSuffixArray(text, built.sa, options.threads ?? defaultThreads());
  return { primary, parts: [L.subarray(0, primary), L.subarray(primary)], saSeconds: built.seconds, bwtSeconds: (performance.now() - t0) / 1000 };
}

/**
 * The BWT of a placed text (placeForApp): bwtPlaced in its heap, or bwtLarge past it; the
 * placement's device goes with `options`, and the placement is closed after.
 */
export async function bwtOfPlacement(placement: Placement, options: BuildOptions = {}): Promise<BwtInHeap> {
  const withDevice = placementOptions(placement, options);
  const { placed, large } = placement;
  const made = placed !== undefined ? bwtPlaced(placed, withDevice, placed.executor) : bwtLarge(large!, withDevice, placement.sorter);
  return made.finally(() => placement.close());
}

/**
 * L without the primary row (n bytes), written over the first n bytes of `sa`'s buffer, and the
 * primary index, for an SA in a plain array (the large paths): the text in a heap of its own (n
 * bytes and a window), the SA streamed through it (rowsFromPlainSuffixArray) on `threads` workers.
 * A window's rows k + 1 land at bytes up to b <= its last entry, whose entries are read by then; row
 * 0 (T[n-1]) goes last over entry 0. (Tests lower `windowEntries` and `minBlockRows`.)
 */
export async function bwtOverPlainSuffixArray(
  text: Uint8Array, sa: Uint32Array, threads: number, windowEntries = SA_WINDOW_ENTRIES, minBlockRows = MIN_BLOCK_ROWS,
): Promise<{ L: Uint8Array; primary: number }> {
  const n = text.length;
  const L = new Uint8Array(sa.buffer, sa.byteOffset, n);
  if (n === 0) return { L, primary: 0 };
  const w = Math.min(n, windowEntries);
  await collectGarbage(); // the SA's build's arrays, before the text's heap
  const heap = new SharedHeap(64 + n + 5 * w + 3 * 64);
  const textPtr = heap.alloc(n);
  heap.u8(textPtr, n).set(text);
  const window = heap.alloc(4 * w);
  const rows = heap.alloc(w + 1);
  const runner = createExecutor(heap, threads);
  try {
    const primary = await rowsFromPlainSuffixArray(heap, runner, textPtr, sa, window, w, (a) => rows - a, (a, b, primary) => {
      // rows a + 1..b, at rows + 1; the primary row is no part of L
      const got = heap.u8(rows + 1, b - a);
      if (primary === 0 || primary > b) L.set(got, a + 1);
      else if (primary > a) {
        L.set(got.subarray(0, primary - a - 1), a + 1);
        L.set(got.subarray(primary - a), primary);
      } else L.set(got, a);
    }, minBlockRows);
    L[0] = text[n - 1];
    return { L, primary };
  } finally {
    await runner.close();
  }
}

/**
 * Rows 1..n of L (row k + 1 from SA[k], the primary row's byte 0) from an SA in a plain array,
 * streamed through `window` (w entries) in the heap of the text at textPtr: window [a, b)'s rows land
 * at out(a) + k + 1 (u32 arithmetic), then `landed(a, b, primary so far)` runs. Returns the primary
 * index (0 for an empty SA).
 */
export async function rowsFromPlainSuffixArray(
  heap: SharedHeap, runner: Executor, textPtr: number, sa: Uint32Array, window: number, w: number,
  out: (a: number) => number, landed: (a: number, b: number, primary: number) => void, minBlockRows = MIN_BLOCK_ROWS,
): Promise<number> {
  let primary = 0;
  await forEachWindow(heap.memory, sa, window, w, async (a, b, base) => {
    primary = Math.max(primary, await gatherRows(runner, textPtr, base, out(a), a, b, minBlockRows));
    landed(a, b, primary);
  });
  if (primary === 0 && sa.length > 0) throw new Error("sufsort: the SA has no entry 0");
  return primary;
}

/** Checks a primary index against the BWT length (a failure: it came from a file or a caller). */
export function checkPrimary(n: number, primary: number): void {
  const ok = n === 0 ? primary === 0 : Number.isInteger(primary) && primary >= 1 && primary <= n;
  if (!ok) {
    throw failure(`primary index ${primary} is out of range (${n === 0 ? "must be 0 for an empty BWT" : `1..${n} for a BWT of ${n} bytes`})`);
  }
}

interface UnbwtKernels {
  byteHistogram(bytes: number, from: number, to: number, counts: number): void;
  psiFromBWT(bwt: number, primary: number, psi: number, next: number, r0: number, r1: number): void;
  markRows(psi: number, rows: number, count: number, set: number): void;
}

const NOT_A_BWT = "the input is not a valid BWT (it does not decode to a single text)";

export interface UnbwtLargeOptions {
  /** Workers (default 1). */
  threads?: number;
  /** L lies in a SharedArrayBuffer and may be overwritten (it then holds F); else it is copied. */
  overwrite?: boolean;
  /** Tests: the mean chain length aimed at, and the fewest rows of a block of psi's build. */
  bytesPerChain?: number;
  minBlockRows?: number;
}

/**
 * Inverts a BWT too large for the WebAssembly memory (unbwtHeapBytes(n) over 4 GiB), in plain
 * shared arrays on `threads` workers (chains.ts): psi as unbwtInHeap builds it (counts and scatter by
 * blocks of rows), then its cycle cut into chains at evenly spaced rows, walked, and linked in text
 * order as unbwtInHeap links them (about 4n + 2n bytes beyond L, and L's copy unless `overwrite`).
 */
export async function unbwtLarge(L: Uint8Array, primary: number, options: UnbwtLargeOptions = {}): Promise<Uint8Array> {
  const { threads = 1, overwrite = false, bytesPerChain = BYTES_PER_CHAIN, minBlockRows = MIN_BLOCK_ROWS } = options;
  const n = L.length;
  checkPrimary(n, primary);
  if (n === 0) return new Uint8Array(0);
  await collectGarbage(); // what earlier large steps dropped, before psi's 4n bytes
  const clock = new PhaseClock("unbwtLarge");
  const rows = n + 1;
  const steps = new PlainSteps(threads);
  try {
    const shared = overwrite && L.buffer instanceof SharedArrayBuffer ? L : sharedCopy(L);
    // psi by blocks of rows: their byte counts, then each block's first slot per byte, then the scatter
    const blocks = splitRange(rows, threads * TASKS_PER_THREAD, minBlockRows).map(([r0, r1]) => ({ L: shared, primary, r0, r1 }));
    const slots = new Uint32Array(256 * blocks.length);
    (await steps.map("rowCounts", rowCounts, blocks)).forEach((counts, b) => slots.set(counts, 256 * b));
    const C = bucketStarts(slots, blocks.length, 1); // row 0 is the $ row
    slotsByBlock(slots, blocks.length, C);
    const psi = new Uint32Array(new SharedArrayBuffer(4 * rows));
    psi[0] = primary;
    await steps.map("scatterPsi", scatterPsi, blocks.map((block, b) => ({ ...block, psi, next: slots.subarray(256 * b, 256 * b + 256) })));
    return await decodeChains(psi, shared, C, primary, n, bytesPerChain, clock, steps);
  } finally {
    await steps.close();
  }
}

/** unbwtLarge's walk: psi's cycle cut into chains at evenly spaced rows, walked on `steps`, and linked in text order. */
async function decodeChains(
  psi: Uint32Array, L: Uint8Array, C: ArrayLike<number>, primary: number, n: number, bytesPerChain: number, clock: PhaseClock, steps: PlainSteps,
): Promise<Uint8Array> {
  const threads = steps.threads;
  const rows = n + 1;
  // F[r - 1], the first byte of row r's suffix, over L's bytes: L is read no more
  const F = L;
  for (let c = 0; c < 256; c++) F.fill(c, C[c] - 1, C[c + 1] - 1);
  const starts = chainStarts(n, primary, bytesPerChain);
  for (const s of starts) psi[s] |= START_BIT;
  const chains = starts.length;
  clock.lap("psi");

  const tasks: ChainWalk[] = splitRange(chains, threads * TASKS_PER_THREAD, 1).map(([first, last]) => ({
    psi, F, starts, first, last, maxSteps: n,
  }));
  const walked = await steps.map("walkChains", walkChains, tasks);
  if (walked.some((w) => w.overrun)) throw failure(NOT_A_BWT);
  clock.lap("walk");

  // Link the chains in text order, then copy each one's bytes into place.
  const taskOf = new Uint32Array(chains);
  tasks.forEach((t, i) => taskOf.fill(i, t.first, t.last));
  const local = (j: number) => j - tasks[taskOf[j]].first;
  const order = chainOrder(starts, primary, n, (j) => walked[taskOf[j]].lengths[local(j)], (j) => walked[taskOf[j]].ends[local(j)]);
  const text = new Uint8Array(n);
  let at = 0;
  for (const j of order) {
    const w = walked[taskOf[j]];
    copyChain(w, local(j), text, at);
    at += w.lengths[local(j)];
  }
  clock.lap("link");
  clock.line(`${chains} chains, ${threads} threads`);
  return text;
}

/** The decoding chains' start rows, ascending: about n / bytesPerChain evenly spaced rows of 1..n (at most MAX_CHAINS), and the primary row. */
function chainStarts(n: number, primary: number, bytesPerChain: number): Uint32Array {
  const count = Math.min(MAX_CHAINS, Math.max(1, Math.ceil(n / bytesPerChain)));
  const starts = new Set<number>([primary]);
  for (let j = 0; j < count; j++) starts.add(1 + Math.floor((j * n) / count));
  return Uint32Array.from(starts).sort();
}

/**
 * The walked chains in text order: the primary row's chain first, then the chain that starts where
 * each one ended, until one ends at row 0. Fails unless that takes every chain and n bytes in all
 * (then the bytes are no BWT: psi has more than one cycle).
 */
function chainOrder(starts: Uint32Array, primary: number, n: number, length: (j: number) => number, end: (j: number) => number): number[] {
  const chainOf = new Map<number, number>();
  starts.forEach((row, j) => chainOf.set(row, j));
  const order: number[] = [];
  let total = 0;
  for (let j = chainOf.get(primary)!; ; ) {
    order.push(j);
    total += length(j);
    if (end(j) === 0 || order.length > starts.length) break;
    j = chainOf.get(end(j))!;
  }
  if (order.length !== starts.length || total !== n) throw failure(NOT_A_BWT);
  return order;
}

/** Heap bytes an in-place unbwtInHeap of n bytes needs: the BWT (then the text), psi, the chunk pool and tables. */
export function unbwtHeapBytes(n: number, bytesPerChain = BYTES_PER_CHAIN): number {
  const chains = Math.min(MAX_CHAINS, Math.ceil(n / bytesPerChain)) + 1;
  return 64 + 6 * n + Math.ceil(n / 256) + chains * ((1 << CHUNK_SHIFT) + 32) + (4 << 20);
}

/** A heap for decoding n bytes in place, or undefined when it would exceed the 4 GiB memory (then unbwtLarge). */
export function unbwtHeap(n: number): SharedHeap | undefined {
  return unbwtHeapBytes(n) <= MAX_HEAP_BYTES ? new SharedHeap(unbwtHeapBytes(n)) : undefined;
}

/**
 * Inverts the BWT (n bytes at bwtPtr, primary index) into n bytes at outPtr, which may be bwtPtr:
 * the BWT is read only until psi is built (scratch: 4(n+1) bytes of psi, about n bytes of chain
 * chunks and the chain tables, reserved and released here; see unbwtHeapBytes). Fails on a primary
 * index out of range or bytes that are not the BWT of any text (psi then has more than one cycle).
 *
 * psi = LF^-1 over rows 0..n; the text is psi's cycle from the primary row, cut into chains at
 * evenly spaced rows. The chains are walked (in blocks) into chunks; the host links them in text
 * order (chain of the primary row first; each chain ends where the next starts; the last reaches
 * row 0, the $ row) and copies each chain's chunks into place. See asm/bwt.ts. (`bytesPerChain`,
 * the mean chain length aimed at, and `minBlockRows` are lowered by tests to exercise the linking
 * and the splits on small inputs.)
 */
export async function unbwtInHeap(
  heap: SharedHeap, runner: Executor, bwtPtr: number, n: number, primary: number, outPtr: number,
  bytesPerChain = BYTES_PER_CHAIN, minBlockRows = MIN_BLOCK_ROWS,
): Promise<void> {
  checkPrimary(n, primary);
  if (n === 0) return;
  const k = runner.kernels as unknown as UnbwtKernels;
  const threads = runner.threads;
  const mark = heap.used;
  try {
    const rows = n + 1;
    // Byte counts per block of L, then each block's first psi slot per byte (C plus earlier blocks).
    const blocks = splitRange(rows, threads * TASKS_PER_THREAD, minBlockRows);
    const counts = heap.alloc(1024 * blocks.length);
    heap.u32(counts, 256 * blocks.length).fill(0);
    await runner.map(
      "byteHistogram",
      blocks.map(([r0, r1], b) => {
        // Rows [r0, r1) of L are bytes [r0 - (r0 > primary), r1 - (r1 > primary)) of the stored BWT.
        const from = r0 - (r0 > primary ? 1 : 0);
        const to = r1 - (r1 > primary ? 1 : 0);
        return [bwtPtr, from, to, counts + 1024 * b];
      }),
    );
    const perBlock = heap.u32(counts, 256 * blocks.length);
    const bounds = heap.alloc(257 * 4);
    const C = heap.u32(bounds, 257);
    C.set(bucketStarts(perBlock, blocks.length, 1)); // row 0 is the $ bucket
    slotsByBlock(perBlock, blocks.length, C);

    const psi = heap.alloc(4 * rows);
    heap.u32(psi, 1)[0] = primary;
    await runner.map("psiFromBWT", blocks.map(([r0, r1], b) => [bwtPtr, primary, psi, counts + 1024 * b, r0, r1]));

    // F[r] lookup: rowByte[t] = first byte of row t << shift (a lower bound for rows in its range).
    const shift = Math.max(0, Math.ceil(Math.log2(rows)) - 16);
    const tableSize = (n >>> shift) + 1;
    const rowBytePtr = heap.alloc(tableSize);
    const rowByte = heap.u8(rowBytePtr, tableSize);
    for (let t = 0, c = 0; t < tableSize; t++) {
      const r = Math.max(1, t << shift);
      while (c < 255 && C[c + 1] <= r) c++;
      rowByte[t] = c;
    }

    // Chains start at evenly spaced rows of 1..n and at the primary row; rows are marked in psi.
    const startList = chainStarts(n, primary, bytesPerChain);
    const chains = startList.length;
    const starts = heap.alloc(4 * chains + 4);
    heap.u32(starts, chains + 1).set(startList);
    heap.u32(starts + 4 * chains, 1)[0] = 0;
    k.markRows(psi, starts, chains + 1, 1); // the starts and row 0

    const lengths = heap.alloc(4 * chains);
    const ends = heap.alloc(4 * chains);
    const heads = heap.alloc(4 * chains);
    // Chains total at most n bytes, so n / chunk + one partial chunk per chain suffice.
    const chunkBytes = 1 << CHUNK_SHIFT;
    const chunkTotal = Math.ceil(n / chunkBytes) + chains;
    const pool = heap.alloc(chunkTotal * chunkBytes);
    const chunkNext = heap.alloc(4 * chunkTotal);
    const chunkCount = heap.alloc(4);
    heap.u32(chunkCount, 1)[0] = 0;
    const chainBlocks = splitRange(chains, threads * TASKS_PER_THREAD, 1);
    const slots = chainBlocks.map(() => heap.alloc(WALK_SLOTS_BYTES));
    await runner.map(
      "unbwtWalk",
      chainBlocks.map(([first, last], b) => [
        psi, bounds, rowBytePtr, shift, starts, first, last, lengths, ends, heads, pool, chunkNext, CHUNK_SHIFT, chunkCount, slots[b],
      ]),
    );

    // Link the chains in text order, then copy each one's chunks into place.
    const len = heap.u32(lengths, chains);
    const end = heap.u32(ends, chains);
    const order = chainOrder(startList, primary, n, (j) => len[j], (j) => end[j]);
    const memory = heap.u8(0, heap.memory.buffer.byteLength);
    const head = heap.u32(heads, chains);
    const next = heap.u32(chunkNext, chunkTotal);
    let at = outPtr;
    for (const j of order) {
      let chunk = head[j];
      for (let left = len[j]; left > 0; left -= chunkBytes) {
        const from = pool + chunk * chunkBytes;
        memory.copyWithin(at, from, from + Math.min(left, chunkBytes));
        at += Math.min(left, chunkBytes);
        chunk = next[chunk];
      }
    }
  } finally {
    heap.release(mark);
  }
}
