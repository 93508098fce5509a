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
