// SA-IS in plain TypeScript over typed arrays, for texts too large for the 4 GiB WebAssembly
// memory (text + SA + workspace above 4 GiB, n above ~800 M). A faithful port of asm/sais.ts: the
// same stages, the same in-buffer layout and the same workspace bound; read that file's header
// for the algorithm, the invariants and the bound on fs.
//
// Limits: n <= 2^31 - 1 (entries are Int32 with the sign bit as a flag); the SA buffer holds
// n + fs Int32 slots (fs <= 2^24 + 4096 on the first try), so the JS engine must allow typed
// arrays of that length.
import { MIN_WORKSPACE, saisWorkspaceSlots, SAIS_MAX_LENGTH } from "./sais.js";

type Text = Uint8Array | Int32Array;

const BYTE_ALPHABET = 256;

/** Suffix array of `text` (no sentinel entry). The result may view a larger buffer. */
export function suffixArrayLarge(text: Uint8Array, firstWorkspace = saisWorkspaceSlots(text.length)): Uint32Array {
  const n = text.length;
  if (n > SAIS_MAX_LENGTH) throw new RangeError(`sufsort: sais takes at most ${SAIS_MAX_LENGTH} bytes`);
  if (n === 0) return new Uint32Array(0);
  if (n === 1) return Uint32Array.of(0);
  for (let fs = firstWorkspace; ; fs = Math.max(2 * fs, MIN_WORKSPACE)) {
    const sa = new Int32Array(n + fs);
    if (saisLevel(text, sa, n, fs, BYTE_ALPHABET)) return new Uint32Array(sa.buffer, 0, n);
  }
}

function countSymbols(t: Text, n: number, sa: Int32Array, counts: number, k: number): void {
  sa.fill(0, counts, counts + k);
  for (let i = 0; i < n; i++) sa[counts + t[i]]++;
}

function bucketBounds(t: Text, n: number, sa: Int32Array, counts: number, buckets: number, k: number, end: boolean): void {
  if (counts === buckets) countSymbols(t, n, sa, counts, k);
  let sum = 0;
  for (let c = 0; c < k; c++) {
    const count = sa[counts + c];
    if (end) {
      sum += count;
      sa[buckets + c] = sum;
    } else {
      sa[buckets + c] = sum;
      sum += count;
    }
  }
}

/** One level over t[0..n), using sa[0 .. n + fs); false when the buckets do not fit. */
function saisLevel(t: Text, sa: Int32Array, n: number, fs: number, k: number): boolean {
  if (fs < k) return false;
  const counts = n + fs - k;
  const buckets = fs >= 2 * k ? counts - k : counts;
  countSymbols(t, n, sa, counts, k);

  // Stage 1: LMS positions to their bucket ends, then induce to sort LMS substrings.
  bucketBounds(t, n, sa, counts, buckets, k, true);
  sa.fill(0, 0, n);
  let m = 0;
  {
    let c1 = t[n - 1];
    let nextIsS = false;
    for (let i = n - 2; i >= 0; i--) {
      const c0 = t[i];
      const isS: boolean = c0 < c1 || (c0 === c1 && nextIsS);
      if (nextIsS && !isS) {
        sa[--sa[buckets + c1]] = i + 1;
        m++;
      }
      nextIsS = isS;
      c1 = c0;
    }
  }
  induceStage1(t, sa, n, counts, buckets, k);

  {
    let w = 0;
    for (let i = 0; i < n; i++) {
      const p = sa[i];
      if (p < 0) sa[w++] = ~p;
    }
  }

  const names = nameLmsSubstrings(t, sa, n, m);

  // Stage 2: the reduced string s1 at the end of the buffer, solved recursively or directly.
  const reducedAt = n + fs - m;
  {
    let j = m - 1;
    for (let i = m + ((n - 1) >> 1); i >= m; i--) {
      const name = sa[i];
      if (name !== 0) sa[reducedAt + j--] = name - 1;
    }
  }
  const reduced = sa.subarray(reducedAt, reducedAt + m);
  if (names < m) {
    if (!saisLevel(reduced, sa, m, n + fs - 2 * m, names)) return false;
  } else {
    for (let j = 0; j < m; j++) sa[reduced[j]] = j;
  }
  {
    let j = m;
    let c1 = t[n - 1];
    let nextIsS = false;
    for (let i = n - 2; i >= 0; i--) {
      const c0 = t[i];
      const isS: boolean = c0 < c1 || (c0 === c1 && nextIsS);
      if (nextIsS && !isS) reduced[--j] = i + 1;
      nextIsS = isS;
      c1 = c0;
    }
    for (let i = 0; i < m; i++) sa[i] = reduced[sa[i]];
  }

  // Stage 3: sorted LMS suffixes to their bucket ends, then induce.
  countSymbols(t, n, sa, counts, k);
  bucketBounds(t, n, sa, counts, buckets, k, true);
  {
    let j = n;
    for (let i = m - 1; i >= 0; i--) {
      const p = sa[i];
      const c = t[p];
      const end = sa[buckets + c];
      while (j > end) sa[--j] = 0;
      sa[--j] = p;
      sa[buckets + c] = j;
    }
    while (j > 0) sa[--j] = 0;
  }
  induceFinal(t, sa, n, counts, buckets, k);
  return true;
}

