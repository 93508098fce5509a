// A watchdog thread that ends this process when its main thread has not run for `limitS` seconds.
// A test timeout needs the main thread's event loop; a call that blocks it (a native GPU driver
// stuck in a submit, say) would otherwise hold the whole run until CI's own limit. The watchdog
// writes what the process was doing and every thread's native stack (gdb, where installed)
// straight to file descriptor 2 (a worker's process.stderr goes through the blocked main thread),
// then kills the process with SIGKILL. Plain JavaScript, so that a child process can load it too.
import { Worker } from "node:worker_threads";

const thread = `
const { workerData, parentPort } = require("node:worker_threads");
const { writeSync } = require("node:fs");
const { spawnSync } = require("node:child_process");
const beat = new Int32Array(workerData.beat);
let doing = "(nothing noted yet)";
parentPort.on("message", (text) => { doing = text; });
setInterval(() => {
  const stalled = Math.floor(Date.now() / 1000) - Atomics.load(beat, 0);
  if (stalled < workerData.limitS) return;
  const say = (text) => writeSync(2, "watchdog: " + text + "\\n");
  say("the main thread of process " + process.pid + " has not run for " + stalled + " s; it was in: " + doing);
  const gdb = spawnSync("gdb", ["-p", String(process.pid), "-batch", "-ex", "thread apply all bt 40"],
    { timeout: 120000, stdio: ["ignore", 2, 2] });
  if (gdb.error) say("no native stacks (gdb: " + gdb.error.message + ")");
  say("killing process " + process.pid);
  process.kill(process.pid, "SIGKILL");
}, Math.min(2000, workerData.limitS * 500));
`;

/** Starts the watchdog; `note(text)` records what the main thread is doing (and counts as a beat). */
export function startWatchdog(limitS) {
  const beat = new SharedArrayBuffer(4);
  const beats = new Int32Array(beat);
  const tick = () => Atomics.store(beats, 0, Math.floor(Date.now() / 1000));
  tick();
  setInterval(tick, 500).unref();
  // execArgv [] so the eval'd CommonJS is not read as a module when the parent ran --input-type=module
  const worker = new Worker(thread, { eval: true, execArgv: [], workerData: { beat, limitS } });
  worker.unref();
  return {
    note(text) {
      tick();
      worker.postMessage(text);
    },
  };
}
