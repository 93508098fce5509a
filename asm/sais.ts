// SA-IS: linear-time suffix sorting by induced sorting (Nong, Zhang, Chan, "Two efficient
// algorithms for linear time suffix array construction", IEEE TC 2011), engineered after Yuta
// Mori's sais-lite: no type array (an entry's sign bit says whether its predecessor still has to
// be induced), LMS substrings named in place, recursion on the reduced string inside the SA buffer.
// Suffix sorting is bound by the latency of random reads of T, so the hot scans work in blocks:
// first the independent loads of a block (many misses in flight), then the work from a cache.
//
// sais(T, SA, n, fs): T = n bytes (any value, NUL included; a virtual sentinel smaller than every
// byte ends the text). SA has n + fs i32 slots; SA[0..n) receives the suffix array, SA[n..n+fs)
// is workspace. Returns 0, or NEEDS_WORKSPACE when some level's bucket array does not fit.
//
// Layout of one level (text t of length n over alphabet [0, k), buffer SA[0 .. n + fs)):
//   stage 1   SA[0..n) induced-sorting area; buckets (k counts, then k pointers when 2k fit) at
//             the end of the workspace: SA[n + fs - k ..) and SA[n + fs - 2k ..); the block
//             caches of naming (every level) and of the final induction (level 0 only) at its
//             start, SA[n ..), when they fit (3 * NAME_BLOCK, 2 * INDUCE_BLOCK slots; otherwise
//             plain loops are used).
//   naming    sorted LMS positions in SA[0..m), their names at SA[m + (p >> 1)].
//   stage 2   reduced string s1 (m names) in SA[n + fs - m .. n + fs); SA1 in SA[0..m); the
//             recursion's workspace is the free region between them, SA[m .. n + fs - m), so its
//             buckets sit right below s1.
//   stage 3   LMS counts per symbol in SA[m .. m + k) while s1 is mapped back to positions, then
//             buckets recounted from t (s1 overwrote them), sorted LMS suffixes moved to their
//             bucket ends, induced sorting fills in the rest.
//
// Workspace bound (level 0 -> 1). Level 0 needs fs >= 256 (2 * 256 for separate bucket pointers,
// 2 * 256 + 3 * 1024 for the block caches too). Level 1 has alphabet k1 = number of distinct LMS
// substrings of T. An LMS substring spans from one LMS position to the next, at distance >= 2; at
// distance 2 it is 3 bytes (<= 2^24 distinct), and since the distances sum to less than n, at
// most n - 2 m1 of them have distance >= 3 (the last one, ending at the sentinel, included). So
// k1 <= (n - 2 m1) + 2^24, while level 1's free region has n + fs - 2 m1 slots: with
// fs >= min(n / 2, 2^24) level 1's bucket array always fits (when fs >= n / 2, k1 <= m1 <= n / 2
// <= fs). Deeper levels usually fit too; when one does not, sais returns NEEDS_WORKSPACE and the
// host retries with a larger fs. The host's first fs is min(n / 2, 2^24) + 4096.
//
// Limits: n <= 2^31 - 1 (entries are i32 with the sign bit as flag); T, SA and the workspace lie
// in the 4 GiB WebAssembly memory; the byte before T must be readable (its value is never used).

/** Returned when a level's buckets do not fit in the workspace; retry with a larger fs. */
export const NEEDS_WORKSPACE: i32 = -1;

/** Alphabet of the input text. */
@inline const BYTE_ALPHABET: i32 = 256;

/** LMS substrings per block of the two-pass naming (cache: 3 slots each). */
@inline const NAME_BLOCK: i32 = 1024;

/** Entries per block of the two-pass induction scans (see induceFinalBlocked); the block's cache
 * of 8-byte text pairs lives at the start of the workspace when it fits. */
@inline const INDUCE_BLOCK: i32 = 1024;

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

/** T[p-2] and T[p-1] in one load (p >= 1; for p = 1 the unused T[-1] must be readable). */
@inline function pairBefore<C>(t: usize, p: i32): u64 {
  if (sizeof<C>() == 1) return <u64>load<u16>(t + <usize>(p - 2));
  return load<u64>(t + (<usize>(p - 2) << 2));
}

/** T[p-1] of a pair. */
@inline function pairLast<C>(pair: u64): i32 {
  return sizeof<C>() == 1 ? <i32>(pair >> 8) : <i32>(pair >> 32);
}

