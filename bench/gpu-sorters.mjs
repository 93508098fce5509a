// Times every GPU suffix sorter and, in the same run, the `sais` CPU sorter, on generated inputs and
// files. A GPU time covers upload + sort + download (BuildContext to SA in the shared heap); device
// setup and the first build (which compiles the shaders, done on a 1 MiB prefix) are reported apart.
// Every GPU result is compared with SA-IS's. Needs `npm run build` (reads dist/).
//
//   node bench/gpu-sorters.mjs [--inputs dna:128M,byte:16M,file:path] [--algos gpu-osipov,gpu-ls]
//                              [--repeats 3] [--gpu hardware|software] [--md out.md] [--json out.json]
// Inputs: dna:SIZE (random ACGT), byte:SIZE (one repeated 'A'), random:SIZE (256 symbols),
// text:SIZE (random words with repeats), file:PATH. SIZE takes K/M/G suffixes (binary).
import { readFileSync, writeFileSync } from "node:fs";
import { size, xorshift } from "./inputs.mjs";
import { basename } from "node:path";
import { SharedHeap } from "../dist/src/cpu/memory.js";
import { SequentialExecutor } from "../dist/src/cpu/executor.js";
import { saisSorter, saisWorkspaceSlots } from "../dist/src/cpu/algorithms/sais.js";
import { acquireGpu } from "../dist/src/gpu/device.js";
import { listSorters } from "../dist/src/engine/registry.js";
import "../dist/src/gpu/algorithms/index.js";

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? args[at + 1] : fallback;
};
const inputs = option("inputs", "dna:128M,byte:16M").split(",");
const gpuNames = option("algos", listSorters().filter((s) => s.engine === "gpu").map((s) => s.name).join(",")).split(",");
const repeats = Number(option("repeats", "3"));
const mode = option("gpu", process.env.SUFSORT_GPU ?? "hardware");

function makeInput(spec) {
  const [kind, arg] = spec.split(/:(.*)/s);
  if (kind === "file") return { name: basename(arg), bytes: new Uint8Array(readFileSync(arg)) };
  const n = size(arg);
  const bytes = new Uint8Array(n);
  const next = xorshift(12345);
  if (kind === "dna") for (let i = 0; i < n; i++) bytes[i] = "ACGT".charCodeAt(next() & 3);
  else if (kind === "byte") bytes.fill(0x41);
  else if (kind === "random") for (let i = 0; i < n; i++) bytes[i] = next() & 255;
  else if (kind === "text") {
    // words from a 5,000-word vocabulary, with 1 KiB..64 KiB passages repeated now and then
    const words = Array.from({ length: 5000 }, () => Array.from({ length: 2 + (next() % 9) }, () => String.fromCharCode(97 + (next() % 26))).join(""));
    let at = 0;
    while (at < n) {
      if (at > 1 << 20 && next() % 64 === 0) {
        const len = Math.min(n - at, 1024 + (next() % 65536));
        const from = next() % (at - len);
        bytes.copyWithin(at, from, from + len);
        at += len;
      } else {
        const w = words[next() % words.length] + " ";
        for (let j = 0; j < w.length && at < n; j++) bytes[at++] = w.charCodeAt(j);
      }
    }
  } else throw new Error(`unknown input kind ${kind}`);
  return { name: `${kind} ${arg}`, bytes };
}

/** Text and SA (and the SA-IS workspace after it) in one shared heap, as the engine lays them out. */
function place(bytes) {
  const n = bytes.length;
  const heap = new SharedHeap(n + 4 * n + 4 * saisWorkspaceSlots(n) + (1 << 20));
  const textPtr = heap.alloc(Math.max(1, n));
  heap.u8(textPtr, n).set(bytes);
  const saPtr = heap.alloc(Math.max(4, 4 * n), 4);
  const executor = new SequentialExecutor(heap);
  return { heap, kernels: executor.kernels, executor, textPtr, n, saPtr, threads: 1 };
}

async function timeBuild(sorter, placed, gpu) {
  const start = performance.now();
  await sorter.build({ ...placed, gpu });
  return (performance.now() - start) / 1000;
}

