// FM-index: count by backward search, locate by LF-walking to a suffix-array sample (kernels:
// asm/fmindex.ts). The index is one byte image, identical in memory and on disk, so loading is one
// read plus a linear self-check.
//
// File format, version 1 (all integers little-endian; sections 64-byte aligned):
//   header, 128 bytes:
//     0  magic "SUFSFMIX"          8  version u32 (1)       12 header bytes u32 (128)
//     16 n u64 (text bytes)        24 primary u64: row of suffix 0 (the $ in L); 0 when n = 0
//     32 K u32: sample rate        36 sigma u32: distinct bytes of T
//     40 b u32: rows per block (power of two)               44 block bytes u32 (multiple of 64)
//     48 block count u32 = floor((n+1)/b) + 1               52 sample count u32 = ceil(n/K)
//     56 codeOf offset u64 (128)   64 C offset u64          72 blocks offset u64
//     80 samples offset u64        88 file bytes u64        96 marks offset in a block u32
//     100 bytes offset in a block u32                       104..127 zero
//   codeOf: u32[256]: the code (rank among T's distinct bytes) of each byte, 0xFFFFFFFF if absent
//   C: u32[sigma+1]: C[c] = 1 + occurrences of codes < c (row 0 is the $ row); C[sigma] = n+1
//   blocks: block i covers rows [i*b, (i+1)*b) of L (rows 0..n of the sorted suffixes of T$):
//     +0 sample rank u32 (sampled rows before the block)   +4 counts u32[sigma] (codes in earlier rows)
//     +marks offset: b bits, bit j set when row i*b+j is sampled (its suffix starts at a multiple of K)
//     +bytes offset: b codes of L (the $ stored as 0, not counted); rows past n are 0 and unmarked
//   samples: u32[sample count]: the suffix start of each sampled row, in row order.
// b = max(256, next power of two >= 4 sigma): the counts take at most about as much as the codes, and
// a rank query reads one block's count word plus at most b code bytes (SIMD-counted).
import { collectGarbage, MAX_HEAP_BYTES, SharedHeap } from "../cpu/memory.js";
import { instantiate, type Kernels } from "../cpu/wasm.js";
import { failure, limitError } from "../errors.js";
import { splitRange, TASKS_PER_THREAD } from "./blocks.js";
import { createExecutor, SequentialExecutor, type Executor } from "../cpu/executor.js";
import { bwtFromSAInHeap, bwtOverSuffixArray, rowsFromPlainSuffixArray } from "./bwt.js";
import { SA_WINDOW_ENTRIES } from "./windows.js";
import type { BuildOptions } from "../engine/build.js";
import { buildOfPlacement, type Placement } from "../engine/placement.js";

export const FM_MAGIC = "SUFSFMIX";
export const FM_VERSION = 1;
export const FM_HEADER_BYTES = 128;
export const DEFAULT_SAMPLE_RATE = 32;
/** Byte offsets of codeOf and C in every image (the GPU search binds the image as it is). */
export const CODES_OFFSET = 128;
export const BOUNDS_OFFSET = CODES_OFFSET + 1024;
const ABSENT = 0xffffffff;
/** Smallest block count (b) and the factor relating it to sigma's count words. */
const MIN_BLOCK_ROWS = 256;
/** Patterns per count task and rows per locate task. */
const PATTERNS_PER_TASK = 1 << 12;
/** Fewest rows of L one block-filling task gets. */
const MIN_FILL_ROWS = 1 << 20;
const ROWS_PER_TASK = 1 << 14;
/** Interleave depth of the query kernels (INTERLEAVE in asm/fmindex.ts) times slot bytes. */
const COUNT_SLOTS_BYTES = 16 * 32;
const LOCATE_SLOTS_BYTES = 16 * 16 + 16;
/** Largest sample rate: the LF walk of one locate is at most K-1 steps. */
export const MAX_SAMPLE_RATE = 1 << 20;

