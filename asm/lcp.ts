// LCP array by the permuted-LCP (Φ) method of Kärkkäinen, Manzini and Puglisi, "Permuted Longest-
// Common-Prefix Array" (CPM 2009). LCP[k] = lcp(SA[k-1], SA[k]), LCP[0] = 0.
//   1. Φ[SA[k]] = SA[k-1] (Φ[SA[0]] = n: no predecessor)          a scatter over SA blocks
//   2. PLCP[i] = lcp(i, Φ[i]) in text order, in place over Φ        a scan over text blocks
//      using PLCP[i] >= PLCP[i-1] - 1, so the comparisons total O(n) per block (each block starts
//      from 0 and pays at most one extra LCP's worth of comparisons);
//   3. LCP[k] = PLCP[SA[k]]                                        a gather over SA blocks
// Unlike Kasai et al. the scan of step 2 reads T at i+l sequentially and only T at Φ[i]+l at random,
// and no inverse SA is needed. Comparisons go 8 bytes at a time. Limits: n <= 2^31 - 1; lcp and sa
// may be the same region in step 3 (each k reads and writes only slot k).

/** Positions the PLCP scan looks ahead to touch the text line it will compare there. */
@inline const TOUCH_AHEAD: u32 = 8;

/** Step 1 for k in [k0, k1). */
export function phiFromSA(sa: usize, n: u32, phi: usize, k0: u32, k1: u32): void {
  for (let k = k0; k < k1; k++) {
    const s = load<u32>(sa + ((k as usize) << 2));
    const prev = k == 0 ? n : load<u32>(sa + (((k - 1) as usize) << 2));
    store<u32>(phi + ((s as usize) << 2), prev);
  }
}

/**
 * Step 2 for text positions [i0, i1): phi[i] becomes PLCP[i]. Each i's random read T[Φ[i] + l]
 * waits on the previous i's l, so the misses would come one at a time: the loop first touches the
 * line it will need TOUCH_AHEAD positions later (guessing l from the current one), which lets them
 * overlap. Returns a sum of the touched bytes (only to keep the loads).
 */
export function plcpFromPhi(text: usize, n: u32, phi: usize, i0: u32, i1: u32): u32 {
  let l: u32 = 0;
  let touched: u32 = 0;
  for (let i = i0; i < i1; i++) {
    const at = phi + ((i as usize) << 2);
    if (i + TOUCH_AHEAD < i1) {
      const ahead = load<u32>(at + (TOUCH_AHEAD << 2));
      const guess = ahead + (l > TOUCH_AHEAD ? l - TOUCH_AHEAD : 0);
      if (guess < n) touched += load<u8>(text + (guess as usize));
    }
    const j = load<u32>(at);
    if (j == n) {
      l = 0;
      store<u32>(at, 0);
      continue;
    }
    // Invariant: T[i, i+l) = T[j, j+l).
    const far = i > j ? i : j;
    while (far + l + 8 <= n) {
      const diff = load<u64>(text + ((i + l) as usize)) ^ load<u64>(text + ((j + l) as usize));
      if (diff != 0) {
        l += (ctz(diff) >> 3) as u32;
        break;
      }
      l += 8;
    }
    if (far + l + 8 > n) {
      while (far + l < n && load<u8>(text + ((i + l) as usize)) == load<u8>(text + ((j + l) as usize))) l++;
    }
    store<u32>(at, l);
    if (l > 0) l--;
  }
  return touched;
}

/** Step 3 for k in [k0, k1). */
export function lcpFromPlcp(sa: usize, plcp: usize, lcp: usize, k0: u32, k1: u32): void {
  for (let k = k0; k < k1; k++) {
    const s = load<u32>(sa + ((k as usize) << 2));
    store<u32>(lcp + ((k as usize) << 2), load<u32>(plcp + ((s as usize) << 2)));
  }
}
