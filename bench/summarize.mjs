#!/usr/bin/env node
// The derived columns of BENCHMARKS.md's tables, computed from a `sufsort bench` log (its markdown
// table) instead of by hand, so that a table and its log cannot disagree:
//   - CPU rows: per input, each algorithm's MB/s, its ratio to the paired peer and, with --speedup,
//     its 1-thread seconds and 2t/1t; then the best algorithm's ratio to the peer (the goal of
//     issue 4 is 1.2x), bold where it is at least --goal.
//   - GPU rows (a log made with --floor): per input the peer's and every GPU algorithm's MB/s, the
//     best GPU row over the peer, the floor's share of the best row, and A / B whole and beyond the
//     floor for the pair given by --ratio (default gpu-spd over gpu-osipov: B's seconds over A's).
// Prints markdown rows for BENCHMARKS.md and, per table, a line of the extremes.
//
//   node bench/summarize.mjs LOG [--cpu sais,range] [--gpu gpu-osipov,gpu-ls,...] [--ratio gpu-spd/gpu-osipov] [--goal 1.2]
// Without --cpu or --gpu, the algorithms are read from the log, in its order.
import { readFileSync } from "node:fs";
import { basename } from "node:path";

const NAMES = {
  "ecoli_MG1655_K12.fasta": "ecoli",
  "gutenberg-kjv-bible-pg10.txt": "kjv bible",
  "human_chr22_subset_from_maffilter.fa": "chr22 subset",
  "world192-crlf-noncanonical.txt": "world192",
  "concat.bin": "concatenation",
};

function parseArgs(argv) {
  const args = { log: undefined, cpu: undefined, gpu: undefined, ratio: ["gpu-spd", "gpu-osipov"], goal: 1.2 };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) fail(`${a} needs a value`);
      return argv[++i];
    };
    if (a === "--cpu") args.cpu = value().split(",");
    else if (a === "--gpu") args.gpu = value().split(",");
    else if (a === "--ratio") args.ratio = value().split("/");
    else if (a === "--goal") args.goal = Number(value());
    else if (a.startsWith("-")) fail(`unknown option ${a}`);
    else if (args.log === undefined) args.log = a;
    else fail(`one log at a time (got ${args.log} and ${a})`);
  }
  if (args.log === undefined) fail("usage: node bench/summarize.mjs LOG [--cpu a,b] [--gpu a,b] [--ratio A/B] [--goal G]");
  if (args.ratio.length !== 2 || !(args.goal > 0)) fail("--ratio takes A/B and --goal a positive number");
  return args;
}

function fail(message) {
  console.error(`summarize: ${message}`);
  process.exit(2);
}

/** The algorithm a row asked for: a row that handed its input over reads "asked -> ran". */
const asked = (row) => row.algo.split(" -> ")[0];

/** The rows of the bench table: input -> algorithm asked for -> cells by column name. */
function readRows(path) {
  let header;
  const inputs = new Map();
  let text;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    fail(`cannot read ${path}: ${error.code ?? error.message}`);
  }
  for (const line of text.split("\n")) {
    if (!line.startsWith("| ") || line.startsWith("|---")) continue;
    const cells = line.slice(1, -1).split("|").map((c) => c.trim());
    if (cells[0] === "input") {
      header = cells;
      continue;
    }
    if (!header) continue;
    const row = Object.fromEntries(header.map((h, k) => [h, cells[k] ?? ""]));
    if (!inputs.has(row.input)) inputs.set(row.input, new Map());
    inputs.get(row.input).set(asked(row), row);
  }
  if (!header) fail(`${path}: no bench table`);
  return inputs;
}

const nameOf = (input) =>
  NAMES[input] ?? input.replace(/^dna-/, "random DNA ").replace(/^repeat-/, "one repeated byte, ").replace(/(\d)([KMG]iB)$/, "$1 $2");
const seconds = (row) => Number(row.n) / (Number(row["MB/s"]) * 1e6); // MB/s keeps more digits than seconds
const fixed = (x, d = 2) => (Number.isFinite(x) ? x.toFixed(d) : "");
const bold = (text, on) => (on ? `**${text}**` : text);
const range = (xs) => (xs.length ? `${Math.min(...xs).toFixed(2)}-${Math.max(...xs).toFixed(2)}` : "none");

