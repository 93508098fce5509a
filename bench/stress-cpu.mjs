// Randomised cross-check of the CPU algorithms, for longer runs than the test suite affords: texts
// of up to --max-bytes (3 MB) from the ten families of stress-texts.mjs (FILEs give the slices).
// Each text's SA-IS result (1 thread) is checked by the linear verifier (and by the verifier by
// windows, against the TypeScript one, on it and on a corrupted copy); sais, range and skew at
// each of --threads (1, 2 and 3) must equal it, and so must the path of texts beyond the
// WebAssembly memory (sais-large: level 0's scans by windows of a random size, the reduced string
// on the kernel). sais at 3 or more threads runs its team (the engine does from 8 threads, and
// as many as the cores: --team-from lowers it to 3 by default,
// on any machine). Stops at the first difference and prints the seed and the case, so that it can
// be replayed.
//
//   npm run build && node bench/stress-cpu.mjs [--seed S] [--seconds T] [--threads 1,2,3]
//       [--max-bytes B] [--team-from K] [FILE...]
import { readFileSync } from "node:fs";
import { createEngine, verifySuffixArray } from "../dist/src/index.js";
import { suffixArrayLargeOnKernel } from "../dist/src/cpu/algorithms/sais-large.js";
import { saisTuning } from "../dist/src/cpu/algorithms/sais.js";
import { verifyByWindows } from "../dist/src/engine/verify.js";
import { verifyLarge } from "../dist/src/engine/verify-large.js";
import { firstDifference, generate, seeded, takeOption } from "./stress-texts.mjs";

const args = process.argv.slice(2);
const seed = Number(takeOption(args, "--seed", 1)) >>> 0 || 1;
const seconds = Number(takeOption(args, "--seconds", 60));
const maxBytes = Number(takeOption(args, "--max-bytes", 3_000_000));
const threadCounts = takeOption(args, "--threads", "1,2,3").split(",").map(Number);
Object.assign(saisTuning, { teamFrom: Number(takeOption(args, "--team-from", 3)), teamMinText: 0, oversubscribe: true });
const sources = args.map((f) => readFileSync(f));
const rng = seeded(seed);

const engines = new Map();
for (const threads of new Set([1, ...threadCounts])) engines.set(threads, await createEngine({ threads }));
const end = Date.now() + 1000 * seconds;
let cases = 0;
try {
  while (Date.now() < end) {
    const { text, what } = generate(rng, sources, maxBytes);
    const reference = (await engines.get(1).suffixArray(text, { algo: "sais" })).sa;
    const verdict = await verifySuffixArray(text, reference);
    if (!verdict.ok) throw new Error(`seed ${seed}, case ${cases} (${what}): sais is wrong: ${verdict.message}`);
    // the verifier by windows (past the heap) agrees with the TypeScript one, on the SA and on a
    // copy with two entries swapped
    const verifyWindow = rng.between(Math.max(1, text.length >> 6), Math.max(1, text.length)); // at most 64 windows
    const swapped = reference.slice();
    if (text.length > 1) {
      const [a, b] = [rng.between(0, text.length - 1), rng.between(0, text.length - 1)];
      [swapped[a], swapped[b]] = [swapped[b], swapped[a]];
    }
    for (const sa of [reference, swapped]) {
      const byWindows = await verifyByWindows(text, sa, rng.between(1, 2), verifyWindow);
      if (JSON.stringify(byWindows) !== JSON.stringify(verifyLarge(text, sa))) {
        throw new Error(`seed ${seed}, case ${cases} (${what}): verifyByWindows (window ${verifyWindow}) and verifyLarge differ`);
      }
    }
    for (const algo of ["sais", "range", "skew"]) {
      for (const threads of threadCounts) {
        if (algo === "sais" && threads === 1) continue;
        const sa = (await engines.get(threads).suffixArray(text, { algo })).sa;
        const at = firstDifference(sa, reference);
        if (at >= 0) throw new Error(`seed ${seed}, case ${cases} (${what}): ${algo} at ${threads} threads differs at ${at}`);
      }
    }
    for (const threads of threadCounts) {
      // level 0's scans by windows of a random size, so that entries spill across windows
      const scanWindow = rng.between(1, Math.max(1, text.length));
      const scanChunk = rng.between(1, 4096);
      const { sa } = await suffixArrayLargeOnKernel(text, { threads, scanWindow, scanChunk });
      const at = firstDifference(sa, reference);
      if (at >= 0) {
        throw new Error(`seed ${seed}, case ${cases} (${what}): sais-large at ${threads} threads (window ${scanWindow}, chunk ${scanChunk}) differs at ${at}`);
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
