#!/usr/bin/env node
// Benchmarks of the applications (run after `npm run build`):
//   node bench/apps.mjs INPUT... [--runs R] [--patterns P] [--length L] [--threads N]
// An INPUT is a file, a file.xz (decompressed with xz -dc) or file.gz, gen:KIND:SIZE (a generated
// input as in `sufsort bench --gen`: dna, random, text26, repeat; e.g. gen:text26:64MiB), or several
// of these joined by '+' (concatenated, e.g. a.xz+b.xz).
// For each file, times (best of R runs: other processes only ever slow a run down; MB = 10^6
// bytes; no file I/O in any figure):
//   SA build (the default sorter), BWT from the SA, BWT total (SA + BWT), unBWT, LCP given the SA,
//   FM-index build (SA + blocks; blocks alone), count of P random patterns of length L cut from the
//   text (patterns/s, pattern bytes/s), and locate of P/10 of them (occurrences/s).
// Prints a markdown table row per file. With --threads N > 1 the application kernels run through the
// CPU executor (src/cpu/executor.ts: createExecutor) when this build has it, else the run stops.
//
// GPU figures (when SUFSORT_GPU is set, or with --gpu MODE; one device for the whole run):
//   SUFSORT_GPU=hardware node bench/apps.mjs FILE... [--gpu-algo gpu-ls] [--threads N]
// adds a second table: the BWT on the GPU (--gpu-algo's SA build and the BWT kernel, text upload and
// the n-byte download included; one untimed warm-up run first compiles the shaders; "its BWT step" is
// the BWT kernels and the download alone, best of the runs) beside the CPU's BWT incl. SA of the first
// table; the count of the same P patterns packed once into bytes + spans (as `sufsort search` reads
// them) on the GPU (upload of the patterns, kernel, readback of the row ranges; the index upload
// reported apart; one untimed warm-up) and on the CPU executor (--threads N), and on the GPU through
// the API shape (an array of patterns in, an object per pattern out: the host's packing included);
// the locate of P/10 of them, packed, on both. The GPU BWT, row ranges and positions are checked
// equal to the CPU's; a mismatch stops the run.
import { inputName, loadInput } from "./inputs.mjs";
import { timeBwtRuns } from "./bwt-runs.mjs";
import { placeText, buildPlaced, closePlaced, resolveSorter } from "../dist/src/engine/build.js";
import { bwtFromSAInHeap, unbwtInHeap } from "../dist/src/apps/bwt.js";
import { lcpInHeap } from "../dist/src/apps/lcp.js";
import { FMIndexImage, packPatterns, searchPatterns } from "../dist/src/apps/fmindex.js";
import { createExecutor } from "../dist/src/cpu/executor.js";
import { acquireGpu, resolveGpuMode } from "../dist/src/gpu/device.js";
import { DeviceFMIndex } from "../dist/src/gpu/apps/fm-search.js";

const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  if (i < 0) return fallback;
  const v = Number(args[i + 1]);
  args.splice(i, 2);
  return v;
};
const runs = opt("runs", 3);
const patternCount = opt("patterns", 1_000_000);
const patternLength = opt("length", 20);
const threads = opt("threads", 1);
const textOpt = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  if (i < 0) return fallback;
  const v = args[i + 1];
  args.splice(i, 2);
  return v;
};
const gpuMode = textOpt("gpu", process.env.SUFSORT_GPU);
const gpuAlgo = textOpt("gpu-algo", "gpu-ls");
const gpu = gpuMode === undefined ? null : await acquireGpu({ mode: resolveGpuMode(gpuMode), required: true });
const gpuRows = [];
const best = (xs) => Math.min(...xs);
const time = async (fn) => {
  const t0 = performance.now();
  await fn();
  return (performance.now() - t0) / 1000;
};

console.log(`| input | n | SA s | BWT from SA MB/s | BWT incl. SA MB/s | unBWT MB/s | LCP (given SA) MB/s | index build incl. SA MB/s | index blocks only MB/s | index bytes/char | count patterns/s | count chars/s | locate occ/s |`);
console.log(`|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|`);
const executors = [];
/** The CPU executor on `heap` with --threads workers (1: on this thread). */
async function runnerFor(heap) {
  const executor = createExecutor(heap, threads);
  executors.push(executor);
  return executor;
}


