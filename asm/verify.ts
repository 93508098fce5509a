// Linear-time suffix array verifier. It needs no second construction and no inverse SA:
//  1. SA is a permutation of 0..n-1 (range check + one bit per suffix);
//  2. first characters T[SA[k]] are non-decreasing, so bucket c occupies exactly the slots
//     [start(c), start(c) + count(c));
//  3. inside every bucket, suffixes are ordered by their successors' ranks: scanning the suffixes
//     in SA order (the virtual empty suffix n first, rank -1), each i = s-1 must be the next entry of
//     bucket T[i]. This is the condition "T[i] < T[j], or T[i] = T[j] and rank(i+1) < rank(j+1)" for
//     adjacent i = SA[k], j = SA[k+1], checked bucket by bucket (Burkhardt–Kärkkäinen style induction).
// On failure the result record names the failing check; `firstViolation` then finds the first adjacent
// pair that breaks the definition (it needs a rank array, so it runs only after a failure).

/** Failure kinds written to result[0]. */
export const VERIFY_OK: u32 = 0;
export const VERIFY_RANGE: u32 = 1;
export const VERIFY_DUPLICATE: u32 = 2;
export const VERIFY_ORDER: u32 = 3;

/**
 * Checks SA (n u32 at sa) against T (n bytes at text). `bits` is scratch of (n + 7) / 8 bytes;
 * `buckets` is scratch of 256 u32; `result` receives [kind, k] (k = the SA position found at fault).
 * Returns the kind (0 = correct).
 */
export function verifySuffixArray(text: usize, sa: usize, n: u32, bits: usize, buckets: usize, result: usize): u32 {
  memory.fill(bits, 0, ((n + 7) >> 3) as usize);
  for (let k: u32 = 0; k < n; k++) {
    const s = load<u32>(sa + ((k as usize) << 2));
    if (s >= n) return fail(result, VERIFY_RANGE, k);
    const byte = bits + ((s >> 3) as usize);
    const mask = <u8>(1 << <u8>(s & 7));
    const old = load<u8>(byte);
    if (old & mask) return fail(result, VERIFY_DUPLICATE, k);
    store<u8>(byte, old | mask);
  }
  if (n == 0) return fail(result, VERIFY_OK, 0);

  let prev = load<u8>(text + (load<u32>(sa) as usize)) as u32;
  for (let k: u32 = 1; k < n; k++) {
    const c = load<u8>(text + (load<u32>(sa + ((k as usize) << 2)) as usize)) as u32;
    if (c < prev) return fail(result, VERIFY_ORDER, k - 1);
    prev = c;
  }

  // Bucket starts from the character counts of T.
  memory.fill(buckets, 0, 1024);
  for (let i: u32 = 0; i < n; i++) {
    const slot = buckets + ((load<u8>(text + (i as usize)) as usize) << 2);
    store<u32>(slot, load<u32>(slot) + 1);
  }
  let sum: u32 = 0;
  for (let c = 0; c < 256; c++) {
    const slot = buckets + ((c as usize) << 2);
    const count = load<u32>(slot);
    store<u32>(slot, sum);
    sum += count;
  }

  // The empty suffix n comes first: suffix n-1 must open its bucket.
  {
    const slot = buckets + ((load<u8>(text + ((n - 1) as usize)) as usize) << 2);
    const p = load<u32>(slot);
    if (load<u32>(sa + ((p as usize) << 2)) != n - 1) return fail(result, VERIFY_ORDER, p);
    store<u32>(slot, p + 1);
  }
  for (let k: u32 = 0; k < n; k++) {
    const s = load<u32>(sa + ((k as usize) << 2));
    if (s == 0) continue;
    const slot = buckets + ((load<u8>(text + ((s - 1) as usize)) as usize) << 2);
    const p = load<u32>(slot);
    if (load<u32>(sa + ((p as usize) << 2)) != s - 1) return fail(result, VERIFY_ORDER, p);
    store<u32>(slot, p + 1);
  }
  return fail(result, VERIFY_OK, 0);
}

/**
 * After a failed order check: the first k with suffix SA[k] not smaller than suffix SA[k+1] by the
 * definition (T[i] < T[j], or T[i] = T[j] and rank(i+1) < rank(j+1), rank(n) = -1). `rank` is scratch
 * of n u32. SA must be a permutation. Returns n when no adjacent pair is out of order.
 */
