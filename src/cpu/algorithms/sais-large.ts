// SA-IS in plain TypeScript over typed arrays, for texts too large for the 4 GiB WebAssembly
// memory (text + SA + workspace above 4 GiB: n above SAIS_WASM_MAX_LENGTH, ~845 M). A port of
// asm/sais.ts: the same stages, the same in-buffer layout, the same workspace bound and retry;
// read that file's header for the algorithm, the invariants and the bound on fs. It keeps the
// kernel's plain loops (the kernel's fallback when its workspace is small), not its block caches
// (blocked induction scans measured no faster in JavaScript), but its inductions set the flag
// of an entry without a branch, the naming loads in blocks, and stage 3 places LMS suffixes
// by block moves from counts per symbol.
//
// suffixArrayLargeOnKernel (what builds use) runs level 0 here and hands the reduced string s1,
// about n / 3 names, to the WebAssembly kernel (asm/sais.ts saisReduced) with its helper thread,
// when s1 with its SA and workspace fits in the 4 GiB memory; suffixArrayLarge is the port alone.
//
// Limits: n <= 2^31 - 1 (entries are Int32 with the sign bit as a flag); the SA buffer holds
// n + fs Int32 slots (fs <= 2^24 + 4096 on the first try), so the JS engine must allow typed
// arrays of that length.
import { SufsortError } from "../../errors.js";
import { checkWorkerAddressSpace, createExecutor, type Executor } from "../executor.js";
import { availableMemory, MAX_HEAP_BYTES, SharedHeap } from "../memory.js";
import { helped, MIN_WORKSPACE, runWithHelper, SAIS_HELPER_BYTES, saisWorkspaceSlots, SAIS_MAX_LENGTH } from "./sais.js";

type Text = Uint8Array | Int32Array;

const BYTE_ALPHABET = 256;

/** Suffix array of `text` (no sentinel entry). The result may view a larger buffer. */
export function suffixArrayLarge(text: Uint8Array, firstWorkspace = saisWorkspaceSlots(text.length)): Uint32Array {
  const n = text.length;
  if (n > SAIS_MAX_LENGTH) throw new RangeError(`sufsort: sais takes at most ${SAIS_MAX_LENGTH} bytes`);
  if (n === 0) return new Uint32Array(0);
  if (n === 1) return Uint32Array.of(0);
  for (let fs = firstWorkspace; ; fs = Math.max(2 * fs, MIN_WORKSPACE)) {
    const sa = new Int32Array(new SharedArrayBuffer(4 * (n + fs))); // shared: the SA's consumers may run on workers
    if (saisLevel(text, sa, n, fs, BYTE_ALPHABET)) return new Uint32Array(sa.buffer, 0, n);
  }
}

export interface LargeOptions {
  /** Threads for the reduced levels on the kernel: 2 or more runs its helper beside it. */
  threads?: number;
  /** Tests: the kernel's first workspace for s1 (slots; default: level 0's free region). */
  reducedWorkspace?: number;
  /** Tests: the most heap bytes the kernel may take (default: 4 GiB, and what the process may still use). */
  heapLimit?: number;
}

/** What suffixArrayLargeOnKernel did: the SA, and whether the levels below level 0 ran on the kernel. */
export interface LargeResult {
  sa: Uint32Array;
  reducedOnKernel: boolean;
}

/** Heap bytes beyond s1, its SA and workspace: the heap's first bytes, the mailbox, alignment. */
const KERNEL_HEAP_SLACK = 1 << 20;

/**
 * suffixArrayLarge with level 0 here and the reduced string s1 (about n / 3 names) sorted by the
 * WebAssembly kernel, with its helper on a second thread: its block caches, naming during
 * induction and doubling make the reduced levels several times faster than this port's plain
 * loops. s1, its SA and the kernel's workspace (about 8 m + 4 fs bytes) must fit in the 4 GiB
 * memory and in what the process may still use; otherwise the port sorts s1 itself.
 */
