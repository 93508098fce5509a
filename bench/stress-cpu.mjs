// Randomised cross-check of the CPU algorithms, for longer runs than the test suite affords: texts
// of 0-3 MB from ten families (random alphabets of 1-256 symbols, periodic with mutations,
// Fibonacci, Thue-Morse, runs, slices of given files, copied blocks, two equal halves, one byte,
// tails of the smallest byte). Each text's SA-IS result (1 thread) is checked by the linear
// verifier; sais, range and skew at 1-3 threads must equal it. Stops at the first difference and
// prints the seed and the case, so that it can be replayed.
//
//   npm run build && node bench/stress-cpu.mjs [--seed S] [--seconds T] [FILE...]
import { readFileSync } from "node:fs";
import { createEngine, verifySuffixArray } from "../dist/src/index.js";

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(name);
  if (at < 0) return fallback;
  return Number(args.splice(at, 2)[1]);
};
const seed = option("--seed", 1) >>> 0 || 1;
const seconds = option("--seconds", 60);
const sources = args.map((f) => readFileSync(f));

let state = seed;
const random = () => {
  state ^= state << 13;
  state >>>= 0;
  state ^= state >>> 17;
  state ^= state << 5;
  state >>>= 0;
  return state / 4294967296;
};
const between = (a, b) => a + Math.floor(random() * (b - a + 1));

function generate() {
  const n = [between(0, 40), between(40, 5000), between(5000, 300_000), between(300_000, 3_000_000)][between(0, 3)];
  const t = new Uint8Array(n);
  const family = between(0, sources.length > 0 ? 9 : 8);
  const sigma = [1, 2, 3, 4, 16, 255, 256][between(0, 6)];
  const base = between(0, 256 - sigma);
  const symbol = () => (base + between(0, sigma - 1)) & 255;
  const fillRandom = () => {
    for (let i = 0; i < n; i++) t[i] = symbol();
  };
  switch (family) {
    case 0:
      fillRandom();
      break;
    case 1: {
      const period = between(1, 1 + Math.min(n, 5000));
      for (let i = 0; i < n; i++) t[i] = i < period ? symbol() : t[i - period];
      for (let k = between(0, 5); k > 0 && n > 0; k--) t[between(0, n - 1)] = between(0, 255);
      break;
    }
    case 2: {
      let a = [0];
      let b = [0, 1];
      while (b.length < n) [a, b] = [b, b.concat(a)];
      for (let i = 0; i < n; i++) t[i] = base + b[i];
      break;
    }
    case 3:
      for (let i = 0; i < n; i++) {
        let parity = 0;
        for (let x = i; x; x >>>= 1) parity ^= x & 1;
        t[i] = parity ? 0xff : 0;
      }
      break;
    case 4:
      for (let i = 0; i < n; ) {
        const c = symbol();
        const length = between(1, [10, 1000, 100_000][between(0, 2)]);
        for (let j = 0; j < length && i < n; j++) t[i++] = c;
      }
      break;
    case 5:
      fillRandom();
      for (let k = between(1, 50); k > 0 && n > 10; k--) {
        const length = between(1, n >> 2);
        const from = between(0, n - length);
        t.copyWithin(between(0, n - length), from, from + length);
      }
      break;
    case 6: {
      const half = n >> 1;
      for (let i = 0; i < half; i++) t[i] = symbol();
      t.copyWithin(half, 0, n - half);
      if (n > 2 && random() < 0.5) t[between(0, n - 1)] ^= 1;
      break;
    }
    case 7:
      t.fill(random() < 0.5 ? 0 : between(0, 255));
      if (n > 0 && random() < 0.5) t[between(0, n - 1)] = between(0, 255);
      break;
    case 8:
      fillRandom();
      for (let i = n - between(0, n); i < n; i++) if (random() < 0.9) t[i] = base;
      break;
    default: {
      const source = sources[between(0, sources.length - 1)];
      const at = between(0, Math.max(0, source.length - n));
      t.set(source.subarray(at, at + Math.min(n, source.length)));
    }
  }
  return { text: t, what: `family ${family}, sigma ${sigma}, n ${n}` };
}

const engines = new Map();
for (const threads of [1, 2, 3]) engines.set(threads, await createEngine({ threads }));
const end = Date.now() + 1000 * seconds;
let cases = 0;
try {
  while (Date.now() < end) {
    const { text, what } = generate();
    const reference = (await engines.get(1).suffixArray(text, { algo: "sais" })).sa;
    const verdict = await verifySuffixArray(text, reference);
    if (!verdict.ok) throw new Error(`seed ${seed}, case ${cases} (${what}): sais is wrong: ${verdict.message}`);
    for (const algo of ["sais", "range", "skew"]) {
      for (const threads of [1, 2, 3]) {
        if (algo === "sais" && threads === 1) continue;
        const sa = (await engines.get(threads).suffixArray(text, { algo })).sa;
        let at = sa.length === reference.length ? -1 : 0;
        for (let i = 0; at < 0 && i < sa.length; i++) if (sa[i] !== reference[i]) at = i;
        if (at >= 0) throw new Error(`seed ${seed}, case ${cases} (${what}): ${algo} at ${threads} threads differs at ${at}`);
      }
    }
    cases++;
  }
  console.log(`seed ${seed}: ${cases} cases, every algorithm equal to SA-IS`);
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
} finally {
  for (const engine of engines.values()) await engine.close();
}