export function firstViolation(text: usize, sa: usize, n: u32, rank: usize): u32 {
  for (let k: u32 = 0; k < n; k++) store<u32>(rank + ((load<u32>(sa + ((k as usize) << 2)) as usize) << 2), k);
  for (let k: u32 = 0; k + 1 < n; k++) {
    const i = load<u32>(sa + ((k as usize) << 2));
    const j = load<u32>(sa + (((k + 1) as usize) << 2));
    const ci = load<u8>(text + (i as usize));
    const cj = load<u8>(text + (j as usize));
    if (ci < cj) continue;
    if (ci > cj) return k;
    const ri: i64 = i + 1 < n ? (load<u32>(rank + (((i + 1) as usize) << 2)) as i64) : -1;
    const rj: i64 = j + 1 < n ? (load<u32>(rank + (((j + 1) as usize) << 2)) as i64) : -1;
    if (ri >= rj) return k;
  }
  return n;
}

function fail(result: usize, kind: u32, k: u32): u32 {
  store<u32>(result, kind);
  store<u32>(result, k, 4);
  return kind;
}

// The same checks by blocks of SA positions, for workers (src/engine/verify.ts verifyInHeapOn).
// Each returns 1 when its block breaks a check, else 0; the host then runs verifySuffixArray for
// the verdict, so the verdicts are the same whichever block saw a fault first.

/** Check 1 for k in [k0, k1): the range, and one bit per suffix set atomically (bits shared by all blocks). */
export function verifyMarkBlock(sa: usize, n: u32, bits: usize, k0: u32, k1: u32): u32 {
  for (let k = k0; k < k1; k++) {
    const s = load<u32>(sa + ((k as usize) << 2));
    if (s >= n) return 1;
    const mask = <u8>(1 << <u8>(s & 7));
    if (atomic.or<u8>(bits + ((s >> 3) as usize), mask) & mask) return 1;
  }
  return 0;
}

/**
 * Check 2 for k in [k0, k1): T[SA[k - 1]] <= T[SA[k]] (k0 >= 1 reads the entry before the block);
 * and, for check 3's next slots, counts[c] (256 u32, zeroed by the host) += the entries with
 * SA[k] > 0 and T[SA[k] - 1] = c (mostly the cache line of T[SA[k]]).
 */
export function verifyFirstBlock(text: usize, sa: usize, k0: u32, k1: u32, counts: usize): u32 {
  if (k0 >= k1) return 0;
  let prev: u32 = k0 > 0 ? load<u8>(text + (load<u32>(sa + (((k0 - 1) as usize) << 2)) as usize)) : 0;
  for (let k = k0; k < k1; k++) {
    const s = load<u32>(sa + ((k as usize) << 2));
    const c = load<u8>(text + (s as usize)) as u32;
    if (c < prev) return 1;
    prev = c;
    if (s == 0) continue;
    const slot = counts + ((load<u8>(text + ((s - 1) as usize)) as usize) << 2);
    store<u32>(slot, load<u32>(slot) + 1);
  }
  return 0;
}

/** Check 3 for k in [k0, k1): `next` (256 u32) holds each bucket's next slot at k0; each SA[k] - 1 must fill it. */
export function verifyInducedBlock(text: usize, sa: usize, k0: u32, k1: u32, next: usize): u32 {
  return inducedBlock(text, sa, k0, k1, next, 0, false);
}

/**
 * verifyInducedBlock for an SA outside this memory (src/engine/verify.ts verifyByWindows): `sa` is
 * the base of the block's window (entry k at sa + 4k, u32 arithmetic), and bucket c's next slots
 * are read at bases[c] + 4p, where the host copied that bucket's range of slots for the block.
 */
export function verifyInducedMapped(text: usize, sa: usize, k0: u32, k1: u32, next: usize, bases: usize): u32 {
  return inducedBlock(text, sa, k0, k1, next, bases, true);
}

/** Check 3 over a block; the slots read at sa + 4p, or (mapped) at bases[c] + 4p. */
@inline function inducedBlock(text: usize, sa: usize, k0: u32, k1: u32, next: usize, bases: usize, mapped: bool): u32 {
  for (let k = k0; k < k1; k++) {
    const s = load<u32>(sa + ((k as usize) << 2));
    if (s == 0) continue;
    const c = load<u8>(text + ((s - 1) as usize)) as usize;
    const slot = next + (c << 2);
    const p = load<u32>(slot);
    const slots = mapped ? (load<u32>(bases + (c << 2)) as usize) : sa;
    if (load<u32>(slots + ((p as usize) << 2)) != s - 1) return 1;
    store<u32>(slot, p + 1);
  }
  return 0;
}
