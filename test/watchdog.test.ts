// The test processes' watchdog (test/support/watchdog.mjs): a process whose main thread is blocked
// is killed with a one-line reason (and native stacks where gdb can attach); a process whose main
// thread keeps running is left alone.
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { packagePath } from "../src/paths.js";

const watchdog = packagePath("test", "support", "watchdog.mjs");

function runChild(body: string) {
  const code = `import { startWatchdog } from ${JSON.stringify(watchdog)};\n${body}`;
  const started = Date.now();
  const child = spawnSync(process.execPath, ["--input-type=module", "-e", code], { encoding: "utf8", timeout: 90_000 });
  return { ...child, seconds: (Date.now() - started) / 1000 };
}

describe("test watchdog", () => {
  it("kills a process whose main thread stays blocked, saying what it was doing", () => {
    const child = runChild(`startWatchdog(2).note("a busy loop");
      const end = Date.now() + 60_000;
      while (Date.now() < end) {}
      console.log("the loop ended");`);
    expect(child.error).toBeUndefined();
    expect(child.signal).toBe("SIGKILL");
    expect(child.stdout).not.toContain("the loop ended");
    expect(child.stderr).toMatch(/^watchdog: the main thread of process \d+ has not run for [2-9] s; it was in: a busy loop$/m);
    expect(child.stderr).toMatch(/^watchdog: killing process \d+$/m);
    expect(child.seconds).toBeLessThan(55);
  });

  it("leaves a process alone while its main thread keeps running", () => {
    const child = runChild(`const dog = startWatchdog(2);
      dog.note("waiting");
      await new Promise((resolve) => setTimeout(resolve, 4500));
      console.log("done");`);
    expect(child.stderr).toBe("");
    expect(child.status).toBe(0);
    expect(child.stdout.trim()).toBe("done");
    expect(child.stderr).not.toContain("watchdog");
  });
});
