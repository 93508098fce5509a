// Randomised cross-check of the applications on the CPU, for runs longer than the tests: texts of
// up to 400 KB from the families of stress-texts.mjs (FILEs give the slices). bwt (after sais,
// range or skew at 1-3 threads) against the BWT read off SA-IS's SA, unbwt back to the text, LCP
// entries at random ranks against direct comparison, and FM-index count and locate (sample rates
// 1, 4, 32; a reloaded image too) of patterns cut from the text and random ones against the SA
// range found by binary search. The large paths (for inputs beyond the WebAssembly memory) run on
// the same texts with random windows, block sizes and chain lengths: the BWT and LCP from an SA in
// a plain array, the inverse BWT's chains, lcpLarge and the FM-index image. Stops at the first
// difference.
//
//   npm run build && node bench/stress-apps.mjs [--seed S] [--seconds T] [FILE...]
import { readFileSync } from "node:fs";
import * as s from "../dist/src/index.js";
import { bwtOf, firstDifference, generate, seeded, takeOption } from "./stress-texts.mjs";
import { bwtOverPlainSuffixArray, unbwtLarge } from "../dist/src/apps/bwt.js";
import { lcpLarge, lcpOverPlainSuffixArray } from "../dist/src/apps/lcp.js";
import { buildIndexLarge } from "../dist/src/apps/fmindex.js";

const args = process.argv.slice(2);
const seed = Number(takeOption(args, "--seed", 1)) >>> 0 || 1;
const seconds = Number(takeOption(args, "--seconds", 60));
const sources = args.map((f) => readFileSync(f));
const rng = seeded(seed);
/** The ranks [from, to) of the suffixes that start with q, by binary search over the SA. */
function saRange(text, sa, q) {
  const n = text.length;
  const compare = (p) => {
    for (let j = 0; j < q.length; j++) {
      if (p + j >= n) return -1;
      if (text[p + j] !== q[j]) return text[p + j] - q[j];
    }
    return 0;
  };
  const firstWhere = (stop) => {
    let lo = 0;
    let hi = n;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (stop(compare(sa[mid]))) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  };
  return [firstWhere((c) => c >= 0), firstWhere((c) => c > 0)];
}

const equal = (a, b) => firstDifference(a, b) < 0;
const end = Date.now() + seconds * 1000;
let cases = 0;
const fail = (m) => {
  console.error(`seed ${seed}, case ${cases} (${m})`);
  process.exit(1);
};
while (Date.now() < end) {
  const { text, what } = generate(rng, sources, 400_000);
  const n = text.length;
  const threads = rng.between(1, 3);
  const sa = await s.suffixArray(text, { algo: "sais", threads: 1 });

  const algo = ["sais", "range", "skew"][rng.between(0, 2)];
  const { bwt, primary } = await s.bwt(text, { threads, algo });
  const expected = bwtOf(text, sa);
  if (primary !== expected.primary || !equal(bwt, expected.bwt)) fail(`${what}): bwt after ${algo} differs`);
  if (!equal(await s.unbwt(bwt, primary), text)) fail(`${what}): unbwt differs`);

  const lcp = await s.lcp(text, undefined, { threads });
  if (n > 0 && lcp[0] !== 0) fail(`${what}): LCP[0] is ${lcp[0]}`);
  for (let t = 0; t < 200 && n > 1; t++) {
    const k = rng.between(1, n - 1);
    let h = 0;
    while (sa[k] + h < n && text[sa[k - 1] + h] === text[sa[k] + h]) h++;
    if (lcp[k] !== h) fail(`${what}): LCP[${k}] is ${lcp[k]}, not ${h}`);
  }

  // the large paths, on an SA in a SharedArrayBuffer (as the large paths allocate it)
  const plainSA = () => {
    const copy = new Uint32Array(new SharedArrayBuffer(4 * n));
    copy.set(sa);
    return copy;
  };
  const window = rng.between(1, Math.max(1, n));
  const block = rng.between(1, Math.max(1, n));
  const large = await bwtOverPlainSuffixArray(text, plainSA(), threads, window, block);
  if (large.primary !== expected.primary || !equal(large.L, expected.bwt)) fail(`${what}): bwtOverPlainSuffixArray (window ${window}, block ${block}) differs`);
  const bytesPerChain = rng.between(1, Math.max(1, n));
  const decoded = await unbwtLarge(bwt, primary, { threads, bytesPerChain, minBlockRows: block });
  if (!equal(decoded, text)) fail(`${what}): unbwtLarge (chains of ${bytesPerChain}, block ${block}) differs`);
  if (!equal(await lcpOverPlainSuffixArray(text, plainSA(), threads, window, block), lcp)) fail(`${what}): lcpOverPlainSuffixArray (window ${window}, block ${block}) differs`);
  if (!equal(await lcpLarge(text, plainSA(), threads, block), lcp)) fail(`${what}): lcpLarge (block ${block}) differs`);

  if (n > 0) {
    const sampleRate = [1, 4, 32][rng.between(0, 2)];
    const index = await s.FMIndex.build(text, { threads, sampleRate });
    const image = await buildIndexLarge(text, plainSA(), sampleRate, threads, window);
    if (!equal(image.heap.u8(image.ptr, image.layout.fileBytes), index.toBytes())) fail(`${what}, sample rate ${sampleRate}): buildIndexLarge's image (window ${window}) differs`);
    const patterns = Array.from({ length: 30 }, () => {
      const length = rng.between(1, Math.min(40, n));
      if (rng.random() < 0.3) return Uint8Array.from({ length }, () => rng.between(0, 255));
      const at = rng.between(0, n - length);
      return text.slice(at, at + length);
    });
    const found = await index.search(patterns, { locate: true });
    patterns.forEach((q, t) => {
      const [from, to] = saRange(text, sa, q);
      if (found[t].count !== to - from) fail(`${what}, sample rate ${sampleRate}): count ${found[t].count}, not ${to - from}`);
      const ascending = (x) => Array.from(x).sort((a, b) => a - b);
      if (!equal(ascending(found[t].positions), ascending(sa.subarray(from, to)))) fail(`${what}, sample rate ${sampleRate}): locate differs`);
    });
    if ((await s.FMIndex.load(index.toBytes()).count(patterns[0])) !== found[0].count) fail(`${what}): the reloaded index counts differently`);
  }
  cases++;
}
console.log(`seed ${seed}: ${cases} cases, bwt, unbwt, lcp and FM-index (and their large paths) equal to the answers read off SA-IS's SA`);