function cpuTable(inputs, algos, goal) {
  const head = ["input", "peer s"];
  for (const a of algos) head.push(`${a} MB/s`, `${a} / peer`, `${a} 1t s`, `${a} 2t/1t`);
  head.push("best / peer");
  console.log(`| ${head.join(" | ")} |\n|${head.map((_, k) => (k === 0 ? "---" : "---:")).join("|")}|`);
  const bests = [];
  const own = Object.fromEntries(algos.map((a) => [a, []]));
  for (const [input, rows] of inputs) {
    const peer = rows.get("divsufsort");
    const cells = [nameOf(input), peer ? peer.seconds : ""];
    let best;
    for (const a of algos) {
      const row = rows.get(a);
      const paired = /([\d.]+)x/.exec(row?.["vs divsufsort"] ?? "");
      const speedup = /([\d.]+)x \(1 thread ([\d.]+) s\)/.exec(row?.["vs 1 thread"] ?? "");
      cells.push(row ? row["MB/s"] : "", paired ? paired[1] : "", speedup ? speedup[2] : "", speedup ? speedup[1] : "");
      if (speedup) own[a].push(Number(speedup[1]));
      if (paired && (!best || Number(paired[1]) > best.ratio)) best = { ratio: Number(paired[1]), algo: a };
    }
    cells.push(best ? `${bold(best.ratio.toFixed(2), best.ratio >= goal)} (${best.algo})` : "");
    if (best) bests.push({ input: nameOf(input), ratio: best.ratio });
    console.log(`| ${cells.join(" | ")} |`);
  }
  const under = bests.filter((b) => b.ratio < goal).map((b) => `${b.input} ${b.ratio.toFixed(2)}`);
  const owns = algos.filter((a) => own[a].length).map((a) => `${a} 2t/1t ${range(own[a])}`);
  console.log(`\nbest / peer ${range(bests.map((b) => b.ratio))}; under ${goal}: ${under.join(", ") || "none"}${owns.length ? `; ${owns.join("; ")}` : ""}`);
}

function gpuTable(inputs, algos, [a, b]) {
  const head = ["input", "libdivsufsort", "range", "gpu-transfer (floor)", ...algos, "best GPU / libdivsufsort", "floor / best", `${a} / ${b}`, "the same beyond the floor"];
  console.log(`| ${head.join(" | ")} |\n|${head.map((_, k) => (k === 0 ? "---" : "---:")).join("|")}|`);
  const whole = [];
  const beyond = [];
  for (const [input, rows] of inputs) {
    const present = algos.filter((x) => rows.has(x));
    if (!present.length) continue;
    const best = present.reduce((p, q) => (Number(rows.get(q)["MB/s"]) > Number(rows.get(p)["MB/s"]) ? q : p));
    const floor = rows.get("gpu-transfer");
    const peer = rows.get("divsufsort");
    const cells = [nameOf(input), peer?.["MB/s"] ?? "", rows.get("range")?.["MB/s"] ?? "", floor?.["MB/s"] ?? ""];
    for (const x of algos) cells.push(rows.has(x) ? bold(rows.get(x)["MB/s"], x === best) : "");
    const bestRow = rows.get(best);
    cells.push(peer ? `${fixed(Number(bestRow["MB/s"]) / Number(peer["MB/s"]), 1)}x` : "");
    cells.push(floor ? `${fixed((100 * seconds(floor)) / seconds(bestRow), 0)}%` : "");
    const ra = rows.get(a);
    const rb = rows.get(b);
    const w = ra && rb ? seconds(rb) / seconds(ra) : NaN;
    const f = ra && rb && floor ? (seconds(rb) - seconds(floor)) / (seconds(ra) - seconds(floor)) : NaN;
    cells.push(fixed(w), fixed(f));
    if (Number.isFinite(w)) whole.push(w);
    if (Number.isFinite(f)) beyond.push(f);
    console.log(`| ${cells.join(" | ")} |`);
  }
  console.log(`\n${a} / ${b}: ${range(whole)} whole, ${range(beyond)} beyond the floor (every row of the log)`);
}

const args = parseArgs(process.argv.slice(2));
const inputs = readRows(args.log);
const seen = [...new Set([...inputs.values()].flatMap((rows) => [...rows.values()].map((r) => `${r.engine}:${asked(r)}`)))];
const cpu = args.cpu ?? seen.filter((s) => s.startsWith("cpu:")).map((s) => s.slice(4));
const gpu = args.gpu ?? seen.filter((s) => s.startsWith("gpu:") && s !== "gpu:gpu-transfer").map((s) => s.slice(4));
console.log(`<!-- node bench/summarize.mjs ${basename(args.log)} -->`);
if (gpu.length) gpuTable(inputs, gpu, args.ratio);
else if (cpu.length) cpuTable(inputs, cpu, args.goal);
else fail(`${args.log}: no CPU or GPU rows`);
