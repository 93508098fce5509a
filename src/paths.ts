// Locates files of the installed package (dist/sufsort.wasm, dist/workers/*.js, wgsl/*.wgsl) the same
// way whether code runs from src/ (vitest) or from dist/src/ (the built CLI and library).
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

let root: string | undefined;

/** The package root: the nearest folder above this file holding package.json. */
export function packageRoot(): string {
  if (root !== undefined) return root;
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, "package.json"))) {
    const up = dirname(dir);
    if (up === dir) throw new Error("sufsort: cannot find the package root");
    dir = up;
  }
  root = dir;
  return dir;
}

/** A path inside the package root. */
export function packagePath(...parts: string[]): string {
  return join(packageRoot(), ...parts);
}
