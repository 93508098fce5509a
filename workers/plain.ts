// Worker entry for the steps over plain shared arrays, beyond the WebAssembly memory: one named step
// per task (src/apps/chains.ts, src/apps/lcp-steps.ts; zeroFill and gatherStep: src/cpu/memory.ts). Its arrays arrive as SharedArrayBuffers with
// their offsets and lengths (src/cpu/shared-views.ts), made views again here, so nothing big is copied.
import { rowCounts, scatterPsi, walkChains } from "../src/apps/chains.js";
import { lcpBlock, phiBlock, plcpBlock } from "../src/apps/lcp-steps.js";
import { gatherStep, zeroFill } from "../src/cpu/memory.js";
import { unpackViews } from "../src/cpu/shared-views.js";

const steps: Record<string, (args: never) => unknown> = { rowCounts, scatterPsi, walkChains, phiBlock, plcpBlock, lcpBlock, zeroFill, gatherStep };

export default function run(task: { step: string; args: never }): unknown {
  return steps[task.step](unpackViews(task.args));
}
