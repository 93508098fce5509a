// The texts of the randomised cross-checks (stress-cpu.mjs, stress-gpu.mjs, stress-apps.mjs): ten
// families (random alphabets of 1-256 symbols, periodic with mutations, Fibonacci, Thue-Morse, runs,
// copied blocks, two equal halves, one byte, tails of the smallest byte, slices of given files),
// lengths drawn from four ranges up to `maxBytes`. Seeded, so that a failing case can be replayed.
// Also what the checks share: their option parsing, the BWT read off an SA, and the first
// difference of two arrays.

/** Removes `name VALUE` from `args` and returns VALUE (a string), or `fallback` where `name` is absent. */
export function takeOption(args, name, fallback) {
  const at = args.indexOf(name);
  return at < 0 ? fallback : args.splice(at, 2)[1];
}

/** A xorshift32 generator: random() in [0, 1), between(a, b) an integer in [a, b]. */
export function seeded(seed) {
  let state = seed >>> 0 || 1;
  const random = () => {
    state ^= state << 13;
    state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    return state / 4294967296;
  };
  const between = (a, b) => a + Math.floor(random() * (b - a + 1));
  return { random, between };
}

/** One random text: { text, what }. `sources` are byte arrays to take slices of (may be empty). */
export function generate({ random, between }, sources = [], maxBytes = 3_000_000) {
  const limits = [40, 5000, 300_000, maxBytes].map((x) => Math.min(x, maxBytes));
  const range = between(0, 3);
  const n = between(range === 0 ? 0 : limits[range - 1], limits[range]);
  const t = new Uint8Array(n);
  const family = between(0, sources.length > 0 ? 9 : 8);
  const sigma = [1, 2, 3, 4, 16, 255, 256][between(0, 6)];
  const base = between(0, 256 - sigma);
  const symbol = () => (base + between(0, sigma - 1)) & 255;
  const fillRandom = () => {
    for (let i = 0; i < n; i++) t[i] = symbol();
  };
  switch (family) {
    case 0:
      fillRandom();
      break;
    case 1: {
      const period = between(1, 1 + Math.min(n, 5000));
      for (let i = 0; i < n; i++) t[i] = i < period ? symbol() : t[i - period];
      for (let k = between(0, 5); k > 0 && n > 0; k--) t[between(0, n - 1)] = between(0, 255);
      break;
    }
    case 2: {
      // the Fibonacci word in place: s(k) = s(k-1) s(k-2), and s(k-2) is a prefix of s(k-1)
      const word = new Uint8Array(n + 2);
      word[1] = 1;
      for (let older = 1, newer = 2; older < n; [older, newer] = [newer, newer + older]) {
        word.copyWithin(newer, 0, Math.min(older, n + 2 - newer));
      }
      for (let i = 0; i < n; i++) t[i] = base + word[i];
      break;
    }
    case 3:
      for (let i = 0; i < n; i++) {
        let parity = 0;
        for (let x = i; x; x >>>= 1) parity ^= x & 1;
        t[i] = parity ? 0xff : 0;
      }
      break;
    case 4:
      for (let i = 0; i < n; ) {
        const c = symbol();
        const length = between(1, [10, 1000, 100_000][between(0, 2)]);
        for (let j = 0; j < length && i < n; j++) t[i++] = c;
      }
      break;
    case 5:
      fillRandom();
      for (let k = between(1, 50); k > 0 && n > 10; k--) {
        const length = between(1, n >> 2);
        const from = between(0, n - length);
        t.copyWithin(between(0, n - length), from, from + length);
      }
      break;
    case 6: {
      const half = n >> 1;
      for (let i = 0; i < half; i++) t[i] = symbol();
      t.copyWithin(half, 0, n - half);
      if (n > 2 && random() < 0.5) t[between(0, n - 1)] ^= 1;
      break;
    }
    case 7:
      t.fill(random() < 0.5 ? 0 : between(0, 255));
      if (n > 0 && random() < 0.5) t[between(0, n - 1)] = between(0, 255);
      break;
    case 8:
      fillRandom();
      for (let i = n - between(0, n); i < n; i++) if (random() < 0.9) t[i] = base;
      break;
    default: {
      const source = sources[between(0, sources.length - 1)];
      const at = between(0, Math.max(0, source.length - n));
      t.set(source.subarray(at, at + Math.min(n, source.length)));
    }
  }
  return { text: t, what: `family ${family}, sigma ${sigma}, n ${n}` };
}

/** The BWT read off an SA (libsais's convention: the row of T$ ending in $ is left out). */
export function bwtOf(text, sa) {
  const n = text.length;
  const bwt = new Uint8Array(n);
  let primary = 0;
  if (n > 0) bwt[0] = text[n - 1];
  for (let k = 0, out = 1; k < n; k++) {
    if (sa[k] === 0) primary = k + 1;
    else bwt[out++] = text[sa[k] - 1];
  }
  return { bwt, primary };
}

/** Index of the first entry where a and b differ (or the shorter length), -1 when equal. */
export function firstDifference(a, b) {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return i;
  return a.length === b.length ? -1 : n;
}