export async function suffixArrayLargeOnKernel(text: Uint8Array, options: LargeOptions = {}): Promise<LargeResult> {
  const n = text.length;
  if (n > SAIS_MAX_LENGTH) throw new RangeError(`sufsort: sais takes at most ${SAIS_MAX_LENGTH} bytes`);
  if (n <= 1) return { sa: suffixArrayLarge(text), reducedOnKernel: false };
  // fs starts at 4096 slots or more, so level 0's buckets (2 x 256) always fit
  for (let fs = saisWorkspaceSlots(n); ; fs = Math.max(2 * fs, MIN_WORKSPACE)) {
    const sa = new Int32Array(new SharedArrayBuffer(4 * (n + fs))); // shared: the SA's consumers may run on workers
    const { m, names } = reduceLevel(text, sa, n, fs, BYTE_ALPHABET);
    const reduced = sa.subarray(n + fs - m, n + fs);
    const free = n + fs - 2 * m;
    // the memory the kernel's heap may take is asked for only when s1 goes there
    const reducedOnKernel = names < m && (await sortReducedOnKernel(
      reduced, names, sa.subarray(0, m), options.reducedWorkspace ?? free, options.threads ?? 1,
      Math.min(options.heapLimit ?? MAX_HEAP_BYTES, MAX_HEAP_BYTES, availableMemory()),
    ));
    if (!reducedOnKernel && !solveReduced(reduced, sa, m, free, names)) continue;
    completeLevel(text, sa, n, fs, BYTE_ALPHABET, m);
    return { sa: new Uint32Array(sa.buffer, 0, n), reducedOnKernel };
  }
}

/**
 * out[0..m) = the suffix array of s1 (m names in [0, names)) by the kernel's saisReduced, with a
 * workspace of `fs` slots at first (doubled while a level asks for more). false, with nothing
 * written, when s1 and a workspace of 2 * names slots do not fit in heapLimit bytes.
 */
async function sortReducedOnKernel(
  s1: Int32Array, names: number, out: Int32Array, fs: number, threads: number, heapLimit: number,
): Promise<boolean> {
  const m = s1.length;
  const bytesFor = (slots: number) => 4 * (2 * m + slots) + SAIS_HELPER_BYTES + KERNEL_HEAP_SLACK;
  const fits = (slots: number) => bytesFor(slots) <= heapLimit;
  fs = Math.max(fs, 2 * names, MIN_WORKSPACE);
  if (!fits(fs)) fs = Math.floor((heapLimit - bytesFor(0)) / 4);
  if (fs < 2 * names) return false;
  // The port takes over when the system refuses the memory or the address space (ulimit -v) that
  // the heap needs; the helper's two workers, when what the heap leaves is too little for them.
  let executor: Executor | undefined;
  try {
    const heap = new SharedHeap(bytesFor(fs));
    let withHelper = helped(m, threads);
    if (withHelper) {
      try {
        checkWorkerAddressSpace(2);
      } catch {
        withHelper = false;
      }
    }
    executor = createExecutor(heap, withHelper ? 2 : 1);
    const start = heap.used;
    for (;;) {
      heap.release(start);
      const saPtr = heap.alloc(4 * (2 * m + fs));
      const mailbox = heap.alloc(SAIS_HELPER_BYTES, 64);
      heap.i32(saPtr + 4 * (m + fs), m).set(s1);
      const status = await runWithHelper(executor, "saisReduced", [saPtr, m, fs, names], withHelper ? mailbox : 0);
      if (status === 0) {
        out.set(heap.i32(saPtr, m));
        return true;
      }
      if (!fits(2 * fs)) return false;
      fs *= 2;
    }
  } catch (error) {
    if (error instanceof SufsortError) return false;
    throw error;
  } finally {
    await executor?.close();
  }
}

function countSymbols(t: Text, n: number, sa: Int32Array, counts: number, k: number): void {
  sa.fill(0, counts, counts + k);
  for (let i = 0; i < n; i++) sa[counts + t[i]]++;
}

function bucketBounds(t: Text, n: number, sa: Int32Array, counts: number, buckets: number, k: number, end: boolean): void {
  if (counts === buckets) countSymbols(t, n, sa, counts, k);
  let sum = 0;
  for (let c = 0; c < k; c++) {
    const count = sa[counts + c];
    if (end) {
      sum += count;
      sa[buckets + c] = sum;
    } else {
      sa[buckets + c] = sum;
      sum += count;
    }
  }
}

/** One level over t[0..n), using sa[0 .. n + fs); false when the buckets do not fit. */
function saisLevel(t: Text, sa: Int32Array, n: number, fs: number, k: number): boolean {
  if (fs < k) return false;
  const { m, names } = reduceLevel(t, sa, n, fs, k);
  if (!solveReduced(sa.subarray(n + fs - m, n + fs), sa, m, n + fs - 2 * m, names)) return false;
  completeLevel(t, sa, n, fs, k, m);
  return true;
}

/**
 * sa[0..m) = the suffix array of s1 (m names in [0, names), sa[m .. m + fs) free): by recursion,
 * or directly when every name is unique. false when a level's buckets do not fit.
 */
