// Test inputs shared by every algorithm's suite: seeded random strings and the hard families, plus
// the naive oracle. Tests make their own inputs; nothing here reads files.

/** Deterministic PRNG (mulberry32) so every failure is reproducible from its seed. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** n random bytes drawn from `sigma` distinct values (spread over 0..255, NUL included). */
export function randomText(n: number, sigma: number, seed: number): Uint8Array {
  const r = rng(seed);
  const out = new Uint8Array(n);
  const step = sigma >= 256 ? 1 : Math.floor(256 / sigma);
  for (let i = 0; i < n; i++) out[i] = Math.floor(r() * sigma) * step;
  return out;
}

export function repeatedByte(n: number, byte = 0x41): Uint8Array {
  return new Uint8Array(n).fill(byte);
}

/** Fibonacci word over {a, b}: s1 = b, s2 = a, s(k) = s(k-1) s(k-2). */
export function fibonacci(n: number): Uint8Array {
  const out = new Uint8Array(n);
  let a = "b";
  let b = "a";
  while (b.length < n) [a, b] = [b, b + a];
  for (let i = 0; i < n; i++) out[i] = b.charCodeAt(i);
  return out;
}

/** Thue–Morse word: t[i] = parity of popcount(i). */
export function thueMorse(n: number): Uint8Array {
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    let x = i;
    let p = 0;
    while (x) {
      p ^= 1;
      x &= x - 1;
    }
    out[i] = 0x61 + p;
  }
  return out;
}

/** (unit)^k cut to n bytes. */
export function periodic(n: number, unit = "abc"): Uint8Array {
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = unit.charCodeAt(i % unit.length);
  return out;
}

/** Long runs of random bytes with random run lengths up to maxRun. */
export function runs(n: number, seed: number, maxRun = 1000): Uint8Array {
  const r = rng(seed);
  const out = new Uint8Array(n);
  let i = 0;
  while (i < n) {
    const len = 1 + Math.floor(r() * maxRun);
    out.fill(Math.floor(r() * 4) + 0x61, i, Math.min(n, i + len));
    i += len;
  }
  return out;
}

/** A random block repeated many times with rare mutations: long repeats, deep LCPs. */
export function longRepeats(n: number, seed: number, block = 5000): Uint8Array {
  const r = rng(seed);
  const base = randomText(Math.min(block, Math.max(1, n)), 4, seed ^ 0x9e3779b9);
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = base[i % base.length];
  for (let m = 0; m < Math.max(1, n >> 16); m++) out[Math.floor(r() * n)] = 0x7a;
  return out;
}

/** The hard families at length n, named for test titles. */
export function hardFamilies(n: number, seed = 1): Array<[string, Uint8Array]> {
  return [
    ["one repeated byte", repeatedByte(n)],
    ["all NUL", repeatedByte(n, 0)],
    ["Fibonacci", fibonacci(n)],
    ["Thue-Morse", thueMorse(n)],
    ["periodic (abc)^k", periodic(n)],
    ["periodic (abcab)^k", periodic(n, "abcab")],
    ["long runs", runs(n, seed)],
    ["long repeats", longRepeats(n, seed)],
  ];
}

/** The oracle: sort suffixes by direct comparison. O(n^2 log n) worst case; small n only. */
export function naiveSuffixArray(t: Uint8Array): Uint32Array {
  const n = t.length;
  const idx = Array.from({ length: n }, (_, i) => i);
  idx.sort((a, b) => {
    while (a < n && b < n) {
      if (t[a] !== t[b]) return t[a] - t[b];
      a++;
      b++;
    }
    return a === n ? -1 : 1;
  });
  return Uint32Array.from(idx);
}

export { firstDifference } from "../../src/engine/compare.js";

/**
 * An independent oracle for large n: prefix doubling with rank pairs sorted by a comparison sort,
 * O(n log^2 n). Slow but simple enough to trust; used where the naive oracle is quadratic.
 */
export function doublingSuffixArray(t: Uint8Array): Uint32Array {
  const n = t.length;
  const sa = new Uint32Array(n);
  for (let i = 0; i < n; i++) sa[i] = i;
  let rank = new Int32Array(n);
  for (let i = 0; i < n; i++) rank[i] = t[i];
  const next = new Int32Array(n);
  for (let h = 1; ; h *= 2) {
    const key2 = (i: number) => (i + h < n ? rank[i + h] : -1);
    sa.sort((a, b) => rank[a] - rank[b] || key2(a) - key2(b));
    next[sa[0]] = 0;
    for (let k = 1; k < n; k++) {
      const a = sa[k - 1];
      const b = sa[k];
      next[b] = next[a] + (rank[a] !== rank[b] || key2(a) !== key2(b) ? 1 : 0);
    }
    rank.set(next);
    if (n === 0 || rank[sa[n - 1]] === n - 1) break;
  }
  return sa;
}
