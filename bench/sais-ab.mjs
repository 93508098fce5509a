// A/B timing of two builds of the SA-IS kernel (dev tool): runs each build alternately on each
// file and prints the best and median seconds, so one noisy moment does not decide. Every run's SA
// is compared with the first build's.
//
//   node bench/sais-ab.mjs A.wasm B.wasm [--runs 5] [--helper | --team T] FILE...
//
// Alone, the kernel runs on this thread and the figure is CPU time (user + system of this
// process: on the shared 2-core machine, wall time mostly measures the other tenants). With
// --helper, each build also gets a helper (saisHelper on a worker of its own, started before each
// run, as the engine does at 2 threads) and the figure is wall time: the helper's CPU time includes
// its polling. --team T (T >= 2) gives each build T - 1 helpers (saisHelper with indices 0 .. T - 2,
// and saisHelperTeam where the build exports it), as the engine does at T threads; --helper is
// --team 2. The builds take turns going first.
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import v8 from "node:v8";
import { Worker, isMainThread, workerData } from "node:worker_threads";

// Optimised code from the first call (see sais-dev.mjs).
v8.setFlagsFromString("--no-liftoff");

const instantiate = (bytes, memory) =>
  new WebAssembly.Instance(new WebAssembly.Module(bytes), { env: { memory, abort() { throw new Error("abort"); } } }).exports;

if (!isMainThread) {
  // A build's helper: runs saisHelper whenever the main thread sets the flag to 1, until it is 2.
  const { bytes, memory, mailbox, flag: flagBuffer, index } = workerData;
  const kernels = instantiate(bytes, memory);
  const flag = new Int32Array(flagBuffer);
  for (;;) {
    Atomics.wait(flag, 0, 0);
    if (Atomics.load(flag, 0) === 2) break;
    kernels.saisHelper(mailbox, index);
    Atomics.store(flag, 0, 0);
    Atomics.notify(flag, 0);
  }
} else {
  const args = process.argv.slice(2);
  const paths = [];
  const files = [];
  let runs = 5;
  let team = 1;
  for (let i = 0; i < args.length; i++) {
    if (args[i] === "--runs") runs = Number(args[++i]);
    else if (args[i] === "--helper") team = 2;
    else if (args[i] === "--team") team = Number(args[++i]);
    else if (args[i].endsWith(".wasm")) paths.push(args[i]);
    else files.push(args[i]);
  }
  const memory = new WebAssembly.Memory({ initial: 1, maximum: 65536, shared: true });
  const builds = paths.map((path) => {
    const bytes = readFileSync(path);
    return { name: basename(path), bytes, kernels: instantiate(bytes, memory) };
  });
  const helper = team >= 2;
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  for (const file of files) {
    const text = readFileSync(file);
    const n = text.length;
    const fs = Math.min(Math.floor(n / 2), 1 << 24) + 4096;
    const saPtr = (64 + n + 63) & ~63;
    const mailbox = (saPtr + 4 * (n + fs) + 63) & ~63;
    const need = mailbox + builds[0].kernels.saisHelperBytes();
    if (memory.buffer.byteLength < need) memory.grow(Math.ceil((need - memory.buffer.byteLength) / 65536));
    new Uint8Array(memory.buffer, 64, n).set(text);
    for (const build of builds) {
      build.times = [];
      build.helpers = [];
      for (let index = 0; index < team - 1; index++) {
        const flag = new Int32Array(new SharedArrayBuffer(4));
        const worker = new Worker(new URL(import.meta.url), {
          workerData: { bytes: build.bytes, memory, mailbox, flag: flag.buffer, index },
        });
        build.helpers.push({ flag, worker });
      }
    }
    let reference;
    for (let r = 0; r < runs; r++) {
      for (const build of r % 2 === 0 ? builds : [...builds].reverse()) {
        const { kernels, helpers } = build;
        if (helper) {
          kernels.saisHelperReset(mailbox);
          kernels.saisHelperTeam?.(mailbox, team);
          for (const { flag } of helpers) {
            Atomics.store(flag, 0, 1);
            Atomics.notify(flag, 0);
          }
        }
        const cpu = process.cpuUsage();
        const wall = performance.now();
        const status = kernels.sais(64, saPtr, n, fs, helper ? mailbox : 0);
        const seconds = helper ? (performance.now() - wall) / 1e3 : Object.values(process.cpuUsage(cpu)).reduce((a, b) => a + b) / 1e6;
        if (helper) {
          kernels.saisHelperExit(mailbox);
          for (const { flag } of helpers) while (Atomics.load(flag, 0) !== 0) Atomics.wait(flag, 0, 1, 50);
        }
        if (status !== 0) throw new Error(`${build.name}: sais failed (${status})`);
        build.times.push(seconds);
        const sa = new Uint32Array(memory.buffer, saPtr, n);
        if (reference === undefined) reference = sa.slice();
        else for (let i = 0; i < n; i += 1) if (sa[i] !== reference[i]) throw new Error(`${build.name} differs at ${i}`);
      }
    }
    for (const build of builds) {
      for (const { flag, worker } of build.helpers) {
        Atomics.store(flag, 0, 2);
        Atomics.notify(flag, 0);
        await worker.terminate();
      }
    }
    console.log(
      basename(file).padEnd(36) +
        builds.map((build) => `  ${build.name} best ${Math.min(...build.times).toFixed(3)} med ${median(build.times).toFixed(3)}`).join(""),
    );
  }
}