export interface FMLayout {
  n: number;
  primary: number;
  sampleRate: number;
  sigma: number;
  blockRows: number;
  blockBytes: number;
  blockCount: number;
  sampleCount: number;
  blocksOffset: number;
  samplesOffset: number;
  fileBytes: number;
  marksAt: number;
  bytesAt: number;
}

const align = (x: number, a: number) => Math.ceil(x / a) * a;

/** The layout of an index of n bytes with sigma distinct bytes and sample rate K. */
export function fmLayout(n: number, sigma: number, sampleRate: number, primary: number): FMLayout {
  let blockRows = MIN_BLOCK_ROWS;
  while (blockRows < 4 * sigma) blockRows *= 2;
  const marksAt = align(4 + 4 * sigma, 16);
  const bytesAt = marksAt + blockRows / 8;
  const blockBytes = align(bytesAt + blockRows, 64);
  const blockCount = Math.floor((n + 1) / blockRows) + 1;
  const sampleCount = Math.ceil(n / sampleRate);
  const blocksOffset = align(BOUNDS_OFFSET + 4 * (sigma + 1), 64);
  const samplesOffset = blocksOffset + blockCount * blockBytes;
  const fileBytes = align(samplesOffset + 4 * sampleCount, 64);
  return { n, primary, sampleRate, sigma, blockRows, blockBytes, blockCount, sampleCount, blocksOffset, samplesOffset, fileBytes, marksAt, bytesAt };
}

function writeHeader(image: Uint8Array, L: FMLayout): void {
  image.fill(0, 0, FM_HEADER_BYTES);
  const v = new DataView(image.buffer, image.byteOffset, FM_HEADER_BYTES);
  for (let i = 0; i < 8; i++) v.setUint8(i, FM_MAGIC.charCodeAt(i));
  v.setUint32(8, FM_VERSION, true);
  v.setUint32(12, FM_HEADER_BYTES, true);
  v.setBigUint64(16, BigInt(L.n), true);
  v.setBigUint64(24, BigInt(L.primary), true);
  v.setUint32(32, L.sampleRate, true);
  v.setUint32(36, L.sigma, true);
  v.setUint32(40, L.blockRows, true);
  v.setUint32(44, L.blockBytes, true);
  v.setUint32(48, L.blockCount, true);
  v.setUint32(52, L.sampleCount, true);
  v.setBigUint64(56, BigInt(CODES_OFFSET), true);
  v.setBigUint64(64, BigInt(BOUNDS_OFFSET), true);
  v.setBigUint64(72, BigInt(L.blocksOffset), true);
  v.setBigUint64(80, BigInt(L.samplesOffset), true);
  v.setBigUint64(88, BigInt(L.fileBytes), true);
  v.setUint32(96, L.marksAt, true);
  v.setUint32(100, L.bytesAt, true);
}

/**
 * Reads and checks a header against the bytes that follow it: a foreign, truncated or inconsistent
 * file is a failure naming what is wrong (`what` names the file in messages).
 */
