// The closing line of .ci/run, "N passed, N failed[, N skipped]", from vitest's JSON reports.
//   node .ci/summary.mjs REPORT                      the whole run
//   node .ci/summary.mjs REPORT --rerun REPORT2 F... files F (relative paths) ran again, after the
//                                                    test watchdog killed their process: their tests
//                                                    count from REPORT2, the rest from REPORT
//   node .ci/summary.mjs REPORT --failed-outside F... exits 1 when a test failed in a file other than F
import { readFileSync } from "node:fs";

const [reportPath, mode, ...rest] = process.argv.slice(2);
const read = (path) => {
  const text = readFileSync(path, "utf8");
  if (!text) {
    console.log("no test report: the run was stopped");
    process.exit(1);
  }
  return JSON.parse(text).testResults;
};
const files = mode === "--rerun" ? rest.slice(1) : rest;
const named = (result) => files.some((f) => result.name === f || result.name.endsWith(`/${f}`));
const first = read(reportPath);

if (mode === "--failed-outside") {
  const failed = first.filter((r) => !named(r) && r.assertionResults.some((a) => a.status === "failed"));
  process.exit(failed.length > 0 ? 1 : 0);
}
const results = mode === "--rerun" ? [...first.filter((r) => !named(r)), ...read(rest[0])] : first;
const count = { passed: 0, failed: 0, skipped: 0 };
for (const r of results) {
  for (const a of r.assertionResults) {
    if (a.status === "passed" || a.status === "failed") count[a.status]++;
    else count.skipped++;
  }
}
console.log(`${count.passed} passed, ${count.failed} failed` + (count.skipped ? `, ${count.skipped} skipped` : ""));
