// Thin worker entry of the CPU engine: instantiates the module on the shared memory once (both
// arrive in workerData), then runs one named kernel on one block per task, or, for the team task,
// serves the team board (src/cpu/team.ts) until the team stops.
import { workerData } from "node:worker_threads";
import { instantiate } from "../src/cpu/wasm.js";
import type { KernelTask } from "../src/cpu/executor.js";
import { serve, TEAM_TASK } from "../src/cpu/team.js";

const data = workerData as { memory: WebAssembly.Memory; module: WebAssembly.Module; board: SharedArrayBuffer };
const kernels = instantiate(data.memory, data.module) as unknown as Record<string, (...args: number[]) => number | undefined>;

export default function run(task: KernelTask): number {
  if (task.kernel === TEAM_TASK) return serve(data.board, kernels);
  let result: number | undefined;
  try {
    result = kernels[task.kernel](...task.args);
  } catch (e) {
    // sais' kernel thread waits for the chunk a trapped helper held: tell it (asm/sais.ts, MAIL_FAILED)
    if (task.kernel === "saisHelper") kernels.saisHelperFailed(task.args[0]);
    throw e;
  }
  return result === undefined ? 0 : result;
}
