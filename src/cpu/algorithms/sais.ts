// The sequential SA-IS sorter (asm/sais.ts) behind the SuffixSorter contract.
//
// Layout it needs: the kernel's workspace (fs u32 slots) must follow the SA immediately, so that
// SA and workspace form one n + fs slot region. scratchBytes(n) = 4 * fs(n) announces it; the
// engine allocates text, then SA, then the scratch (the scratch's alignment gap, < 64 bytes, is
// allowed for) and nothing after it during build(). build() reserves the workspace itself when the
// engine did not (heap.used still at the SA's end), and on NEEDS_WORKSPACE (a deeper recursion
// level whose buckets do not fit; rare) extends it at the top of the heap and runs again, which
// it can do only while nothing else lies after its scratch.
//
// With two or more threads (and n >= HELPER_MIN_TEXT) the kernel runs on one worker and its
// helper (asm/sais.ts saisHelper: it takes chunks of stage 1's LMS placement, of the naming and of
// the mapping back and of stage 2's scan of the text, on every level long enough, and of the
// doubling rounds of reduced strings with mostly unique names, and loads the text ahead of the
// induction scans) on another; they share a mailbox of
// SAIS_HELPER_BYTES placed after the workspace, 64-byte aligned. From saisTuning.teamFrom
// threads (8), on texts of teamMinText (16 MiB) or more, the team's other members run
// saisHelper too, on more workers, and take part only in the induction scans: level 0's, shared
// by blocks, and the deeper levels', whose steps they all prefetch (see saisTeam). The kernel never waits for a helper that has not started, so the result is the
// same whether the helper runs at once, late or never; the host posts the helper's exit itself
// too, should the kernel fail.
//
// Memory: text n + SA 4n + workspace 4 fs bytes, fs = min(n / 2, 2^24) + 4096: at most 6n + 64 MiB
// beyond the text (7n for small n where 2n < 64 MiB), plus 13 KB of mailbox. Texts above
// saisMaxLength (~845 M) do not fit in 4 GiB: suffixArrayLargeOnKernel (sais-large.ts) keeps
// their SA in a plain array, runs level 0's scans, naming and LMS listing on this kernel a window
// at a time (induceWindow, nameWindow, lmsWindow), and hands the reduced string to it (saisReduced).
import { availableParallelism } from "node:os";
import { registerSorter, type BuildContext, type SuffixSorter } from "../../engine/registry.js";
import { failure } from "../../errors.js";
import type { Executor } from "../executor.js";
import { MAX_HEAP_BYTES } from "../memory.js";

/** Largest fs that covers level 1's buckets for any text (see asm/sais.ts: 3-byte LMS substrings). */
export const LEVEL1_DISTINCT_SHORT = 1 << 24;
/** Slots beyond the bound: level 0's two 256-entry bucket arrays and level 1's sentinel substring. */
export const WORKSPACE_SLACK = 4096;
/** Smallest workspace a retry asks for: level 0's count and pointer arrays (256 slots each). */
export const MIN_WORKSPACE = 512;
/** Largest text the algorithm accepts: entries are i32 with the sign bit used as a flag. */
export const SAIS_MAX_LENGTH = 0x7fffffff;
/** Heap bytes kept aside for what else lives in the heap (its first bytes, small buffers). */
const HEAP_RESERVE = 1 << 20;
/** Largest text whose text, SA and first workspace fit in the 4 GiB WebAssembly memory. */
export const SAIS_WASM_MAX_LENGTH = Math.floor(
  (MAX_HEAP_BYTES - 4 * (LEVEL1_DISTINCT_SHORT + WORKSPACE_SLACK) - HEAP_RESERVE) / 5,
);
/** The scratch may start up to this many bytes after the SA (the heap's default alignment). */
const SCRATCH_ALIGNMENT_GAP = 64;
/** Bytes of the helper's mailbox (asm/sais.ts saisHelperBytes(): header, caches, saved LMS counts; a test checks it). */
export const SAIS_HELPER_BYTES = 768 + 12 * 1024 + 4 * (64 + 256);
/** Texts shorter than this are sorted without the helper: it shares only levels with at least
 * 64 Ki LMS positions (asm/sais.ts chunksFor), and two worker tasks cost ~0.1 ms. */
export const HELPER_MIN_TEXT = 1 << 18;

/** Workspace slots (after the SA) the kernel gets on its first try for a text of n bytes. */
export function saisWorkspaceSlots(n: number): number {
  return Math.min(Math.floor(n / 2), LEVEL1_DISTINCT_SHORT) + WORKSPACE_SLACK;
}