export function parseHeader(image: Uint8Array, what: string): FMLayout {
  const notIndex = () => failure(`'${what}' is not a sufsort FM-index file (bad magic; build one with 'sufsort index')`);
  if (image.length < 8) throw notIndex();
  for (let i = 0; i < 8; i++) if (image[i] !== FM_MAGIC.charCodeAt(i)) throw notIndex();
  if (image.length < FM_HEADER_BYTES) throw failure(`'${what}' is truncated: ${image.length} bytes, shorter than the ${FM_HEADER_BYTES}-byte header`);
  const v = new DataView(image.buffer, image.byteOffset, FM_HEADER_BYTES);
  const version = v.getUint32(8, true);
  if (version !== FM_VERSION) throw failure(`'${what}' is an FM-index of version ${version}; this sufsort reads version ${FM_VERSION}`);
  const n = Number(v.getBigUint64(16, true));
  const primary = Number(v.getBigUint64(24, true));
  const sampleRate = v.getUint32(32, true);
  const sigma = v.getUint32(36, true);
  const bad = (field: string) => failure(`'${what}' is a damaged FM-index (${field})`);
  if (v.getUint32(12, true) !== FM_HEADER_BYTES) throw bad("header size");
  if (n > 2 ** 31 - 1) throw bad("text length");
  if (sampleRate < 1 || sampleRate > MAX_SAMPLE_RATE) throw bad("sample rate");
  if (sigma > 256 || (n > 0 && sigma === 0)) throw bad("alphabet size");
  if (n === 0 ? primary !== 0 : primary < 1 || primary > n) throw bad("primary index");
  const L = fmLayout(n, sigma, sampleRate, primary);
  const stored = [
    [v.getUint32(40, true), L.blockRows, "rows per block"],
    [v.getUint32(44, true), L.blockBytes, "block size"],
    [v.getUint32(48, true), L.blockCount, "block count"],
    [v.getUint32(52, true), L.sampleCount, "sample count"],
    [Number(v.getBigUint64(56, true)), CODES_OFFSET, "layout"],
    [Number(v.getBigUint64(64, true)), BOUNDS_OFFSET, "layout"],
    [Number(v.getBigUint64(72, true)), L.blocksOffset, "layout"],
    [Number(v.getBigUint64(80, true)), L.samplesOffset, "layout"],
    [v.getUint32(96, true), L.marksAt, "layout"],
    [v.getUint32(100, true), L.bytesAt, "layout"],
  ] as const;
  for (const [got, want, field] of stored) if (got !== want) throw bad(field);
  const fileBytes = Number(v.getBigUint64(88, true));
  if (fileBytes !== L.fileBytes) throw bad("file size field");
  if (image.length < fileBytes) throw failure(`'${what}' is truncated: ${image.length} bytes of the ${fileBytes} its header announces`);
  if (image.length > fileBytes) throw failure(`'${what}' has ${image.length - fileBytes} bytes after the index its header describes`);
  // codeOf and C: codes 0..sigma-1 in byte order, C rising from 1 to n+1.
  const codes = new DataView(image.buffer, image.byteOffset + CODES_OFFSET, 1024);
  let next = 0;
  for (let c = 0; c < 256; c++) {
    const code = codes.getUint32(4 * c, true);
    if (code === ABSENT) continue;
    if (code !== next) throw bad("alphabet table");
    next++;
  }
  if (next !== sigma) throw bad("alphabet table");
  const C = new DataView(image.buffer, image.byteOffset + BOUNDS_OFFSET, 4 * (sigma + 1));
  if (C.getUint32(0, true) !== 1 || C.getUint32(4 * sigma, true) !== n + 1) throw bad("C table");
  for (let c = 0; c < sigma; c++) if (C.getUint32(4 * (c + 1), true) <= C.getUint32(4 * c, true)) throw bad("C table");
  return L;
}

interface FMKernels {
  byteHistogram(bytes: number, from: number, to: number, counts: number): void;
  fmFillBlocks(bwt: number, marks: number, index: number, firstBlock: number, lastBlock: number, running: number): void;
  fmRangeCounts(bwt: number, marks: number, index: number, r0: number, r1: number, running: number): void;
  fmCheck(index: number, running: number): number;
  fmCount(index: number, patterns: number, offsets: number, first: number, last: number, ranges: number, slots: number): void;
  fmLocate(index: number, rows: number, count: number, out: number, slots: number): number;
}

/**
 * Builds the index image of T and its SA in the heap (at a 64-aligned pointer); returns it. Scratch
 * is reserved and released here; the image stays. Phases, each in blocks through the runner: the
 * sampled rows marked in a bitvector and their SA values gathered; L by a gather from T and SA;
 * code and sample counts per range of blocks; (prefix sums on the host) the blocks themselves.
 * Where the heap has no room for L and the image beside the SA (or with `overSuffixArray`), L is
 * written over the SA and the image after it in the SA's region when it fits there: the SA is gone
 * then. (Tests lower `minFillRows` to exercise the splits on small inputs.)
 */
