// SA-IS: linear-time suffix sorting by induced sorting (Nong, Zhang, Chan, "Two efficient
// algorithms for linear time suffix array construction", IEEE TC 2011), engineered after Yuta
// Mori's sais-lite: no type array (an entry's sign bit says whether its predecessor still has to
// be induced), LMS substrings named in place, recursion on the reduced string inside the SA buffer.
//
// sais(T, SA, n, fs): T = n bytes (any value, NUL included; a virtual sentinel smaller than every
// byte ends the text). SA has n + fs i32 slots; SA[0..n) receives the suffix array, SA[n..n+fs)
// is workspace. Returns 0, or NEEDS_WORKSPACE when some level's bucket array does not fit.
//
// Layout of one level (text t of length n over alphabet [0, k), buffer SA[0 .. n + fs)):
//   stage 1   SA[0..n) induced-sorting area; buckets (k counts, then k pointers when 2k fit) at
//             the end of the workspace: SA[n + fs - k ..) and SA[n + fs - 2k ..).
//   naming    sorted LMS positions in SA[0..m), their names at SA[m + (p >> 1)].
//   stage 2   reduced string s1 (m names) in SA[n + fs - m .. n + fs); SA1 in SA[0..m); the
//             recursion's workspace is the free region between them, SA[m .. n + fs - m), so its
//             buckets sit right below s1.
//   stage 3   buckets are recounted from t (s1 overwrote them), sorted LMS suffixes go to their
//             bucket ends, induced sorting fills in the rest.
//
// Workspace bound (level 0 -> 1). Level 0 needs fs >= 256 (2 * 256 for separate bucket pointers).
// Level 1 has alphabet k1 = number of distinct LMS substrings of T. An LMS substring spans from
// one LMS position to the next, at distance >= 2; at distance 2 it is 3 bytes (<= 2^24 distinct),
// and since the distances sum to at most n, at most n - 2 m1 of them have distance >= 3 (plus the
// last one, which ends at the sentinel). So k1 <= (n - 2 m1) + 2^24 + 1, while level 1's free
// region has n + fs - 2 m1 slots: fs >= min(n / 2, 2^24) + 257 always fits level 1's buckets
// (when fs >= n / 2, k1 <= m1 <= n / 2 <= fs). Deeper levels usually fit too; when one does not,
// sais returns NEEDS_WORKSPACE and the host retries with a larger fs.
//
// Limits: n <= 2^31 - 1 (entries are i32 with the sign bit as flag); T, SA and the workspace lie
// in the 4 GiB WebAssembly memory; the byte before T must be readable (its value is never used).

/** Returned when a level's buckets do not fit in the workspace; retry with a larger fs. */
export const NEEDS_WORKSPACE: i32 = -1;

/** Alphabet of the input text. */
@inline const BYTE_ALPHABET: i32 = 256;

export function sais(textPtr: usize, saPtr: usize, n: i32, fs: i32): i32 {
  if (n <= 0) return 0;
  if (n == 1) {
    store<i32>(saPtr, 0);
    return 0;
  }
  return saisLevel<u8>(textPtr, saPtr, n, fs, BYTE_ALPHABET);
}

// ---- element access ----------------------------------------------------------------------------

@inline function chr<C>(t: usize, i: i32): i32 {
  return <i32>load<C>(t + (<usize>i << alignof<C>()));
}

@inline function get(a: usize, i: i32): i32 {
  return load<i32>(a + (<usize>i << 2));
}

@inline function put(a: usize, i: i32, v: i32): void {
  store<i32>(a + (<usize>i << 2), v);
}

// ---- buckets -----------------------------------------------------------------------------------

function countSymbols<C>(t: usize, n: i32, counts: usize, k: i32): void {
  memory.fill(counts, 0, <usize>k << 2);
  for (let i = 0; i < n; i++) {
    const c = chr<C>(t, i);
    put(counts, c, get(counts, c) + 1);
  }
}

/** Bucket starts (end = false) or ends (end = true) into `buckets`; recounts when it aliases counts. */
function bucketBounds<C>(t: usize, n: i32, counts: usize, buckets: usize, k: i32, end: bool): void {
  if (counts == buckets) countSymbols<C>(t, n, counts, k);
  let sum = 0;
  if (end) {
    for (let c = 0; c < k; c++) {
      sum += get(counts, c);
      put(buckets, c, sum);
    }
  } else {
    for (let c = 0; c < k; c++) {
      const count = get(counts, c);
      put(buckets, c, sum);
      sum += count;
    }
  }
}

