// Dev benchmark for the SA-IS kernel: times asm/sais.ts (construction only, median of RUNS) and
// the libdivsufsort driver (bench/peers/divsufsort.c, median of RUNS) on the same files in the
// same run, checks that both suffix arrays are equal, and prints MB/s and the ratio.
//
//   npm run build:asm && node bench/sais-dev.mjs [--runs 3] [FILE...]
//
// Without files: every file of the unpacked corpus (/work/shared/corpus/unpack) plus 64 MiB of
// uniform random DNA (ACGT, seeded), written once to /tmp/sufsort-bench/random-dna-64MiB.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join, basename } from "node:path";
import { fileURLToPath } from "node:url";

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
  for (let r = 0; r < runs; r++) {
    const t0 = process.hrtime.bigint();
    const status = sais(textPtr, saPtr, n, fs);
    ours.push(Number(process.hrtime.bigint() - t0) / 1e9);
    if (status !== 0) throw new Error(`${file}: sais returned ${status}`);
  }
  const saOut = "/tmp/sufsort-bench/divsufsort.sa";
  const peer = JSON.parse(execFileSync(driver, [file, String(runs), "--out", saOut]).toString()).seconds;
  const want = new Uint32Array(readFileSync(saOut).buffer.slice(0));
  const got = new Uint32Array(memory.buffer, saPtr, n);
  for (let i = 0; i < n; i++) if (got[i] !== want[i]) throw new Error(`${file}: SA differs from divsufsort at ${i}`);
  const mb = n / 1e6;
  rows.push({ name: basename(file), n, ours: mb / median(ours), peer: mb / median(peer), oursAll: ours, peerAll: peer });
  const row = rows[rows.length - 1];
  console.log(
    `${row.name.padEnd(40)} ${String(n).padStart(10)}  sais ${row.ours.toFixed(1).padStart(6)} MB/s  ` +
      `divsufsort ${row.peer.toFixed(1).padStart(6)} MB/s  ratio ${(row.ours / row.peer).toFixed(2)}  ` +
      `[ours ${ours.map((s) => s.toFixed(2)).join(" ")} | peer ${peer.map((s) => s.toFixed(2)).join(" ")}]`,
  );
}
const ratios = rows.map((r) => r.ours / r.peer);
console.log(`min ratio ${Math.min(...ratios).toFixed(2)}  geomean ${Math.exp(ratios.reduce((a, b) => a + Math.log(b), 0) / ratios.length).toFixed(2)}`);