export async function buildIndexInHeap(
  heap: SharedHeap, runner: Executor, textPtr: number, saPtr: number, n: number, sampleRate: number,
  minFillRows = MIN_FILL_ROWS, overSuffixArray?: boolean,
): Promise<{ ptr: number; layout: FMLayout }> {
  const k = runner.kernels as unknown as FMKernels;
  const histogram = heap.alloc(1024);
  heap.u32(histogram, 256).fill(0);
  k.byteHistogram(textPtr, 0, n, histogram);
  const counts = Uint32Array.from(heap.u32(histogram, 256));
  const rows = n + 1;
  const shape = fmLayout(n, alphabetOf(counts), sampleRate, 0);
  const { fileBytes, sampleCount } = shape;
  const marksBytes = marksBytesOf(shape);
  const scratchBytes = marksBytes + 4 * sampleCount + (1 << 20);
  const over = overSuffixArray ?? !heap.fits(align(rows, 64) + fileBytes + scratchBytes, 64);
  const inSA = align(saPtr + rows, 64);
  const ptr = over && inSA + fileBytes <= saPtr + 4 * n ? inSA : heap.alloc(fileBytes, 64);
  const mark = heap.used;

  // The sampled rows and their SA values, before L may overwrite the SA. Ranges start at multiples
  // of 32 rows, so that each writes its own words of the marks.
  const marks = heap.alloc(marksBytes);
  heap.u8(marks, marksBytes).fill(0);
  const cuts = [...new Set(splitRange(rows, runner.threads * TASKS_PER_THREAD, minFillRows).map(([r0]) => r0 & ~31))];
  const rowRanges = cuts.map((r0, i) => [r0, i + 1 < cuts.length ? cuts[i + 1] : rows] as const);
  const sampled = await runner.map("fmMarkRows", rowRanges.map(([r0, r1]) => [saPtr, sampleRate, marks, r0, r1]));
  if (sampled.reduce((x, y) => x + y, 0) !== sampleCount) throw new Error("sufsort: the SA's sampled rows do not match the sample count");
  const samples = heap.alloc(4 * sampleCount + 4);
  const firstSample = sampled.map((_, i) => sampled.slice(0, i).reduce((x, y) => x + y, 0));
  await runner.map("fmGatherSamples", rowRanges.map(([r0, r1], i) => [saPtr, marks, r0, r1, samples + 4 * firstSample[i]]));

  let bwt: number;
  let primary = 0;
  if (over) {
    bwt = saPtr;
    if (n > 0) primary = await bwtOverSuffixArray(heap, runner, textPtr, saPtr, n, undefined, minFillRows);
  } else {
    bwt = heap.alloc(rows);
    if (n > 0) primary = await bwtFromSAInHeap(heap, runner, textPtr, saPtr, n, bwt, minFillRows);
  }
  const layout = await fillImage(heap, runner, ptr, n, sampleRate, counts, primary, bwt, marks, heap.u32(samples, sampleCount), minFillRows);
  heap.release(mark);
  return { ptr, layout };
}

/** The number of distinct bytes, from the 256 byte counts of a text. */
function alphabetOf(counts: Uint32Array): number {
  return counts.reduce((s, c) => s + (c > 0 ? 1 : 0), 0);
}

/**
 * Writes the image at ptr (fileBytes of fmLayout) from L (rows 0..n at bwt), the marks of the
 * sampled rows (through the last block) and their SA values (`samples`, anywhere), the blocks in
 * ranges through the runner. Scratch is left to the caller to release.
 */
