// Dev benchmark for the SA-IS kernel: times asm/sais.ts (construction only, median of RUNS) and
// the libdivsufsort driver (bench/peers/divsufsort.c, median of RUNS) on the same files in the
// same run, checks that both suffix arrays are equal, and prints MB/s and the ratio. Wall time
// (median) is what counts; CPU time is printed beside it because on the shared 2-core machine
// wall time also measures the other tenants (for the driver: its whole process, read included,
// divided by the runs).
//
//   npm run build:asm && node bench/sais-dev.mjs [--runs 3] [FILE...]
//
// Without files: every file of the unpacked corpus (/work/shared/corpus/unpack) plus 64 MiB of
// uniform random DNA (ACGT, seeded), written once to /tmp/sufsort-bench/random-dna-64MiB.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join, basename } from "node:path";
import { fileURLToPath } from "node:url";
import v8 from "node:v8";

// V8 first runs WebAssembly in its baseline compiler (Liftoff) and swaps in optimised code only
// for later calls: a single long call (one sais) would run unoptimised. Optimise from the start.
v8.setFlagsFromString("--no-liftoff");

const root = fileURLToPath(new URL("..", import.meta.url));
const driver = join(root, "bench/peers/build/divsufsort-driver");
const args = process.argv.slice(2);
let runs = 3;
const files = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === "--runs") runs = Number(args[++i]);
  else files.push(args[i]);
}

if (!existsSync(driver)) {
  mkdirSync(join(root, "bench/peers/build"), { recursive: true });
  execFileSync("cc", ["-O3", "-o", driver, join(root, "bench/peers/divsufsort.c"), "-ldivsufsort"]);
}

function randomDna(path, n) {
  if (existsSync(path)) return;
  const t = new Uint8Array(n);
  let a = 12345;
  for (let i = 0; i < n; i++) {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = Math.imul(a ^ (a >>> 15), a | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    t[i] = "ACGT".charCodeAt(((x ^ (x >>> 14)) >>> 0) >>> 30);
  }
  writeFileSync(path, t);
}

if (files.length === 0) {
  const corpus = execFileSync("/work/shared/corpus/unpack").toString().trim();
  for (const f of readdirSync(corpus).sort()) files.push(join(corpus, f));
  mkdirSync("/tmp/sufsort-bench", { recursive: true });
  const dna = "/tmp/sufsort-bench/random-dna-64MiB";
  randomDna(dna, 64 << 20);
  files.push(dna);
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const wasm = new WebAssembly.Module(readFileSync(join(root, "dist/sufsort.wasm")));
const memory = new WebAssembly.Memory({ initial: 1, maximum: 65536, shared: true });
const { sais } = new WebAssembly.Instance(wasm, { env: { memory, abort() { throw new Error("abort"); } } }).exports;

const rows = [];
for (const file of files) {
  const text = readFileSync(file);
  const n = text.length;
  const fs = Math.min(Math.floor(n / 2), 1 << 24) + 4096;
  const textPtr = 64;
  const saPtr = (textPtr + n + 63) & ~63;
  const need = saPtr + 4 * (n + fs);
  if (memory.buffer.byteLength < need) memory.grow(Math.ceil((need - memory.buffer.byteLength) / 65536));
  new Uint8Array(memory.buffer, textPtr, n).set(text);
  const ours = [];
  const oursCpuRuns = [];
  for (let r = 0; r < runs; r++) {
    const c0 = process.cpuUsage();
    const t0 = process.hrtime.bigint();
    const status = sais(textPtr, saPtr, n, fs);
    ours.push(Number(process.hrtime.bigint() - t0) / 1e9);
    const c = process.cpuUsage(c0);
    oursCpuRuns.push((c.user + c.system) / 1e6);
    if (status !== 0) throw new Error(`${file}: sais returned ${status}`);
  }
  const saOut = "/tmp/sufsort-bench/divsufsort.sa";
  // bash's `times` prints the children's user and system time on its second line.
  const lines = execFileSync("bash", ["-c", '"$0" "$1" "$2" --out "$3"; times', driver, file, String(runs), saOut])
    .toString()
    .trim()
    .split("\n");
  const peer = JSON.parse(lines[0]).seconds;
  const cpuTimes = lines[2].trim().split(/\s+/).map((x) => {
    const [, min, sec] = /(\d+)m([\d.]+)s/.exec(x);
    return Number(min) * 60 + Number(sec);
  });
  const peerCpu = (cpuTimes[0] + cpuTimes[1]) / runs;
  const want = new Uint32Array(readFileSync(saOut).buffer.slice(0));
  const got = new Uint32Array(memory.buffer, saPtr, n);
  for (let i = 0; i < n; i++) if (got[i] !== want[i]) throw new Error(`${file}: SA differs from divsufsort at ${i}`);
  const mb = n / 1e6;
  const oursCpu = median(oursCpuRuns);
  rows.push({ name: basename(file), n, ours: mb / median(ours), peer: mb / median(peer), cpuRatio: peerCpu / oursCpu });
  const row = rows[rows.length - 1];
  console.log(
    `${row.name.padEnd(40)} ${String(n).padStart(10)}  sais ${row.ours.toFixed(1).padStart(6)} MB/s  ` +
      `divsufsort ${row.peer.toFixed(1).padStart(6)} MB/s  ratio ${(row.ours / row.peer).toFixed(2)}  ` +
      `cpu: sais ${(mb / oursCpu).toFixed(1)} divsufsort ${(mb / peerCpu).toFixed(1)} ratio ${row.cpuRatio.toFixed(2)}  ` +
      `[ours ${ours.map((s) => s.toFixed(2)).join(" ")} | peer ${peer.map((s) => s.toFixed(2)).join(" ")}]`,
  );
}
const summary = (ratios) =>
  `min ${Math.min(...ratios).toFixed(2)} geomean ${Math.exp(ratios.reduce((a, b) => a + Math.log(b), 0) / ratios.length).toFixed(2)}`;
console.log(`wall ratio ${summary(rows.map((r) => r.ours / r.peer))}; cpu ratio ${summary(rows.map((r) => r.cpuRatio))}`);
