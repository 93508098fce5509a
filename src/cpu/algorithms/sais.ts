// The sequential SA-IS sorter (asm/sais.ts) behind the SuffixSorter contract.
//
// Layout it needs: the kernel's workspace (fs u32 slots) must follow the SA immediately, so that
// SA and workspace form one n + fs slot region. scratchBytes(n) = 4 * fs(n) announces it; the
// engine allocates text, then SA, then scratch back to back (heap.alloc with 4-byte alignment for
// the scratch). build() checks that the scratch it finds after the SA is reserved (heap.used) and
// reserves it itself otherwise, and on NEEDS_WORKSPACE (a deeper recursion level whose buckets do
// not fit) reserves a larger workspace and runs again.
import { registerSorter, type BuildContext, type SuffixSorter } from "../../engine/registry.js";
import { MAX_HEAP_BYTES } from "../memory.js";

/** Largest fs that covers level 1's buckets for any text (see asm/sais.ts: 3-byte LMS substrings). */
export const LEVEL1_DISTINCT_SHORT = 1 << 24;
/** Slots beyond the bound: level 0's two 256-entry bucket arrays and level 1's sentinel substring. */
export const WORKSPACE_SLACK = 4096;
/** Smallest workspace a retry asks for: level 0's count and pointer arrays (256 slots each). */
export const MIN_WORKSPACE = 512;
/** Largest text the kernel accepts: entries are i32 with the sign bit used as a flag. */
export const SAIS_MAX_LENGTH = 0x7fffffff;

/** Workspace slots (after the SA) the kernel gets on its first try for a text of n bytes. */
export function saisWorkspaceSlots(n: number): number {
  return Math.min(Math.floor(n / 2), LEVEL1_DISTINCT_SHORT) + WORKSPACE_SLACK;
}

export interface SaisKernel {
  sais(textPtr: number, saPtr: number, n: number, fs: number): number;
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
    const status = kernel.sais(textPtr, saPtr, n, fs);
    if (status === 0) return fs;
    const larger = Math.max(fs * 2, MIN_WORKSPACE);
    if (saPtr + 4 * (n + larger) > MAX_HEAP_BYTES) {
      throw new Error(`sufsort: sais needs more than ${fs} workspace slots and memory is exhausted`);
    }
    reserve(larger);
    fs = larger;
  }
}

export const saisSorter: SuffixSorter = {
  name: "sais",
  engine: "cpu",
  description: "SA-IS (Nong-Zhang-Chan induced sorting), sequential WebAssembly, O(n) time",
  maxLength: SAIS_MAX_LENGTH,
  scratchBytes(n: number): number {
    return 4 * saisWorkspaceSlots(n);
  },
  async build(ctx: BuildContext): Promise<void> {
    const { heap, n, textPtr, saPtr } = ctx;
    const workspaceStart = saPtr + 4 * n;
    // Make sure [workspaceStart, workspaceStart + 4 slots) belongs to us; the heap is a bump
    // allocator, so this works only while nothing else was allocated after the scratch.
    const reserve = (slots: number) => {
      const end = workspaceStart + 4 * slots;
      if (heap.used > end) return;
      if (heap.used < workspaceStart) throw new Error("sufsort: sais needs its scratch right after the SA");
      heap.alloc(end - heap.used, 1);
    };
    const fs = saisWorkspaceSlots(n);
    reserve(fs);
    runSais(ctx.kernels as unknown as SaisKernel, textPtr, saPtr, n, fs, reserve);
    ctx.onProgress?.(1);
  },
};

registerSorter(saisSorter);