async function fillImage(
  heap: SharedHeap, runner: Executor, ptr: number, n: number, sampleRate: number, counts: Uint32Array, primary: number,
  bwt: number, marks: number, samples: Uint32Array, minFillRows: number,
): Promise<FMLayout> {
  const sigma = alphabetOf(counts);
  const rows = n + 1;
  const layout = fmLayout(n, sigma, sampleRate, primary);
  const image = heap.u8(ptr, layout.fileBytes);
  image.fill(0, 0, layout.blocksOffset);
  writeHeader(image, layout);
  const codes = heap.u32(ptr + CODES_OFFSET, 256);
  const C = heap.u32(ptr + BOUNDS_OFFSET, sigma + 1);
  let code = 0;
  let sum = 1;
  for (let c = 0; c < 256; c++) {
    if (counts[c] === 0) {
      codes[c] = ABSENT;
      continue;
    }
    codes[c] = code;
    C[code++] = sum;
    sum += counts[c];
  }
  C[sigma] = sum;
  image.set(new Uint8Array(samples.buffer, samples.byteOffset, 4 * layout.sampleCount), layout.samplesOffset);
  image.fill(0, layout.samplesOffset + 4 * layout.sampleCount);

  // Ranges of blocks; each range's starting counts are the sums over the ranges before it.
  const b = layout.blockRows;
  const ranges = splitRange(layout.blockCount, runner.threads * TASKS_PER_THREAD, Math.ceil(minFillRows / b));
  const width = sigma + 1;
  const running = heap.alloc(4 * width * ranges.length);
  const run = heap.u32(running, width * ranges.length);
  run.fill(0);
  await runner.map(
    "fmRangeCounts",
    ranges.slice(0, -1).map(([b0, b1], t) => [bwt, marks, ptr, Math.min(rows, b0 * b), Math.min(rows, b1 * b), running + 4 * width * (t + 1)]),
  );
  for (let t = 1; t < ranges.length; t++) {
    for (let c = 0; c < width; c++) run[t * width + c] += run[(t - 1) * width + c];
  }
  await runner.map("fmFillBlocks", ranges.map(([b0, b1], t) => [bwt, marks, ptr, b0, b1, running + 4 * width * t]));
  return layout;
}

/** Bytes of the marks bitvector of a layout: through its last block, 64-aligned, plus a spare word. */
function marksBytesOf(layout: Pick<FMLayout, "blockCount" | "blockRows">): number {
  return align((layout.blockCount * layout.blockRows) / 8, 64) + 64;
}

/** buildIndexLarge's image region: the image, and before it the text and a window of w SA entries. */
function imageRegionBytes(n: number, fileBytes: number, w: number): number {
  return Math.max(fileBytes, align(n, 64) + 4 * w);
}

/**
 * The byte counts, layout and heap of buildIndexLarge for `text`; a one-line limit error where L,
 * the marks and the image do not fit one 4 GiB heap (callers check before building the SA).
 */
export function largeIndexShape(text: Uint8Array, sampleRate: number): { counts: Uint32Array; shape: FMLayout; heapBytes: number } {
  const n = text.length;
  const counts = new Uint32Array(256);
  for (let i = 0; i < n; i++) counts[text[i]]++;
  const shape = fmLayout(n, alphabetOf(counts), sampleRate, 0);
  const heapBytes = 64 + align(n + 1, 64) + marksBytesOf(shape) + 64 + imageRegionBytes(n, shape.fileBytes, Math.min(n, SA_WINDOW_ENTRIES)) + 64 + (1 << 20);
  if (heapBytes > MAX_HEAP_BYTES) {
    throw limitError(`input is ${n} bytes; its FM-index needs ${heapBytes} bytes of WebAssembly memory for L, the sampled rows and the image (over the 4 GiB limit)`);
  }
  return { counts, shape, heapBytes };
}

/**
 * The index image of a text too large for the WebAssembly memory, from its SA in plain arrays
 * (buildLarge's): the marks and samples read off the SA, then L, the marks and the image in a heap
 * of their own (about n + n/8 + the image: to about 1.2 GB at the default sample rate). L's rows are
 * gathered from the SA streamed through the heap, with the text where the image will be; the blocks
 * are filled by `threads` workers. Returns that heap's image.
 */
