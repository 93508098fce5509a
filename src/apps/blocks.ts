// How the applications split their serial leaf kernels into blocks; the blocks run through the CPU
// executor (src/cpu/executor.ts). The blocks of one executor call never write what another block of
// the same call reads.
/** Cuts [0, total) into at most `parts` ranges of at least `minSize` (the last may be shorter). */
export function splitRange(total: number, parts: number, minSize: number): Array<[number, number]> {
  const count = Math.max(1, Math.min(parts, Math.ceil(total / Math.max(1, minSize))));
  const size = Math.ceil(total / count);
  const ranges: Array<[number, number]> = [];
  for (let from = 0; from < total; from += size) ranges.push([from, Math.min(total, from + size)]);
  if (ranges.length === 0) ranges.push([0, 0]);
  return ranges;
}

/** Blocks per thread in a phase: a few, so uneven blocks still balance. */
export const TASKS_PER_THREAD = 4;

/**
 * The 257 bucket bounds of byte counts kept per block (`counts`: 256 a block, `blocks` of them):
 * bucket c begins at first + the totals of the bytes before it.
 */
export function bucketStarts(counts: Uint32Array, blocks: number, first: number): Float64Array {
  const starts = new Float64Array(257);
  let sum = first;
  for (let c = 0; c < 256; c++) {
    starts[c] = sum;
    for (let b = 0; b < blocks; b++) sum += counts[256 * b + c];
  }
  starts[256] = sum;
  return starts;
}

/**
 * Turns per-block byte counts (256 a block, in place) into each block's first slot per byte: byte
 * c's slots begin at starts[c] and run through the blocks in order.
 */
export function slotsByBlock(counts: Uint32Array, blocks: number, starts: ArrayLike<number>): void {
  for (let c = 0; c < 256; c++) {
    let slot = starts[c];
    for (let b = 0; b < blocks; b++) {
      const here = counts[256 * b + c];
      counts[256 * b + c] = slot;
      slot += here;
    }
  }
}