/** Stage 1 induction; same invariants as induceStage1 in asm/sais.ts. */
function induceStage1(t: Text, sa: Int32Array, n: number, counts: number, buckets: number, k: number): void {
  bucketBounds(t, n, sa, counts, buckets, k, false);
  {
    const j = n - 1;
    const c = t[j];
    sa[sa[buckets + c]++] = t[j - 1] < c ? ~j : j;
  }
  for (let i = 0; i < n; i++) {
    const p = sa[i];
    if (p > 0) {
      sa[i] = 0;
      const j = p - 1;
      const c = t[j];
      sa[sa[buckets + c]++] = j > 0 && t[j - 1] < c ? ~j : j;
    } else if (p < 0) {
      sa[i] = ~p;
    }
  }

  bucketBounds(t, n, sa, counts, buckets, k, true);
  for (let i = n - 1; i >= 0; i--) {
    const p = sa[i];
    if (p > 0) {
      sa[i] = 0;
      const j = p - 1;
      const c = t[j];
      sa[--sa[buckets + c]] = j > 0 && t[j - 1] > c ? ~j : j;
    }
  }
}

/** Stage 3 induction; same invariants as induceFinal in asm/sais.ts. */
function induceFinal(t: Text, sa: Int32Array, n: number, counts: number, buckets: number, k: number): void {
  bucketBounds(t, n, sa, counts, buckets, k, false);
  {
    const j = n - 1;
    const c = t[j];
    sa[sa[buckets + c]++] = t[j - 1] < c ? ~j : j;
  }
  for (let i = 0; i < n; i++) {
    const p = sa[i];
    sa[i] = ~p;
    if (p > 0) {
      const j = p - 1;
      const c = t[j];
      sa[sa[buckets + c]++] = j > 0 && t[j - 1] < c ? ~j : j;
    }
  }

  bucketBounds(t, n, sa, counts, buckets, k, true);
  for (let i = n - 1; i >= 0; i--) {
    const p = sa[i];
    if (p > 0) {
      const j = p - 1;
      const c = t[j];
      sa[--sa[buckets + c]] = j === 0 || t[j - 1] > c ? ~j : j;
    } else {
      sa[i] = ~p;
    }
  }
}

/** Names sorted LMS substrings 1..names into sa[m + (p >> 1)]; same as in asm/sais.ts. */
function nameLmsSubstrings(t: Text, sa: Int32Array, n: number, m: number): number {
  sa.fill(0, m, n);
  {
    let next = n;
    let c1 = t[n - 1];
    let nextIsS = false;
    for (let i = n - 2; i >= 0; i--) {
      const c0 = t[i];
      const isS: boolean = c0 < c1 || (c0 === c1 && nextIsS);
      if (nextIsS && !isS) {
        sa[m + ((i + 1) >> 1)] = next - i;
        next = i + 1;
      }
      nextIsS = isS;
      c1 = c0;
    }
  }
  let names = 0;
  let prev = 0;
  let prevLength = 0;
  for (let x = 0; x < m; x++) {
    const p = sa[x];
    const slot = m + (p >> 1);
    const length = sa[slot];
    let same = length === prevLength && p + length <= n && prev + length <= n;
    for (let d = 0; same && d < length; d++) same = t[p + d] === t[prev + d];
    if (!same) {
      names++;
      prev = p;
      prevLength = length;
    }
    sa[slot] = names;
  }
  return names;
}