export async function buildIndexLarge(
  text: Uint8Array, sa: Uint32Array, sampleRate: number, threads: number, windowEntries = SA_WINDOW_ENTRIES,
): Promise<{ heap: SharedHeap; ptr: number; layout: FMLayout }> {
  const n = text.length;
  const rows = n + 1;
  const { counts, shape, heapBytes } = largeIndexShape(text, sampleRate);
  // marks and samples read off the SA (as fmMarkRows and fmGatherSamples do in a heap)
  const marks = new Uint32Array(marksBytesOf(shape) / 4);
  const samples = new Uint32Array(shape.sampleCount);
  let k = 0;
  for (let r = 1; r < rows; r++) {
    const s = sa[r - 1];
    if (s % sampleRate === 0) {
      marks[r >>> 5] |= 1 << (r & 31);
      samples[k++] = s;
    }
  }
  if (k !== shape.sampleCount) throw new Error("sufsort: the SA's sampled rows do not match the sample count");
  await collectGarbage(); // the SA's build's arrays, before the image's heap
  const heap = new SharedHeap(heapBytes);
  // L as the kernels read it: rows 0..n, the primary row's byte a placeholder
  const bwt = heap.alloc(rows);
  const marksPtr = heap.alloc(marks.byteLength);
  heap.u32(marksPtr, marks.length).set(marks);
  // the image's region holds the text and the SA's window first (imageRegionBytes)
  const w = Math.min(n, windowEntries);
  const region = imageRegionBytes(n, shape.fileBytes, w);
  const ptr = heap.alloc(region, 64);
  const mark = heap.used;
  const executor = createExecutor(heap, threads);
  try {
    // L's rows straight from the SA, streamed through the window (the SA is left as it was)
    heap.u8(ptr, n).set(text);
    const primary = await rowsFromPlainSuffixArray(heap, executor, ptr, sa, ptr + align(n, 64), w, () => bwt, () => {}, MIN_FILL_ROWS);
    if (n > 0) heap.u8(bwt, 1)[0] = text[n - 1];
    heap.u8(ptr, region).fill(0); // the image as a fresh heap has it
    const layout = await fillImage(heap, executor, ptr, n, sampleRate, counts, primary, bwt, marksPtr, samples, MIN_FILL_ROWS);
    heap.release(mark);
    return { heap, ptr, layout };
  } finally {
    await executor.close();
  }
}

/**
 * The index image of a placed text (placeForApp): its SA built where the text lies
 * (buildOfPlacement), then buildIndexInHeap in its heap or buildIndexLarge past it, whose limit
 * error comes before the SA is built. The placement is closed after.
 */
export async function indexOfPlacement(
  placement: Placement, sampleRate: number, options: BuildOptions = {},
): Promise<{ heap: SharedHeap; ptr: number; layout: FMLayout }> {
  try {
    const { placed, large } = placement;
    if (large !== undefined) largeIndexShape(large, sampleRate);
    const { sa } = await buildOfPlacement(placement, options);
    options.onProgress?.("indexing", 1);
    if (placed === undefined) return await buildIndexLarge(large!, sa, sampleRate, options.threads ?? 1);
    return { heap: placed.heap, ...(await buildIndexInHeap(placed.heap, placed.executor, placed.textPtr, sa.byteOffset, placed.n, sampleRate)) };
  } finally {
    await placement.close();
  }
}

/** Per-pattern result of a batch search. */
export interface SearchResult {
  count: number;
  /** With locate: text positions, ascending (at most `limit` of them: those of the first rows). */
  positions?: Uint32Array;
}

/** Results of a packed batch search. */
export interface PackedResults {
  /** Row range [sp, ep) of pattern i at 2i, 2i+1 (0, 0 when absent): its count is ep - sp. */
  ranges: Uint32Array;
  /** With locate: pattern i's positions are positions[positionStarts[i], positionStarts[i+1]). */
  positions?: Uint32Array;
  positionStarts?: Uint32Array;
}

/** Patterns as one byte array and their [start, end) spans in it (what searchPacked takes). */
export function packPatterns(patterns: Uint8Array[]): { bytes: Uint8Array; spans: Uint32Array } {
  let total = 0;
  for (const p of patterns) total += p.length;
  const bytes = new Uint8Array(total);
  const spans = new Uint32Array(2 * patterns.length);
  let at = 0;
  patterns.forEach((p, i) => {
    bytes.set(p, at);
    spans[2 * i] = at;
    spans[2 * i + 1] = at += p.length;
  });
  return { bytes, spans };
}

