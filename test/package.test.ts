// The package as npm would install it: packed with `npm pack`, unpacked into a folder's
// node_modules, then run from there (CLI, library import, workers, shaders). This catches files the
// runtime loads that `files` in package.json leaves out, and build outputs that should not ship.
import { describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { packageRoot } from "../src/paths.js";
import { randomText } from "./support/inputs.js";
import { tempDirs } from "./support/temp.js";

const tmp = tempDirs("sufsort-package-");

/** Packs the repository (already built by `npm test`) and unpacks it as `dir`/node_modules/sufsort. */
function install(dir: string): { files: string[]; root: string } {
  const pack = spawnSync("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", dir], { cwd: packageRoot(), encoding: "utf8" });
  expect(pack.status, pack.stderr).toBe(0);
  const [packed] = JSON.parse(pack.stdout) as { filename: string; files: { path: string }[] }[];
  const root = join(dir, "node_modules", "sufsort");
  mkdirSync(root, { recursive: true });
  const untar = spawnSync("tar", ["-xzf", join(dir, packed.filename), "-C", root, "--strip-components=1"], { encoding: "utf8" });
  expect(untar.status, untar.stderr).toBe(0);
  // the package's dependencies, as npm would have installed them beside it
  symlinkSync(join(packageRoot(), "node_modules"), join(root, "node_modules"));
  return { files: packed.files.map((f) => f.path), root };
}

describe("the packed package", () => {
  it("ships what the runtime loads and none of the build's or the benchmarks' leftovers", () => {
    const dir = tmp();
    const { files } = install(dir);
    const wgsl = readdirSync(join(packageRoot(), "wgsl")).filter((f) => f.endsWith(".wgsl"));
    expect(wgsl.length).toBeGreaterThan(0);
    const needed = ["package.json", "README.md", "LICENSE", "dist/sufsort.wasm", "dist/cli.js", "dist/index.js", "dist/src/index.d.ts", "dist/workers/cpu.js", "dist/workers/engine.js", "bench/peers/divsufsort.c", ...wgsl.map((f) => `wgsl/${f}`)];
    expect(files).toEqual(expect.arrayContaining(needed));
    const leftovers = files.filter((f) => f.startsWith("bench/results") || f.startsWith("bench/peers/build") || f.startsWith("test/") || f.endsWith(".wat"));
    expect(leftovers).toEqual([]);
  });

  it("builds and verifies from node_modules: the CLI (its bin) on workers and on the GPU, and the library", () => {
    const dir = tmp();
    const { root } = install(dir);
    const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { bin: { sufsort: string } };
    const cli = join(root, manifest.bin.sufsort);
    // 2.5 MiB: over range's threshold for starting workers, so the packed worker script runs
    const text = join(dir, "t");
    writeFileSync(text, randomText(5 << 19, 4, 35));
    const cpu = spawnSync(process.execPath, [cli, "build", text, "--algo", "range", "--threads", "2", "--verify", "--json"], { cwd: dir, encoding: "utf8" });
    expect(cpu.status, cpu.stderr).toBe(0);
    expect(JSON.parse(cpu.stdout)).toMatchObject({ n: 5 << 19, algo: "range", threads: 2, verified: true });

    writeFileSync(join(dir, "small"), randomText(3000, 26, 36));
    const gpu = spawnSync(process.execPath, [cli, "build", join(dir, "small"), "--algo", "gpu-spd", "--gpu", "software", "--verify", "--json"], { cwd: dir, encoding: "utf8" });
    if (!(gpu.status !== 0 && process.env.CI !== "true" && /no software GPU available/.test(gpu.stderr))) {
      expect(gpu.status, gpu.stderr).toBe(0);
      expect(JSON.parse(gpu.stdout)).toMatchObject({ algo: "gpu-spd", engine: "gpu", verified: true });
    }

    // resolved by name from a project beside node_modules, as a user's code would
    writeFileSync(join(dir, "use.mjs"), 'import { suffixArray } from "sufsort";\nconsole.log(JSON.stringify(Array.from(await suffixArray(new TextEncoder().encode("mississippi")))));\n');
    const api = spawnSync(process.execPath, ["use.mjs"], { cwd: dir, encoding: "utf8" });
    expect(api.status, api.stderr).toBe(0);
    expect(JSON.parse(api.stdout)).toEqual([10, 7, 4, 1, 0, 9, 8, 6, 3, 5, 2]);
  });
});
