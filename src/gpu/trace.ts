// SUFSORT_GPU_TRACE: host timestamps of a build's phases, taken where the host waits anyway (no
// extra synchronisation, unlike SUFSORT_GPU_PROFILE), printed as one line per build.
const enabled = process.env.SUFSORT_GPU_TRACE !== undefined;
let marks: Array<[string, number]> = [];

export function traceMark(label: string): void {
  if (enabled) marks.push([label, performance.now()]);
}

export function traceReport(name: string): void {
  if (!enabled || marks.length === 0) return;
  const parts: string[] = [];
  for (let k = 1; k < marks.length; k++) parts.push(`${marks[k][0]} ${(marks[k][1] - marks[k - 1][1]).toFixed(2)}`);
  process.stderr.write(`${name} trace (ms): total ${(marks[marks.length - 1][1] - marks[0][1]).toFixed(2)}: ${parts.join(", ")}\n`);
  marks = [];
}
