// The library API: input kinds, options, errors at the boundary.
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { packagePath } from "../src/paths.js";
import { algorithms, createEngine, createRemoteEngine, suffixArray, SufsortError, verifySuffixArray } from "../src/index.js";

describe("suffixArray", () => {
  it("accepts a string (UTF-8), a Buffer and a Uint8Array alike", async () => {
    const expected = Uint32Array.of(5, 3, 1, 0, 4, 2);
    expect(await suffixArray("banana")).toEqual(expected);
    expect(await suffixArray(Buffer.from("banana"))).toEqual(expected);
    expect(await suffixArray(new TextEncoder().encode("banana"))).toEqual(expected);
  });

  it("sorts bytes of a UTF-8 string as unsigned bytes", async () => {
    // "zé" is 7A C3 A9: suffixes 7A.. < A9 < C3 A9 as unsigned bytes.
    const sa = await suffixArray("zé");
    expect(Array.from(sa)).toEqual([0, 2, 1]);
  });

  it("handles the empty and 1-byte inputs", async () => {
    expect(await suffixArray("")).toEqual(new Uint32Array(0));
    expect(await suffixArray(Uint8Array.of(0))).toEqual(Uint32Array.of(0));
  });

  it("verifies when asked", async () => {
    const sa = await suffixArray("mississippi", { verify: true });
    expect(Array.from(sa)).toEqual([10, 7, 4, 1, 0, 9, 8, 6, 3, 5, 2]);
  });

  it("rejects unknown algorithms, bad thread counts and bad text types with SufsortError", async () => {
    await expect(suffixArray("abc", { algo: "nope" })).rejects.toThrow(/unknown algorithm 'nope'/);
    await expect(suffixArray("abc", { threads: 0 })).rejects.toThrow(SufsortError);
    await expect(suffixArray("abc", { threads: 65 })).rejects.toThrow(/threads must be an integer from 1 to 64 \(got 65\)/);
    await expect(createEngine({ threads: 1.5 })).rejects.toThrow(/threads must be an integer from 1 to 64/);
    await expect(suffixArray(42 as unknown as string)).rejects.toThrow(/Uint8Array/);
    await expect(verifySuffixArray("abc", [0, 1, 2] as unknown as Uint32Array)).rejects.toThrow(/Uint32Array/);
  });

  it("lists the registered algorithms, sais among them", () => {
    const names = algorithms().map((a) => a.name);
    expect(names).toContain("sais");
  });

  it("exports long-lived engines: results are copies that survive the next build", async () => {
    expect(typeof createRemoteEngine).toBe("function");
    const engine = await createEngine({ threads: 2 });
    try {
      const first = await engine.suffixArray(new TextEncoder().encode("banana"), { algo: "range" });
      await engine.suffixArray(new TextEncoder().encode("mississippi"));
      expect(Array.from(first.sa)).toEqual([5, 3, 1, 0, 4, 2]);
      expect(first.algo).toBe("range");
    } finally {
      await engine.close();
    }
  });

  it("a remote engine whose worker cannot start rejects its calls with a SufsortError and closes", () => {
    // under ulimit -v 3000000 the worker's engine cannot reserve its heap (Node 20, 22) or grow it
    // (Node 24); before, the worker's 'error' event went uncaught and ended the calling process
    const index = JSON.stringify(packagePath("dist", "src", "index.js"));
    const code = `
      const { createRemoteEngine, SufsortError } = await import(${index});
      const engine = await createRemoteEngine({ threads: 2 });
      try {
        await engine.suffixArray(new TextEncoder().encode("mississippi".repeat(100000)), { algo: "range" });
        console.log("built");
      } catch (error) {
        console.log("rejected", error instanceof SufsortError, error.exitCode, error.message);
      } finally {
        await engine.close();
      }`;
    // without a limit it builds: the worker does not inherit --input-type, which a worker started
    // from a file refuses (it did, and failed to start)
    const free = spawnSync(process.execPath, ["--input-type=module", "-e", code], { encoding: "utf8", timeout: 60_000 });
    expect(free.stdout.trim()).toBe("built");
    expect(free.status).toBe(0);
    const r = spawnSync("bash", ["-c", `ulimit -v 3000000 && exec "$0" "$@"`, process.execPath, "--input-type=module", "-e", code], {
      encoding: "utf8", timeout: 60_000,
    });
    expect(r.error).toBeUndefined(); // a timeout would mean a call or close() never returned
    expect(r.stdout.trim()).toMatch(/^rejected true 1 (engine worker: )?(out of memory|the address-space limit)/);
    expect(r.status).toBe(0);
  });
});