export interface SaisKernel {
  /** mailbox: 0 for no helper, else the region shared with a saisHelper(mailbox) call. */
  sais(textPtr: number, saPtr: number, n: number, fs: number, mailbox?: number): number;
  saisHelperBytes(): number;
  saisHelperReset(mailbox: number): void;
  saisHelperTeam(mailbox: number, team: number): void;
  saisHelperExit(mailbox: number): void;
}

/**
 * Runs the kernel with the workspace [saPtr + 4n, saPtr + 4n + 4 fs) and, while it reports that a
 * level needs more, doubles fs (calling `reserve(slots)`, which must make that many slots after
 * the SA available) and retries. Returns the fs that succeeded.
 */
export function runSais(
  kernel: SaisKernel,
  textPtr: number,
  saPtr: number,
  n: number,
  fs: number,
  reserve: (slots: number) => void,
): number {
  for (;;) {
    const status = kernel.sais(textPtr, saPtr, n, fs, 0);
    if (status === 0) return fs;
    const larger = Math.max(fs * 2, MIN_WORKSPACE);
    if (saPtr + 4 * (n + larger) > MAX_HEAP_BYTES) {
      throw failure(`sais: needs more than ${fs} workspace slots and the 4 GiB memory is exhausted`);
    }
    reserve(larger);
    fs = larger;
  }
}

/** Whether a build of n bytes at `threads` runs the kernel with its helper on two workers. */
export function helped(n: number, threads: number): boolean {
  return threads >= 2 && n >= HELPER_MIN_TEXT;
}

/** Settings of the sais team (tests lower teamFrom to run it on 2 cores). */
export const saisTuning = {
  /**
   * Threads from which sais runs a team of that many (the kernel's thread and threads - 1
   * helpers): the induction scans of a byte text (stage 1's dense ones and the final ones) are
   * shared by it (asm/sais.ts "stage 3 of a byte text by blocks shared with the team"), the
   * deeper levels' ones and the windowed ones beyond the heap prefetched by all its members;
   * below it, the helper alone prefetches them. H200 host, wall s, the final scans alone shared, team
   * 2 (prefetch) -> 4 / 8 / 16 (shared): nci 1.53-1.63 -> 1.51-1.74 / 1.29-1.31 / 1.37-1.50,
   * dickens 0.45-0.47 -> 0.49-0.51 / 0.37-0.40 / 0.37-0.40, 64 MiB DNA 3.10-3.25 -> 3.63-3.80 /
   * 3.34-3.64 / 2.72-2.91; shared at team 2: nci 2.10-2.12, dickens 0.59. The deeper levels'
   * scans are prefetched by every member but the scan's (one more H200 host, team 16, median s:
   * nci 1.170 -> 0.960, chr22 0.584 -> 0.530, 64 MiB DNA 2.032 -> 1.912, dickens 0.306 / 0.313);
   * prefetching level 0's scans too instead of sharing them was slower (nci 1.03 -> 1.46).
   */
  teamFrom: 8,
  /**
   * Texts from which they are: each member is a worker to start and keep (tens of MB each), for a
   * gain that grows with the text (H200 host, team 16 against the helper: dickens, 10 MB, 1.07x;
   * chr22, 22 MB, 1.58x; nci, 34 MB, 1.27x).
   */
  teamMinText: 1 << 24,
  /** Teams larger than the machine's cores (tests): a member off its core holds up every block. */
  oversubscribe: false,
};

/** The team a sais build of n bytes on `threads` threads runs: 1 (alone), 2 (with its helper), or more. */
export function saisTeam(n: number, threads: number): number {
  if (!helped(n, threads)) return 1;
  const team = saisTuning.oversubscribe ? threads : Math.min(threads, availableParallelism());
  const whole = team >= saisTuning.teamFrom && n >= saisTuning.teamMinText;
  return whole ? Math.min(team, MAX_SAIS_TEAM) : 2;
}

/** The kernel's most chunks of one step (asm/sais.ts MAX_CHUNKS). */
const MAX_SAIS_TEAM = 64;

/**
 * Runs `kernel(...args, mailbox)` (sais or saisReduced) with a mailbox on a worker, so that the
 * caller's thread stays responsive, and saisHelper(mailbox) beside it on another. Without one (a
 * text under HELPER_MIN_TEXT, or one thread) it runs on the calling thread: such a sort takes
 * milliseconds, and starting workers for it took ~100 ms (2-core machine: a one-shot
 * suffixArray() of 1,100 bytes 99 ms at the default 2 threads against 0.4 ms at 1).
 */
