// The default thread count on a machine of more cores than an executor takes (MAX_THREADS): every
// command must still run without --threads. node:os is mocked to report 128 cores.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";

vi.mock("node:os", async (importOriginal) => {
  const os = await importOriginal<typeof import("node:os")>();
  return { ...os, availableParallelism: () => 128 };
});

const { threadsOption } = await import("../src/cli/command.js");
const { checkThreads, defaultThreads, MAX_THREADS } = await import("../src/cpu/executor.js");
const { commands } = await import("../src/cli/commands/index.js");

describe("threads on a machine of 128 cores", () => {
  it("default to MAX_THREADS, which the executor accepts; an explicit count over it is a usage error", () => {
    expect(defaultThreads()).toBe(MAX_THREADS);
    expect(checkThreads(defaultThreads())).toBe(MAX_THREADS);
    const none = { values: {}, positionals: [] };
    expect(threadsOption(none)).toBe(MAX_THREADS);
    expect(threadsOption({ values: { threads: "3" }, positionals: [] })).toBe(3);
    expect(() => threadsOption({ values: { threads: "128" }, positionals: [] })).toThrow(/--threads must be an integer from 1 to 64 \(got '128'\)/);
  });

  it("every command with a --threads option reads it through threadsOption", () => {
    // (build, bench and crosscheck once defaulted to availableParallelism() and then refused it)
    const names = commands.filter((c) => "threads" in c.options).map((c) => c.name);
    expect(names.length).toBeGreaterThanOrEqual(8);
    const dir = join(import.meta.dirname, "..", "src", "cli", "commands");
    for (const file of readdirSync(dir).filter((f) => f.endsWith(".ts"))) {
      const source = readFileSync(join(dir, file), "utf8");
      if (!/threads: \{ type: "string" \}/.test(source)) continue;
      // engineRequest (src/cli/placement.ts) reads --threads for build, bwt, lcp and index
      expect(source, file).toMatch(/threadsOption\(args\)|engineRequest\(args\)/);
      expect(source, file).not.toMatch(/availableParallelism/);
    }
    expect(readFileSync(join(dir, "..", "placement.ts"), "utf8")).toMatch(/threads: threadsOption\(args\)/);
  });
});
