// SA-IS in plain TypeScript over typed arrays, for texts too large for the 4 GiB WebAssembly
// memory (text + SA + workspace above 4 GiB: n above SAIS_WASM_MAX_LENGTH, ~845 M). A port of
// asm/sais.ts: the same stages, the same in-buffer layout, the same workspace bound and retry;
// read that file's header for the algorithm, the invariants and the bound on fs. It keeps the
// kernel's plain loops (the kernel's fallback when its workspace is small), not its block caches
// (blocked induction scans measured no faster in JavaScript), but its inductions set the flag
// of an entry without a branch, the naming loads in blocks, and stage 3 places LMS suffixes
// by block moves from counts per symbol.
//
// suffixArrayLargeOnKernel (what builds use) runs level 0 here with its hot loops on the kernel:
// the text is copied into a heap of its own, and the four induction scans, the naming and the
// listing of LMS positions run there (asm/sais.ts, "level 0 beyond this memory") over the SA a
// window at a time (WindowedScans, at the end of this file), the scans with the kernel's helper
// prefetching their steps at 2+ threads (from 8, sais' whole team: saisTeam). It hands the reduced
// string s1, about n / 3 names, to the kernel (saisReduced) with its helper thread (or team), when
// s1 with its SA and workspace fits in the 4 GiB memory (8 bytes per symbol: to ~1.6 GB of text),
// or, beyond that, when its names fit in 16 bits (saisReduced16, 6 bytes per symbol: DNA-like
// texts up to 2^31 - 1 bytes); else this port runs s1's level and s1's own reduced string goes to
// the kernel. suffixArrayLarge is the port alone (its own loops everywhere): the tests' reference.
//
// Limits: n <= 2^31 - 1 (entries are Int32 with the sign bit as a flag); the SA buffer holds
// n + fs Int32 slots (fs <= 2^24 + 4096 on the first try), so the JS engine must allow typed
// arrays of that length.
import { SufsortError } from "../../errors.js";
import { checkWorkerAddressSpace, createExecutor, gatherInPlace, prefault, type Executor } from "../executor.js";
import { availableMemory, collectGarbage, MAX_HEAP_BYTES, SharedHeap } from "../memory.js";
import { PhaseClock } from "../trace.js";
import { MIN_WORKSPACE, runWithHelper, SAIS_HELPER_BYTES, saisTeam, saisWorkspaceSlots, SAIS_MAX_LENGTH, startSaisHelpers } from "./sais.js";

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
  /** Threads for the kernel's parts: 2 or more run its helper beside it, 8 or more its team (saisTeam). */
  threads?: number;
  /** Tests: the kernel's first workspace for s1 (slots; default: level 0's free region). */
  reducedWorkspace?: number;
  /** Tests: the most heap bytes the kernel may take (default: 4 GiB, and what the process may still use). */
  heapLimit?: number;
  /** Tests: s1 goes to the kernel as u16 whenever its names allow, not only when its i32 slots do not fit. */
  reducedU16?: boolean;
  /** Level 0's induction scans on the kernel by windows (default true; false: this port's loops). */
  scansOnKernel?: boolean;
  /** Tests: SA entries per window of those scans, and per chunk of their spills. */
  scanWindow?: number;
  scanChunk?: number;
  /** Tests: bytes the scans' heap leaves unused before the text, so that its buffers lie above 2 GiB
   * as they do for the largest texts (untouched pages cost no memory). */
  scanHeapOffset?: number;
}

/** What suffixArrayLargeOnKernel did: the SA, and whether the levels below level 0 ran on the kernel. */
export interface LargeResult {
  sa: Uint32Array;
  reducedOnKernel: boolean;
  /** Whether the kernel took s1 as u16 (saisReduced16). */
  reducedU16: boolean;
  /** Whether, s1 too large for the kernel, this port ran s1's level and the kernel sorted its reduced string. */
  belowOnKernel: boolean;
  /** The reduced string's length and names (0 for n <= 1). */
  m: number;
  names: number;
}

/** Heap bytes beyond s1, its SA and workspace: the heap's first bytes, the mailbox, alignment. */
const KERNEL_HEAP_SLACK = 1 << 20;