function solveReduced(reduced: Int32Array, sa: Int32Array, m: number, fs: number, names: number): boolean {
  if (names < m) return saisLevel(reduced, sa, m, fs, names);
  for (let j = 0; j < m; j++) sa[reduced[j]] = j;
  return true;
}

/**
 * Stage 1 of a level (fs >= k): the LMS substrings sorted and named, and the reduced string s1 of
 * m names in [0, names) written to sa[n + fs - m .. n + fs).
 */
function reduceLevel(t: Text, sa: Int32Array, n: number, fs: number, k: number): { m: number; names: number } {
  const counts = n + fs - k;
  const buckets = fs >= 2 * k ? counts - k : counts;
  countSymbols(t, n, sa, counts, k);

  // LMS positions to their bucket ends, then induce to sort LMS substrings.
  bucketBounds(t, n, sa, counts, buckets, k, true);
  sa.fill(0, 0, n);
  let m = 0;
  {
    let c1 = t[n - 1];
    let nextIsS = false;
    for (let i = n - 2; i >= 0; i--) {
      const c0 = t[i];
      const isS: boolean = c0 < c1 || (c0 === c1 && nextIsS);
      if (nextIsS && !isS) {
        sa[--sa[buckets + c1]] = i + 1;
        m++;
      }
      nextIsS = isS;
      c1 = c0;
    }
  }
  induceStage1(t, sa, n, counts, buckets, k);

  {
    let w = 0;
    for (let i = 0; i < n; i++) {
      const p = sa[i];
      if (p < 0) sa[w++] = ~p;
    }
  }

  const names = nameLmsSubstrings(t, sa, n, m);

  // The reduced string s1 at the end of the buffer.
  const reducedAt = n + fs - m;
  {
    let j = m - 1;
    for (let i = m + ((n - 1) >> 1); i >= m; i--) {
      const name = sa[i];
      if (name !== 0) sa[reducedAt + j--] = name - 1;
    }
  }
  return { m, names };
}

/** Stages 2 and 3 of a level once sa[0..m) holds the suffix array of s1: LMS suffixes placed, then induced. */
function completeLevel(t: Text, sa: Int32Array, n: number, fs: number, k: number, m: number): void {
  const counts = n + fs - k;
  const buckets = fs >= 2 * k ? counts - k : counts;
  const reduced = sa.subarray(n + fs - m, n + fs);
  // Small alphabets: LMS positions counted per first symbol as they are listed, so that they are
  // placed below by block moves instead of a random text read each.
  const lmsCounts = k <= LMS_COUNTS_MAX ? new Int32Array(k) : undefined;
  {
    let j = m;
    let c1 = t[n - 1];
    let nextIsS = false;
    for (let i = n - 2; i >= 0; i--) {
      const c0 = t[i];
      const isS: boolean = c0 < c1 || (c0 === c1 && nextIsS);
      if (nextIsS && !isS) {
        reduced[--j] = i + 1;
        if (lmsCounts) lmsCounts[c1]++;
      }
      nextIsS = isS;
      c1 = c0;
    }
    for (let i = 0; i < m; i++) sa[i] = reduced[sa[i]];
  }

  // Sorted LMS suffixes to their bucket ends, then induce.
  countSymbols(t, n, sa, counts, k);
  bucketBounds(t, n, sa, counts, buckets, k, true);
  if (lmsCounts) {
    // From the last bucket down: bucket c's LMS suffixes are the top lmsCounts[c] entries of what
    // is left of SA[0..m), and move up to the bucket's end (never below where they are).
    let j = n;
    let source = m;
    for (let c = k - 1; c >= 0; c--) {
      const count = lmsCounts[c];
      if (count === 0) continue;
      const end = sa[buckets + c];
      sa.fill(0, end, j);
      source -= count;
      sa.copyWithin(end - count, source, source + count);
      j = end - count;
    }
    sa.fill(0, 0, j);
  } else {
    let j = n;
    for (let i = m - 1; i >= 0; i--) {
      const p = sa[i];
      const c = t[p];
      const end = sa[buckets + c];
      while (j > end) sa[--j] = 0;
      sa[--j] = p;
      sa[buckets + c] = j;
    }
    while (j > 0) sa[--j] = 0;
  }
  induceFinal(t, sa, n, counts, buckets, k);
}

