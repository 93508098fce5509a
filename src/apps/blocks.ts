// How the applications run their serial leaf kernels over blocks. A task is one kernel call by name
// with its arguments (pointers into the shared heap and block bounds): exactly what a piscina worker
// holding its own instance on the same memory can run. Today the tasks run one after another on the
// calling thread; binding this one function to the CPU executor makes every application parallel.
import type { Kernels } from "../cpu/wasm.js";

/** One kernel call: the export's name and its numeric arguments. */
export interface KernelTask {
  kernel: string;
  args: number[];
}

/** Runs independent tasks (no task reads what another writes) and returns their results in order. */
export async function runKernelTasks(kernels: Kernels, tasks: KernelTask[], _threads = 1): Promise<number[]> {
  const results: number[] = [];
  for (const task of tasks) {
    const fn = kernels[task.kernel] as (...args: number[]) => number | undefined;
    results.push(fn(...task.args) ?? 0);
  }
  return results;
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

/** Tasks per worker thread: a few, so uneven blocks still balance. */
export const TASKS_PER_THREAD = 4;