// ---- one level of SA-IS ------------------------------------------------------------------------

function saisLevel<C>(t: usize, sa: usize, n: i32, fs: i32, k: i32): i32 {
  if (fs < k) return NEEDS_WORKSPACE;
  const counts = sa + (<usize>(n + fs - k) << 2);
  const buckets = fs >= 2 * k ? counts - (<usize>k << 2) : counts;
  countSymbols<C>(t, n, counts, k);

  // Stage 1: place LMS positions at their bucket ends, then induce to sort LMS substrings.
  bucketBounds<C>(t, n, counts, buckets, k, true);
  memory.fill(sa, 0, <usize>n << 2);
  let m = 0;
  {
    // Right to left: type of i from T[i], T[i+1] and the type of i+1 (n-1 is L: T[n-1] > $).
    let c1 = chr<C>(t, n - 1);
    let nextIsS = 0;
    for (let i = n - 2; i >= 0; i--) {
      const c0 = chr<C>(t, i);
      const isS = <i32>(c0 < c1 + nextIsS);
      if (nextIsS & ~isS) {
        const pos = get(buckets, c1) - 1;
        put(buckets, c1, pos);
        put(sa, pos, i + 1);
        m++;
      }
      nextIsS = isS;
      c1 = c0;
    }
  }
  induceStage1<C>(t, sa, n, counts, buckets, k);

  // Gather the LMS positions, now sorted by LMS substring, into SA[0..m).
  {
    let w = 0;
    for (let i = 0; i < n; i++) {
      const p = get(sa, i);
      if (p < 0) put(sa, w++, ~p);
    }
  }

  const names = nameLmsSubstrings<C>(t, sa, n, m);

  // Stage 2: sort the LMS suffixes through the reduced string s1 (names in text order).
  const reduced = sa + (<usize>(n + fs - m) << 2);
  {
    let j = m - 1;
    for (let i = m + ((n - 1) >> 1); i >= m; i--) {
      const name = get(sa, i);
      if (name != 0) put(reduced, j--, name - 1);
    }
  }
  if (names < m) {
    const status = saisLevel<i32>(reduced, sa, m, n + fs - 2 * m, names);
    if (status != 0) return status;
  } else {
    for (let j = 0; j < m; j++) put(sa, get(reduced, j), j);
  }
  // Map ranks of s1 back to text positions: s1[j] is the j-th LMS position from the left.
  {
    let j = m;
    let c1 = chr<C>(t, n - 1);
    let nextIsS = 0;
    for (let i = n - 2; i >= 0; i--) {
      const c0 = chr<C>(t, i);
      const isS = <i32>(c0 < c1 + nextIsS);
      if (nextIsS & ~isS) put(reduced, --j, i + 1);
      nextIsS = isS;
      c1 = c0;
    }
    for (let i = 0; i < m; i++) put(sa, i, get(reduced, get(sa, i)));
  }

  // Stage 3: sorted LMS suffixes to their bucket ends (keeping their order), then induce.
  countSymbols<C>(t, n, counts, k);
  bucketBounds<C>(t, n, counts, buckets, k, true);
  {
    let j = n;
    for (let i = m - 1; i >= 0; i--) {
      const p = get(sa, i);
      const end = get(buckets, chr<C>(t, p));
      while (j > end) put(sa, --j, 0);
      put(sa, --j, p);
      put(buckets, chr<C>(t, p), j);
    }
    while (j > 0) put(sa, --j, 0);
  }
  induceFinal<C>(t, sa, n, counts, buckets, k);
  return 0;
}