/** Stage 1 induction; same invariants as induceStage1 in asm/sais.ts (flags without a branch: see induceFinal). */
function induceStage1(t: Text, sa: Int32Array, n: number, counts: number, buckets: number, k: number): void {
  bucketBounds(t, n, sa, counts, buckets, k, false);
  {
    const j = n - 1;
    const c = t[j];
    sa[sa[buckets + c]++] = t[j - 1] < c ? ~j : j;
  }
  for (let i = 0; i < n; i++) {
    const p = sa[i];
    if (p > 0) {
      sa[i] = 0;
      const j = p - 1;
      const c = t[j];
      sa[sa[buckets + c]++] = j > 0 ? j ^ ((t[j - 1] - c) >> 31) : 0;
    } else if (p < 0) {
      sa[i] = ~p;
    }
  }

  bucketBounds(t, n, sa, counts, buckets, k, true);
  for (let i = n - 1; i >= 0; i--) {
    const p = sa[i];
    if (p > 0) {
      sa[i] = 0;
      const j = p - 1;
      const c = t[j];
      sa[--sa[buckets + c]] = j > 0 ? j ^ ((c - t[j - 1]) >> 31) : 0;
    }
  }
}

/**
 * Stage 3 induction; same invariants as induceFinal in asm/sais.ts. An induced entry's flag
 * (~j) comes from the sign of the difference of T[j - 1] and T[j] (symbols are below 2^30), not a
 * branch: the flags of a text are close to random, and a mispredicted branch per entry cost more
 * than a third of the whole port's time (dickens 2.74-3.02 s -> 1.94-2.05).
 */
function induceFinal(t: Text, sa: Int32Array, n: number, counts: number, buckets: number, k: number): void {
  bucketBounds(t, n, sa, counts, buckets, k, false);
  {
    const j = n - 1;
    const c = t[j];
    sa[sa[buckets + c]++] = t[j - 1] < c ? ~j : j;
  }
  for (let i = 0; i < n; i++) {
    const p = sa[i];
    sa[i] = ~p;
    if (p > 0) {
      const j = p - 1;
      const c = t[j];
      sa[sa[buckets + c]++] = j > 0 ? j ^ ((t[j - 1] - c) >> 31) : 0;
    }
  }

  bucketBounds(t, n, sa, counts, buckets, k, true);
  for (let i = n - 1; i >= 0; i--) {
    const p = sa[i];
    if (p > 0) {
      const j = p - 1;
      const c = t[j];
      sa[--sa[buckets + c]] = j > 0 ? j ^ ((c - t[j - 1]) >> 31) : -1;
    } else {
      sa[i] = ~p;
    }
  }
}

/** Names sorted LMS substrings 1..names into sa[m + (p >> 1)]; same as in asm/sais.ts. */
function nameLmsSubstrings(t: Text, sa: Int32Array, n: number, m: number): number {
  sa.fill(0, m, n);
  {
    let next = n;
    let c1 = t[n - 1];
    let nextIsS = false;
    for (let i = n - 2; i >= 0; i--) {
      const c0 = t[i];
      const isS: boolean = c0 < c1 || (c0 === c1 && nextIsS);
      if (nextIsS && !isS) {
        sa[m + ((i + 1) >> 1)] = next - i;
        next = i + 1;
      }
      nextIsS = isS;
      c1 = c0;
    }
  }
  // In blocks: first the block's independent random loads (each substring's length and first
  // symbol), many in flight; then the comparisons, from the cache.
  const lengths = new Int32Array(NAME_BLOCK);
  let names = 0;
  let prev = 0;
  let prevLength = 0;
  let firsts = 0;
  for (let x0 = 0; x0 < m; x0 += NAME_BLOCK) {
    const x1 = Math.min(m, x0 + NAME_BLOCK);
    for (let x = x0; x < x1; x++) {
      const p = sa[x];
      lengths[x - x0] = sa[m + (p >> 1)];
      firsts += t[p];
    }
    for (let x = x0; x < x1; x++) {
      const p = sa[x];
      const length = lengths[x - x0];
      let same = length === prevLength && p + length <= n && prev + length <= n;
      for (let d = 0; same && d < length; d++) same = t[p + d] === t[prev + d];
      if (!same) {
        names++;
        prev = p;
        prevLength = length;
      }
      sa[m + (p >> 1)] = names;
    }
  }
  loadSink = firsts;
  return names;
}

/** Largest alphabet whose LMS positions are counted per symbol in completeLevel. */
const LMS_COUNTS_MAX = 1 << 16;
/** LMS substrings per block of the naming's two passes. */
const NAME_BLOCK = 2048;
/** Keeps the naming's first-symbol loads from being optimised away. */
let loadSink = 0;
