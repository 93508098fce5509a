// The verifier of asm/verify.ts in TypeScript, for inputs whose text + SA exceed the 4 GiB
// WebAssembly memory (n above ~800 MB). The same checks and verdicts; its two order checks share one pass.
import type { Verdict } from "./verify.js";

/** Bytes of the verifier's bitmap of SA entries seen (a bit per position; every verifier, in the
 * heap or here, sizes it with this: n + 7 overflows 32-bit shifts near 2^31). */
export function seenBitsBytes(n: number): number {
  return Math.ceil(n / 8);
}

export function verifyLarge(t: Uint8Array, sa: Uint32Array): Verdict {
  const n = t.length;
  if (sa.length !== n) {
    return { ok: false, kind: "length", position: Math.min(sa.length, n), message: `SA has ${sa.length} entries; the text has ${n} bytes` };
  }
  const seen = new Uint8Array(seenBitsBytes(n));
  for (let k = 0; k < n; k++) {
    const s = sa[k];
    if (s >= n) return { ok: false, kind: "range", position: k, message: `SA[${k}] = ${s} is out of range (n = ${n})` };
    const mask = 1 << (s & 7);
    if (seen[s >>> 3] & mask) return { ok: false, kind: "duplicate", position: k, message: `SA[${k}] = ${s} appears twice` };
    seen[s >>> 3] |= mask;
  }
  if (n === 0) return { ok: true };
  const next = new Int32Array(256);
  for (let i = 0; i < n; i++) next[t[i]]++;
  for (let c = 0, sum = 0; c < 256; c++) {
    const count = next[c];
    next[c] = sum;
    sum += count;
  }
  // One pass for both checks (T[s] and T[s - 1] mostly share a cache line, and each is a random
  // load): the first characters ascend in SA order, and the empty suffix n first, then every
  // suffix in SA order, its predecessor opens the rest of its bucket. Any fault goes to
  // orderFault, which reports the first adjacent pair out of order.
  let p = next[t[n - 1]]++;
  if (sa[p] !== n - 1) return orderFault(t, sa, p);
  let before = 0;
  for (let k = 0; k < n; k++) {
    const s = sa[k];
    const c = t[s];
    if (c < before) return orderFault(t, sa, k - 1);
    before = c;
    if (s === 0) continue;
    p = next[t[s - 1]]++;
    if (sa[p] !== s - 1) return orderFault(t, sa, p);
  }
  return { ok: true };
}

/** The first adjacent pair out of order (SA is a permutation here); `near` when none is found. */
function orderFault(t: Uint8Array, sa: Uint32Array, near: number): Verdict {
  const n = t.length;
  const rank = new Uint32Array(n);
  for (let k = 0; k < n; k++) rank[sa[k]] = k;
  for (let k = 0; k + 1 < n; k++) {
    const i = sa[k];
    const j = sa[k + 1];
    if (t[i] < t[j]) continue;
    const ri = i + 1 < n ? rank[i + 1] : -1;
    const rj = j + 1 < n ? rank[j + 1] : -1;
    if (t[i] > t[j] || ri >= rj) {
      return { ok: false, kind: "order", position: k, message: `suffixes out of order at SA[${k}] = ${i}, SA[${k + 1}] = ${j}` };
    }
  }
  return { ok: false, kind: "order", position: near, message: `suffixes out of order near SA[${near}]` };
}
