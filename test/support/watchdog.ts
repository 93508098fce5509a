// Setup file of every test process (vitest.config.ts): the watchdog of test/support/watchdog.mjs,
// told the file and test being run ("FILE > TEST", "FILE > (before all)", "FILE > (after all)";
// .ci/run reads the file from the watchdog's line). SUFSORT_TEST_WATCHDOG_S sets its limit
// (default 300 s, past the 120 s test timeout; 0 turns it off).
import { afterAll, beforeAll, beforeEach } from "vitest";
import { startWatchdog } from "./watchdog.mjs";

const limitS = Number(process.env.SUFSORT_TEST_WATCHDOG_S ?? 300);
if (limitS > 0) {
  const watchdog = startWatchdog(limitS);
  let file = "?";
  // vitest 4 passes hooks a fixture context first (read by destructuring), the file's suite second
  beforeAll(({}, suite) => {
    file = suite.file?.name ?? suite.name;
    watchdog.note(`${file} > (before all)`);
  });
  beforeEach((context) => watchdog.note(`${file} > ${context.task.name}`));
  afterAll(() => watchdog.note(`${file} > (after all)`));
}
