// The long-repeat shares of a placed text (asm/repeats.ts): the share of positions, sampled by
// content (anchors), whose 32-byte string occurs at another position anywhere in the text, and the
// same for 64-byte strings. auto asks them before it runs range (choice.ts: LONG_REPEAT_SHARE on few
// threads, the GPU threshold on many, LONG_REPEAT_HAND_OVER_SHARE on any): copies far apart make
// prefix doubling sort the copied suffixes once per round, for as many rounds as the copies are long.
import type { Executor } from "../cpu/executor.js";
import { blocks } from "../cpu/primitives.js";

/** Anchors aimed at: one position in 2^k, k = log2(n / ANCHORS_AIMED) rounded down. */
export const ANCHORS_AIMED = 8192;
/** A block may list this many times its share of the anchors aimed at, + 1024 (a text of few
 * distinct strings lists more; then k grows by 2 and the scan runs again). */
const ANCHOR_SLACK = 4;

interface RepeatKernels {
  repeatGram(): number;
  repeatGear(gear: number): void;
  repeatShared(text: number, n: number, anchors: number, count: number, blocks: number, table: number, bits: number, gear: number): number;
}

/** What longRepeatShare found: the shares (0..1) and how many anchors they rest on. */
export interface RepeatShare {
  /** Anchors whose 32-byte string another anchor starts too. */
  share: number;
  /** Anchors whose 64-byte string another anchor starts too: the share of suffixes that range's
   * first sort by 64 characters would leave unsorted (its hand-over rule's measure). */
  share64: number;
  anchors: number;
}

/** The shares of anchors of text[0, n) whose 32- and 64-byte strings another anchor starts too (no anchors: 0). */
export async function longRepeatShare(exec: Executor, textPtr: number, n: number): Promise<RepeatShare> {
  const kernels = exec.kernels as unknown as RepeatKernels;
  const gram = kernels.repeatGram();
  if (n < 2 * gram) return { share: 0, share64: 0, anchors: 0 };
  const heap = exec.heap;
  const mark = heap.used;
  try {
    const gear = heap.alloc(256 * 8);
    kernels.repeatGear(gear);
    const parts = blocks(0, n, exec.threads);
    let k = Math.max(1, Math.min(32, Math.floor(Math.log2(n / ANCHORS_AIMED))));
    for (;;) {
      const cap = Math.ceil((ANCHOR_SLACK * n) / 2 ** k / parts.length) + 1024;
      const lists = heap.alloc(4 * cap * parts.length);
      const found = await exec.map("repeatAnchors", parts.map(([from, to], b) => [textPtr, n, from, to, k, gear, lists + 4 * cap * b, cap]));
      if (found.some((f) => f > cap)) {
        // far more anchors than aimed at: a text of few distinct strings; sparser anchors, or no
        // evidence at all past k = 32
        if (k === 32) return { share: 0, share64: 0, anchors: 0 };
        heap.release(lists);
        k = Math.min(32, k + 2);
        continue;
      }
      // the blocks' lists, one after another
      let count = 0;
      for (let b = 0; b < parts.length; b++) {
        heap.u32(lists + 4 * count, found[b]!).set(heap.u32(lists + 4 * cap * b, found[b]!));
        count += found[b]!;
      }
      if (count === 0) return { share: 0, share64: 0, anchors: 0 };
      const bits = Math.ceil(Math.log2(2 * count + 1));
      const table = heap.alloc(16 * 2 ** bits);
      const shared = (blocks: number) => {
        heap.u8(table, 16 * 2 ** bits).fill(0);
        return kernels.repeatShared(textPtr, n, lists, count, blocks, table, bits, gear) / count;
      };
      return { share: shared(1), share64: shared(2), anchors: count };
    }
  } finally {
    heap.release(mark);
  }
}