/**
 * suffixArrayLarge with level 0 here and the reduced string s1 (about n / 3 names) sorted by the
 * WebAssembly kernel, with its helper on a second thread: its block caches, naming during
 * induction and doubling make the reduced levels several times faster than this port's plain
 * loops. s1, its SA and the kernel's workspace (about 8 m + 4 fs bytes, or 6 m + 4 fs with s1 as
 * u16 when its names fit in 16 bits) must fit in the 4 GiB memory and in what the process may
 * still use; otherwise the port runs s1's level and the kernel sorts the level below
 * (solveReducedAbove), or, where even that does not fit, the port sorts all of s1.
 */
export async function suffixArrayLargeOnKernel(text: Uint8Array, options: LargeOptions = {}): Promise<LargeResult> {
  const n = text.length;
  if (n > SAIS_MAX_LENGTH) throw new RangeError(`sufsort: sais takes at most ${SAIS_MAX_LENGTH} bytes`);
  if (n <= 1) return { sa: suffixArrayLarge(text), reducedOnKernel: false, reducedU16: false, belowOnKernel: false, m: 0, names: 0 };
  // fs starts at 4096 slots or more, so level 0's buckets (2 x 256) always fit
  for (let fs = saisWorkspaceSlots(n); ; fs = Math.max(2 * fs, MIN_WORKSPACE)) {
    const sa = new Int32Array(new SharedArrayBuffer(4 * (n + fs))); // shared: the SA's consumers may run on workers
    const clock = new PhaseClock("sais-large");
    // the SA's pages are mapped by workers while the text goes to its heap
    const faulted = n >= COLLECT_FROM ? prefault(sa, options.threads ?? 1) : undefined;
    let scans = options.scansOnKernel === false ? undefined : await WindowedScans.create(text, options);
    await faulted;
    clock.lap("text to heap");
    let level: { m: number; names: number; lmsCounts?: Int32Array };
    try {
      level = reduceLevel(text, sa, n, fs, BYTE_ALPHABET, clock, scans, true);
    } catch (error) {
      await scans?.close();
      throw error;
    }
    const { m, names, lmsCounts } = level;
    const reduced = sa.subarray(n + fs - m, n + fs);
    const free = n + fs - 2 * m;
    // the text's heap is let go while s1's takes its place, then made again
    const rescan = scans !== undefined;
    await scans?.close();
    scans = undefined;
    // (large texts only: a collection costs milliseconds, and small heaps are not worth them)
    const collect = rescan && n >= COLLECT_FROM;
    if (collect) await collectGarbage();
    clock.lap("release");
    // the memory the kernel's heap may take is asked for only when s1 goes there
    const positions = lmsCounts ? sa.subarray(m, 2 * m) : undefined;
    const threads = options.threads ?? 1;
    const heapLimit = Math.min(options.heapLimit ?? MAX_HEAP_BYTES, MAX_HEAP_BYTES, availableMemory());
    const sorted = names < m ? await sortReducedOnKernel(
      reduced, names, sa.subarray(0, m), options.reducedWorkspace ?? free, threads, heapLimit, clock, positions,
      options.reducedU16,
    ) : "port";
    const reducedOnKernel = sorted !== "port";
    let belowOnKernel = false;
    if (!reducedOnKernel) {
      const solved = await solveReducedAbove(reduced, sa, m, free, names, threads, heapLimit, clock);
      if (solved === false) continue;
      belowOnKernel = solved === "kernel";
    }
    clock.lap(reducedOnKernel ? "s1 back" : "s1");
    if (sorted === "u16" && positions) {
      // the kernel's ranks, mapped here to the positions listed after naming
      await gatherInPlace(sa.subarray(0, m), positions, threads);
      clock.lap("map");
    }
    if (rescan) {
      if (collect) await collectGarbage();
      scans = await WindowedScans.create(text, options);
      clock.lap("text to heap");
    }
    // SA1's ranks are text positions already when s1's heap (or the gather above) mapped them;
    // otherwise the positions are listed in s1's slots (free now) and gathered on every thread
    let mapped = reducedOnKernel ? lmsCounts : undefined;
    try {
      if (!mapped && scans) {
        mapped = new Int32Array(BYTE_ALPHABET);
        scans.listLms(text, reduced, mapped);
        clock.lap("list");
        await gatherInPlace(sa.subarray(0, m), reduced, threads);
        clock.lap("map");
      }
      completeLevel(text, sa, n, fs, BYTE_ALPHABET, m, clock, scans, mapped);
    } finally {
      await scans?.close();
    }
    clock.line(`n ${n} m ${m} names ${names}`);
    return { sa: new Uint32Array(sa.buffer, 0, n), reducedOnKernel, reducedU16: sorted === "u16", belowOnKernel, m, names };
  }
}

