// The timed runs of a BWT built through bwtPlaced, shared by bench/apps.mjs and bench/gpu-bwt.mjs.
import { bwtPlaced } from "../dist/src/apps/bwt.js";

/** Whether the two parts of a BWT, one after the other, hold `bytes`. */
function equalParts([a, b], bytes) {
  return a.length + b.length === bytes.length && Buffer.compare(a, bytes.subarray(0, a.length)) === 0 && Buffer.compare(b, bytes.subarray(a.length)) === 0;
}

/**
 * Builds the BWT of a placed text runs + 1 times with `options` (the first run, which compiles the
 * shaders, untimed), each checked against `want` ({ bytes, primary }: the CPU's) and thrown on as
 * "WHAT differs from the CPU's"; returns the timed runs' seconds and their BWT steps' seconds.
 */
export async function timeBwtRuns(placed, options, runs, want, what) {
  const base = placed.heap.used;
  const seconds = [];
  const steps = [];
  for (let r = 0; r <= runs; r++) {
    placed.heap.release(base);
    const t0 = performance.now();
    const got = await bwtPlaced(placed, options);
    const elapsed = (performance.now() - t0) / 1000;
    if (got.primary !== want.primary || !equalParts(got.parts, want.bytes)) throw new Error(`${what} differs from the CPU's`);
    if (r > 0) {
      seconds.push(elapsed);
      steps.push(got.bwtSeconds);
    }
  }
  return { seconds, steps };
}
