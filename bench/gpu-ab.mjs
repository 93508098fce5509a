// A/B of GPU build variants in one process: the variants' builds alternate on each input, so that
// all see the same process, device and host (separate processes on the H200 machines differ by up
// to 30% in their host's copy speed, more than most changes measure). A variant is an algorithm
// and a SUFSORT_GPU_TUNE string, "algo|tune"; a bare "tune" takes --algo. Prints each variant's
// median and fastest build time (construction as `sufsort bench` counts it: upload, sort,
// download). Needs `npm run build` (reads dist/).
//
//   node bench/gpu-ab.mjs [--algo gpu-spd] [--runs 11] [--threads 16] [--block B] "variant;variant;..." FILE...
// --block B: each variant builds B + 1 times in a row, the first untimed, so that a tune whose
// change of value remakes kept state (io.uploadChunk remakes the upload ring) is timed without it.
// e.g. "batch.startAfter=0;" (the tune against the defaults), "gpu-spd|;gpu-dc7|".
import { readFileSync } from "node:fs";
import { buildPlaced, closePlaced, placeText, resolveSorter } from "../dist/src/engine/build.js";
import { acquireGpu, resolveGpuMode } from "../dist/src/gpu/device.js";

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(name);
  if (at < 0) return fallback;
  const [value] = args.splice(at, 2).slice(1);
  return value;
};
const algo = option("--algo", "gpu-spd");
const runs = Number(option("--runs", "11"));
const threads = Number(option("--threads", "16"));
const block = Number(option("--block", "0"));
const [spec, ...files] = args;
if (spec === undefined || files.length === 0 || !(runs >= 1)) {
  console.error('usage: node bench/gpu-ab.mjs [--algo A] [--runs R] [--threads T] "variant;variant" FILE...');
  process.exit(2);
}
const variants = spec.split(";").map((v) => (v.includes("|") ? { algo: v.split("|")[0], tune: v.split("|")[1] } : { algo, tune: v }));
const sorters = variants.map((v) => resolveSorter(v.algo));
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

const gpu = await acquireGpu({ mode: resolveGpuMode(), required: true }); // SUFSORT_GPU picks the adapter
try {
  for (const file of files) {
    const bytes = readFileSync(file);
    // the heap is sized for the variant that needs the most scratch
    const widest = sorters.reduce((a, b) => (b.scratchBytes(bytes.length) > a.scratchBytes(bytes.length) ? b : a));
    const placed = placeText(bytes.length, widest, threads);
    placed.heap.u8(placed.textPtr, bytes.length).set(bytes);
    const mark = placed.heap.used;
    const times = variants.map(() => []);
    try {
      // three untimed rounds first: shaders, pooled buffers and the GPU's clocks
      for (let r = -3; r < runs; r++) {
        for (let k = 0; k < variants.length; k++) {
          process.env.SUFSORT_GPU_TUNE = variants[k].tune;
          for (let b = 0; b <= block; b++) {
            placed.heap.release(mark);
            const result = await buildPlaced({ ...placed, sorter: sorters[k] }, { gpuContext: gpu });
            if (r >= 0 && (block === 0 || b > 0)) times[k].push(result.seconds * 1000);
          }
        }
      }
    } finally {
      delete process.env.SUFSORT_GPU_TUNE;
      await closePlaced(placed);
    }
    const name = file.split("/").pop();
    for (const [k, v] of variants.entries()) {
      console.log(`${name}\t${v.algo}\t${v.tune || "(defaults)"}\tmedian ${median(times[k]).toFixed(2)} ms\tfastest ${Math.min(...times[k]).toFixed(2)} ms`);
    }
  }
} finally {
  gpu.release();
}
