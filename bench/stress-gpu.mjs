// Randomised cross-check of the GPU algorithms and the hybrid engine: texts from the families of
// stress-texts.mjs (FILEs give the slices), up to --max-bytes. Each text's SA-IS result is checked
// by the linear verifier, then every GPU sorter must equal it, and the BWT computed on the GPU from
// one of them (chosen at random) must equal the BWT read off that SA. Half of the cases run under a
// random SUFSORT_GPU_TUNE drawn from the settings the test suite uses (small readback and upload
// chunks, packed readback of small SAs, small binding windows, forced rounds), so that paths meant
// for large inputs are taken by small ones too. Stops at the first difference, printing the seed,
// the case and the tuning.
//
//   npm run build && node bench/stress-gpu.mjs [--seed S] [--seconds T] [--max-bytes B]
//       [--threads N] [--gpu hardware|software] [--algos a,b] [--verbose] [FILE...]
import { readFileSync } from "node:fs";
import { verifySuffixArray } from "../dist/src/index.js";
import { buildSuffixArray, closePlaced, placeText } from "../dist/src/engine/build.js";
import { getSorter, listSorters } from "../dist/src/engine/registry.js";
import { bwtPlaced } from "../dist/src/apps/bwt.js";
import { acquireGpu } from "../dist/src/gpu/device.js";
import { bwtOf, firstDifference, generate, seeded, takeOption } from "./stress-texts.mjs";

const args = process.argv.slice(2);
const seed = Number(takeOption(args, "--seed", 1)) >>> 0 || 1;
const seconds = Number(takeOption(args, "--seconds", 60));
const maxBytes = Number(takeOption(args, "--max-bytes", 3_000_000));
const threads = Number(takeOption(args, "--threads", 2));
const mode = takeOption(args, "--gpu", "hardware");
const wanted = takeOption(args, "--algos", "");
const verboseAt = args.indexOf("--verbose");
const verbose = verboseAt >= 0 && args.splice(verboseAt, 1).length > 0;
const sources = args.map((f) => readFileSync(f));
const rng = seeded(seed);

const sorters = listSorters()
  .filter((s) => s.engine !== "cpu")
  .map((s) => s.name)
  .filter((name) => wanted === "" || wanted.split(",").includes(name));
if (sorters.length === 0) throw new Error(`no GPU sorter matches --algos ${wanted}`);
const gpu = await acquireGpu({ mode, required: true });

/** One tuning in two cases: a few of the test suite's settings, or none. */
// Sizes that the tests set low for small texts are scaled with n here (about `PIECES` pieces at the
// most), so that a text of 60 MB is not read back in a million pieces: a tune meant to reach an
// edge, not to measure how slow tiny pieces are.
const PIECES = 512;
const atLeast = (small, n, unit = 64) => Math.max(small, unit * Math.ceil(n / PIECES / unit));
const TUNINGS = [
  (n) => `io.packMin=0,io.packedChunk=${atLeast(64, n)}`,
  "io.packMin=0,io.packedChunk=100000",
  "io.packTextMin=0",
  "io.readBuffers=3",
  "io.readBuffers=5,io.submitChunks=2",
  (n) => `io.readChunk=${atLeast(1000, 4 * n, 4)}`,
  (n) => `io.uploadChunk=${atLeast(1000, n, 1)}`,
  (n) => `io.uploadChunk=${atLeast(4097, n, 1) | 1}`,
  "batch.startAfter=0",
  "batch.startAfter=1,doubling.liveMax=0",
  "doubling.liveMax=300",
  // groups over 8 entries sorted as large ones (a full radix sort each): for small texts only
  (n) => (n <= 1 << 20 ? "ls.largeGroup=8,doubling.liveMax=0" : "doubling.liveMax=0"),
  "skew.tripleBits=8",
  "spd.compact=0",
  "spd.compact=1",
  "spd.pairKeys=0",
  "spd.runRound=1",
  "spd.runRound=2",
  (n) => (n <= 1 << 20 ? "spd.runRound=1,ls.largeGroup=8,doubling.liveMax=0" : "spd.runRound=1,doubling.liveMax=0"),
  // windows of about n/3 entries: gpu-spd's compact sample (2n/3) and gpu-dc7's merged runs (4n/7)
  // may span two windows at most, the SA spans three or four
  (n) => `cover.window=${coverWindow(n)},cover.exactFrom=1500`,
  (n) => `cover.window=${coverWindow(n)},cover.lean=1`,
  (n) => `hybrid.minActive=1,hybrid.small=4,hybrid.cpuPercent=50${n <= 1 << 20 ? ",ls.largeGroup=8" : ""}`,
  "hybrid.minActive=1,hybrid.small=64,hybrid.cpuPercent=100",
  (n) => `bwt.window=${atLeast(128, n)}`,
  (n) => `bwt.window=${atLeast(192, n)}`,
];
const coverWindow = (n) => Math.max(1024, 64 * Math.ceil((Math.ceil(n / 3) + 1) / 64));
const tuning = (n) => {
  if (rng.random() < 0.5) return "";
  const picked = new Set();
  for (let k = rng.between(1, 3); k > 0; k--) {
    const t = TUNINGS[rng.between(0, TUNINGS.length - 1)];
    picked.add(typeof t === "function" ? t(n) : t);
  }
  return [...picked].join(",");
};