const setupStart = performance.now();
const gpu = await acquireGpu({ mode, required: true });
const setupSeconds = (performance.now() - setupStart) / 1000;
const sorters = gpuNames.map((name) => listSorters().find((s) => s.name === name) ?? (() => { throw new Error(`no sorter ${name}`); })());
console.log(`device: ${gpu.adapterInfo}; setup ${setupSeconds.toFixed(3)} s`);

const rows = [];
for (const spec of inputs) {
  const { name, bytes } = makeInput(spec);
  const n = bytes.length;
  const placed = place(bytes);
  const saisSeconds = await timeBuild(saisSorter, placed, undefined);
  const reference = placed.heap.u32(placed.saPtr, n).slice();
  rows.push({ input: name, n, algo: "sais", seconds: [saisSeconds], mbps: n / 1e6 / saisSeconds, correct: true });
  console.log(`${name} (${n} bytes): sais ${saisSeconds.toFixed(3)} s`);
  for (const sorter of sorters) {
    // first build on a 1 MiB prefix: compiles the pipelines (reported as warm-up)
    const warm = place(bytes.subarray(0, Math.min(n, 1 << 20)));
    const warmSeconds = await timeBuild(sorter, warm, gpu);
    gpu.pool.trim();
    const seconds = [];
    let correct = true;
    let peakBytes = 0;
    // The first run starts from an empty buffer pool (as a one-shot CLI build does) and gives the
    // memory peak; later runs reuse the pool and staging buffers (an engine context kept open).
    for (let r = 0; r < repeats; r++) {
      placed.heap.u32(placed.saPtr, n).fill(0);
      try {
        seconds.push(await timeBuild(sorter, placed, gpu));
      } catch (error) {
        console.log(`${name}: ${sorter.name} failed: ${error.message}`);
        correct = false;
        break;
      }
      if (r === 0) peakBytes = gpu.pool.allocatedBytes + Math.ceil(n / 4) * 4;
      const sa = placed.heap.u32(placed.saPtr, n);
      for (let i = 0; i < n; i++) {
        if (sa[i] !== reference[i]) {
          correct = false;
          break;
        }
      }
    }
    gpu.pool.trim();
    const best = seconds.length ? Math.min(...seconds) : NaN;
    const row = { input: name, n, algo: sorter.name, seconds, warmSeconds, mbps: n / 1e6 / best, correct, bytesPerInputByte: peakBytes / n };
    rows.push(row);
    console.log(
      `${name}: ${sorter.name} best ${best.toFixed(3)} s (${row.mbps.toFixed(1)} MB/s) of [${seconds.map((s) => s.toFixed(3)).join(", ")}], ` +
        `warm-up ${warmSeconds.toFixed(3)} s, ${row.bytesPerInputByte.toFixed(1)} GPU bytes/input byte, ${correct ? "SA correct" : "SA WRONG"}`,
    );
  }
}
gpu.release();

const md = [
  `device: ${gpu.adapterInfo}; device setup ${setupSeconds.toFixed(3)} s; date ${new Date().toISOString()}`,
  `command: node bench/gpu-sorters.mjs ${args.join(" ")}`,
  "",
  "| input | bytes | algorithm | best s | MB/s (best) | runs (s; the first from an empty pool) | warm-up s (1 MiB, compiles shaders) | GPU bytes / input byte (pool peak + text) | SA = SA-IS |",
  "|---|---:|---|---:|---:|---|---:|---:|---|",
  ...rows.map(
    (r) =>
      `| ${r.input} | ${r.n} | ${r.algo} | ${Math.min(...r.seconds).toFixed(3)} | ${r.mbps.toFixed(1)} | ${r.seconds.map((s) => s.toFixed(3)).join(", ")} | ` +
      `${r.warmSeconds?.toFixed(3) ?? "-"} | ${r.bytesPerInputByte?.toFixed(1) ?? "-"} | ${r.algo === "sais" ? "reference" : r.correct ? "yes" : "NO"} |`,
  ),
].join("\n");
console.log(md);
const mdPath = option("md");
if (mdPath) writeFileSync(mdPath, md + "\n");
const jsonPath = option("json");
if (jsonPath) writeFileSync(jsonPath, JSON.stringify({ device: gpu.adapterInfo, setupSeconds, rows }, null, 2));
