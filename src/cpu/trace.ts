// SUFSORT_TRACE=1: algorithms print where their time goes (one line per phase or round) to stderr.
// SUFSORT_TRACE=laps: each lap is printed as it ends too (where a long build spends its minutes).
import { performance } from "node:perf_hooks";

export const tracing = ["1", "cpu", "laps"].includes(process.env.SUFSORT_TRACE ?? "");
const eachLap = process.env.SUFSORT_TRACE === "laps";
/** SUFSORT_TRACE=cpu: laps in process CPU time (all threads), steadier than wall time on a busy machine. */
const cpuTime = process.env.SUFSORT_TRACE === "cpu";

function now(): number {
  if (!cpuTime) return performance.now();
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/** Lap timer: lap(name) charges the time since the previous lap to `name`; line() prints and resets. */
export class PhaseClock {
  private last = now();
  private laps: Array<[string, number]> = [];
  constructor(private readonly label: string) {}
  lap(name: string): void {
    if (!tracing) return;
    const t = now();
    this.laps.push([name, t - this.last]);
    if (eachLap) process.stderr.write(`${this.label}: ${name} ${(t - this.last).toFixed(1)} ms\n`);
    this.last = t;
  }
  line(note = ""): void {
    if (!tracing) return;
    const parts = this.laps.map(([name, ms]) => `${name} ${ms.toFixed(1)}`);
    const total = this.laps.reduce((s, [, ms]) => s + ms, 0);
    process.stderr.write(`${this.label}: ${note}${note ? " | " : ""}${parts.join(", ")} | ${total.toFixed(1)} ms\n`);
    this.laps = [];
  }
}