/** T[p-2] of a pair. */
@inline function pairFirst<C>(pair: u64): i32 {
  return sizeof<C>() == 1 ? <i32>(pair & 0xff) : <i32>(<u32>pair);
}

/** Below this many entries, moves and fills are plain loops (memory.copy is a runtime call). */
@inline const SHORT_MOVE: i32 = 16;

/** a[to .. to+count) = a[from .. from+count) for to >= from (overlap allowed). */
@inline function moveUp(a: usize, from: i32, to: i32, count: i32): void {
  if (count >= SHORT_MOVE) {
    memory.copy(a + (<usize>to << 2), a + (<usize>from << 2), <usize>count << 2);
  } else if (to != from) {
    for (let x = count - 1; x >= 0; x--) put(a, to + x, get(a, from + x));
  }
}

/** a[from .. from+count) = 0. */
@inline function zero(a: usize, from: i32, count: i32): void {
  if (count >= SHORT_MOVE) {
    memory.fill(a + (<usize>from << 2), 0, <usize>count << 2);
  } else {
    for (let x = 0; x < count; x++) put(a, from + x, 0);
  }
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
      put(sa, w, ~p);
      w += <i32>(p < 0);
    }
  }

  const freeSlots = fs - (counts == buckets ? k : 2 * k);
  const workspace = sa + (<usize>n << 2);
  const names = nameLmsSubstrings<C>(t, sa, n, m, freeSlots >= 3 * NAME_BLOCK ? workspace : 0);

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
  // Map ranks of s1 back to text positions: s1[j] is the j-th LMS position from the left. When the
  // free region holds three k-arrays, the same scan counts LMS positions per first symbol (in
  // SA[m..m+k)), so that stage 3 can place them by block moves without reading T at random.
  const countLms = buckets != counts && n + fs - 2 * m >= 3 * k;
  const lmsCounts = sa + (<usize>m << 2);
  if (countLms) memory.fill(lmsCounts, 0, <usize>k << 2);
  {
    let j = m;
    let c1 = chr<C>(t, n - 1);
    let nextIsS = 0;
    for (let i = n - 2; i >= 0; i--) {
      const c0 = chr<C>(t, i);
      const isS = <i32>(c0 < c1 + nextIsS);
      // Without a branch: every position is written to s1[j - 1] and kept only by an LMS one.
      // Past the leftmost LMS position the writes land in s1[-1] = SA[n + fs - m - 1], which is
      // free: above SA1 (n + fs - 2m >= 1) and above lmsCounts (n + fs - 2m >= 3k when counting).
      const isLms = nextIsS & ~isS;
      put(reduced, j - 1, i + 1);
      j -= isLms;
      if (countLms) put(lmsCounts, c1, get(lmsCounts, c1) + isLms);
      nextIsS = isS;
      c1 = c0;
    }
    for (let i = 0; i < m; i++) put(sa, i, get(reduced, get(sa, i)));
  }

  // Stage 3: sorted LMS suffixes to their bucket ends (keeping their order), then induce.
  if (countLms) {
    memory.copy(buckets, lmsCounts, <usize>k << 2);
    countSymbols<C>(t, n, counts, k);
    // From the last bucket down: the LMS suffixes of bucket c are the top lmsCount[c] entries of
    // what is left of SA[0..m), and move up to the bucket's end (never below where they are).
    let end = n;
    let source = m;
    for (let c = k - 1; c >= 0; c--) {
      const lms = get(buckets, c);
      const start = end - get(counts, c);
      moveUp(sa, source - lms, end - lms, lms);
      source -= lms;
      zero(sa, start, end - lms - start);
      end = start;
    }
  } else {
    countSymbols<C>(t, n, counts, k);
    bucketBounds<C>(t, n, counts, buckets, k, true);
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
  // Reduced strings have large alphabets: their bucket counters and targets miss the cache as
  // much as T does, and the two-pass scan measured slower there than the plain one.
  if (sizeof<C>() == 1 && freeSlots >= 2 * INDUCE_BLOCK) {
    induceFinalBlocked<C>(t, sa, n, counts, buckets, k, workspace);
  } else {
    induceFinal<C>(t, sa, n, counts, buckets, k);
  }
  return 0;
}