const end = Date.now() + 1000 * seconds;
let cases = 0;
let bytes = 0;
let bwts = 0;
try {
  while (Date.now() < end) {
    const { text, what } = generate(rng, sources, maxBytes);
    if (verbose) console.log(`case ${cases} (${what}): SA-IS, ${process.uptime().toFixed(1)} s`);
    const reference = (await buildSuffixArray(text, { algo: "sais", threads })).sa.slice();
    const verdict = await verifySuffixArray(text, reference);
    if (!verdict.ok) throw new Error(`seed ${seed}, case ${cases} (${what}): sais is wrong: ${verdict.message}`);
    const tune = tuning(text.length);
    if (tune) process.env.SUFSORT_GPU_TUNE = tune;
    else delete process.env.SUFSORT_GPU_TUNE;
    for (const algo of sorters) {
      if (verbose) console.log(`case ${cases} (${what}, tune "${tune}"): ${algo}, ${process.uptime().toFixed(1)} s`);
      const max = listSorters().find((s) => s.name === algo).maxLength;
      if (text.length > max) continue;
      let sa;
      try {
        sa = (await buildSuffixArray(text, { algo, threads, gpuContext: gpu })).sa;
      } catch (error) {
        throw new Error(`seed ${seed}, case ${cases} (${what}, tune "${tune}"): ${algo} failed: ${error instanceof Error ? error.message : error}`);
      }
      const at = firstDifference(sa, reference);
      if (at >= 0) throw new Error(`seed ${seed}, case ${cases} (${what}, tune "${tune}"): ${algo} differs at ${at}`);
    }
    const onGpu = sorters.filter((name) => getSorter(name).engine === "gpu" && text.length <= getSorter(name).maxLength);
    const bwtSorter = onGpu[rng.between(0, onGpu.length - 1)];
    if (bwtSorter !== undefined) {
      if (verbose) console.log(`case ${cases}: the GPU BWT of ${bwtSorter}, ${process.uptime().toFixed(1)} s`);
      const placed = placeText(text.length, getSorter(bwtSorter), threads);
      try {
        placed.heap.u8(placed.textPtr, text.length).set(text);
        const { primary, parts } = await bwtPlaced(placed, { threads, gpuContext: gpu });
        const expected = bwtOf(text, reference);
        const got = new Uint8Array(text.length);
        got.set(parts[0]);
        got.set(parts[1], parts[0].length);
        const at = firstDifference(got, expected.bwt);
        bwts++;
        if (primary !== expected.primary || at >= 0) {
          throw new Error(`seed ${seed}, case ${cases} (${what}, tune "${tune}"): the GPU BWT of ${bwtSorter} differs (primary ${primary} vs ${expected.primary}, first byte at ${at})`);
        }
      } finally {
        await closePlaced(placed);
      }
    }
    cases++;
    bytes += text.length;
    // large cases take a while: say each, so that a run cut short still tells what it checked
    if (text.length >= 10_000_000) console.log(`case ${cases - 1} (${what}${tune ? `, tune "${tune}"` : ""}): equal`);
  }
  console.log(`seed ${seed}: ${cases} cases (${(bytes / 1e6).toFixed(1)} MB) on ${gpu.adapterInfo}, ${sorters.join(", ")} equal to SA-IS, ${bwts} GPU BWTs equal to the SA's`);
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
} finally {
  delete process.env.SUFSORT_GPU_TUNE;
  gpu.release();
}
