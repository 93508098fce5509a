// Setup file of every test process (vitest.config.ts): the watchdog of test/support/watchdog.mjs,
// told each test's name. SUFSORT_TEST_WATCHDOG_S sets its limit (default 300 s, past the 120 s
// test timeout; 0 turns it off).
import { beforeEach } from "vitest";
import { startWatchdog } from "./watchdog.mjs";

const limitS = Number(process.env.SUFSORT_TEST_WATCHDOG_S ?? 300);
if (limitS > 0) {
  const watchdog = startWatchdog(limitS);
  beforeEach((context) => {
    watchdog.note(`${context.task.file?.name ?? "?"} > ${context.task.name}`);
  });
}