/**
 * Packs patterns (packPatterns), runs `searchPacked` (the CPU's or the GPU's) on them, and splits
 * the results per pattern.
 */
export async function searchPatterns(
  patterns: Uint8Array[], options: { locate?: boolean },
  searchPacked: (bytes: Uint8Array, spans: Uint32Array) => Promise<PackedResults>,
): Promise<SearchResult[]> {
  const { bytes, spans } = packPatterns(patterns);
  const found = await searchPacked(bytes, spans);
  return patterns.map((_, i) => {
    const count = found.ranges[2 * i + 1] - found.ranges[2 * i];
    if (!options.locate || found.positions === undefined) return { count };
    return { count, positions: found.positions.subarray(found.positionStarts![i], found.positionStarts![i + 1]) };
  });
}

/** An FM-index image in its own shared heap. */
export class FMIndexImage {
  private readonly k: FMKernels;
  /** Runs the query kernels' blocks; an executor on this heap may replace it (useExecutor). */
  private runner: Executor;

  private constructor(
    readonly heap: SharedHeap,
    readonly kernels: Kernels,
    readonly ptr: number,
    readonly layout: FMLayout,
  ) {
    this.k = kernels as unknown as FMKernels;
    this.runner = new SequentialExecutor(heap);
  }

  /** Runs batch queries through `runner` (e.g. the CPU executor), which must work on this.heap. */
  useExecutor(runner: Executor): void {
    this.runner = runner;
  }

  /** Copies an image (checked with parseHeader and the kernel's self-check) into a fresh heap. */
  static fromBytes(bytes: Uint8Array, what: string): FMIndexImage {
    const layout = parseHeader(bytes, what);
    const heap = new SharedHeap(64 + layout.fileBytes + (1 << 20));
    const ptr = heap.alloc(layout.fileBytes, 64);
    heap.u8(ptr, layout.fileBytes).set(bytes);
    return FMIndexImage.checked(heap, instantiate(heap.memory), ptr, what);
  }

  /** Adopts an image already in a heap (a file read straight into it), after the same checks. */
  static checked(heap: SharedHeap, kernels: Kernels, ptr: number, what: string): FMIndexImage {
    const layout = parseHeader(heap.u8(ptr, heap.used - ptr), what);
    const index = new FMIndexImage(heap, kernels, ptr, layout);
    const mark = heap.used;
    const running = heap.alloc(4 * (layout.sigma + 1));
    const fault = index.k.fmCheck(ptr, running);
    heap.release(mark);
    if (fault !== 0) throw failure(`'${what}' is a damaged FM-index (its blocks do not agree with each other: check ${fault})`);
    return index;
  }

  /** Builds from T and SA in `heap`, then moves the image to a heap of its own. */
  static async fromSuffixArray(heap: SharedHeap, runner: Executor, textPtr: number, saPtr: number, n: number, sampleRate: number): Promise<FMIndexImage> {
    const mark = heap.used;
    const image = FMIndexImage.copyOf({ heap, ...(await buildIndexInHeap(heap, runner, textPtr, saPtr, n, sampleRate)) });
    heap.release(mark);
    return image;
  }

  /** A copy of a built image (buildIndexInHeap's, buildIndexLarge's) in a heap of its own. */
  static copyOf(built: { heap: SharedHeap; ptr: number; layout: FMLayout }): FMIndexImage {
    const own = new SharedHeap(64 + built.layout.fileBytes + (1 << 20));
    const at = own.alloc(built.layout.fileBytes, 64);
    own.u8(at, built.layout.fileBytes).set(built.heap.u8(built.ptr, built.layout.fileBytes));
    return new FMIndexImage(own, instantiate(own.memory), at, built.layout);
  }

  /** The image bytes (a view into the heap: valid until the heap is dropped). */
  bytes(): Uint8Array {
    return this.heap.u8(this.ptr, this.layout.fileBytes);
  }

  /** Count (and optionally locate) each pattern; patterns must be non-empty (the caller checks). */
  async search(patterns: Uint8Array[], options: { locate?: boolean; limit?: number } = {}): Promise<SearchResult[]> {
    return searchPatterns(patterns, options, (bytes, spans) => this.searchPacked(bytes, spans, options));
  }