// Stage 1 induction. Invariant of both scans: a positive entry p is a suffix whose predecessor
// p - 1 must still be induced by this scan; a negative entry ~p is a suffix whose predecessor is
// of the other type (left for the other scan); 0 is an empty slot (suffix 0 is never needed
// here: it has no predecessor and is not LMS). The L scan clears what it consumed and flips the
// rest positive for the S scan; the S scan leaves exactly the LMS positions negative, sorted by
// LMS substring.
function induceStage1<C>(t: usize, sa: usize, n: i32, counts: usize, buckets: usize, k: i32): void {
  bucketBounds<C>(t, n, counts, buckets, k, false);
  {
    // The sentinel's predecessor n - 1 (L type) starts its bucket.
    const j = n - 1;
    const c = chr<C>(t, j);
    const pos = get(buckets, c);
    put(buckets, c, pos + 1);
    put(sa, pos, select<i32>(~j, j, chr<C>(t, j - 1) < c));
  }
  for (let i = 0; i < n; i++) {
    const p = get(sa, i);
    if (p > 0) {
      put(sa, i, 0);
      const j = p - 1;
      const c = chr<C>(t, j);
      const pos = get(buckets, c);
      put(buckets, c, pos + 1);
      // j - 1 is S type (or absent) when T[j-1] < T[j]: then j is not consumed by this scan.
      put(sa, pos, select<i32>(~j, j, (j > 0) & (chr<C>(t, j - 1) < c)));
    } else if (p < 0) {
      put(sa, i, ~p);
    }
  }

  bucketBounds<C>(t, n, counts, buckets, k, true);
  for (let i = n - 1; i >= 0; i--) {
    const p = get(sa, i);
    if (p > 0) {
      put(sa, i, 0);
      const j = p - 1;
      const c = chr<C>(t, j);
      const pos = get(buckets, c) - 1;
      put(buckets, c, pos);
      // j is LMS when T[j-1] > T[j] (j is S type here): mark it negative, it induces nothing more.
      put(sa, pos, select<i32>(~j, j, (j > 0) & (chr<C>(t, j - 1) > c)));
    }
  }
}

// Stage 3 induction over sorted LMS suffixes. L scan: positive p induces p - 1 (L type) and is
// then flipped negative (final, nothing left to induce); negative ~p is flipped to p for the S
// scan. S scan: positive p induces p - 1 (S type) and stays; negative entries are restored. When
// done every entry is a non-negative suffix position in sorted order.
function induceFinal<C>(t: usize, sa: usize, n: i32, counts: usize, buckets: usize, k: i32): void {
  bucketBounds<C>(t, n, counts, buckets, k, false);
  {
    const j = n - 1;
    const c = chr<C>(t, j);
    const pos = get(buckets, c);
    put(buckets, c, pos + 1);
    put(sa, pos, select<i32>(~j, j, chr<C>(t, j - 1) < c));
  }
  for (let i = 0; i < n; i++) {
    const p = get(sa, i);
    put(sa, i, ~p);
    if (p > 0) {
      const j = p - 1;
      const c = chr<C>(t, j);
      const pos = get(buckets, c);
      put(buckets, c, pos + 1);
      put(sa, pos, select<i32>(~j, j, (j > 0) & (chr<C>(t, j - 1) < c)));
    }
  }

  bucketBounds<C>(t, n, counts, buckets, k, true);
  for (let i = n - 1; i >= 0; i--) {
    const p = get(sa, i);
    if (p > 0) {
      const j = p - 1;
      const c = chr<C>(t, j);
      const pos = get(buckets, c) - 1;
      put(buckets, c, pos);
      // j - 1 is L type (or absent) when T[j-1] > T[j]: j then induces nothing in this scan.
      put(sa, pos, select<i32>(~j, j, (j == 0) | (chr<C>(t, j - 1) > c)));
    } else {
      put(sa, i, ~p);
    }
  }
}

// Names the sorted LMS substrings (in SA[0..m)) with ranks 1..names, equal substrings equal names,
// written to SA[m + (p >> 1)] (LMS positions are >= 2 apart, so the slots are distinct and lie in
// SA[m..n)). Returns the number of distinct names.
function nameLmsSubstrings<C>(t: usize, sa: usize, n: i32, m: i32): i32 {
  memory.fill(sa + (<usize>m << 2), 0, <usize>(n - m) << 2);
  // Lengths first: an LMS substring runs to the next LMS position inclusive; the last one runs to
  // the sentinel, so its length n - p + 1 reaches past T and marks it unique.
  {
    let next = n;
    let c1 = chr<C>(t, n - 1);
    let nextIsS = 0;
    for (let i = n - 2; i >= 0; i--) {
      const c0 = chr<C>(t, i);
      const isS = <i32>(c0 < c1 + nextIsS);
      if (nextIsS & ~isS) {
        put(sa, m + ((i + 1) >> 1), next - i);
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
    const p = get(sa, x);
    const slot = m + (p >> 1);
    const length = get(sa, slot);
    let same = length == prevLength && p + length <= n && prev + length <= n;
    if (same) {
      for (let d = 0; d < length; d++) {
        if (chr<C>(t, p + d) != chr<C>(t, prev + d)) {
          same = false;
          break;
        }
      }
    }
    if (!same) {
      names++;
      prev = p;
      prevLength = length;
    }
    put(sa, slot, names);
  }
  return names;
}