/** How sortReducedOnKernel sorted s1: not at all (the port must), on the kernel as i32 (mapped to
 * the positions when it was given them), or as u16 (ranks of s1, never mapped). */
type ReducedSort = "port" | "i32" | "u16";

/** Names up to which the kernel takes s1 as u16 (asm/sais.ts saisReduced16). */
const U16_NAMES = 1 << 16;

/**
 * out[0..m) = the suffix array of s1 (m names in [0, names)) by the kernel's saisReduced, with a
 * workspace of `fs` slots at first (doubled while a level asks for more); with `positions` (s1's
 * positions in the text), mapped to them. When s1's i32 slots do not fit but its names fit in 16
 * bits, s1 goes to the heap as u16 (saisReduced16: 6m bytes instead of 8m, texts near 2^31 bytes),
 * and the ranks come back unmapped (positions need the 4m bytes that s1 no longer frees). "port",
 * with nothing written, when s1 and a workspace of 2 * names slots do not fit in heapLimit bytes.
 */
async function sortReducedOnKernel(
  s1: Int32Array, names: number, out: Int32Array, fs: number, threads: number, heapLimit: number, clock?: PhaseClock,
  positions?: Int32Array, forceU16 = false,
): Promise<ReducedSort> {
  const m = s1.length;
  const bytesFor = (slots: number, s1Bytes: number) => 4 * (m + slots) + s1Bytes + SAIS_HELPER_BYTES + KERNEL_HEAP_SLACK;
  const least = Math.max(2 * names, MIN_WORKSPACE);
  const narrow = (forceU16 || bytesFor(least, 4 * m) > heapLimit) && names <= U16_NAMES;
  const s1Bytes = narrow ? 2 * m : 4 * m;
  const fits = (slots: number) => bytesFor(slots, s1Bytes) <= heapLimit;
  fs = Math.max(fs, least);
  if (!fits(fs)) fs = Math.floor((heapLimit - bytesFor(0, s1Bytes)) / 4);
  if (fs < 2 * names) return "port";
  // The port takes over when the system refuses the memory or the address space (ulimit -v) that
  // the heap needs; the helpers' workers, when what the heap leaves is too little for them.
  let executor: Executor | undefined;
  try {
    const heap = new SharedHeap(bytesFor(fs, s1Bytes));
    // the kernel and team - 1 helpers, each on a worker
    const team = teamThatFits(saisTeam(m, threads), 1);
    const withHelper = team >= 2;
    executor = createExecutor(heap, Math.max(1, team));
    const start = heap.used;
    for (;;) {
      heap.release(start);
      const saPtr = heap.alloc(4 * (m + fs) + s1Bytes);
      const mailbox = heap.alloc(SAIS_HELPER_BYTES, 64);
      const s1Ptr = saPtr + 4 * (m + fs);
      // (a Uint16Array takes each name modulo 2^16: exact, since names <= 2^16)
      (narrow ? new Uint16Array(heap.memory.buffer, s1Ptr, m) : heap.i32(s1Ptr, m)).set(s1);
      clock?.lap("s1 to heap");
      const kernel = narrow ? "saisReduced16" : "saisReduced";
      const status = await runWithHelper(executor, kernel, [saPtr, m, fs, names], withHelper ? mailbox : 0, team);
      clock?.lap("s1 sorted");
      if (status === 0) {
        const mapped = positions !== undefined && !narrow;
        if (mapped) {
          // s1's slots are free now: the positions go there, and the ranks become positions
          heap.i32(s1Ptr, m).set(positions);
          await runWithHelper(executor, "saisMapRanks", [saPtr, s1Ptr, m], withHelper ? mailbox : 0, team);
          clock?.lap("map");
        }
        out.set(heap.i32(saPtr, m));
        return narrow ? "u16" : "i32";
      }
      if (!fits(2 * fs)) return "port";
      fs *= 2;
    }
  } catch (error) {
    if (error instanceof SufsortError) return "port";
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

/**
 * solveReduced for an s1 that the kernel cannot take (its heap would exceed 4 GiB: texts near
 * 2^31 bytes whose names do not fit in 16 bits): this port runs s1's own level, whose reduced
 * string s2 (about m / 3 symbols) then goes to the kernel, which sorts it several times faster.
 * "kernel" when s2 went there, "port" when this port sorted everything, false when a level's
 * buckets did not fit (as solveReduced).
 */
async function solveReducedAbove(
  s1: Int32Array, sa: Int32Array, m: number, fs: number, names: number, threads: number, heapLimit: number, clock: PhaseClock,
): Promise<"kernel" | "port" | false> {
  if (names >= m || fs < names) return solveReduced(s1, sa, m, fs, names) && "port";
  const { m: m2, names: names2 } = reduceLevel(s1, sa, m, fs, names);
  clock.lap("s1 reduced");
  const s2 = sa.subarray(m + fs - m2, m + fs);
  const free2 = m + fs - 2 * m2;
  const sorted = names2 < m2 ? await sortReducedOnKernel(s2, names2, sa.subarray(0, m2), free2, threads, heapLimit, clock) : "port";
  if (sorted === "port" && !solveReduced(s2, sa, m2, free2, names2)) return false;
  completeLevel(s1, sa, m, fs, names, m2);
  clock.lap("s1 completed");
  return sorted === "port" ? "port" : "kernel";
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
 * m names in [0, names) written to sa[n + fs - m .. n + fs). With lmsCounts, the LMS positions
 * are listed in sa[m .. 2m) too, and counted per first symbol there. fresh: sa[0..n) is zero
 * already (a new array).
 */
function reduceLevel(
  t: Text, sa: Int32Array, n: number, fs: number, k: number, clock?: PhaseClock, scans?: WindowedScans, fresh = false,
): { m: number; names: number; lmsCounts?: Int32Array } {
  const counts = n + fs - k;
  const buckets = fs >= 2 * k ? counts - k : counts;
  if (scans) {
    sa.set(scans.byteCounts, counts);
  } else {
    countSymbols(t, n, sa, counts, k);
  }
  clock?.lap("count");

  // LMS positions to their bucket ends, then induce to sort LMS substrings.
  bucketBounds(t, n, sa, counts, buckets, k, true);
  if (!fresh) sa.fill(0, 0, n);
  clock?.lap("clear");
  let m = 0;
  if (scans) {
    m = scans.placeLms(t as Uint8Array, sa, buckets);
  } else {
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
  clock?.lap("lms");
  induce(1, t, sa, n, counts, buckets, k, scans);
  clock?.lap("induce 1");

  {
    let w = 0;
    for (let i = 0; i < n; i++) {
      const p = sa[i];
      if (p < 0) sa[w++] = ~p;
    }
  }
  clock?.lap("compact");

  // The reduced string s1 at the end of the buffer: the kernel writes each name at its LMS
  // position's rank there; the port writes them at m + (p >> 1), then gathers them.
  const reducedAt = n + fs - m;
  if (scans) {
    const names = scans.name(sa, n, m, sa.subarray(reducedAt, reducedAt + m));
    clock?.lap("name");
    return { m, names, lmsCounts: listAfterNames(t, sa, n, fs, m, k, clock, scans) };
  }
  const names = nameLmsSubstrings(t, sa, n, m);
  clock?.lap("name");
  {
    let j = m - 1;
    for (let i = m + ((n - 1) >> 1); i >= m; i--) {
      const name = sa[i];
      if (name !== 0) sa[reducedAt + j--] = name - 1;
    }
  }
  clock?.lap("s1 written");
  return { m, names };
}

/**
 * With the scans, and room for them between SA1 and s1: the LMS positions listed now, at
 * sa[m .. 2m), for s1's heap to map its sorted ranks to them (sortReducedOnKernel); their counts
 * per first symbol returned.
 */
function listAfterNames(
  t: Text, sa: Int32Array, n: number, fs: number, m: number, k: number, clock: PhaseClock | undefined, scans: WindowedScans,
): Int32Array | undefined {
  if (3 * m > n + fs) return undefined;
  const lmsCounts = new Int32Array(k);
  scans.listLms(t as Uint8Array, sa.subarray(m, 2 * m), lmsCounts);
  clock?.lap("list");
  return lmsCounts;
}

/** Stages 2 and 3 of a level once sa[0..m) holds the suffix array of s1 (with `mapped`, the LMS
 * positions in that order, and mapped their counts per first symbol): LMS suffixes placed, then induced. */
function completeLevel(
  t: Text, sa: Int32Array, n: number, fs: number, k: number, m: number, clock?: PhaseClock, scans?: WindowedScans,
  mapped?: Int32Array,
): void {
  const counts = n + fs - k;
  const buckets = fs >= 2 * k ? counts - k : counts;
  const reduced = sa.subarray(n + fs - m, n + fs);
  // Small alphabets: LMS positions counted per first symbol as they are listed, so that they are
  // placed below by block moves instead of a random text read each.
  const lmsCounts = mapped ?? (k <= LMS_COUNTS_MAX ? new Int32Array(k) : undefined);
  if (mapped) {
    // sa[0..m) holds the sorted LMS positions already (mapped by s1's heap or by the caller)
  } else {
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
  if (scans) {
    sa.set(scans.byteCounts, counts);
  } else {
    countSymbols(t, n, sa, counts, k);
  }
  clock?.lap("count");
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
  clock?.lap("place");
  induce(3, t, sa, n, counts, buckets, k, scans);
  clock?.lap("induce 3");
}

/**
 * Stage 1 (LMS substrings) or stage 3 (the suffixes) induction: from the sorted LMS entries, an L
 * scan up into the buckets' heads, then an S scan down into their tails; same invariants as
 * induceStage1 and induceFinal in asm/sais.ts. Beyond the heap the scans run on the kernel
 * (`scans`). An induced entry's flag (~j) comes from the sign of the difference of T[j - 1] and
 * T[j] (symbols are below 2^30), not a branch: the flags of a text are close to random, and a
 * mispredicted branch per entry cost more than a third of the whole port's time (dickens
 * 2.74-3.02 s -> 1.94-2.05).
 */
function induce(stage: 1 | 3, t: Text, sa: Int32Array, n: number, counts: number, buckets: number, k: number, scans?: WindowedScans): void {
  bucketBounds(t, n, sa, counts, buckets, k, false);
  {
    const j = n - 1;
    const c = t[j];
    sa[sa[buckets + c]++] = t[j - 1] < c ? ~j : j;
  }
  if (scans) scans.run(stage === 1 ? SCAN_STAGE1_L : SCAN_FINAL_L, sa, n, buckets);
  else if (stage === 1) stage1ScanL(t, sa, n, buckets);
  else finalScanL(t, sa, n, buckets);
  bucketBounds(t, n, sa, counts, buckets, k, true);
  if (scans) scans.run(stage === 1 ? SCAN_STAGE1_S : SCAN_FINAL_S, sa, n, buckets);
  else if (stage === 1) stage1ScanS(t, sa, n, buckets);
  else finalScanS(t, sa, n, buckets);
}

/** Stage 1's L scan, from the bottom: an unflagged entry induces its predecessor and leaves; a flagged one stays, unflagged. */
function stage1ScanL(t: Text, sa: Int32Array, n: number, buckets: number): void {
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
}

/** Stage 1's S scan, from the top: an unflagged entry induces its predecessor and leaves. */
function stage1ScanS(t: Text, sa: Int32Array, n: number, buckets: number): void {
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

/** Stage 3's L scan, from the bottom: every entry stays, its flag flipped; an unflagged one induces its predecessor. */
function finalScanL(t: Text, sa: Int32Array, n: number, buckets: number): void {
  for (let i = 0; i < n; i++) {
    const p = sa[i];
    sa[i] = ~p;
    if (p > 0) {
      const j = p - 1;
      const c = t[j];
      sa[sa[buckets + c]++] = j > 0 ? j ^ ((t[j - 1] - c) >> 31) : 0;
    }
  }
}

/** Stage 3's S scan, from the top: an unflagged entry induces its predecessor and stays; the others' flags flip back. */
function finalScanS(t: Text, sa: Int32Array, n: number, buckets: number): void {
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

// ---- level 0's induction scans on the kernel -------------------------------------------------------
// The four scans of level 0 run on the kernel (asm/sais.ts, "level 0 beyond this memory"): its
// blocked scans with many text loads in flight, over the text copied into a heap of its own and the
// SA copied through that heap a window at a time; the entries a window induces outside it come back
// in chunks, copied to the SA before their window is loaded.

const SCAN_STAGE1_L = 0;
const SCAN_STAGE1_S = 1;
const SCAN_FINAL_L = 2;
const SCAN_FINAL_S = 3;

/** SA entries per window of the scans (16 MiB): few host round trips, and the window stays in cache. */
const SCAN_WINDOW = 1 << 22;
/** Entries per spill chunk: a chunk is one copy of the host. */
const SCAN_CHUNK = 1 << 12;
/** Texts from this length let their scans' heap go (collected) before s1's heap is made, and s1's
 * before the scans' second one, and have their SA's pages mapped by workers first (prefault). */
const COLLECT_FROM = 1 << 26;
/** How long the scans wait for their helpers' workers to start, at most (ms). */
const HELPER_START_MS = 5000;
/** Slots of the kernel's block cache (INDUCE_BLOCK in asm/sais.ts). */
const SCAN_CACHE = 1024;

/** `team`, else 2 (the helper alone), else 1: the first whose helpers' workers (team - 1, and
 * `others` more) the address space (ulimit -v) has room for. */
function teamThatFits(team: number, others: number): number {
  const fits = (t: number) => {
    try {
      checkWorkerAddressSpace(t - 1 + others);
      return true;
    } catch {
      return false;
    }
  };
  if (team > 2 && fits(team)) return team;
  return team >= 2 && fits(2) ? 2 : 1;
}

class WindowedScans {
  private readonly call: Record<string, (...args: number[]) => number>;
  /** The whole heap as words (it does not grow after create). */
  private readonly words: Int32Array;
  /** Whether placeLms has set the LMS positions' bits (then listLms reads them there). */
  private bitmapFilled = false;

  private constructor(
    heap: SharedHeap,
    private readonly executor: Executor,
    private readonly helpers: Array<Promise<number>>,
    private readonly mailbox: number,
    private readonly ring: number,
    private readonly textPtr: number,
    private readonly window: number,
    private readonly windowPtr: number,
    private readonly bucketsPtr: number,
    private readonly cachePtr: number,
    private readonly spillPtr: number,
    private readonly namesPtr: number,
    private readonly statePtr: number,
    private readonly lmsPtr: number,
    private readonly countsPtr: number,
    private readonly bitmapPtr: number,
    private readonly bitmapWords: number,
    private readonly ranksPtr: number,
    /** Occurrences of each byte in the text. */
    readonly byteCounts: Int32Array,
  ) {
    this.call = executor.kernels as unknown as Record<string, (...args: number[]) => number>;
    this.words = heap.i32(0, heap.memory.buffer.byteLength >>> 2);
  }

  /**
   * The text in a heap of its own with the scans' buffers, or undefined where that heap is refused.
   * With 2 or more threads, the sais helper (asm/sais.ts) runs on a worker and prefetches the scans'
   * steps, from 8 with the rest of the team (saisTeam); close() stops them.
   */
  static async create(text: Uint8Array, options: LargeOptions): Promise<WindowedScans | undefined> {
    const n = text.length;
    const window = Math.max(1, Math.min(options.scanWindow ?? SCAN_WINDOW, n));
    const chunk = Math.min(options.scanChunk ?? SCAN_CHUNK, window);
    // the spill area (asm spillBytes) takes about as much as the window, and a chunk per bucket
    const offset = options.scanHeapOffset ?? 0;
    const bytes = offset + n + n / 8 + n / 128 + 16 * window + 4 * (BYTE_ALPHABET + 1) * (chunk + 3) + SAIS_HELPER_BYTES + (1 << 19);
    if (bytes > MAX_HEAP_BYTES || bytes > availableMemory()) return undefined;
    let heap: SharedHeap;
    try {
      heap = new SharedHeap(bytes);
    } catch (error) {
      if (error instanceof SufsortError) return undefined;
      throw error;
    }
    if (offset > 0) heap.alloc(offset);
    const textPtr = heap.alloc(n + 64) + 16; // the byte before the text is read (never used)
    heap.u8(textPtr, n).set(text);
    const windowPtr = heap.alloc(4 * window);
    const bucketsPtr = heap.alloc(4 * BYTE_ALPHABET);
    const cachePtr = heap.alloc(4 * SCAN_CACHE);
    // this thread scans; team - 1 helpers on workers prefetch (the first also takes naming's chunks)
    const team = teamThatFits(saisTeam(n, options.threads ?? 1), 0);
    const executor = createExecutor(heap, Math.max(1, team));
    const call = executor.kernels as unknown as Record<string, (...args: number[]) => number>;
    const spillPtr = heap.alloc(call.spillBytes(window, chunk));
    call.spillInit(spillPtr, window, chunk);
    const namesPtr = heap.alloc(4 * window);
    const statePtr = heap.alloc(16);
    // lmsWindow writes one slot below what it lists
    const lmsPtr = heap.alloc(4 * (window + 1)) + 4;
    const countsPtr = heap.alloc(4 * BYTE_ALPHABET);
    const byteCounts = new Int32Array(BYTE_ALPHABET);
    heap.i32(countsPtr, BYTE_ALPHABET).fill(0);
    call.byteHistogram(textPtr, 0, n, countsPtr);
    byteCounts.set(heap.i32(countsPtr, BYTE_ALPHABET));
    // a bit per position and the sentinel's, whole u64 words and one more (fresh memory is zero)
    // (a directory entry covers a cache line of it: aligned, rankOf reads one line)
    const bitmapWords = Math.floor(n / 64) + 2;
    const bitmapPtr = heap.alloc(8 * bitmapWords, 64);
    heap.u8(bitmapPtr + (n >>> 3), 1)[0] |= 1 << (n & 7);
    const ranksPtr = heap.alloc(4 * (Math.floor(bitmapWords / 8) + 1));
    let mailbox = 0;
    let ring = 0;
    let helpers: Array<Promise<number>> = [];
    if (team >= 2) {
      mailbox = heap.alloc(SAIS_HELPER_BYTES, 64);
      ring = heap.alloc(call.ringBytes(), 64);
      call.saisHelperReset(mailbox);
      call.saisHelperTeam(mailbox, team);
      helpers = startSaisHelpers(executor, mailbox, team - 1); // awaited by close()
      // the scans run on this thread without yielding: the helpers' tasks must have started first
      // (without them a scan loads every step itself, and stays correct)
      for (let waited = 0; call.saisHelperAlive(mailbox) < team - 1 && waited < HELPER_START_MS; waited++) {
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
    }
    return new WindowedScans(
      heap, executor, helpers, mailbox, ring, textPtr, window, windowPtr, bucketsPtr, cachePtr, spillPtr, namesPtr,
      statePtr, lmsPtr, countsPtr, bitmapPtr, bitmapWords, ranksPtr, byteCounts,
    );
  }

  /** Stops the helpers and the executor's workers. */
  async close(): Promise<void> {
    if (this.helpers.length > 0) {
      this.call.saisHelperExit(this.mailbox);
      await Promise.all(this.helpers);
    }
    await this.executor.close();
  }

  /** One scan of `kind` over sa[0..n), bucket heads or ends at sa[buckets ..): window by window, upwards for L scans. */
  run(kind: number, sa: Int32Array, n: number, buckets: number): void {
    const heap = this.words;
    heap.set(sa.subarray(buckets, buckets + BYTE_ALPHABET), this.bucketsPtr >>> 2);
    const descriptors = this.call.spillDescriptors(this.spillPtr) >>> 2;
    const pool = this.call.spillPool(this.spillPtr) >>> 2;
    const windowSlot = this.windowPtr >>> 2;
    const down = kind === SCAN_STAGE1_S || kind === SCAN_FINAL_S;
    const windows = Math.ceil(n / this.window);
    for (let w = 0; w < windows; w++) {
      const from = down ? Math.max(0, n - (w + 1) * this.window) : w * this.window;
      const to = down ? n - w * this.window : Math.min(n, from + this.window);
      heap.set(sa.subarray(from, to), windowSlot);
      const base = (this.windowPtr - 4 * from) >>> 0;
      const spilled = this.call.induceWindow(
        kind, this.textPtr, base, from, to, this.bucketsPtr, this.cachePtr, this.spillPtr, this.mailbox, this.ring,
      );
      sa.set(heap.subarray(windowSlot, windowSlot + (to - from)), from);
      for (let d = 0; d < spilled; d++) {
        const at = descriptors + 3 * d;
        const offset = pool + heap[at + 1];
        sa.set(heap.subarray(offset, offset + heap[at + 2]), heap[at]);
      }
    }
  }

  /**
   * The LMS positions of t, from the right, each to the end of its bucket (sa[buckets + c], moved
   * down), as reduceLevel places them; returns their number. The kernel lists them a window of
   * positions at a time (lmsWindow, no branch per position).
   */
  placeLms(t: Uint8Array, sa: Int32Array, buckets: number): number {
    this.bitmapFilled = true;
    let m = 0;
    this.forLmsWindows(t, 0, this.bitmapPtr, (heap, first, count) => {
      for (let x = first + count - 1; x >= first; x--) {
        const p = heap[x];
        sa[--sa[buckets + t[p]]] = p;
      }
      m += count;
    });
    this.call.rankDirectory(this.bitmapPtr, this.bitmapWords, this.ranksPtr);
    return m;
  }

  /** The LMS positions of t in order into reduced (all m of them), counted per first byte into lmsCounts (256). */
  listLms(t: Uint8Array, reduced: Int32Array, lmsCounts: Int32Array): void {
    if (this.bitmapFilled) {
      // from the bitmap that placeLms filled: no types to work out again
      const heap = this.words;
      heap.fill(0, this.countsPtr >>> 2, (this.countsPtr >>> 2) + BYTE_ALPHABET);
      const n = t.length;
      let j = 0;
      for (let from = 0; from < n; from += this.window) {
        const to = Math.min(n, from + this.window);
        const count = this.call.lmsFromBitmap(this.textPtr, this.bitmapPtr, from, to, this.lmsPtr, this.countsPtr);
        reduced.set(heap.subarray(this.lmsPtr >>> 2, (this.lmsPtr >>> 2) + count), j);
        j += count;
      }
    } else {
      let j = reduced.length;
      this.forLmsWindows(t, this.countsPtr, 0, (heap, first, count) => {
        reduced.set(heap.subarray(first, first + count), j - count);
        j -= count;
      });
    }
    lmsCounts.set(this.words.subarray(this.countsPtr >>> 2, (this.countsPtr >>> 2) + BYTE_ALPHABET));
  }

  /** Lists the LMS positions of t a window of positions at a time, from the right: `use` gets them
   * ascending at heap[first .. first + count). counts: 0, or 256 slots in the heap that count them
   * per first byte (zeroed here); bitmap: 0, or the bitmap in which their bits are set (nameWindow's). */
  private forLmsWindows(
    t: Uint8Array, counts: number, bitmap: number, use: (heap: Int32Array, first: number, count: number) => void,
  ): void {
    const call = this.call;
    const heap = this.words;
    if (counts !== 0) heap.fill(0, counts >>> 2, (counts >>> 2) + BYTE_ALPHABET);
    const n = t.length;
    const top = this.window;
    let toIsS = 0; // position n - 1 is L type
    for (let to = n - 1; to > 0; ) {
      const from = Math.max(0, to - this.window);
      const count = call.lmsWindow(this.textPtr, from, to, toIsS, this.lmsPtr, top, counts, bitmap);
      use(heap, (this.lmsPtr >>> 2) + top - count, count);
      // the type of `from`: that of the first position of its run whose next byte differs
      let x = from;
      while (x < to && t[x] === t[x + 1]) x++;
      toIsS = x < to ? Number(t[x] < t[x + 1]) : toIsS;
      to = from;
    }
  }

  /**
   * The sorted LMS substrings sa[0..m) named on the kernel (nameWindow) a window at a time, as
   * nameLmsSubstrings names them; the reduced string into s1 (name - 1 at each position's rank in
   * text order). Returns the number of names. placeLms must have run (its bitmap gives the ends).
   */
  name(sa: Int32Array, n: number, m: number, s1: Int32Array): number {
    const call = this.call;
    const heap = this.words;
    const windowSlot = this.windowPtr >>> 2;
    const namesSlot = this.namesPtr >>> 2;
    heap.fill(0, this.statePtr >>> 2, (this.statePtr >>> 2) + 4);
    for (let x0 = 0; x0 < m; x0 += this.window) {
      const count = Math.min(m, x0 + this.window) - x0;
      heap.set(sa.subarray(x0, x0 + count), windowSlot);
      call.nameWindow(
        this.textPtr, n, this.windowPtr, count, this.namesPtr, this.statePtr, this.bitmapPtr, this.ranksPtr, this.mailbox,
      );
      for (let x = 0; x < count; x++) s1[heap[windowSlot + x]] = heap[namesSlot + x] - 1;
    }
    return heap[this.statePtr >>> 2];
  }
}
