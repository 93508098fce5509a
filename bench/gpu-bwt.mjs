#!/usr/bin/env node
// The BWT built on the GPU, per GPU sorter, against the CPU's (run after `npm run build`):
//   SUFSORT_GPU=hardware node bench/gpu-bwt.mjs INPUT... [--algos gpu-spd,gpu-dc7] [--runs R] [--threads N]
// An INPUT is as in bench/apps.mjs (a file, file.xz, gen:KIND:SIZE, or parts joined by '+').
// For each input and sorter: one untimed build (it compiles the shaders), then R timed ones of the
// BWT through bwtPlaced, as `sufsort bwt --algo A` builds it: the text's upload, the SA built on the
// GPU, the BWT derived there, and only its n bytes read back into the heap (the SA never leaves the
// GPU). Prints the median ms and MB/s (MB = 10^6 bytes), and the median of "its BWT step": the BWT
// kernels and the read back, with the sorter's last merge where it writes the SA piece by piece
// (gpu-skew, gpu-spd, gpu-dc7). Every BWT is checked byte for byte against the CPU's (SA-IS, then
// the workers' gather, --threads N); a difference stops the run.
import { placeText, closePlaced, resolveSorter } from "../dist/src/engine/build.js";
import { bwtPlaced } from "../dist/src/apps/bwt.js";
import { acquireGpu, resolveGpuMode } from "../dist/src/gpu/device.js";
import { inputName, loadInput } from "./inputs.mjs";
import { timeBwtRuns } from "./bwt-runs.mjs";
import { takeOption } from "./stress-texts.mjs";

const args = process.argv.slice(2);
const algos = takeOption(args, "--algos", "gpu-ls,gpu-skew,gpu-spd,gpu-dc7").split(",");
const runs = Number(takeOption(args, "--runs", "5"));
const threads = Number(takeOption(args, "--threads", "16"));
const gpu = await acquireGpu({ mode: resolveGpuMode(process.env.SUFSORT_GPU ?? "hardware"), required: true });
const median = (xs) => xs.slice().sort((a, b) => a - b)[xs.length >> 1];


console.log(`GPU: ${gpu.adapterInfo}; median of ${runs}; CPU reference at ${threads} threads`);
console.log("| input | n | algo | BWT incl. SA ms | MB/s | its BWT step ms | equal to the CPU's |");
console.log("|---|---:|---|---:|---:|---:|---|");
for (const input of args) {
  const text = loadInput(input);
  const n = text.length;
  const cpu = placeText(n, resolveSorter("sais"), threads, { allWorkers: true });
  cpu.heap.u8(cpu.textPtr, n).set(text);
  const cpuBwt = await bwtPlaced(cpu, {});
  const want = { bytes: Buffer.concat(cpuBwt.parts), primary: cpuBwt.primary };
  await closePlaced(cpu);
  for (const algo of algos) {
    const placed = placeText(n, resolveSorter(algo), threads, { allWorkers: true });
    placed.heap.u8(placed.textPtr, n).set(text);
    const { seconds, steps } = await timeBwtRuns(placed, { gpuContext: gpu }, runs, want, `${inputName(input)}: the BWT of ${algo}`).finally(
      () => closePlaced(placed),
    );
    const m = median(seconds) * 1000;
    console.log(`| ${inputName(input)} | ${n} | ${algo} | ${m.toFixed(1)} | ${((n / 1e6 / m) * 1000).toFixed(0)} | ${(median(steps) * 1000).toFixed(1)} | yes |`);
  }
}
gpu.release();