export async function runWithHelper(
  executor: Executor, kernel: string, args: readonly number[], mailbox: number, team = 2,
): Promise<number> {
  if (mailbox === 0) return (await executor.map(kernel, [[...args, 0]]))[0];
  const kernels = executor.kernels as unknown as SaisKernel;
  if (kernels.saisHelperBytes() !== SAIS_HELPER_BYTES) throw new Error("sais: SAIS_HELPER_BYTES is out of date");
  kernels.saisHelperReset(mailbox);
  kernels.saisHelperTeam(mailbox, team);
  // The kernel first: it never waits for a member that has not started, while the members wait
  // for its exit; so a pool short of workers still finishes. Then the helper (index 0) and the
  // team's other members (they take part in the induction scans only).
  const result = executor.runOne(kernel, [...args, mailbox]);
  const helpers = startSaisHelpers(executor, mailbox, Math.max(1, team - 1));
  try {
    return await result;
  } finally {
    // The kernel posts exit when it returns; this one covers a kernel that threw (the kernel is
    // done either way, so the mailbox has one writer at a time).
    kernels.saisHelperExit(mailbox);
    await Promise.all(helpers);
  }
}

/**
 * Starts saisHelper(mailbox, index) for index 0 .. count - 1, each on a worker: the helper and
 * the team's other members. The caller awaits the tasks (after posting exit); until then a task
 * that fails is not an unhandled rejection.
 */
export function startSaisHelpers(executor: Executor, mailbox: number, count: number): Array<Promise<number>> {
  const helpers = Array.from({ length: count }, (_, index) => executor.runOne("saisHelper", [mailbox, index]));
  for (const helper of helpers) helper.catch(() => {});
  return helpers;
}

export const saisSorter: SuffixSorter = {
  name: "sais",
  engine: "cpu",
  description: "SA-IS (Nong-Zhang-Chan induced sorting), WebAssembly, O(n) time; with 2+ threads a helper thread takes chunks of its counting, naming and mapping steps and prefetches its induction scans' text; from 8 threads a team of that many shares level 0's induction scans and prefetches the deeper levels' ones",
  maxLength: SAIS_WASM_MAX_LENGTH,
  // One-shot builds (fresh workers each), median of 7 ms, 1 thread / 2 threads: dickens' first
  // 2 MiB 115 / 183, 4 MiB 241 / 244, 8 MiB 535 / 412; nci's first 4 MiB 186 / 203 (2-core machine).
  workersFrom: 4 << 20,
  // the kernel and its helper (from 8 threads and 16 MiB its whole team); the other workers a
  // placement has start only for the apps' steps
  busyWorkers: (n, threads) => {
    const team = saisTeam(n, threads);
    return team >= 2 ? team : 0;
  },
  scratchBytes(n: number): number {
    return 4 * saisWorkspaceSlots(n) + SCRATCH_ALIGNMENT_GAP + SAIS_HELPER_BYTES;
  },
  async build(ctx: BuildContext): Promise<void> {
    const { heap, n, textPtr, saPtr } = ctx;
    const workspaceStart = saPtr + 4 * n;
    const fs = saisWorkspaceSlots(n);
    // The heap is a bump allocator: the workspace is ours if the heap's top is the SA's end (we
    // reserve it) or the end of a scratch placed right after the SA (the engine reserved it).
    const used = heap.used;
    const ownsTop = used >= workspaceStart && used <= workspaceStart + saisSorter.scratchBytes(n) + SCRATCH_ALIGNMENT_GAP;
    if (!ownsTop) throw failure("sais: its scratch must be allocated right after the suffix array");
    const reserve = (slots: number) => {
      const end = workspaceStart + 4 * slots;
      if (heap.used < end) heap.alloc(end - heap.used, 1);
    };
    // The whole scratch: the workspace, then (64-byte aligned) the helper's mailbox.
    reserve(saisSorter.scratchBytes(n) / 4);
    const mailbox = Math.ceil((workspaceStart + 4 * fs) / 64) * 64;
    const team = saisTeam(n, ctx.executor.threads);
    const status = await runWithHelper(ctx.executor, "sais", [textPtr, saPtr, n, fs], team >= 2 ? mailbox : 0, team);
    // The rare retry with a larger workspace (a deep level's buckets did not fit) runs here.
    if (status !== 0) {
      const larger = Math.max(fs * 2, MIN_WORKSPACE);
      reserve(larger);
      runSais(ctx.kernels as unknown as SaisKernel, textPtr, saPtr, n, larger, reserve);
    }
    ctx.onProgress?.(1);
  },
};

registerSorter(saisSorter);
