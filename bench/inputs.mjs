// Helpers the bench scripts share for inputs.
import { readFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { basename } from "node:path";
import { gunzipSync } from "node:zlib";
import { generate } from "../dist/src/bench/inputs.js";

/**
 * The bytes of an INPUT argument: a file, a file.xz (xz -dc) or file.gz, gen:KIND:SIZE (a generated
 * input as in `sufsort bench --gen`), or several of these joined by '+' (concatenated).
 */
export function loadInput(input) {
  if (input.includes("+")) return Buffer.concat(input.split("+").map(loadInput));
  if (input.endsWith(".gz")) return gunzipSync(readFileSync(input));
  if (input.startsWith("gen:")) return Buffer.from(generate(input.slice(4)).bytes.buffer);
  if (input.endsWith(".xz")) return execFileSync("xz", ["-dc", input], { maxBuffer: 2 ** 31 - 1 });
  return readFileSync(input);
}

/** The name of an INPUT argument in a table: its files' base names. */
export function inputName(input) {
  return input.split("+").map((part) => basename(part)).join("+");
}

/** Bytes in a size like 128M (K, M, G: binary multiples). */
export function size(text) {
  const m = /^(\d+)([KMG]?)$/.exec(text);
  if (!m) throw new Error(`bad size ${text}`);
  return Number(m[1]) * { "": 1, K: 1024, M: 1024 ** 2, G: 1024 ** 3 }[m[2]];
}

/** A xorshift32 generator of u32 values (seed 0 counts as 1). */
export function xorshift(seed) {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return x >>> 0;
  };
}