// The step of both L scans: L-type suffix j goes to the head of its bucket T[j], as j when j - 1
// is L type too (this scan induces it next), as ~j when j - 1 is S type (T[j-1] < T[j]: left for
// the S scan); j = 0 has no predecessor and is stored as 0.
@inline function induceL<C>(t: usize, sa: usize, buckets: usize, j: i32): void {
  const c = chr<C>(t, j);
  const pos = get(buckets, c);
  put(buckets, c, pos + 1);
  put(sa, pos, select<i32>(~j, j, (j > 0) & (chr<C>(t, j - 1) < c)));
}

// Stage 1 induction. Invariant of both scans: a positive entry p is a suffix whose predecessor
// p - 1 must still be induced by this scan; a negative entry ~p is a suffix whose predecessor is
// of the other type (left for the other scan); 0 is an empty slot (suffix 0 is never needed
// here: it has no predecessor and is not LMS). The L scan clears what it consumed and flips the
// rest positive for the S scan; the S scan leaves exactly the LMS positions negative, sorted by
// LMS substring.
function induceStage1<C>(t: usize, sa: usize, n: i32, counts: usize, buckets: usize, k: i32): void {
  bucketBounds<C>(t, n, counts, buckets, k, false);
  induceL<C>(t, sa, buckets, n - 1); // the sentinel's predecessor (n >= 2 at every level)
  for (let i = 0; i < n; i++) {
    const p = get(sa, i);
    if (p > 0) {
      put(sa, i, 0);
      induceL<C>(t, sa, buckets, p - 1);
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
  induceL<C>(t, sa, buckets, n - 1); // the sentinel's predecessor
  for (let i = 0; i < n; i++) {
    const p = get(sa, i);
    put(sa, i, ~p);
    if (p > 0) induceL<C>(t, sa, buckets, p - 1);
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

// induceFinal with the same invariants, done block by block in two passes: the first pass loads
// the text pair (T[p-2], T[p-1]) of every entry of the block into a cache (independent loads, so
// many cache misses are in flight at once: suffix sorting is bound by their latency), the second
// pass induces from the cached pairs. An entry written into the block after its pair was cached
// makes that pair stale: `dirty` bounds the positions written so far, whose pairs are reloaded.
function induceFinalBlocked<C>(t: usize, sa: usize, n: i32, counts: usize, buckets: usize, k: i32, cache: usize): void {
  bucketBounds<C>(t, n, counts, buckets, k, false);
  induceL<C>(t, sa, buckets, n - 1); // the sentinel's predecessor
  for (let start = 0; start < n; start += INDUCE_BLOCK) {
    const end = min(start + INDUCE_BLOCK, n);
    for (let i = start; i < end; i++) {
      const p = get(sa, i);
      store<u64>(cache + (<usize>(i - start) << 3), pairBefore<C>(t, select<i32>(p, 2, p > 0)));
    }
    let dirty = end;
    for (let i = start; i < end; i++) {
      const p = get(sa, i);
      put(sa, i, ~p);
      if (p > 0) {
        const pair = i < dirty ? load<u64>(cache + (<usize>(i - start) << 3)) : pairBefore<C>(t, p);
        const j = p - 1;
        const c = pairLast<C>(pair);
        const pos = get(buckets, c);
        put(buckets, c, pos + 1);
        put(sa, pos, select<i32>(~j, j, (j > 0) & (pairFirst<C>(pair) < c)));
        dirty = min(dirty, pos);
      }
    }
  }

  bucketBounds<C>(t, n, counts, buckets, k, true);
  for (let end = n; end > 0; end -= INDUCE_BLOCK) {
    const start = max(end - INDUCE_BLOCK, 0);
    for (let i = start; i < end; i++) {
      const p = get(sa, i);
      store<u64>(cache + (<usize>(i - start) << 3), pairBefore<C>(t, select<i32>(p, 2, p > 0)));
    }
    let dirty = start - 1;
    for (let i = end - 1; i >= start; i--) {
      const p = get(sa, i);
      if (p > 0) {
        const pair = i > dirty ? load<u64>(cache + (<usize>(i - start) << 3)) : pairBefore<C>(t, p);
        const j = p - 1;
        const c = pairLast<C>(pair);
        const pos = get(buckets, c) - 1;
        put(buckets, c, pos);
        put(sa, pos, select<i32>(~j, j, (j == 0) | (pairFirst<C>(pair) > c)));
        dirty = max(dirty, pos);
      } else {
        put(sa, i, ~p);
      }
    }
  }
}

// Names the sorted LMS substrings (in SA[0..m)) with ranks 1..names, equal substrings equal names,
// written to SA[m + (p >> 1)] (LMS positions are >= 2 apart, so the slots are distinct and lie in
// SA[m..n)). Returns the number of distinct names. With a cache (3 * NAME_BLOCK free slots), it
// works block by block: first the independent loads of every entry's length slot and first text
// word, then the comparisons, most of which the cached words settle.
function nameLmsSubstrings<C>(t: usize, sa: usize, n: i32, m: i32, cache: usize): i32 {
  memory.fill(sa + (<usize>m << 2), 0, <usize>(n - m) << 2);
  // Lengths first: an LMS substring runs to the next LMS position inclusive; the last one runs to
  // the sentinel, so its length n - p + 1 reaches past T and marks it unique. Without a branch
  // (LMS positions come at random): non-LMS positions write to SA[n-1], a slot no LMS position
  // uses (p <= n - 2 and m <= (n - 1) / 2 put every slot at or below n - 2), zeroed afterwards.
  {
    const sink = sa + (<usize>(n - 1) << 2);
    let next = n;
    let c1 = chr<C>(t, n - 1);
    let nextIsS = 0;
    for (let i = n - 2; i >= 0; i--) {
      const c0 = chr<C>(t, i);
      const isS = <i32>(c0 < c1 + nextIsS);
      const isLms = (nextIsS & ~isS) != 0;
      store<i32>(select<usize>(sa + (<usize>(m + ((i + 1) >> 1)) << 2), sink, isLms), next - i);
      next = select<i32>(i + 1, next, isLms);
      nextIsS = isS;
      c1 = c0;
    }
    store<i32>(sink, 0);
  }
  let names = 0;
  let prev = 0;
  let prevLength = 0;
  if (cache == 0) {
    for (let x = 0; x < m; x++) {
      const p = get(sa, x);
      const slot = m + (p >> 1);
      const length = get(sa, slot);
      if (!(length == prevLength && sameSubstring<C>(t, n, p, prev, length))) {
        names++;
        prev = p;
        prevLength = length;
      }
      put(sa, slot, names);
    }
    return names;
  }

  // Symbols per 8-byte word; a word is valid when it lies inside T.
  const wordSymbols = 8 >> alignof<C>();
  const words = cache;
  const lengths = cache + (<usize>NAME_BLOCK << 3);
  let prevWord: u64 = 0;
  for (let start = 0; start < m; start += NAME_BLOCK) {
    const end = min(start + NAME_BLOCK, m);
    for (let x = start; x < end; x++) {
      const p = get(sa, x);
      put(lengths, x - start, get(sa, m + (p >> 1)));
      store<u64>(words + (<usize>(x - start) << 3), load<u64>(t + (<usize>select<i32>(p, 0, p + wordSymbols <= n) << alignof<C>())));
    }
    for (let x = start; x < end; x++) {
      const p = get(sa, x);
      const length = get(lengths, x - start);
      const word = load<u64>(words + (<usize>(x - start) << 3));
      let same = false;
      if (length == prevLength) {
        if (length <= wordSymbols && p + wordSymbols <= n && prev + wordSymbols <= n) {
          const bits = <u64>(length << (alignof<C>() + 3));
          const mask = bits == 64 ? <u64>-1 : (<u64>1 << bits) - 1;
          same = ((word ^ prevWord) & mask) == 0;
        } else {
          same = sameSubstring<C>(t, n, p, prev, length);
        }
      }
      if (!same) {
        names++;
        prev = p;
        prevLength = length;
        prevWord = word;
      }
      put(sa, m + (p >> 1), names);
    }
  }
  return names;
}

/** Whether the LMS substrings of equal length at p and q are equal (the one reaching the
 * sentinel equals nothing); compares 8 bytes at a time, never reading past the substrings. */
@inline function sameSubstring<C>(t: usize, n: i32, p: i32, q: i32, length: i32): bool {
  if (p + length > n || q + length > n) return false;
  const wordSymbols = 8 >> alignof<C>();
  let d = 0;
  for (; d + wordSymbols <= length; d += wordSymbols) {
    if (load<u64>(t + (<usize>(p + d) << alignof<C>())) != load<u64>(t + (<usize>(q + d) << alignof<C>()))) return false;
  }
  for (; d < length; d++) {
    if (chr<C>(t, p + d) != chr<C>(t, q + d)) return false;
  }
  return true;
}
