// What a one-shot build costs beside the sorting: each run places the text in a fresh heap with
// fresh workers (as `sufsort build` and the one-shot API do, but with the threads asked for:
// placeText's `reuse`, so that no workersFrom rule applies), builds, and closes; "again" is a
// second build on the same heap and workers. Prefixes of each FILE at each size, algorithms and
// thread counts alternated, median of --runs, wall ms. Where "fresh" at N threads beats 1 thread
// is where a sorter's workersFrom should lie on this machine.
//
//   npm run build && node bench/oneshot.mjs [--runs 7] [--algos sais,range,skew] [--threads 1,2]
//       [--sizes 1,2,4,8] (MiB) FILE...
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { buildPlaced, closePlaced, placeBytes, resolveSorter } from "../dist/src/engine/build.js";

const args = process.argv.slice(2);
let runs = 7;
let algos = ["sais", "range", "skew"];
let threads = [1, 2];
let sizes = [1, 2, 4, 8];
const files = [];
for (let i = 0; i < args.length; i++) {
  const a = args[i];
  if (a === "--runs") runs = Number(args[++i]);
  else if (a === "--algos") algos = args[++i].split(",");
  else if (a === "--threads") threads = args[++i].split(",").map(Number);
  else if (a === "--sizes") sizes = args[++i].split(",").map(Number);
  else files.push(a);
}

const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

console.log(`| input | MiB | algo | ${threads.map((t) => `${t}t fresh | ${t}t again`).join(" | ")} |`);
console.log(`|---|---:|---|${threads.map(() => "---:|---:").join("|")}|`);
for (const file of files) {
  const whole = readFileSync(file);
  for (const mib of sizes) {
    if (mib * 2 ** 20 > whole.length) continue;
    const text = whole.subarray(0, mib * 2 ** 20);
    for (const algo of algos) {
      const sorter = resolveSorter(algo);
      const fresh = new Map(threads.map((t) => [t, []]));
      const again = new Map(threads.map((t) => [t, []]));
      for (let r = 0; r < runs; r++) {
        for (const t of threads) {
          const t0 = performance.now();
          const placed = placeBytes(text, sorter, t, { reuse: true });
          const mark = placed.heap.used;
          try {
            await buildPlaced(placed, {});
            const t1 = performance.now();
            fresh.get(t).push(t1 - t0);
            placed.heap.release(mark);
            await buildPlaced(placed, {});
            again.get(t).push(performance.now() - t1);
          } finally {
            await closePlaced(placed);
          }
        }
      }
      const cells = threads.map((t) => `${median(fresh.get(t)).toFixed(1)} | ${median(again.get(t)).toFixed(1)}`);
      console.log(`| ${basename(file)} | ${mib} | ${algo} | ${cells.join(" | ")} |`);
    }
  }
}