  /**
   * The batch search itself. Pattern i is bytes[spans[2i], spans[2i+1]) (non-empty; the caller
   * checks). Patterns go in blocks to the count kernel; with `locate`, the rows found (at most
   * `limit` per pattern: the first in suffix order) go in blocks to the locate kernel, and each
   * pattern's positions come back ascending.
   */
  async searchPacked(bytes: Uint8Array, spans: Uint32Array, options: { locate?: boolean; limit?: number } = {}): Promise<PackedResults> {
    const threads = this.runner.threads;
    const heap = this.heap;
    const m = spans.length / 2;
    const mark = heap.used;
    try {
      const bytesPtr = heap.alloc(Math.max(1, bytes.length), 16);
      heap.u8(bytesPtr, bytes.length).set(bytes);
      const spansPtr = heap.alloc(4 * spans.length + 4);
      heap.u32(spansPtr, spans.length).set(spans);
      const rangesPtr = heap.alloc(8 * m + 4);
      const blocks = splitRange(m, Math.max(threads * TASKS_PER_THREAD, Math.ceil(m / PATTERNS_PER_TASK)), 1);
      const slots = blocks.map(() => heap.alloc(COUNT_SLOTS_BYTES));
      await this.runner.map("fmCount", blocks.map(([first, last], b) => [this.ptr, bytesPtr, spansPtr, first, last, rangesPtr, slots[b]]));
      const ranges = heap.u32(rangesPtr, 2 * m).slice();
      heap.release(mark);
      if (!options.locate) return { ranges };
      return { ranges, ...(await this.locateRanges(ranges, options.limit ?? Infinity)) };
    } finally {
      heap.release(mark);
    }
  }

  /** Positions of the first `limit` rows of each range [sp, ep), ascending per range. */
  private async locateRanges(ranges: Uint32Array, limit: number): Promise<{ positions: Uint32Array; positionStarts: Uint32Array }> {
    const heap = this.heap;
    const threads = this.runner.threads;
    const m = ranges.length / 2;
    const positionStarts = new Uint32Array(m + 1);
    for (let p = 0; p < m; p++) positionStarts[p + 1] = positionStarts[p] + Math.min(ranges[2 * p + 1] - ranges[2 * p], limit);
    const rowsTotal = positionStarts[m];
    const positions = new Uint32Array(rowsTotal);
    const chunkRows = Math.min(rowsTotal, ROWS_PER_TASK * TASKS_PER_THREAD * threads);
    const rowsPtr = heap.alloc(4 * chunkRows + 4);
    const outPtr = heap.alloc(4 * chunkRows + 4);
    const slots = Array.from({ length: TASKS_PER_THREAD * threads }, () => heap.alloc(LOCATE_SLOTS_BYTES));
    // The rows of all patterns in order, run in chunks of chunkRows.
    let p = 0;
    let nextRow = ranges[0];
    for (let done = 0; done < rowsTotal; ) {
      const rows = heap.u32(rowsPtr, chunkRows);
      let k = 0;
      while (k < chunkRows && done + k < rowsTotal) {
        if (nextRow >= ranges[2 * p] + (positionStarts[p + 1] - positionStarts[p])) {
          p++;
          nextRow = ranges[2 * p];
          continue;
        }
        rows[k++] = nextRow++;
      }
      const blocks = splitRange(k, TASKS_PER_THREAD * threads, 1);
      const ret = await this.runner.map("fmLocate", blocks.map(([from, to], b) => [this.ptr, rowsPtr + 4 * from, to - from, outPtr + 4 * from, slots[b]]));
      blocks.forEach(([from, to], b) => {
        if (ret[b] !== to - from) throw failure("the FM-index is damaged (a locate walk found no sample)");
      });
      positions.set(heap.u32(outPtr, k), done);
      done += k;
    }
    for (let q = 0; q < m; q++) positions.subarray(positionStarts[q], positionStarts[q + 1]).sort();
    return { positions, positionStarts };
  }
}