for (const file of args) {
  const text = loadInput(file);
  const n = text.length;
  const mb = n / 1e6;
  const sorter = resolveSorter();
  const placed = placeText(n, sorter, threads, { allWorkers: true });
  const { heap, kernels, textPtr } = placed;
  heap.u8(textPtr, n).set(text);
  const base = heap.used;
  const saTimes = [];
  let saPtr = 0;
  for (let r = 0; r < runs; r++) {
    heap.release(base);
    const built = await buildPlaced(placed, { threads });
    saTimes.push(built.seconds);
    saPtr = built.sa.byteOffset;
  }
  const tSa = best(saTimes);
  const work = heap.used;
  const runner = await runnerFor(heap);

  const bwtPtr = heap.alloc(n + 1);
  const bwtTimes = [];
  let primary = 0;
  for (let r = 0; r < runs; r++) {
    bwtTimes.push(await time(async () => (primary = await bwtFromSAInHeap(heap, runner, textPtr, saPtr, n, bwtPtr))));
  }
  const tB = best(bwtTimes);
  // The stored BWT: L without the primary row.
  const L = heap.u8(bwtPtr, n + 1);
  L.copyWithin(primary, primary + 1);
  const cpuBwt = gpu ? Buffer.from(heap.u8(bwtPtr, n)) : undefined;
  const cpuPrimary = primary;
  const outPtr = heap.alloc(n);
  const unbwtTimes = [];
  for (let r = 0; r < runs; r++) unbwtTimes.push(await time(() => unbwtInHeap(heap, runner, bwtPtr, n, primary, outPtr)));
  if (Buffer.compare(Buffer.from(heap.u8(outPtr, n)), text) !== 0) throw new Error("unbwt mismatch");

  const lcpPtr = heap.alloc(4 * n);
  const lcpTimes = [];
  for (let r = 0; r < runs; r++) lcpTimes.push(await time(() => lcpInHeap(heap, runner, textPtr, saPtr, n, lcpPtr)));
  heap.release(work);

  const indexTimes = [];
  let index;
  for (let r = 0; r < runs; r++) {
    heap.release(work);
    indexTimes.push(await time(async () => (index = await FMIndexImage.fromSuffixArray(heap, runner, textPtr, saPtr, n, 32))));
  }
  const queryRunner = await runnerFor(index.heap);
  index.useExecutor(queryRunner);
  const tIndex = best(indexTimes);

  // Patterns: random substrings of the text.
  let x = 12345;
  const patterns = [];
  for (let q = 0; q < patternCount; q++) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    const at = Math.floor((x / 2 ** 32) * (n - patternLength));
    patterns.push(text.subarray(at, at + patternLength));
  }
  const countTimes = [];
  let cpuCounts;
  for (let r = 0; r < runs; r++) countTimes.push(await time(async () => (cpuCounts = await index.search(patterns))));
  const tCount = best(countTimes);
  const few = patterns.slice(0, Math.max(1, Math.floor(patternCount / 10)));
  let occurrences = 0;
  const locateTimes = [];
  for (let r = 0; r < runs; r++) {
    locateTimes.push(
      await time(async () => {
        const res = await index.search(few, { locate: true });
        occurrences = res.reduce((s, x) => s + x.count, 0);
      }),
    );
  }
  const tLocate = best(locateTimes);
  const f = (v) => (v >= 100 ? v.toFixed(0) : v >= 1 ? v.toFixed(1) : v.toPrecision(2));
  console.log(
    `| ${inputName(file)} | ${n} | ${tSa.toFixed(2)} | ${f(mb / tB)} | ${f(mb / (tSa + tB))} | ${f(mb / best(unbwtTimes))} | ${f(mb / best(lcpTimes))} | ${f(mb / (tSa + tIndex))} | ${f(mb / tIndex)} | ${(index.layout.fileBytes / n).toFixed(2)} | ${(patternCount / tCount / 1e6).toFixed(2)} M | ${((patternCount * patternLength) / tCount / 1e6).toFixed(1)} M | ${(occurrences / tLocate / 1e6).toFixed(2)} M |`,
  );
  if (gpu) {
    const g = await gpuFigures(text, cpuBwt, cpuPrimary, index, patterns, cpuCounts, few);
    const perS = (count, t) => `${(count / t / 1e6).toFixed(2)} M`;
    const chars = patternCount * patternLength;
    gpuRows.push(
      `| ${inputName(file)} | ${n} | ${gpuAlgo} | ${f(mb / g.tBwt)} | ${(g.tBwtStep * 1000).toFixed(1)} | ${f(mb / (tSa + tB))} | ${g.tUpload.toFixed(3)} | ${perS(patternCount, g.tCount)} | ${perS(chars, g.tCount)} | ${perS(patternCount, g.tCpuCount)} | ${perS(chars, g.tCpuCount)} | ${perS(chars, g.tApi)} | ${perS(g.occurrences, g.tLocate)} | ${perS(g.occurrences, g.tCpuLocate)} | yes |`,
    );
  }
}
for (const e of executors) await e.close();
if (gpu) {
  console.log(`\nGPU: ${gpu.adapterInfo}; CPU figures with --threads ${threads}; ${patternCount} patterns of length ${patternLength}, locate of ${Math.max(1, Math.floor(patternCount / 10))}; best of ${runs}`);
  console.log(`| input | n | GPU algo | GPU BWT incl. SA MB/s | its BWT step ms | CPU BWT incl. SA MB/s | index upload s | GPU count patterns/s | GPU count chars/s | CPU count patterns/s | CPU count chars/s | GPU count via API chars/s | GPU locate occ/s | CPU locate occ/s | equal to CPU |`);
  console.log(`|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|`);
  for (const row of gpuRows) console.log(row);
  gpu.release();
}

