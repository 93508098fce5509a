// How the applications run their serial leaf kernels over blocks: through a KernelRunner, the same
// shape as the CPU executor's interface (src/cpu/executor.ts on the cpu branch: `threads`,
// `kernels`, `map(kernel, calls)`), so an Executor can be passed wherever a runner is taken. A call
// of `map` runs one named kernel once per argument list (pointers into the shared heap and block
// bounds) and resolves to the u32 results in order; the blocks of one call never write what another
// block of the same call reads. Until the executor is merged, `sequentialRunner` runs them in turn.
import type { Kernels } from "../cpu/wasm.js";

/** Arguments of one kernel call: pointers, offsets and lengths (u32, passed as numbers). */
export type KernelArgs = readonly number[];

export interface KernelRunner {
  /** How many blocks a phase is split into, per TASKS_PER_THREAD. */
  readonly threads: number;
  /** Kernels on the heap's memory in the calling thread, for serial steps. */
  readonly kernels: Kernels;
  map(kernel: string, calls: readonly KernelArgs[]): Promise<number[]>;
}

/** Runs every block on the calling thread, one after another. */
export function sequentialRunner(kernels: Kernels): KernelRunner {
  return {
    threads: 1,
    kernels,
    async map(kernel, calls) {
      const fn = kernels[kernel] as (...args: number[]) => number | undefined;
      return calls.map((args) => (fn(...args) ?? 0) >>> 0);
    },
  };
}

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
