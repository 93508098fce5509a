// The GPU sorters' throughput against input size, up to 1 GiB, and the GPU memory each build holds
// at its peak. A time covers upload + sort + download, as `sufsort bench` counts it; device setup
// and shader compilation (a first build of a 1 MiB prefix) are left out. Texts that fit the
// WebAssembly heap are placed there as the engine places them; larger ones go through buildLarge
// way (text and SA in plain arrays), which only gpu-dc7 takes. Every result is checked once by the
// linear verifier. Needs `npm run build` (reads dist/).
//
//   node bench/gpu-scaling.mjs [--kinds dna,corpus] [--sizes 8M,32M,128M,512M,1G]
//       [--algos gpu-spd,gpu-dc7] [--repeats 3] [--corpus /tmp/concat.bin] [--md out.md]
//       [--threads N]   (workers for the packed SA readback, as the engine has; default 1: none)
// Algorithm gpu-transfer: the transfer floor of `sufsort bench --floor` (text up, an n-entry array
// back, nothing sorted; its result is the identity, so it is not verified).
// Kinds: dna (random ACGT); corpus: the file given by --corpus, then copies of it in which one
// byte in 1000 is replaced by a random byte, as far as the size asks (the first copy is verbatim).
import { readFileSync, writeFileSync } from "node:fs";
import { size, xorshift } from "./inputs.mjs";
import { SharedHeap } from "../dist/src/cpu/memory.js";
import { createExecutor } from "../dist/src/cpu/executor.js";
import { acquireGpu } from "../dist/src/gpu/device.js";
import { fitsHeap } from "../dist/src/engine/build.js";
import { listSorters } from "../dist/src/engine/registry.js";
import { verifyInHeap } from "../dist/src/engine/verify.js";
import { verifyLarge } from "../dist/src/engine/verify-large.js";
import { transferFloor } from "../dist/src/gpu/algorithms/transfer.js";
import "../dist/src/gpu/algorithms/index.js";

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? args[at + 1] : fallback;
};
const kinds = option("kinds", "dna,corpus").split(",");
const sizes = option("sizes", "8M,32M,128M,512M,1G").split(",");
const algos = option("algos", "gpu-spd,gpu-dc7").split(",");
const repeats = Number(option("repeats", "3"));
const corpusPath = option("corpus", "/tmp/concat.bin");
const threads = Number(option("threads", "1"));

function makeInput(kind, n) {
  const bytes = new Uint8Array(n);
  const next = xorshift(12345);
  if (kind === "dna") {
    const acgt = [65, 67, 71, 84];
    for (let i = 0; i < n; i++) bytes[i] = acgt[next() & 3];
  } else if (kind === "corpus") {
    const source = new Uint8Array(readFileSync(corpusPath));
    for (let at = 0, copy = 0; at < n; at += source.length, copy++) {
      const piece = source.subarray(0, Math.min(source.length, n - at));
      bytes.set(piece, at);
      if (copy > 0) for (let i = next() % 1000; i < piece.length; i += 1 + (next() % 1999)) bytes[at + i] = next() & 255;
    }
  } else throw new Error(`unknown kind ${kind}`);
  return bytes;
}

const gpu = await acquireGpu({ mode: process.env.SUFSORT_GPU ?? "hardware", required: true });
console.log(`device: ${gpu.adapterInfo}`);

// live GPU bytes (every buffer the device creates, until destroyed), and their peak
let live = 0;
let peak = 0;
const createBuffer = gpu.device.createBuffer.bind(gpu.device);
gpu.device.createBuffer = (descriptor) => {
  const buffer = createBuffer(descriptor);
  live += descriptor.size;
  peak = Math.max(peak, live);
  const destroy = buffer.destroy.bind(buffer);
  let gone = false;
  buffer.destroy = () => {
    if (!gone) live -= descriptor.size;
    gone = true;
    destroy();
  };
  return buffer;
};

function placeInHeap(bytes, sorter) {
  const n = bytes.length;
  const scratch = sorter.scratchBytes(n);
  const heap = new SharedHeap(n + 4 * n + scratch + (n >> 3) + (1 << 20));
  const textPtr = heap.alloc(Math.max(1, n) + 16);
  heap.u8(textPtr, n).set(bytes);
  const saPtr = heap.alloc(Math.max(4, 4 * n) + scratch, 64);
  const executor = createExecutor(heap, threads);
  executor.start();
  return { heap, kernels: executor.kernels, executor, textPtr, n, saPtr, threads };
}

const rows = [];
for (const kind of kinds) {
  for (const spec of sizes) {
    const n = size(spec);
    const bytes = makeInput(kind, n);
    for (const name of algos) {
      const sorter = name === transferFloor.name ? transferFloor : listSorters().find((s) => s.name === name);
      const inHeap = fitsHeap(n, sorter);
      if (!inHeap && !sorter.outsideHeap) {
        console.log(`${kind} ${spec} ${name}: skipped (over the heap; only outsideHeap sorters take it)`);
        continue;
      }
      // outside the heap, as buildLarge runs it, but into one SA array kept over the runs (as the
      // heap's SA region is), so that no run pays for touching 4n fresh bytes
      const placed = inHeap ? placeInHeap(bytes, sorter) : { ...placeInHeap(new Uint8Array(0), sorter), n, text: bytes, sa: new Uint32Array(n) };
      const runOnce = async () => {
        const start = performance.now();
        await sorter.build({ ...placed, gpu });
        return (performance.now() - start) / 1000;
      };
      try {
        const warm = placeInHeap(bytes.subarray(0, 1 << 20), sorter);
        await (inHeap ? sorter.build({ ...warm, gpu }) : Promise.resolve()); // compile
        await warm.executor.close();
        gpu.pool.trim();
        peak = live;
        const seconds = [];
        for (let r = 0; r < repeats; r++) seconds.push(await runOnce());
        const peakBytes = peak;
        const verdict = sorter === transferFloor ? { ok: "n/a" } : inHeap ? verifyInHeap(placed.heap, placed.kernels, placed.textPtr, placed.saPtr, n) : verifyLarge(bytes, placed.sa);
        const best = Math.min(...seconds);
        const row = { kind, size: spec, n, algo: name, seconds, mbps: n / 1e6 / best, gpuBytesPerByte: peakBytes / n, verified: verdict.ok };
        rows.push(row);
        console.log(`${kind} ${spec} ${name}: ${seconds.map((s) => s.toFixed(3)).join(" ")} s, ${row.mbps.toFixed(0)} MB/s, GPU ${row.gpuBytesPerByte.toFixed(1)} B/B, verified ${verdict.ok}`);
      } catch (error) {
        console.log(`${kind} ${spec} ${name}: failed: ${error.message}`);
      }
      await placed.executor.close();
      gpu.pool.trim();
    }
  }
}
const md = [
  "| input | bytes | algorithm | runs (s) | MB/s (best) | GPU bytes / input byte (peak) | verified |",
  "|---|---:|---|---|---:|---:|---|",
  ...rows.map((r) => `| ${r.kind} ${r.size} | ${r.n} | ${r.algo} | ${r.seconds.map((s) => s.toFixed(3)).join(", ")} | ${r.mbps.toFixed(0)} | ${r.gpuBytesPerByte.toFixed(1)} | ${r.verified} |`),
].join("\n");
console.log(md);
if (option("md")) writeFileSync(option("md"), md + "\n");
gpu.release();