/** The GPU's BWT, count and locate on one file, checked against the CPU's results. */
async function gpuFigures(text, cpuBwt, cpuPrimary, index, patterns, cpuCounts, few) {
  const n = text.length;
  const placed = placeText(n, resolveSorter(gpuAlgo), threads);
  placed.heap.u8(placed.textPtr, n).set(text);
  const { seconds: bwtTimes, steps: bwtSteps } = await timeBwtRuns(
    placed, { gpuContext: gpu }, runs, { bytes: cpuBwt, primary: cpuPrimary }, `GPU BWT (${gpuAlgo})`,
  );
  await closePlaced(placed);

  const t0 = performance.now();
  const device = new DeviceFMIndex(gpu, index);
  await gpu.finish();
  const tUpload = (performance.now() - t0) / 1000;

  // Batches packed once (bytes + spans), as the CLI reads them: both engines time only the search.
  const all = packPatterns(patterns);
  const some = packPatterns(few);
  const sameWords = (a, b) => a.length === b.length && Buffer.compare(Buffer.from(a.buffer, a.byteOffset, a.byteLength), Buffer.from(b.buffer, b.byteOffset, b.byteLength)) === 0;
  const cpuCountTimes = [];
  let want;
  for (let r = 0; r < runs; r++) cpuCountTimes.push(await time(async () => (want = await index.searchPacked(all.bytes, all.spans))));
  const countTimes = [];
  for (let r = 0; r <= runs; r++) {
    let got;
    const seconds = await time(async () => (got = await device.searchPacked(all.bytes, all.spans)));
    if (r > 0) countTimes.push(seconds); // run 0 compiles the shaders
    if (!sameWords(got.ranges, want.ranges)) throw new Error("GPU count: row ranges differ from the CPU's");
  }
  // Through the API (FMIndex.search's shape: an array of patterns in, one object per pattern out).
  const apiTimes = [];
  for (let r = 0; r < runs; r++) {
    let got;
    apiTimes.push(await time(async () => (got = await searchPatterns(patterns, {}, (bytes, spans) => device.searchPacked(bytes, spans)))));
    for (let q = 0; q < patterns.length; q++) {
      if (got[q].count !== cpuCounts[q].count) throw new Error(`GPU count of pattern ${q} is ${got[q].count}, the CPU's ${cpuCounts[q].count}`);
    }
  }
  const cpuLocateTimes = [];
  let wantLocated;
  for (let r = 0; r < runs; r++) cpuLocateTimes.push(await time(async () => (wantLocated = await index.searchPacked(some.bytes, some.spans, { locate: true }))));
  const locateTimes = [];
  for (let r = 0; r <= runs; r++) {
    let got;
    const seconds = await time(async () => (got = await device.searchPacked(some.bytes, some.spans, { locate: true })));
    if (r > 0) locateTimes.push(seconds);
    if (!sameWords(got.positionStarts, wantLocated.positionStarts) || !sameWords(got.positions, wantLocated.positions)) {
      throw new Error("GPU locate: positions differ from the CPU's");
    }
  }
  const occurrences = wantLocated.positions.length;
  device.release();
  return {
    tBwt: best(bwtTimes), tBwtStep: best(bwtSteps), tUpload, tCount: best(countTimes), tCpuCount: best(cpuCountTimes), tApi: best(apiTimes),
    occurrences, tLocate: best(locateTimes), tCpuLocate: best(cpuLocateTimes),
  };
}

