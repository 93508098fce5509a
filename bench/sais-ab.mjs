// A/B timing of two builds of the SA-IS kernel (dev tool): runs each build alternately on each
// file and prints the best and median CPU seconds (user + system of this process: on the shared
// 2-core machine, wall time mostly measures the other tenants), so one noisy moment does not decide.
//
//   node bench/sais-ab.mjs A.wasm B.wasm [--runs 5] FILE...
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import v8 from "node:v8";

// Optimised code from the first call (see sais-dev.mjs).
v8.setFlagsFromString("--no-liftoff");

const args = process.argv.slice(2);
const builds = [];
const files = [];
let runs = 5;
for (let i = 0; i < args.length; i++) {
  if (args[i] === "--runs") runs = Number(args[++i]);
  else if (args[i].endsWith(".wasm")) builds.push(args[i]);
  else files.push(args[i]);
}
const memory = new WebAssembly.Memory({ initial: 1, maximum: 65536, shared: true });
const kernels = builds.map((path) => {
  const module = new WebAssembly.Module(readFileSync(path));
  return new WebAssembly.Instance(module, { env: { memory, abort() { throw new Error("abort"); } } }).exports.sais;
});
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
for (const file of files) {
  const text = readFileSync(file);
  const n = text.length;
  const fs = Math.min(Math.floor(n / 2), 1 << 24) + 4096;
  const saPtr = (64 + n + 63) & ~63;
  const need = saPtr + 4 * (n + fs);
  if (memory.buffer.byteLength < need) memory.grow(Math.ceil((need - memory.buffer.byteLength) / 65536));
  new Uint8Array(memory.buffer, 64, n).set(text);
  const times = kernels.map(() => []);
  let reference;
  for (let r = 0; r < runs; r++) {
    kernels.forEach((sais, b) => {
      const t0 = process.cpuUsage();
      if (sais(64, saPtr, n, fs) !== 0) throw new Error("sais failed");
      const used = process.cpuUsage(t0);
      times[b].push((used.user + used.system) / 1e6);
      const sa = new Uint32Array(memory.buffer, saPtr, n);
      if (reference === undefined) reference = sa.slice();
      else for (let i = 0; i < n; i += 1) if (sa[i] !== reference[i]) throw new Error(`build ${b} differs at ${i}`);
    });
  }
  console.log(
    basename(file).padEnd(36) +
      times.map((ts, b) => `  ${basename(builds[b])} best ${Math.min(...ts).toFixed(3)} med ${median(ts).toFixed(3)}`).join(""),
  );
}
