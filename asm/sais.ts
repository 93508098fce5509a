// SA-IS: linear-time suffix sorting by induced sorting (Nong, Zhang, Chan, "Two efficient
// algorithms for linear time suffix array construction", IEEE TC 2011), engineered after Yuta
// Mori's sais-lite: no type array (an entry's sign bit says whether its predecessor still has to
// be induced), LMS substrings named in place, recursion on the reduced string inside the SA buffer.
// Suffix sorting is bound by the latency of random reads of T, so the hot scans work in blocks:
// first the independent loads of a block (many misses in flight), then the work from a cache.
//
// sais(T, SA, n, fs, mailbox): T = n bytes (any value, NUL included; a virtual sentinel smaller
// than every byte ends the text). SA has n + fs i32 slots; SA[0..n) receives the suffix array,
// SA[n..n+fs) is workspace. Returns 0, or NEEDS_WORKSPACE when some level's bucket array does not
// fit. mailbox: 0, or saisHelperBytes() bytes shared with a saisHelper(mailbox) call on another
// thread, which then takes chunks of the steps that split (see "sharing the parallel steps"). With
// a team (saisHelperTeam: more saisHelper calls on the same mailbox, indices 1 ..), the others
// take part in the induction scans (level 0's shared by blocks, the deeper levels' prefetched: see
// "prefetching a scan's steps") and in the steps whose chunks keep no state per helper (memberStep).
//
// Layout of one level (text t of length n over alphabet [0, k), buffer SA[0 .. n + fs)):
//   stage 1   with denseStage1Slots(k) free: sortLmsSubstringsDense, its tables at the start of
//             the workspace. Otherwise (sortLmsSubstringsByInduction):
//             SA[0..n) induced-sorting area; buckets (k counts, then k pointers when 2k fit) at
//             the end of the workspace: SA[n + fs - k ..) and SA[n + fs - 2k ..); the block
//             caches of naming (every level) and of the final induction (byte levels, and
//             reduced ones with the helper's ring) at its start, SA[n ..), when they fit
//             (3 * NAME_BLOCK, INDUCE_BLOCK slots; otherwise plain loops are used); the
//             helper's ring (RING_SLOTS) at the top of the free slots. With the helper, stage
//             1's placement first counts in tables of 2 * 256 slots per chunk at SA[n ..)
//             (placeLmsShared).
//   naming    sorted LMS positions in SA[0..m), their names at SA[m + (p >> 1)]. When n <= 2^30
//             and 2k slots are free, stage 1's induction names the LMS substrings as it sorts them
//             (induceStage1Named; its bucket heads and classes in SA[n .. n + 2k)); otherwise
//             naming is a pass of its own (lengths, then text comparisons: the naming cache).
//   stage 2   reduced string s1 (m names) in SA[n + fs - m .. n + fs); SA1 in SA[0..m); the
//             recursion's workspace is the free region between them, SA[m .. n + fs - m), so its
//             buckets sit right below s1. With at most 2^16 names (and too few for doubling) s1
//             is packed to u16 in the upper half of its slots, and the workspace grows by the
//             lower half: the next level's random reads of s1 then touch half as many lines.
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
// Reduced strings whose names are mostly unique are sorted by prefix doubling instead (see
// sortByDoubling).
//
// Limits: n <= 2^31 - 1 (entries are i32 with the sign bit as flag); T, SA and the workspace lie
// in the 4 GiB WebAssembly memory; the byte before T must be readable (its value is never used).

import { sortU64 } from "./sort";

/** Returned when a level's buckets do not fit in the workspace; retry with a larger fs. */
export const NEEDS_WORKSPACE: i32 = -1;

/** Alphabet of the input text. */
@inline const BYTE_ALPHABET: i32 = 256;

/** LMS substrings per block of the two-pass naming (cache: 3 slots each). */
@inline const NAME_BLOCK: i32 = 1024;

/** Reduced strings of at most this many names are stored as u16 (see stage 2 of saisLevel). */
@inline const U16_NAMES: i32 = 1 << 16;

/** Entries per block of the two-pass induction scans (see induceFinalBlocked); the block's cache
 * of steps (stepAt) lives at the start of the workspace when it fits. */
@inline const INDUCE_BLOCK: i32 = 1024;

export function sais(textPtr: usize, saPtr: usize, n: i32, fs: i32, mailbox: usize): i32 {
  let status = 0;
  if (n == 1) {
    store<i32>(saPtr, 0);
  } else if (n > 1) {
    status = saisLevel<u8>(textPtr, saPtr, n, fs, BYTE_ALPHABET, mailbox);
  }
  if (mailbox != 0) saisHelperExit(mailbox);
  return status;
}

/**
 * The suffix array of a reduced string s1 of m names in [0, names), i32, placed right after the
 * buffer SA[0 .. m + fs) (s1 = SA[m + fs .. 2m + fs)): stage 2 of a level whose first stage ran
 * elsewhere (the TypeScript SA-IS over texts beyond this memory, sais-large.ts). SA[0..m) receives
 * it; s1 is overwritten. Returns 0 or NEEDS_WORKSPACE, as sais does.
 */
export function saisReduced(saPtr: usize, m: i32, fs: i32, names: i32, mailbox: usize): i32 {
  const status = m > 0 ? solveReduced(saPtr + (<usize>(m + fs) << 2), saPtr, m, fs, names, mailbox) : 0;
  if (mailbox != 0) saisHelperExit(mailbox);
  return status;
}

/**
 * saisReduced for s1 stored as u16 (names <= 2^16, names < m) right after SA[0 .. m + fs), 2m
 * bytes: the host's layout for a reduced string whose i32 slots would not fit in this memory
 * (texts near 2^31 bytes: m up to ~715 M symbols in 6m bytes instead of 8m). The same level as
 * solveReduced's u16 branch runs, without its packing step.
 */
export function saisReduced16(saPtr: usize, m: i32, fs: i32, names: i32, mailbox: usize): i32 {
  let status = 0;
  if (m == 1) {
    store<i32>(saPtr, 0);
  } else if (m > 1) {
    status = saisLevel<u16>(saPtr + (<usize>(m + fs) << 2), saPtr, m, fs, names, mailbox);
  }
  if (mailbox != 0) saisHelperExit(mailbox);
  return status;
}

/** SA[0..m) = the suffix array of s1 (m names, i32, at `reduced`, right after SA[0 .. m + fs)). */
function solveReduced(reduced: usize, sa: usize, m: i32, fs: i32, names: i32, mailbox: usize): i32 {
  if (names < m && names <= U16_NAMES && !mostlyUnique(names, m)) {
    // Few names (and no doubling below): s1 as u16, in the upper half of its slots, so that the
    // next level's random reads of it touch half the memory; the lower half joins the workspace.
    const half = m >> 1;
    const reduced16 = reduced + (<usize>half << 2);
    for (let j = m - 1; j >= 0; j--) store<u16>(reduced16 + (<usize>j << 1), <u16>get(reduced, j));
    return saisLevel<u16>(reduced16, sa, m, fs + half, names, mailbox);
  }
  if (names < m) return saisLevel<i32>(reduced, sa, m, fs, names, mailbox);
  for (let j = 0; j < m; j++) put(sa, get(reduced, j), j);
  return 0;
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

// An induction step from entry q needs c = T[q-1] and whether T[q-2] lies above it (L scans:
// T[q-2] >= c, S scans: T[q-2] > c). A step value holds both in 32 bits: for byte texts the pair
// (T[q-2], T[q-1]) as one u16 load gives it (the compare is cheap later); for reduced strings
// (u16 or i32 symbols, the pair in one load) c << 1 | that bit (c < 2^30 there). q >= 1; for
// q = 1 the unused T[-1] must be readable.
@inline function stepAt<C>(t: usize, q: i32, sScan: bool): u32 {
  if (sizeof<C>() == 1) return <u32>load<u16>(t + <usize>(q - 2));
  let c: u32, before: u32;
  if (sizeof<C>() == 2) {
    const pair = load<u32>(t + (<usize>(q - 2) << 1));
    c = pair >> 16;
    before = pair & 0xffff;
  } else {
    const pair = load<u64>(t + (<usize>(q - 2) << 2));
    c = <u32>(pair >> 32);
    before = <u32>pair;
  }
  return (c << 1) | <u32>(sScan ? before > c : before >= c);
}

/** T[q-1] of a step. */
@inline function stepSymbol<C>(step: u32): i32 {
  return sizeof<C>() == 1 ? <i32>(step >> 8) : <i32>(step >> 1);
}

/** Whether T[q-2] lies above T[q-1] in the sense of the scan (see stepAt). */
@inline function stepAbove<C>(step: u32, sScan: bool): bool {
  if (sizeof<C>() == 1) {
    const c = step >> 8;
    const before = step & 0xff;
    return sScan ? before > c : before >= c;
  }
  return (step & 1) != 0;
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

/** counts[c] = occurrences of c in t. spare: 0, or (byte texts) 3 * 256 free slots for the
 * counters of a 4-way split: runs of one byte otherwise chain every increment to the last one. */
function countSymbols<C>(t: usize, n: i32, counts: usize, k: i32, spare: usize = 0): void {
  if (sizeof<C>() == 1 && spare != 0) {
    const tables = 4 * BYTE_ALPHABET;
    memory.fill(spare, 0, <usize>(tables - BYTE_ALPHABET) << 2);
    memory.fill(counts, 0, <usize>BYTE_ALPHABET << 2);
    // Byte 0 of each 4-byte word counts in counts, bytes 1-3 in the spare tables 0-2.
    let i = 0;
    for (; i + 4 <= n; i += 4) {
      const w = load<u32>(t + <usize>i);
      const a0 = counts + (<usize>(w & 0xff) << 2);
      store<i32>(a0, load<i32>(a0) + 1);
      const a1 = spare + (<usize>((w >> 8) & 0xff) << 2);
      store<i32>(a1, load<i32>(a1) + 1);
      const a2 = spare + (<usize>(BYTE_ALPHABET + ((w >> 16) & 0xff)) << 2);
      store<i32>(a2, load<i32>(a2) + 1);
      const a3 = spare + (<usize>(2 * BYTE_ALPHABET + (w >> 24)) << 2);
      store<i32>(a3, load<i32>(a3) + 1);
    }
    for (; i < n; i++) put(counts, chr<C>(t, i), get(counts, chr<C>(t, i)) + 1);
    for (let c = 0; c < BYTE_ALPHABET; c++) {
      put(counts, c, get(counts, c) + get(spare, c) + get(spare, BYTE_ALPHABET + c) + get(spare, 2 * BYTE_ALPHABET + c));
    }
    return;
  }
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

function saisLevel<C>(t: usize, sa: usize, n: i32, fs: i32, k: i32, mailbox: usize): i32 {
  if (sizeof<C>() == 4 && mostlyUnique(k, n) && fs > n + k) {
    if (sortByDoubling(t, sa, n, k, sa + (<usize>n << 2), fs, mailbox)) return 0;
  }
  if (fs < k) return NEEDS_WORKSPACE;
  const counts = sa + (<usize>(n + fs - k) << 2);
  const buckets = fs >= 2 * k ? counts - (<usize>k << 2) : counts;

  // Stage 1: sort the LMS substrings and name them.
  const freeSlots = fs - (counts == buckets ? k : 2 * k);
  const workspace = sa + (<usize>n << 2);
  let m = 0;
  // Stage 1 on the byte text with the helper keeps its LMS counts per text chunk and per symbol
  // in the mailbox (countAndGatherShared), so that stage 2 can split its scan of the text.
  const textChunks = mailbox != 0 && sizeof<C>() == 1 ? chunksFor(n - 1) : 0;
  let textLmsSaved = false;
  if (freeSlots >= denseStage1Slots<C>(k)) {
    const shared = textChunks != 0 && freeSlots >= denseStage1Slots<C>(k) + textChunks * DENSE_CHUNK_SLOTS;
    textLmsSaved = shared;
    // The helper's ring at the top of the free slots, above the tables (and the chunks' ones).
    const helped = sizeof<C>() == 1 ? shared : mailbox != 0 && n >= 2 * CHUNK_ENTRIES;
    const ring = helped && freeSlots >= denseStage1Slots<C>(k) + (shared ? textChunks * DENSE_CHUNK_SLOTS : 0) + RING_SLOTS
      ? workspace + (<usize>(freeSlots - RING_SLOTS) << 2)
      : 0;
    // With a team (byte texts), its tables after the chunks' ones; the scans are then shared.
    const teamFrom = denseStage1Slots<C>(k) + (shared ? textChunks * DENSE_CHUNK_SLOTS : 0);
    const team = mailbox != 0 ? teamOf(mailbox) : 1;
    const teamArea = sizeof<C>() == 1 && shared && team >= SHARED_FINAL_TEAM && freeSlots >= teamFrom + sharedDenseSlots(team)
      ? workspace + (<usize>teamFrom << 2)
      : 0;
    m = sortLmsSubstringsDense<C>(t, sa, n, k, workspace, mailbox, shared ? textChunks : 0, teamArea != 0 ? 0 : ring, team, teamArea);
  } else {
    m = sortLmsSubstringsByInduction<C>(t, sa, n, fs, k, counts, buckets, freeSlots, workspace, mailbox);
  }
  const names = lmsNames;
  const chunks = mailbox != 0 ? chunksFor(m) : 0;

  // Stage 2: sort the LMS suffixes through the reduced string s1 (names in text order).
  const reduced = sa + (<usize>(n + fs - m) << 2);
  {
    // Without a branch (a third of the slots hold a name, at random): every slot is written to
    // s1[j], and j moves on past a name. The write stays at or above the slot read (j moves at
    // most as fast as i), as in the compaction with the branch; it stops once s1 is full.
    let j = m - 1;
    for (let i = m + ((n - 1) >> 1); i >= m && j >= 0; i--) {
      const name = get(sa, i);
      put(reduced, j, name - 1);
      j -= <i32>(name != 0);
    }
  }
  {
    const status = solveReduced(reduced, sa, m, n + fs - 2 * m, names, mailbox);
    if (status != 0) return status;
  }
  // Map ranks of s1 back to text positions: s1[j] is the j-th LMS position from the left. When the
  // free region holds three k-arrays, the same scan counts LMS positions per first symbol (in
  // SA[m..m+k)), so that stage 3 can place them by block moves without reading T at random.
  // With stage 1's counts saved, the scan is split into the text's chunks instead.
  const countLms = buckets != counts && n + fs - 2 * m >= 3 * k;
  const lmsCounts = sa + (<usize>m << 2);
  {
    if (textLmsSaved) {
      if (countLms) memory.copy(lmsCounts, mailbox + MAIL_TEXT_LMS + (<usize>MAX_CHUNKS << 2), <usize>k << 2);
      lmsPositionsShared(t, reduced, n, m, mailbox, textChunks);
    } else {
      if (countLms) memory.fill(lmsCounts, 0, <usize>k << 2);
      lmsPositions<C>(t, reduced, 0, n - 1, 0, m, 0, countLms, lmsCounts);
    }
    if (chunks != 0) {
      shareChunks(mailbox, COMMAND_MAP_RANKS, reduced, 0, sa, n, m, m, chunks, 0);
    } else {
      mapRanks(sa, reduced, 0, m);
    }
  }

  // Stage 3: sorted LMS suffixes to their bucket ends (keeping their order), then induce.
  if (countLms) {
    memory.copy(buckets, lmsCounts, <usize>k << 2);
    // Free above lmsCounts: SA[m + k .. n + fs - 2k) (s1 is spent).
    const spare = sizeof<C>() == 1 && n + fs - m - 3 * k >= 3 * BYTE_ALPHABET ? lmsCounts + (<usize>k << 2) : 0;
    countSymbols<C>(t, n, counts, k, spare);
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
  // The helper's ring at the top of the free slots, above the block cache. Reduced strings have
  // large alphabets: their bucket counters and targets miss the cache as much as T does, and the
  // two-pass scan alone measured slower there than the plain one; with the helper it is faster.
  const ring = mailbox != 0 && n >= 2 * CHUNK_ENTRIES && freeSlots >= INDUCE_BLOCK + RING_SLOTS
    ? workspace + (<usize>(freeSlots - RING_SLOTS) << 2)
    : 0;
  const team = mailbox != 0 ? teamOf(mailbox) : 1;
  if (sizeof<C>() == 1 && team >= SHARED_FINAL_TEAM && n >= 2 * CHUNK_ENTRIES && freeSlots >= sharedFinalSlots(team)) {
    induceFinalShared(t, sa, n, counts, buckets, workspace, mailbox, team);
  } else if (ring != 0 || (sizeof<C>() == 1 && freeSlots >= INDUCE_BLOCK)) {
    induceFinalBlocked<C>(t, sa, n, counts, buckets, k, workspace, mailbox, ring);
  } else {
    induceFinal<C>(t, sa, n, counts, buckets, k);
  }
  return 0;
}

/**
 * s1[j] = the j-th LMS position from the left, for the positions from + 1 .. to, right to left from
 * the state at `to` (S type or not; n - 1 is L type): those s1[bottom .. top). When counting, it
 * also counts them per symbol in lmsCounts. Returns the lowest j written.
 */
@inline function lmsPositions<C>(t: usize, reduced: usize, from: i32, to: i32, toIsS: i32, top: i32, bottom: i32, counting: bool, lmsCounts: usize): i32 {
  let j = top;
  let c1 = chr<C>(t, to);
  let nextIsS = toIsS;
  for (let i = to - 1; i >= from; i--) {
    const c0 = chr<C>(t, i);
    const isS = <i32>(c0 < c1 + nextIsS);
    // Without a branch: every position is written to s1[j - 1] and kept only by an LMS one. Past
    // the range's last LMS position the writes land in s1[-1] = SA[n + fs - m - 1], which is free:
    // above SA1 (n + fs - 2m >= 1) and above lmsCounts (n + fs - 2m >= 3k when counting).
    const isLms = nextIsS & ~isS;
    put(reduced, bottom == 0 ? j - 1 : select<i32>(j - 1, -1, j > bottom), i + 1);
    j -= isLms;
    if (counting) put(lmsCounts, c1, get(lmsCounts, c1) + isLms);
    nextIsS = isS;
    c1 = c0;
  }
  return j;
}

/** lmsPositions over the byte text's chunks, from the LMS counts per chunk that stage 1 saved. */
function lmsPositionsShared(t: usize, reduced: usize, n: i32, m: i32, mailbox: usize, chunks: i32): void {
  chunkEndStates<u8>(t, n, mailbox, chunks);
  // Each chunk's top in s1, in place of chunkEndStates' next LMS positions.
  let top = m;
  for (let c = chunks - 1; c >= 0; c--) {
    put(mailbox + MAIL_COUNTS, MAX_CHUNKS + c, top);
    top -= get(mailbox + MAIL_TEXT_LMS, c);
  }
  shareChunks(mailbox, COMMAND_LMS_POSITIONS, t, 0, reduced, n, m, n - 1, chunks, 0);
}

/** Names of the last stage 1 (sortLmsSubstringsDense or sortLmsSubstringsByInduction). */
let lmsNames: i32 = 0;

/** Writes the names of the sorted, NEW_NAME-marked LMS positions SA[0..m) to SA[m + (p >> 1)]
 * (SA[m..n) zero), with the helper where m is long enough. */
function writeAllNames(sa: usize, n: i32, m: i32, mailbox: usize): void {
  const chunks = mailbox != 0 ? chunksFor(m) : 0;
  if (chunks != 0) {
    writeNamesShared(sa, n, m, mailbox, chunks);
  } else {
    writeNames(sa, m, 0, m, 0);
  }
}

/** Stage 1 over the whole SA (reduced strings, and byte texts without the dense stage's
 * workspace): LMS positions placed at their bucket ends, induced sorting, then names written.
 * Returns m; the number of names in lmsNames. */
function sortLmsSubstringsByInduction<C>(t: usize, sa: usize, n: i32, fs: i32, k: i32, counts: usize, buckets: usize, freeSlots: i32, workspace: usize, mailbox: usize): i32 {
  // Place LMS positions at their bucket ends, then induce to sort LMS substrings.
  let m = 0;
  const textChunks = mailbox != 0 ? chunksFor(n - 1) : 0;
  if (sizeof<C>() == 1 && textChunks != 0 && fs - 2 * k >= 2 * BYTE_ALPHABET * textChunks) {
    m = placeLmsShared(t, sa, n, counts, buckets, mailbox, textChunks);
  } else {
    countSymbols<C>(t, n, counts, k);
    bucketBounds<C>(t, n, counts, buckets, k, true);
    memory.fill(sa, 0, <usize>n << 2);
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
  const chunks = mailbox != 0 ? chunksFor(m) : 0;
  let names = 0;
  if (n <= MAX_NAMED_LENGTH && freeSlots >= 2 * k) {
    // Names come out of the induction itself; the gather keeps their marks.
    induceStage1Named<C>(t, sa, n, counts, buckets, k, workspace);
    let w = 0;
    for (let i = 0; i < n; i++) {
      const v = get(sa, i);
      const mark = groupBreak(v);
      put(sa, w, ~(v ^ (mark << 30)) | (mark << 31));
      w += <i32>(v < 0);
      names += mark;
    }
    zero(sa, m, n - m);
    writeAllNames(sa, n, m, mailbox);
  } else {
    induceStage1<C>(t, sa, n, counts, buckets, k);
    // Gather the LMS positions, now sorted by LMS substring, into SA[0..m).
    let w = 0;
    for (let i = 0; i < n; i++) {
      const p = get(sa, i);
      put(sa, w, ~p);
      w += <i32>(p < 0);
    }
    const nameCache = freeSlots >= 3 * NAME_BLOCK ? workspace : 0;
    names = chunks != 0
      ? nameLmsSubstringsShared<C>(t, sa, n, m, nameCache, mailbox, chunks)
      : nameLmsSubstrings<C>(t, sa, n, m, nameCache);
  }
  lmsNames = names;
  return m;
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

// ---- reduced strings of mostly unique names ----------------------------------------------------
// A reduced string whose names are mostly unique (the deeper levels) is sorted faster by prefix
// doubling with Larsson–Sadakane group refinement than by another level of induced sorting: its
// first name alone places most suffixes, and the rounds touch only the few groups left.

/** Reduced strings with at least this share of distinct names, k / n, are sorted by doubling. */
@inline const DOUBLING_NAMES_NUM: i64 = 1;
@inline const DOUBLING_NAMES_DEN: i64 = 4;

/** Whether a reduced string of n symbols over k names is one for doubling (see above). */
@inline function mostlyUnique(k: i32, n: i32): bool {
  return <i64>k * DOUBLING_NAMES_DEN >= <i64>n * DOUBLING_NAMES_NUM;
}
/** Doubling gives up (and induced sorting takes over) when more than this share of the suffixes
 * share their first name, or when its rounds have sorted groups of this many times n suffixes in
 * all (a round shared with the helper counts half): long repeats (a text of two equal halves)
 * take log n rounds over most of the suffixes. On the corpus the first share is 0.04-0.73, the
 * rounds' work 0.04-1.8 n. */
@inline const DOUBLING_GROUPED_NUM: i64 = 4;
@inline const DOUBLING_GROUPED_DEN: i64 = 5;
@inline const DOUBLING_WORK: i64 = 2;

/** Entries whose keys a round gathers before sorting their groups: the loads of rank[p + h] are
 * independent, so many misses are in flight at once (a group alone has a few). */
@inline const DOUBLING_BATCH: i32 = 2048;
/** Grouped suffixes per chunk of a round shared with the helper. */
@inline const DOUBLING_CHUNK: i32 = 1 << 13;
/** The sign bit of a sorted group's SA entry marks the first suffix of a run of equal keys. */
@inline const RUN_HEAD: i32 = 0x80000000;

/**
 * SA[0..n) = the suffix array of t (n names in [0, k), k <= n) by prefix doubling, or false where it
 * gives up (see DOUBLING_WORK) or its lists do not fit; t is left as it was. work: `free` slots,
 * at least n + 1 + k. rank[i] = 1 + the index of the head of i's group in SA, rank[n] = 0 (the
 * empty suffix); a group is a run of suffixes whose first h names tie (h = 1, 2, 4, ...), and each
 * round sorts every group of two or more by the rank of suffix + h (sortGroups), then splits the
 * groups into runs of equal keys and ranks each run by its head (splitGroups). The rounds'
 * groups are cut into chunks that the helper shares: the ranks change only once every group of
 * the round is sorted, so the result does not depend on which thread sorts which chunk.
 */
function sortByDoubling(t: usize, sa: usize, n: i32, k: i32, work: usize, free: i32, mailbox: usize): bool {
  const rank = work;
  const lists = rank + (<usize>(n + 1) << 2);
  // The bucket bounds at the top of the work area, below them the first group list.
  const counts = work + (<usize>(free - k) << 2);

  // h = 1: counting sort by the first name; counts[c] becomes the end of c's group.
  bucketBounds<i32>(t, n, counts, counts, k, false);
  for (let i = 0; i < n; i++) {
    const at = counts + (<usize>get(t, i) << 2);
    const j = load<i32>(at);
    store<i32>(at, j + 1);
    put(sa, j, i);
  }
  // The groups of two or more, as (start, length) pairs, in the room below the bucket bounds: a
  // group takes at most as many slots as it has suffixes, so a list never takes more than
  // `grouped` slots.
  let groups = lists;
  const room = (free - k - (n + 1)) >> 1;
  let count = 0;
  let grouped = 0;
  let largest = 0;
  for (let c = 0, start = 0; c < k; c++) {
    const end = get(counts, c);
    const len = end - start;
    if (len >= 2) {
      if (count == room) return false;
      put(groups, 2 * count, start);
      put(groups, 2 * count + 1, len);
      count++;
      grouped += len;
      largest = max(largest, len);
    }
    start = end;
  }
  if (<i64>grouped * DOUBLING_GROUPED_DEN > <i64>n * DOUBLING_GROUPED_NUM) return false;
  // the next round's list, then the batches' u64 (key << 32 | suffix) pairs: the helper's too
  const batch = max(largest, min(DOUBLING_BATCH, grouped));
  const listsEnd = <i64>n + 1 + 2 * <i64>grouped + 2;
  if (listsEnd + 2 * <i64>batch > <i64>free) return false;
  // Ranks in text order: the head of the group of the suffix's first name.
  for (let i = 0; i < n; i++) {
    const c = get(t, i);
    put(rank, i, (c == 0 ? 0 : get(counts, c - 1)) + 1);
  }
  put(rank, n, 0);
  let next = groups + (<usize>grouped << 2);
  const pairs = (next + (<usize>grouped << 2) + 7) & ~(<usize>7);
  const helped = mailbox != 0 && listsEnd + 4 * <i64>batch <= <i64>free;
  if (helped) {
    store<i32>(mailbox + MAIL_DOUBLING_PAIRS, <i32>(pairs + (<usize>batch << 3)));
    store<i32>(mailbox + MAIL_DOUBLING_BATCH, batch);
  }

  let budget = <i64>n * DOUBLING_WORK;
  for (let h = 1; count > 0; h <<= 1) {
    let total = 0;
    for (let g = 0; g < count; g++) total += get(groups, 2 * g + 1);
    const chunks = helped ? min(MAX_CHUNKS, total / DOUBLING_CHUNK) : 0;
    // A shared round costs each thread about half (its rounds refine less than a lone thread's
    // batches do, so they sort more suffixes in all).
    budget -= chunks >= 2 ? total >> 1 : total;
    if (budget < 0) return false;
    let written = 0;
    if (chunks >= 2) {
      // Chunk c: the groups from the one where the suffixes before it reach c * total / chunks.
      const starts = mailbox + MAIL_COUNTS;
      for (let g = 0, c = 0, before = 0; c < chunks; before += get(groups, 2 * g++ + 1)) {
        while (c < chunks && <i64>before >= (<i64>total * c) / chunks) put(starts, c++, g);
        if (g == count) break;
      }
      store<i32>(mailbox + MAIL_DOUBLING_GROUPS, <i32>groups);
      store<i32>(mailbox + MAIL_DOUBLING_NEXT, <i32>next);
      shareChunks(mailbox, COMMAND_DOUBLING_SORT, rank, h, sa, n, count, 0, chunks, pairs);
      // The chunks' runs of two or more, into where each chunk writes its part of the next list.
      const runs = starts + (<usize>MAX_CHUNKS << 2);
      for (let c = 0; c < chunks; c++) {
        const those = get(runs, c);
        put(runs, c, written);
        written += those;
      }
      shareChunks(mailbox, COMMAND_DOUBLING_SPLIT, rank, h, sa, n, count, 0, chunks, pairs);
    } else {
      // Alone, batch by batch: a batch's groups see the ranks that the batches before it refined.
      for (let first = 0; first < count;) {
        const end = batchEnd(groups, first, count, batch);
        sortGroups(sa, rank, groups, first, end, h, pairs, batch);
        written += splitGroups(sa, rank, groups, first, end, next, written);
        first = end;
      }
    }
    const spent = groups;
    groups = next;
    next = spent;
    count = written;
  }
  return true;
}

/** The end of the batch of groups from `first`: those whose suffixes fit in `batch` pairs (one at
 * least). */
@inline function batchEnd(groups: usize, first: i32, last: i32, batch: i32): i32 {
  let end = first;
  for (let total = 0; end < last && total + get(groups, 2 * end + 1) <= batch; end++) total += get(groups, 2 * end + 1);
  return max(end, first + 1);
}

/** Sorts each of the groups [first, last) of the list by (rank[p + h], p), batch by batch in
 * `pairs` (batch u64 slots, at least the largest group), and marks the first entry of each run
 * of equal keys (RUN_HEAD). Returns how many of those runs have two or more suffixes. */
function sortGroups(sa: usize, rank: usize, groups: usize, first: i32, last: i32, h: i32, pairs: usize, batch: i32): i32 {
  let runs = 0;
  while (first < last) {
    const end = batchEnd(groups, first, last, batch);
    for (let g = first, o = 0; g < end; g++) {
      const s = get(groups, 2 * g);
      const len = get(groups, 2 * g + 1);
      for (let x = 0; x < len; x++) {
        const p = get(sa, s + x);
        store<u64>(pairs + (<usize>(o + x) << 3), (<u64><u32>get(rank, p + h) << 32) | <u64><u32>p);
      }
      o += len;
    }
    for (let g = first, o = 0; g < end; g++) {
      const s = get(groups, 2 * g);
      const len = get(groups, 2 * g + 1);
      const group = pairs + (<usize>o << 3);
      o += len;
      sortU64(group, 0, len);
      let key = load<u64>(group) >> 32;
      let head = 0;
      put(sa, s, <i32>load<u64>(group) | RUN_HEAD);
      for (let x = 1; x < len; x++) {
        const pair = load<u64>(group + (<usize>x << 3));
        const fresh = pair >> 32 != key;
        runs += <i32>(fresh & (x - head >= 2));
        head = select<i32>(x, head, fresh);
        key = pair >> 32;
        put(sa, s + x, <i32>pair | select<i32>(RUN_HEAD, 0, fresh));
      }
      runs += <i32>(len - head >= 2);
    }
    first = end;
  }
  return runs;
}

/** Splits each of the sorted groups [first, last) at its run heads: clears the marks, ranks the
 * suffixes of every run but the first by the run's head (the first keeps the group's rank), and
 * writes the runs of two or more to the next list from entry `at`. Returns the runs written. */
function splitGroups(sa: usize, rank: usize, groups: usize, first: i32, last: i32, next: usize, at: i32): i32 {
  const from = at;
  for (let g = first; g < last; g++) {
    const s = get(groups, 2 * g);
    const len = get(groups, 2 * g + 1);
    let head = 0;
    put(sa, s, get(sa, s) & ~RUN_HEAD);
    for (let x = 1; x <= len; x++) {
      const v = x < len ? get(sa, s + x) : RUN_HEAD;
      if ((v & RUN_HEAD) != 0) {
        if (x - head >= 2) {
          put(next, 2 * at, s + head);
          put(next, 2 * at + 1, x - head);
          at++;
        }
        head = x;
        if (x == len) break;
        put(sa, s + x, v & ~RUN_HEAD);
      }
      if (head > 0) put(rank, v & ~RUN_HEAD, s + head + 1);
    }
  }
  return at - from;
}

// ---- stage 1 in dense regions ------------------------------------------------------------------
// After libsais' partial sorting: a position p >= 1 falls in one of four classes by its type and
// its predecessor's, and stage 1 keeps each class in regions of its own, so that every entry a
// scan reads induces: the scans read no empty slot and take no branch on the entry (every level
// whose tables fit; byte levels with the helper share the first scan). The L scan reads
// the LL suffixes (L type, L before) and the LMS seeds; it induces each p - 1 (L type) into
// the left region when p - 2 is L type too (it reads it later), else into the right region. The
// S scan reads the right region (SL: L type, S before; SS: S type, S before) from the top and
// induces each p - 1 (S type) into the right region, or, when p - 1 is LMS, into the output
// SA[0..m). Positions left of the leftmost LMS position q0 take no part: they are induced only
// from q0's seed, which is left out, and no LMS substring contains them.
//
// Layout over SA[0 .. n - q0): per symbol c ascending, the left region [LL_c | seeds_c] from 0,
// one free slot, then the right region [SL_c | SS_c]: SL from the bottom in the L scan, SS from
// the top in the S scan. The output SA[0..m) overlaps only the left region and the free slot
// (m <= #LL + #seeds + 1), which the S scan no longer reads.
//
// Classes of LMS prefixes as in induceStage1Named, in the sign bit: an entry is marked when the
// class of its inducer differs from that of the entry induced before it into the same region; a
// scan counts the marks it has read (d). Seeds are marked at the first of each symbol.

/** Workspace slots of sortLmsSubstringsDense over alphabet k: four class counts per symbol, a
 * head and a last class per (symbol, region), and a block's steps (u16 or u32 each). */
@inline function denseStage1Slots<C>(k: i32): i32 {
  return 8 * k + INDUCE_BLOCK * (sizeof<C>() == 1 ? 1 : 2) / 2;
}

@inline const MARK: i32 = 0x80000000;

/** Class of position i + 1 from the S-ness of i + 1 and of i: 0 SS, 1 LMS, 2 SL, 3 LL. */
@inline function positionClass(nextIsS: i32, isS: i32): i32 {
  return 3 - ((nextIsS << 1) | isS);
}

/**
 * Stage 1 in dense regions: the LMS positions sorted by LMS substring in SA[0..m), their names
 * written (writeAllNames). Returns m; the number of names in lmsNames. work:
 * denseStage1Slots<C>(k) free slots, and `chunks` * DENSE_CHUNK_SLOTS after them when the helper
 * shares the counting (byte texts).
 */
function sortLmsSubstringsDense<C>(
  t: usize, sa: usize, n: i32, k: i32, work: usize, mailbox: usize, chunks: i32, ring: usize, team: i32, teamArea: usize,
): i32 {
  const counts = work; // [4c + class]
  const regions = work + (<usize>(4 * k) << 2); // region r = 2c + which: head [2r], last class [2r + 1]
  const cache = regions + (<usize>(4 * k) << 2); // the scans' steps

  // Right to left: count the classes of positions 1 .. n-1, and gather the LMS positions at the
  // top of SA (every position is written at SA[g]; g moves down past an LMS one).
  const g = chunks != 0
    ? countAndGatherShared(t, sa, n, counts, mailbox, chunks)
    : n - 1 - countAndGather<C>(t, sa, 0, n - 1, 0, counts, k); // n - 1 is L type
  const m = n - 1 - g;
  if (m == 0) {
    memory.fill(sa, 0, <usize>n << 2);
    lmsNames = 0;
    return 0;
  }
  const q0 = get(sa, g + 1);
  {
    // Positions 1 .. q0 - 1 take no part.
    let c1 = chr<C>(t, q0);
    let nextIsS = 1;
    for (let i = q0 - 1; i >= 0; i--) {
      const c0 = chr<C>(t, i);
      const isS = <i32>(c0 < c1 + nextIsS);
      if (i + 1 < q0) {
        const slot = counts + (<usize>((c1 << 2) | positionClass(nextIsS, isS)) << 2);
        store<i32>(slot, load<i32>(slot) - 1);
      }
      nextIsS = isS;
      c1 = c0;
    }
  }
  const q0Symbol = chr<C>(t, q0);

  // Left region: LL heads in region 2c + 1, the seeds' ends in region 2c for their placing.
  let left = 0;
  for (let c = 0; c < k; c++) {
    put(regions, 4 * c + 2, left);
    left += get(counts, 4 * c + 3);
    left += get(counts, 4 * c + 1) - <i32>(c == q0Symbol);
    put(regions, 4 * c, left);
  }
  for (let x = n - 1; x > g + 1; x--) {
    const p = get(sa, x);
    const slot = regions + (<usize>chr<C>(t, p) << 4);
    const pos = load<i32>(slot) - 1;
    store<i32>(slot, pos);
    put(sa, pos, p);
  }
  // Right region: SL heads in region 2c; the first seed of each symbol marked; no class yet.
  let right = left + 1;
  for (let c = 0; c < k; c++) {
    const seeds = get(counts, 4 * c + 1) - <i32>(c == q0Symbol);
    if (seeds > 0) {
      const first = get(regions, 4 * c);
      put(sa, first, get(sa, first) | MARK);
    }
    put(regions, 4 * c, right);
    put(regions, 4 * c + 1, -1);
    put(regions, 4 * c + 3, -1);
    right += get(counts, 4 * c + 2) + get(counts, 4 * c);
  }

  // L scan. The sentinel is class 0 on its own; it induces n - 1.
  {
    const c = chr<C>(t, n - 1);
    const region = regions + (<usize>((c << 1) | <i32>(chr<C>(t, n - 2) >= c)) << 3);
    const pos = load<i32>(region);
    store<i32>(region, pos + 1);
    store<i32>(region, 0, 4);
    put(sa, pos, (n - 1) | MARK);
  }
  if (ring != 0) startPrefetch<C>(mailbox, t, sa, n, 0, left, false, true, ring);
  const d = teamArea != 0
    ? sharedDenseScan(t, sa, regions, 0, left, 0, false, mailbox, team, teamArea)
    : denseScan<C>(t, sa, n, regions, cache, 0, left, 0, false, mailbox, ring);
  if (ring != 0) finishPrefetch(mailbox);

  // The SL marks say "differs from the entry below"; the S scan reads downwards and needs "differs
  // from the entry above", the top one of each symbol marked.
  right = left + 1;
  let out = 0;
  for (let c = 0; c < k; c++) {
    const sl = get(counts, 4 * c + 2);
    let carry = MARK;
    for (let i = right + sl - 1; i >= right; i--) {
      const v = get(sa, i);
      put(sa, i, (v & ~MARK) | carry);
      carry = v & MARK;
    }
    right += sl + get(counts, 4 * c);
    put(regions, 4 * c, right); // SS from the top of the symbol's right region
    put(regions, 4 * c + 1, -1);
    out += get(counts, 4 * c + 1);
    put(regions, 4 * c + 2, out); // LMS output from the top of the symbol's output
    put(regions, 4 * c + 3, -1);
  }

  // S scan.
  if (ring != 0) startPrefetch<C>(mailbox, t, sa, n, left + 1, right, true, true, ring);
  if (teamArea != 0) {
    sharedDenseScan(t, sa, regions, left + 1, right, d, true, mailbox, team, teamArea);
  } else {
    denseScan<C>(t, sa, n, regions, cache, left + 1, right, d, true, mailbox, ring);
  }
  if (ring != 0) finishPrefetch(mailbox);

  // The output's marks say "differs from the entry above" (written downwards), and the top entry
  // of each symbol is marked: shifted up by one, they are NEW_NAME.
  let names = 0;
  let carry = NEW_NAME;
  for (let i = 0; i < m; i++) {
    const v = get(sa, i);
    put(sa, i, (v & ~MARK) | carry);
    names += <i32>(<u32>carry >> 31);
    carry = v & MARK;
  }
  memory.fill(sa + (<usize>m << 2), 0, <usize>(n - m) << 2);
  writeAllNames(sa, n, m, mailbox);
  lmsNames = names;
  return m;
}

/** Slots of one chunk's class counts in countAndGatherShared (byte texts). */
@inline const DENSE_CHUNK_SLOTS: i32 = 4 * BYTE_ALPHABET;

/** Where chunk c of countAndGatherShared counts: after the dense stage's own tables. */
@inline function denseChunkTable(sa: usize, n: i32, c: i32): usize {
  return sa + (<usize>(n + denseStage1Slots<u8>(BYTE_ALPHABET) + c * DENSE_CHUNK_SLOTS) << 2);
}

/**
 * sortLmsSubstringsDense's first scan with the helper: each chunk of positions [from, to) counts
 * the classes of positions from + 1 .. to in a table of its own and gathers its LMS positions at
 * the top of its own stretch SA[from + 1 .. to] (the branch-free write of a non-LMS position
 * stays inside it: a chunk has fewer LMS positions than positions). Then the tables are summed
 * into `counts` and the lists moved up, from the last chunk down, to the top of SA in the
 * sequential scan's order (each moves up: the LMS positions right of a chunk's start are at most
 * half of them). Returns g: the gathered list is SA[g + 1 .. n).
 */
function countAndGatherShared(t: usize, sa: usize, n: i32, counts: usize, mailbox: usize, chunks: i32): i32 {
  memory.fill(counts, 0, <usize>DENSE_CHUNK_SLOTS << 2);
  chunkEndStates<u8>(t, n, mailbox, chunks);
  shareChunks(mailbox, COMMAND_DENSE_COUNT, t, 0, sa, n, 0, n - 1, chunks, 0);
  for (let c = 0; c < chunks; c++) {
    const table = denseChunkTable(sa, n, c);
    for (let x = 0; x < DENSE_CHUNK_SLOTS; x++) put(counts, x, get(counts, x) + get(table, x));
  }
  let top = n;
  const saved = mailbox + MAIL_TEXT_LMS;
  for (let c = chunks - 1; c >= 0; c--) {
    const length = load<i32>(mailbox + MAIL_COUNTS + (<usize>(MAX_CHUNKS + c) << 2));
    const to = chunkStart(n - 1, chunks, c + 1);
    moveUp(sa, to + 1 - length, top - length, length);
    top -= length;
    put(saved, c, length);
  }
  for (let c = 0; c < BYTE_ALPHABET; c++) put(saved, MAX_CHUNKS + c, get(counts, 4 * c + 1));
  return top - 1;
}

/**
 * The first scan of sortLmsSubstringsDense over positions from + 1 .. to, right to left from the
 * state at `to` (S type or not): counts their classes in table[4c + class] (4k slots, zeroed here)
 * and gathers their LMS positions, descending, at the top of SA[from + 1 .. to] (every position is
 * written at SA[g]; g moves down past an LMS one). Returns how many it gathered.
 */
function countAndGather<C>(t: usize, sa: usize, from: i32, to: i32, toIsS: i32, table: usize, k: i32): i32 {
  memory.fill(table, 0, <usize>(4 * k) << 2);
  let g = to;
  let c1 = chr<C>(t, to);
  let nextIsS = toIsS;
  for (let i = to - 1; i >= from; i--) {
    const c0 = chr<C>(t, i);
    const isS = <i32>(c0 < c1 + nextIsS);
    const slot = table + (<usize>((c1 << 2) | positionClass(nextIsS, isS)) << 2);
    store<i32>(slot, load<i32>(slot) + 1);
    put(sa, g, i + 1);
    g -= nextIsS & ~isS;
    nextIsS = isS;
    c1 = c0;
  }
  return to - g;
}

/**
 * One scan of sortLmsSubstringsDense over SA[from..to): upwards (the L scan: p - 1 to the bottom
 * of region 2c + (p - 2 is L type)) or downwards (the S scan: to the top of region 2c + (p - 1 is
 * LMS)). Block by block as induceFinalBlocked: first the steps (T[p-2], T[p-1]) of a block's
 * entries (independent loads), then the inductions; an entry written into the block after its step
 * was loaded (at or past `dirty`) loads it again, and so does a slot not yet written (its stale
 * value is clamped to a readable position). Returns the count of marks read.
 */
@inline function denseScan<C>(t: usize, sa: usize, n: i32, regions: usize, cache: usize, from: i32, to: i32, d: i32, sScan: bool, mailbox: usize, ring: usize): i32 {
  for (let block = 0; block < to - from; block += INDUCE_BLOCK) {
    const start = sScan ? max(to - block - INDUCE_BLOCK, from) : from + block;
    const end = sScan ? to - block : min(start + INDUCE_BLOCK, to);
    const ringWindow = readySteps(sa, mailbox, ring, block / INDUCE_BLOCK);
    if (ringWindow != 0) {
      d = denseWindow<C>(t, sa, regions, ringWindow, start, end, d, sScan, true);
    } else {
      loadSteps<C>(t, sa, n, cache, start, end, true, sScan);
      d = denseWindow<C>(t, sa, regions, cache, start, end, d, sScan, false);
    }
  }
  return d;
}

/** denseScan's inductions from the entries of SA[start..end), their steps cached (fromRing: in
 * the ring's window, where they must be the entry's). */
@inline function denseWindow<C>(t: usize, sa: usize, regions: usize, cache: usize, start: i32, end: i32, d: i32, sScan: bool, fromRing: bool): i32 {
  let dirty = sScan ? start - 1 : end;
  for (let x = 0; x < end - start; x++) {
    const i = sScan ? end - 1 - x : start + x;
    const v = get(sa, i);
    d += <i32>(<u32>v >> 31);
    const p = v & ~MARK;
    // The rare reload loads the symbols one by one, which keeps this a branch: one load of a
    // selected address would chain every entry's load to the previous entry's write.
    let above = false;
    let c = 0;
    let fresh = sScan ? i > dirty : i < dirty;
    let step: u32 = 0;
    if (fromRing) {
      const loaded = load<u64>(cache + (<usize>(i - start) << 3));
      fresh = fresh && <i32>(loaded >> 32) == v;
      step = <u32>loaded;
    } else {
      step = loadStep<C>(cache, i - start, true);
    }
    if (fresh) {
      above = stepAbove<C>(step, sScan);
      c = stepSymbol<C>(step);
    } else {
      const before = chr<C>(t, p - 2);
      c = chr<C>(t, p - 1);
      above = sScan ? before > c : before >= c;
    }
    const pos = denseInduce(sa, regions, c, above, p, d, sScan);
    dirty = sScan ? max(dirty, pos) : min(dirty, pos);
  }
  return d;
}

/** p - 1 induced into region (c, above) of a dense scan, marked when the region's last count of
 * marks differs from d (see sortLmsSubstringsDense). Returns its slot. */
@inline function denseInduce(sa: usize, regions: usize, c: i32, above: bool, p: i32, d: i32, sScan: bool): i32 {
  const region = regions + (<usize>((c << 1) | <i32>above) << 3);
  const pos = load<i32>(region) - <i32>sScan;
  store<i32>(region, pos + <i32>!sScan);
  const previous = load<i32>(region, 4);
  store<i32>(region, d, 4);
  put(sa, pos, (p - 1) | (<i32>(previous != d) << 31));
  return pos;
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

// Stage 1 induction that names the LMS substrings as it sorts them (the idea of libsais' partial
// sorting scans): equal LMS prefixes are contiguous in each scan, so a scan counts the classes it
// has read (d) and an entry induced into bucket c starts a new class exactly when its inducer's
// class differs from that of the entry induced into c before it. Each entry carries "my class
// differs from the entry read before me" in bit 30, stored as bit 30 != bit 31 (groupBreak), which
// leaves the sign and the position (< 2^30) as induceStage1 has them. Two handovers keep it exact:
// the L scan gives each entry it leaves for the S scan the mark against the next such entry to its
// right (the S scan reads right to left), and the S scan leaves on each LMS entry the mark against
// the LMS entry to its left: the NEW_NAME of the gathered list. heads: 2k slots, interleaving each
// bucket's head with the class last induced into it (one cache line for both at large k).
function induceStage1Named<C>(t: usize, sa: usize, n: i32, counts: usize, buckets: usize, k: i32, heads: usize): void {
  markLmsClasses(sa, counts, buckets, k);
  namedHeads(heads, counts, k, false);
  // The sentinel is class 0 on its own; every class read from SA is 1 or more.
  induceNamed<C>(t, sa, heads, n - 1, 0, false);
  namedScan<C>(t, sa, n, heads, false);
  namedHeads(heads, counts, k, true);
  namedScan<C>(t, sa, n, heads, true);
}

/** One scan of induceStage1Named, left to right (L scan) or right to left (S scan): an entry that
 * induces is cleared; an entry left for later (negative: for the S scan, or an LMS suffix after it)
 * is restored (flipped to its position for the S scan; as it is after it) and marked when its class
 * differs from that of the next such entry in the scan's order, the last one always. */
@inline function namedScan<C>(t: usize, sa: usize, n: i32, heads: usize, sScan: bool): void {
  let d = 0;
  let kept = -1; // the last entry left, and its class
  let keptClass = 0;
  for (let i = sScan ? n - 1 : 0; sScan ? i >= 0 : i < n; i += sScan ? -1 : 1) {
    const v = get(sa, i);
    if (v == 0) continue;
    const mark = groupBreak(v);
    const p = v ^ (mark << 30);
    d += mark;
    if (p > 0) {
      put(sa, i, 0);
      induceNamed<C>(t, sa, heads, p - 1, d, sScan);
    } else if (p < 0) {
      put(sa, i, sScan ? p : ~p);
      if (kept >= 0) put(sa, kept, get(sa, kept) ^ (<i32>(keptClass != d) << 30));
      kept = i;
      keptClass = d;
    } else {
      put(sa, i, 0); // suffix 0, kept only for its mark
    }
  }
  if (kept >= 0) put(sa, kept, get(sa, kept) ^ GROUP_BREAK); // in the S scan: the first LMS substring is new
}

/** induceL with classes: j joins its bucket, at the head in the L scan (j is L type; negative
 * when j - 1 is S type, left for the S scan) or at the end in the S scan (j is S type; negative
 * when j is LMS: it induces nothing more), marked when the class `d` of its inducer differs from
 * that of the entry induced into the bucket before it. */
@inline function induceNamed<C>(t: usize, sa: usize, heads: usize, j: i32, d: i32, sScan: bool): void {
  const c = chr<C>(t, j);
  const head = heads + (<usize>c << 3);
  const pos = load<i32>(head) - <i32>sScan;
  store<i32>(head, pos + <i32>!sScan);
  const previous = load<i32>(head, 4);
  store<i32>(head, d, 4);
  const before = chr<C>(t, j - 1);
  const otherType = sScan ? before > c : before < c;
  put(sa, pos, select<i32>(~j, j, (j > 0) & otherType) ^ (<i32>(previous != d) << 30));
}

/** Marks the lowest LMS entry of each bucket (buckets[c], as placed): a bucket's LMS entries are
 * one class, the next bucket's another. */
function markLmsClasses(sa: usize, counts: usize, buckets: usize, k: i32): void {
  let end = 0;
  for (let c = 0; c < k; c++) {
    end += get(counts, c);
    const first = get(buckets, c);
    if (first < end) put(sa, first, get(sa, first) | GROUP_BREAK);
  }
}

/** Bucket starts (or ends) in heads[2c], no class yet (-1) in heads[2c + 1]. */
function namedHeads(heads: usize, counts: usize, k: i32, end: bool): void {
  let sum = 0;
  for (let c = 0; c < k; c++) {
    const count = get(counts, c);
    if (end) sum += count;
    put(heads, 2 * c, sum);
    put(heads, 2 * c + 1, -1);
    if (!end) sum += count;
  }
}

/** Bit 30 of a stage-1 entry whose value (sign and position < 2^30) leaves it equal to bit 31. */
@inline const GROUP_BREAK: i32 = 1 << 30;

/** Texts up to this length keep bit 30 of every position free for induceStage1Named's marks. */
@inline const MAX_NAMED_LENGTH: i32 = 1 << 30;

/** 1 when the entry's class differs from that of the entry read before it, else 0. */
@inline function groupBreak(v: i32): i32 {
  return <i32>(<u32>(v ^ (v << 1)) >> 31);
}

// Stage 3 induction over sorted LMS suffixes. L scan: positive p induces p - 1 (L type) and is
// then flipped negative (final, nothing left to induce); negative ~p is flipped to p for the S
// scan. S scan: positive p induces p - 1 (S type) and stays; negative entries are restored. When
// done every entry is a non-negative suffix position in sorted order.
function induceFinal<C>(t: usize, sa: usize, n: i32, counts: usize, buckets: usize, k: i32): void {
  bucketBounds<C>(t, n, counts, buckets, k, false);
  induceL<C>(t, sa, buckets, n - 1); // the sentinel's predecessor
  for (let i = 0; i < n; i++) finalStepL<C>(t, sa, buckets, i);
  bucketBounds<C>(t, n, counts, buckets, k, true);
  for (let i = n - 1; i >= 0; i--) finalStepS<C>(t, sa, buckets, i);
}

/** induceFinal's L scan at entry x. */
@inline function finalStepL<C>(t: usize, sa: usize, buckets: usize, x: i32): void {
  const p = get(sa, x);
  put(sa, x, ~p);
  if (p > 0) induceL<C>(t, sa, buckets, p - 1);
}

/** induceFinal's S scan at entry x. */
@inline function finalStepS<C>(t: usize, sa: usize, buckets: usize, x: i32): void {
  const p = get(sa, x);
  if (p > 0) {
    const j = p - 1;
    const c = chr<C>(t, j);
    const pos = get(buckets, c) - 1;
    put(buckets, c, pos);
    // j - 1 is L type (or absent) when T[j-1] > T[j]: j then induces nothing in this scan.
    put(sa, pos, select<i32>(~j, j, (j == 0) | (chr<C>(t, j - 1) > c)));
  } else {
    put(sa, x, ~p);
  }
}

// induceFinal with the same invariants, done block by block in two passes: the first pass loads
// the step (see stepAt) of every entry of the block into a cache (independent loads, so many
// cache misses are in flight at once: suffix sorting is bound by their latency), the second pass
// induces from the cached steps. An entry written into the block after its step was cached makes
// that step stale: `dirty` bounds the positions written so far, whose steps are reloaded. With a
// ring (0: none), the helper loads steps ahead of both scans (see "prefetching a scan's steps").
function induceFinalBlocked<C>(t: usize, sa: usize, n: i32, counts: usize, buckets: usize, k: i32, cache: usize, mailbox: usize, ring: usize): void {
  bucketBounds<C>(t, n, counts, buckets, k, false);
  induceL<C>(t, sa, buckets, n - 1); // the sentinel's predecessor
  finalScan<C>(t, sa, n, 0, n, buckets, cache, mailbox, ring, false, false, false, 0);
  bucketBounds<C>(t, n, counts, buckets, k, true);
  finalScan<C>(t, sa, n, 0, n, buckets, cache, mailbox, ring, true, false, false, 0);
}

/**
 * One scan of induceFinalBlocked over SA[from..to), window by window: the L scan upwards, the S
 * scan downwards. stage1 and spilling (constants) as in induceCachedL / induceCachedS: the
 * windowed scans beyond this memory (windowScan) spill what they induce outside [from, to).
 */
@inline function finalScan<C>(
  t: usize, sa: usize, n: i32, from: i32, to: i32, buckets: usize, cache: usize, mailbox: usize, ring: usize,
  sScan: bool, stage1: bool, spilling: bool, spill: usize,
): void {
  if (ring != 0) startPrefetch<C>(mailbox, t, sa, n, from, to, sScan, false, ring);
  for (let w = 0; w * INDUCE_BLOCK < to - from; w++) {
    const start = windowStart(from, to, w, sScan);
    const end = windowEnd(from, to, w, sScan);
    const ringWindow = readySteps(sa, mailbox, ring, w);
    if (ringWindow != 0) {
      induceCached<C>(t, sa, buckets, ringWindow, start, end, true, sScan, stage1, spilling, from, to, spill);
    } else {
      loadSteps<C>(t, sa, n, cache, start, end, false, sScan);
      induceCached<C>(t, sa, buckets, cache, start, end, false, sScan, stage1, spilling, from, to, spill);
    }
  }
  if (ring != 0) finishPrefetch(mailbox);
}

/** The step of entry p at x of a window: from the cache (u32 steps, or the ring's window of
 * (entry << 32 | step), where it must be p's), unless written after the cache was (stale). */
@inline function cachedStep<C>(t: usize, cache: usize, x: i32, p: i32, fresh: bool, fromRing: bool, sScan: bool): u32 {
  if (fromRing) {
    const loaded = load<u64>(cache + (<usize>x << 3));
    return fresh && <i32>(loaded >> 32) == p ? <u32>loaded : stepAt<C>(t, p, sScan);
  }
  return fresh ? loadStep<C>(cache, x, false) : stepAt<C>(t, p, sScan);
}

/** The second pass of a final scan over a window whose steps are cached (spilling outside [from, to)). */
@inline function induceCached<C>(
  t: usize, sa: usize, buckets: usize, cache: usize, start: i32, end: i32, fromRing: bool, sScan: bool,
  stage1: bool, spilling: bool, from: i32, to: i32, spill: usize,
): void {
  if (sScan) {
    induceCachedS<C>(t, sa, buckets, cache, start, end, fromRing, stage1, spilling, from, spill);
  } else {
    induceCachedL<C>(t, sa, buckets, cache, start, end, fromRing, stage1, spilling, to, spill);
  }
}

/**
 * The second pass of the L scan over a window whose steps are cached. stage1: stage 1's L scan
 * (consumed entries cleared, the rest flipped positive) instead of stage 3's (every entry flipped).
 * spilling (byte texts, see induceWindow): an entry induced at or above `limit` is spilled.
 */
@inline function induceCachedL<C>(
  t: usize, sa: usize, buckets: usize, cache: usize, start: i32, end: i32, fromRing: bool,
  stage1: bool, spilling: bool, limit: i32, spill: usize,
): void {
  let dirty = end;
  for (let i = start; i < end; i++) {
    const p = get(sa, i);
    put(sa, i, stage1 ? select<i32>(0, ~p, p >= 0) : ~p);
    if (p > 0) {
      const step = cachedStep<C>(t, cache, i - start, p, i < dirty, fromRing, false);
      const j = p - 1;
      const c = stepSymbol<C>(step);
      const pos = get(buckets, c);
      put(buckets, c, pos + 1);
      const v = select<i32>(~j, j, (j > 0) & !stepAbove<C>(step, false));
      if (!spilling || pos < limit) {
        put(sa, pos, v);
        dirty = min(dirty, pos);
      } else {
        spillPut(spill, c, pos, v, false);
      }
    }
  }
}

/** The second pass of the S scan over a window whose steps are cached (downwards). stage1: stage
 * 1's S scan (consumed entries cleared) instead of stage 3's (negative entries restored).
 * spilling: an entry induced below `limit` is spilled. */
@inline function induceCachedS<C>(
  t: usize, sa: usize, buckets: usize, cache: usize, start: i32, end: i32, fromRing: bool,
  stage1: bool, spilling: bool, limit: i32, spill: usize,
): void {
  let dirty = start - 1;
  for (let i = end - 1; i >= start; i--) {
    const p = get(sa, i);
    if (p > 0) {
      if (stage1) put(sa, i, 0);
      const step = cachedStep<C>(t, cache, i - start, p, i > dirty, fromRing, true);
      const j = p - 1;
      const c = stepSymbol<C>(step);
      const pos = get(buckets, c) - 1;
      put(buckets, c, pos);
      const above = stepAbove<C>(step, true);
      const v = stage1 ? select<i32>(~j, j, (j > 0) & above) : select<i32>(~j, j, (j == 0) | above);
      if (!spilling || pos >= limit) {
        put(sa, pos, v);
        dirty = max(dirty, pos);
      } else {
        spillPut(spill, c, pos, v, true);
      }
    } else if (!stage1) {
      put(sa, i, ~p);
    }
  }
}

// ---- stage 3 of a byte text by blocks shared with the team ----------------------------------------
// The final scans split among the team (the main thread and its helpers), after libsais: a block of
// entries that no induction of the scan can still write into (every slot in it holds what the
// sequential scan would read there) is split into one chunk per member. Each member first reads
// its chunk's entries, loads their steps and counts the symbols they induce (the random loads, all
// members at once); then this thread turns the counts into each chunk's slots in every bucket, in
// chunk order; then each member writes its chunk's induced entries there (the random writes, all
// members at once). The result is the sequential scan's. An L scan's block ends below the first
// bucket head above its start (an L slot there may still be empty), an S scan's above the highest
// bucket tail at or below its top.

/** Team size from which the final scans are shared (the host sets the team: sais.ts saisTuning). */
@inline const SHARED_FINAL_TEAM: i32 = 3;
/** Entries per member in a block of the shared final scans. */
@inline const SHARED_FINAL_CHUNK: i32 = 1 << 14;
/** Blocks shorter than this are scanned here, entry by entry, SHARED_FINAL_MIN at a time. */
@inline const SHARED_FINAL_MIN: i32 = 1 << 12;

/** The team's size (this thread and its helpers) that the host set (saisHelperTeam); 2 when unset. */
@inline function teamOf(mailbox: usize): i32 {
  const team = load<i32>(mailbox + MAIL_TEAM);
  return team >= 2 ? min(team, MAX_CHUNKS) : 2;
}

/** Workspace slots of the shared final scans: a table of 256 counts per chunk, and per entry of a
 * block its induced entry (i32) and symbol (u8). */
@inline function sharedFinalSlots(team: i32): i32 {
  const block = team * SHARED_FINAL_CHUNK;
  return team * BYTE_ALPHABET + block + (block >> 2) + 16;
}

/** induceFinal on a byte text with the team. */
function induceFinalShared(t: usize, sa: usize, n: i32, counts: usize, buckets: usize, work: usize, mailbox: usize, team: i32): void {
  bucketBounds<u8>(t, n, counts, buckets, BYTE_ALPHABET, false);
  induceL<u8>(t, sa, buckets, n - 1); // the sentinel's predecessor
  store<i32>(mailbox + MAIL_FINAL_WORK, <i32>work);
  sharedFinalScan(t, sa, n, buckets, work, mailbox, team, false);
  bucketBounds<u8>(t, n, counts, buckets, BYTE_ALPHABET, true);
  sharedFinalScan(t, sa, n, buckets, work, mailbox, team, true);
}

/**
 * Where a shared block from i ends: at most `most` entries on, up to `limit` (down to it in an S
 * scan), and cut at the nearest of `count` write pointers (i32, `stride` bytes apart) strictly
 * between i and there, at which the scan may still write.
 */
@inline function blockBound(pointers: usize, count: i32, stride: usize, i: i32, most: i32, limit: i32, down: bool): i32 {
  let bound = down ? max(limit, i - most) : min(limit, i + most);
  for (let r = 0; r < count; r++) {
    const p = load<i32>(pointers + <usize>r * stride);
    if (down ? p < i && p > bound : p > i && p < bound) bound = p;
  }
  return bound;
}

/** One final scan with the team: upwards (L) or downwards (S), block by block. */
function sharedFinalScan(t: usize, sa: usize, n: i32, buckets: usize, work: usize, mailbox: usize, team: i32, sScan: bool): void {
  const most = team * SHARED_FINAL_CHUNK;
  // L: the next block is [i, e); S: [s, i)
  let i = sScan ? n : 0;
  while (sScan ? i > 0 : i < n) {
    const bound = blockBound(buckets, BYTE_ALPHABET, 4, i, most, sScan ? 0 : n, sScan);
    const from = sScan ? bound : i;
    const to = sScan ? i : bound;
    if (to - from < SHARED_FINAL_MIN) {
      // entry by entry (always right): a stretch, whatever the bound
      if (sScan) {
        const end = max(0, i - SHARED_FINAL_MIN);
        for (let x = i - 1; x >= end; x--) finalStepS<u8>(t, sa, buckets, x);
        i = end;
      } else {
        const end = min(n, i + SHARED_FINAL_MIN);
        for (let x = i; x < end; x++) finalStepL<u8>(t, sa, buckets, x);
        i = end;
      }
      continue;
    }
    shareChunks(mailbox, COMMAND_FINAL_GATHER, t, <i32>sScan, sa, n, from, to - from, team, work);
    // each chunk's first slot in every bucket, the chunks in scan order
    for (let c = 0; c < BYTE_ALPHABET; c++) {
      let at = get(buckets, c);
      for (let k = 0; k < team; k++) {
        const slot = work + (<usize>(k * BYTE_ALPHABET + c) << 2);
        const count = load<i32>(slot);
        store<i32>(slot, at);
        at = sScan ? at - count : at + count;
      }
      put(buckets, c, at);
    }
    shareChunks(mailbox, COMMAND_FINAL_PLACE, t, <i32>sScan, sa, n, from, to - from, team, work);
    i = sScan ? from : to;
  }
}

/**
 * Chunk k of a shared final scan's block [from, from + entries): its entries in scan order (the S
 * scan's chunk 0 is the block's top), each flipped or restored as the sequential scan leaves it;
 * the entries they induce, and their symbols, listed from the chunk's first cache slot, and
 * counted per symbol in the chunk's table (the count of the list in the mailbox's counts).
 */
function finalGather(t: usize, sa: usize, from: i32, entries: i32, chunks: i32, k: i32, work: usize, sScan: bool, mailbox: usize): void {
  const table = work + (<usize>(k * BYTE_ALPHABET) << 2);
  memory.fill(table, 0, BYTE_ALPHABET << 2);
  const values = work + (<usize>(chunks * BYTE_ALPHABET) << 2);
  const symbols = values + (<usize>(chunks * SHARED_FINAL_CHUNK) << 2);
  const first = chunkStart(entries, chunks, k);
  const count = chunkStart(entries, chunks, k + 1) - first;
  const listed = sScan
    ? finalGatherLoop(t, sa, from, entries, first, count, table, values, symbols, true)
    : finalGatherLoop(t, sa, from, entries, first, count, table, values, symbols, false);
  put(mailbox + MAIL_COUNTS, k, listed);
}

/** finalGather's loop over its chunk's `count` entries (sScan a constant); returns how many it listed. */
@inline function finalGatherLoop(
  t: usize, sa: usize, from: i32, entries: i32, first: i32, count: i32, table: usize, values: usize, symbols: usize, sScan: bool,
): i32 {
  let listed = first;
  for (let x = 0; x < count; x++) {
    const at = blockEntry(from, entries, first, x, sScan);
    const p = get(sa, at);
    const induces = p > 0;
    put(sa, at, sScan ? select<i32>(p, ~p, induces) : ~p);
    // without a branch: every entry is listed, and the list moves on past those that induce
    const step = load<u16>(t + <usize>(select<i32>(p, 2, induces) - 2));
    const c = <i32>(step >> 8);
    const before = <i32>(step & 0xff);
    const j = p - 1;
    put(values, listed, sScan ? select<i32>(~j, j, (j == 0) | (before > c)) : select<i32>(~j, j, (j > 0) & (before < c)));
    store<u8>(symbols + <usize>listed, <u8>c);
    const slot = table + (<usize>c << 2);
    store<i32>(slot, load<i32>(slot) + <i32>induces);
    listed += <i32>induces;
  }
  return listed - first;
}

/** Chunk k of a shared final scan's block: its listed entries written at its slots (finalGather). */
function finalPlace(sa: usize, entries: i32, chunks: i32, k: i32, work: usize, sScan: bool, mailbox: usize): void {
  const table = work + (<usize>(k * BYTE_ALPHABET) << 2);
  const values = work + (<usize>(chunks * BYTE_ALPHABET) << 2);
  const symbols = values + (<usize>(chunks * SHARED_FINAL_CHUNK) << 2);
  const first = chunkStart(entries, chunks, k);
  const end = first + get(mailbox + MAIL_COUNTS, k);
  for (let y = first; y < end; y++) {
    const at = table + (<usize>load<u8>(symbols + <usize>y) << 2);
    const slot = load<i32>(at);
    if (sScan) {
      store<i32>(at, slot - 1);
      put(sa, slot - 1, get(values, y));
    } else {
      store<i32>(at, slot + 1);
      put(sa, slot, get(values, y));
    }
  }
}

// Stage 1's dense scans of a byte text with the team, the same way: a block ends where a region
// could still be written inside it (an LL head above its start in the L scan, an SS head at or
// below its top in the S scan). Every entry of a dense scan induces, so a chunk lists only each
// entry's region (u16), and the place step reads the entries again. The marks: each chunk counts
// those it reads and the last count at which it induced into each region; this thread turns them
// into the count each chunk starts from and the last count of every region before each chunk.

/** Regions of stage 1's dense scans of a byte text (two per symbol). */
@inline const DENSE_REGIONS: i32 = 2 * BYTE_ALPHABET;

/** Workspace slots of the shared dense scans: per chunk a table of 2 x 512 (slots, last counts),
 * and per entry of a block its region (u16). */
@inline function sharedDenseSlots(team: i32): i32 {
  const block = team * SHARED_FINAL_CHUNK;
  return team * 2 * DENSE_REGIONS + (block >> 1) + 16;
}

/** denseScan on a byte text with the team (no cache, no ring). Returns the count of marks read. */
function sharedDenseScan(
  t: usize, sa: usize, regions: usize, from: i32, to: i32, d: i32, sScan: bool, mailbox: usize, team: i32, area: usize,
): i32 {
  const most = team * SHARED_FINAL_CHUNK;
  store<i32>(mailbox + MAIL_FINAL_WORK, <i32>area);
  let i = sScan ? to : from;
  while (sScan ? i > from : i < to) {
    const bound = blockBound(regions, DENSE_REGIONS, 8, i, most, sScan ? from : to, sScan);
    const lo = sScan ? bound : i;
    const hi = sScan ? i : bound;
    if (hi - lo < SHARED_FINAL_MIN) {
      // entry by entry (always right): a stretch, whatever the bound
      if (sScan) {
        const end = max(from, i - SHARED_FINAL_MIN);
        d = denseSteps(t, sa, regions, end, i, d, true);
        i = end;
      } else {
        const end = min(to, i + SHARED_FINAL_MIN);
        d = denseSteps(t, sa, regions, i, end, d, false);
        i = end;
      }
      continue;
    }
    shareChunks(mailbox, COMMAND_DENSE_GATHER, t, <i32>sScan, sa, 0, lo, hi - lo, team, 0);
    // each chunk's first count of marks (in place of its marks), first slot and the last count
    // before it in every region it induces into
    const marks = mailbox + MAIL_COUNTS + (<usize>MAX_CHUNKS << 2);
    for (let k = 0; k < team; k++) {
      const read = get(marks, k);
      put(marks, k, d);
      d += read;
    }
    for (let r = 0; r < DENSE_REGIONS; r++) {
      const region = regions + (<usize>r << 3);
      let head = load<i32>(region);
      let last = load<i32>(region, 4);
      for (let k = 0; k < team; k++) {
        const table = area + (<usize>(k * 2 * DENSE_REGIONS + r) << 2);
        const count = load<i32>(table);
        if (count == 0) continue;
        store<i32>(table, head);
        head = sScan ? head - count : head + count;
        const lastLocal = load<i32>(table, DENSE_REGIONS << 2);
        store<i32>(table, last, DENSE_REGIONS << 2);
        last = get(marks, k) + lastLocal;
      }
      store<i32>(region, head);
      store<i32>(region, last, 4);
    }
    shareChunks(mailbox, COMMAND_DENSE_PLACE, t, <i32>sScan, sa, 0, lo, hi - lo, team, 0);
    i = sScan ? lo : hi;
  }
  return d;
}

/** denseWindow's inductions from SA[start..end) one by one, each step loaded then (upwards, or
 * downwards in the S scan). Returns d. */
function denseSteps(t: usize, sa: usize, regions: usize, start: i32, end: i32, d: i32, sScan: bool): i32 {
  for (let x = 0; x < end - start; x++) {
    const i = sScan ? end - 1 - x : start + x;
    const v = get(sa, i);
    d += <i32>(<u32>v >> 31);
    const p = v & ~MARK;
    const before = chr<u8>(t, p - 2);
    const c = chr<u8>(t, p - 1);
    denseInduce(sa, regions, c, sScan ? before > c : before >= c, p, d, sScan);
  }
  return d;
}

/** The x-th entry (in scan order) of chunk k of a shared scan's block [from, from + entries). */
@inline function blockEntry(from: i32, entries: i32, first: i32, x: i32, sScan: bool): i32 {
  return sScan ? from + entries - 1 - first - x : from + first + x;
}

/** Chunk k of a shared dense scan's block: each entry's region listed (u16, from the chunk's first
 * slot), counted in the chunk's table with the last count of marks at which it was induced into;
 * the chunk's count of marks in the mailbox. */
function denseGather(t: usize, sa: usize, from: i32, entries: i32, chunks: i32, k: i32, area: usize, sScan: bool, mailbox: usize): void {
  const table = area + (<usize>(k * 2 * DENSE_REGIONS) << 2);
  memory.fill(table, 0, DENSE_REGIONS << 2);
  const list = area + (<usize>(chunks * 2 * DENSE_REGIONS) << 2);
  const first = chunkStart(entries, chunks, k);
  const count = chunkStart(entries, chunks, k + 1) - first;
  let marks = 0;
  for (let x = 0; x < count; x++) {
    const v = get(sa, blockEntry(from, entries, first, x, sScan));
    marks += <i32>(<u32>v >> 31);
    const step = load<u16>(t + <usize>((v & ~MARK) - 2));
    const c = <i32>(step >> 8);
    const before = <i32>(step & 0xff);
    const r = (c << 1) | <i32>(sScan ? before > c : before >= c);
    store<u16>(list + (<usize>(first + x) << 1), <u16>r);
    const at = table + (<usize>r << 2);
    store<i32>(at, load<i32>(at) + 1);
    store<i32>(at, marks, DENSE_REGIONS << 2);
  }
  put(mailbox + MAIL_COUNTS + (<usize>MAX_CHUNKS << 2), k, marks);
}

/** Chunk k of a shared dense scan's block: its entries read again and their inductions written at
 * the chunk's slots, marked against the last count before (denseGather, then the kernel's thread). */
function densePlace(sa: usize, from: i32, entries: i32, chunks: i32, k: i32, area: usize, sScan: bool, mailbox: usize): void {
  const table = area + (<usize>(k * 2 * DENSE_REGIONS) << 2);
  const list = area + (<usize>(chunks * 2 * DENSE_REGIONS) << 2);
  const first = chunkStart(entries, chunks, k);
  const count = chunkStart(entries, chunks, k + 1) - first;
  let d = get(mailbox + MAIL_COUNTS + (<usize>MAX_CHUNKS << 2), k);
  for (let x = 0; x < count; x++) {
    const v = get(sa, blockEntry(from, entries, first, x, sScan));
    d += <i32>(<u32>v >> 31);
    const at = table + (<usize>load<u16>(list + (<usize>(first + x) << 1)) << 2);
    const pos = load<i32>(at) - <i32>sScan;
    store<i32>(at, pos + <i32>!sScan);
    const previous = load<i32>(at, DENSE_REGIONS << 2);
    store<i32>(at, d, DENSE_REGIONS << 2);
    put(sa, pos, ((v & ~MARK) - 1) | (<i32>(previous != d) << 31));
  }
}

// ---- level 0 beyond this memory: the induction scans by windows ------------------------------------
// The TypeScript SA-IS (src/cpu/algorithms/sais-large.ts) keeps the SA of a text too large for this
// memory in a plain array, with the text copied here. Its four level-0 scans (stage 1's and stage
// 3's, L and S) run here a window at a time: the host copies a window SA[from..to) in (`sa` is the
// base from which entry i lies at sa + 4i, in u32 arithmetic), the scan induces over it in blocks
// as induceFinalBlocked does, and each entry induced outside the window is spilled: an L scan
// induces above its entry and an S scan below, so an entry induced outside goes to a window not
// yet scanned. A bucket's entries induced outside one window take consecutive positions (upwards
// in an L scan, downwards in an S scan), so they are kept per bucket in chunks of a pool; the host
// copies each chunk to the plain SA (from the descriptors: position, pool offset, length) before
// it loads the window they fall in. Same invariants as induceStage1 and induceFinal.
//
// Spill area (i32 slots): [chunk entries K, chunks in the pool, next free chunk, descriptors]; per
// bucket c at 4 + 3c: (open chunk or -1, its fill, its first position); then 3 slots per chunk of
// descriptors; then the pool. A window of w entries spills at most w entries, so w / K + 256
// chunks always suffice.

/** Kinds of windowed scans: stage 1's L and S scans, stage 3's L and S scans. */
@inline const SCAN_STAGE1_L: i32 = 0;
@inline const SCAN_STAGE1_S: i32 = 1;
@inline const SCAN_FINAL_L: i32 = 2;
@inline const SCAN_FINAL_S: i32 = 3;

/** Slots of the spill area's header and bucket states (byte texts: 256 buckets). */
@inline const SPILL_HEAD: i32 = 4 + 3 * BYTE_ALPHABET;

/** Bytes of a spill area for windows of `window` entries and chunks of `chunk` entries. */
export function spillBytes(window: i32, chunk: i32): i32 {
  const chunks = window / chunk + BYTE_ALPHABET + 1;
  return (SPILL_HEAD + 3 * chunks + chunks * chunk) << 2;
}

/** Bytes of the ring in which the helper prefetches a scan's steps (see "prefetching a scan's steps"). */
export function ringBytes(): i32 {
  return RING_SLOTS << 2;
}

/** Prepares a spill area of spillBytes(window, chunk) bytes. */
export function spillInit(spill: usize, window: i32, chunk: i32): void {
  put(spill, 0, chunk);
  put(spill, 1, window / chunk + BYTE_ALPHABET + 1);
  put(spill, 2, 0);
  put(spill, 3, 0);
  for (let c = 0; c < BYTE_ALPHABET; c++) put(spill, 4 + 3 * c, -1);
}

/** Byte offset of the descriptors (3 slots each) in a spill area. */
export function spillDescriptors(spill: usize): usize {
  return spill + (<usize>SPILL_HEAD << 2);
}

/** Byte offset of the pool in a spill area. */
@inline export function spillPool(spill: usize): usize {
  return spill + (<usize>(SPILL_HEAD + 3 * get(spill, 1)) << 2);
}

/** Entry v induced at pos, outside the window, into bucket c's chunk (a new one when full). */
@inline function spillPut(spill: usize, c: i32, pos: i32, v: i32, down: bool): void {
  const pool = spillPool(spill);
  const state = spill + (<usize>(4 + 3 * c) << 2);
  const chunkEntries = get(spill, 0);
  let chunk = get(state, 0);
  let fill = get(state, 1);
  if (chunk < 0 || fill == chunkEntries) {
    if (chunk >= 0) spillClose(spill, chunk, fill, get(state, 2), chunkEntries, down);
    chunk = get(spill, 2);
    put(spill, 2, chunk + 1);
    fill = 0;
    put(state, 0, chunk);
    put(state, 2, pos);
  }
  const slot = down ? chunk * chunkEntries + chunkEntries - 1 - fill : chunk * chunkEntries + fill;
  put(pool, slot, v);
  put(state, 1, fill + 1);
}

/** A descriptor for a chunk of `fill` entries from position `first` (upwards, or downwards). */
@inline function spillClose(spill: usize, chunk: i32, fill: i32, first: i32, chunkEntries: i32, down: bool): void {
  const d = get(spill, 3);
  const at = spillDescriptors(spill) + (<usize>(3 * d) << 2);
  put(at, 0, down ? first - fill + 1 : first);
  put(at, 1, down ? chunk * chunkEntries + chunkEntries - fill : chunk * chunkEntries);
  put(at, 2, fill);
  put(spill, 3, d + 1);
}

/**
 * One windowed scan (kind: SCAN_*) over SA[from..to) of the byte text t, bucket heads (L scans) or
 * ends (S scans) at `buckets` (256 i32, kept across windows), a block cache of INDUCE_BLOCK u32 at
 * `cache`; with a mailbox and a ring (0: none), the helper prefetches the steps as in
 * induceFinalBlocked. Returns the number of spill descriptors; the pool starts empty at each call.
 */
export function induceWindow(
  kind: i32, t: usize, sa: usize, from: i32, to: i32, buckets: usize, cache: usize, spill: usize, mailbox: usize, ring: usize,
): i32 {
  put(spill, 2, 0);
  put(spill, 3, 0);
  if (kind == SCAN_STAGE1_L) {
    windowScan(t, sa, from, to, buckets, cache, spill, mailbox, ring, true, false);
  } else if (kind == SCAN_FINAL_L) {
    windowScan(t, sa, from, to, buckets, cache, spill, mailbox, ring, false, false);
  } else if (kind == SCAN_STAGE1_S) {
    windowScan(t, sa, from, to, buckets, cache, spill, mailbox, ring, true, true);
  } else {
    windowScan(t, sa, from, to, buckets, cache, spill, mailbox, ring, false, true);
  }
  const chunkEntries = get(spill, 0);
  const down = kind == SCAN_STAGE1_S || kind == SCAN_FINAL_S;
  for (let c = 0; c < BYTE_ALPHABET; c++) {
    const state = spill + (<usize>(4 + 3 * c) << 2);
    const chunk = get(state, 0);
    if (chunk >= 0) {
      spillClose(spill, chunk, get(state, 1), get(state, 2), chunkEntries, down);
      put(state, 0, -1);
    }
  }
  return get(spill, 3);
}

/** finalScan over the window SA[from..to) (stage 3, or stage 1's scans), spilling what it induces
 * outside (n: unused where the steps are not the dense scans'). */
@inline function windowScan(
  t: usize, sa: usize, from: i32, to: i32, buckets: usize, cache: usize, spill: usize, mailbox: usize, ring: usize,
  stage1: bool, sScan: bool,
): void {
  finalScan<u8>(t, sa, 0, from, to, buckets, cache, mailbox, ring, sScan, stage1, true, spill);
}

/**
 * lmsPositions over a window of byte text t at level 0 beyond this memory (see sais-large.ts): the
 * LMS positions i + 1 for i in [from, to), descending, into out[top - count .. top), where out[-1 ..
 * top) are free and top > (to - from) / 2. toIsS: whether position `to` is S type. With counts != 0,
 * counts[c] (256 i32) also counts the LMS positions of first byte c; with bitmap != 0, each LMS
 * position's bit is set there (bit q of u64 word q >> 6). Returns count.
 */
export function lmsWindow(t: usize, from: i32, to: i32, toIsS: i32, out: usize, top: i32, counts: usize, bitmap: usize): i32 {
  const j = counts != 0
    ? lmsPositions<u8>(t, out, from, to, toIsS, top, 0, true, counts)
    : lmsPositions<u8>(t, out, from, to, toIsS, top, 0, false, 0);
  if (bitmap != 0) {
    for (let x = j; x < top; x++) setBit(bitmap, get(out, x));
  }
  return top - j;
}

/**
 * The positions q in [from, to) whose bits are set in `bitmap` (lmsWindow's), ascending, into
 * out[0 .. count); counts[c] (256 i32) counts those with t[q] == c. Returns count. The LMS
 * positions again, in text order, without their types worked out a second time.
 */
export function lmsFromBitmap(t: usize, bitmap: usize, from: u32, to: u32, out: usize, counts: usize): i32 {
  if (from >= to) return 0;
  let count = 0;
  const last = (to - 1) >>> 6;
  for (let w = from >>> 6; w <= last; w++) {
    let bits = load<u64>(bitmap + (<usize>w << 3));
    if (w == from >>> 6) bits &= <u64>-1 << <u64>(from & 63);
    if (w == last && (to & 63) != 0) bits &= (<u64>1 << <u64>(to & 63)) - 1;
    while (bits != 0) {
      const q = (w << 6) + <u32>ctz(bits);
      bits &= bits - 1;
      put(out, count++, <i32>q);
      const at = counts + (<usize>load<u8>(t + <usize>q) << 2);
      store<i32>(at, load<i32>(at) + 1);
    }
  }
  return count;
}

/** Sets bit q of a bitmap of u64 words. */
@inline function setBit(bitmap: usize, q: i32): void {
  const word = bitmap + (<usize>(q >>> 6) << 3);
  store<u64>(word, load<u64>(word) | (<u64>1 << <u64>(q & 63)));
}

/** The first set bit at or after q (one must be set there). */
@inline function nextSetBit(bitmap: usize, q: i32): i32 {
  let w = q >>> 6;
  let bits = load<u64>(bitmap + (<usize>w << 3)) >> <u64>(q & 63);
  if (bits != 0) return q + <i32>ctz(bits);
  do {
    w++;
    bits = load<u64>(bitmap + (<usize>w << 3));
  } while (bits == 0);
  return (w << 6) + <i32>ctz(bits);
}

/** Bits per entry of a rank directory (8 u64 words: one cache line of the bitmap). */
@inline const RANK_BLOCK_BITS: i32 = 512;

/**
 * dir[b] = the bits set in words [0, 8b) of a bitmap of `words` u64 words, for b in [0, words / 8]:
 * with it, rankOf counts the set bits below any position from one entry and one cache line.
 */
export function rankDirectory(bitmap: usize, words: i32, dir: usize): void {
  let total: i32 = 0;
  for (let w = 0; w < words; w++) {
    if ((w & 7) == 0) put(dir, w >>> 3, total);
    total += <i32>popcnt(load<u64>(bitmap + (<usize>w << 3)));
  }
  if ((words & 7) == 0) put(dir, words >>> 3, total);
}

/** The bits set below position q in a bitmap with rank directory dir (rankDirectory's). */
@inline function rankOf(bitmap: usize, dir: usize, q: i32): i32 {
  const w = q >>> 6;
  let rank = get(dir, q >>> 9);
  for (let v = w & ~7; v < w; v++) rank += <i32>popcnt(load<u64>(bitmap + (<usize>v << 3)));
  const below = (<u64>1 << <u64>(q & 63)) - 1;
  return rank + <i32>popcnt(load<u64>(bitmap + (<usize>w << 3)) & below);
}

/**
 * Names of the sorted LMS positions positions[0..count) of byte text t[0..n) (a window of SA[0..m)
 * at level 0 beyond this memory, see sais-large.ts): out[x] = 1 + the number of distinct LMS
 * substrings before or at positions[x], as nameLmsSubstrings in sais-large.ts names them. Each
 * substring's end is the next LMS position, the next bit set in `bitmap` (lmsWindow's, with bit n
 * set for the sentinel). state: (names so far, the previous position, its length), carried from
 * window to window; (0, 0, 0) before the first. With a mailbox (0: none), the helper names chunks
 * of the window: each chunk counts from 0 against the position before it, then the counts before
 * each chunk are added. With ranks (a rank directory of the bitmap, rankDirectory's; 0: none),
 * each positions[x] is replaced by its rank among the LMS positions (the number below it): where
 * its name goes in the reduced string.
 */
export function nameWindow(
  t: usize, n: i32, positions: usize, count: i32, out: usize, state: usize, bitmap: usize, ranks: usize, mailbox: usize,
): void {
  const before = get(state, 0);
  const chunks = mailbox != 0 ? chunksFor(count) : 0;
  const last = get(positions, count - 1);
  if (chunks == 0) {
    put(state, 0, nameRange(t, n, positions, 0, count, out, bitmap, ranks, get(state, 1), get(state, 2), before));
  } else {
    // each chunk's previous position and its length
    const previous = mailbox + MAIL_COUNTS;
    for (let c = 0; c < chunks; c++) {
      const from = chunkStart(count, chunks, c);
      const p = c == 0 ? get(state, 1) : get(positions, from - 1);
      put(previous, c, p);
      put(previous, MAX_CHUNKS + c, c == 0 ? get(state, 2) : nextSetBit(bitmap, p + 1) - p + 1);
    }
    store<i32>(mailbox + MAIL_NAME_OUT, <i32>out);
    store<i32>(mailbox + MAIL_NAME_BITMAP, <i32>bitmap);
    store<i32>(mailbox + MAIL_NAME_RANKS, <i32>ranks);
    shareChunks(mailbox, COMMAND_NAME_WINDOW, t, 0, positions, n, 0, count, chunks, 0);
    let names = before;
    for (let c = 0; c < chunks; c++) {
      const to = chunkStart(count, chunks, c + 1);
      const from = chunkStart(count, chunks, c);
      if (names != 0) {
        for (let x = from; x < to; x++) put(out, x, get(out, x) + names);
      }
      names += get(previous, c); // the chunk's count, where its previous position was
    }
    put(state, 0, names);
  }
  put(state, 1, last);
  put(state, 2, nextSetBit(bitmap, last + 1) - last + 1);
}

/** nameWindow's chunk c of the helper (the chunk's previous position and length in the mailbox's counts). */
function nameChunk(mailbox: usize, t: usize, n: i32, positions: usize, from: i32, to: i32, c: i32): void {
  const previous = mailbox + MAIL_COUNTS;
  const out = <usize><u32>load<i32>(mailbox + MAIL_NAME_OUT);
  const bitmap = <usize><u32>load<i32>(mailbox + MAIL_NAME_BITMAP);
  const ranks = <usize><u32>load<i32>(mailbox + MAIL_NAME_RANKS);
  put(previous, c, nameRange(t, n, positions, from, to, out, bitmap, ranks, get(previous, c), get(previous, MAX_CHUNKS + c), 0));
}

/**
 * out[x] for x in [from, to): the names of positions[x] counted from `names`, against the position
 * `prev` (of length prevLength; 0 when there is none) before positions[from]; with ranks, positions[x]
 * replaced by its rank (see nameWindow). Returns the last name.
 */
function nameRange(
  t: usize, n: i32, positions: usize, from: i32, to: i32, out: usize, bitmap: usize, ranks: usize, prev: i32, prevLength: i32,
  names: i32,
): i32 {
  let sink: u64 = 0;
  for (let x0 = from; x0 < to; x0 += NAME_BLOCK) {
    const x1 = min(to, x0 + NAME_BLOCK);
    // the block's first bytes and bitmap words, independent loads, many misses in flight; then the
    // work from cache
    for (let x = x0; x < x1; x++) {
      const p = get(positions, x);
      sink += <u64>load<u8>(t + <usize>p) + load<u64>(bitmap + (<usize>(p >>> 6) << 3));
      if (ranks != 0) sink += <u64>get(ranks, p >>> 9);
    }
    for (let x = x0; x < x1; x++) {
      const p = get(positions, x);
      const length = nextSetBit(bitmap, p + 1) - p + 1;
      // (length <= n - p, not p + length <= n: that overflows i32 for the substring that ends at
      // the sentinel of a text of 2^31 - 1 bytes)
      let same = length == prevLength && length <= n - p && length <= n - prev;
      if (same) {
        let d = 0;
        for (; d + 8 <= length; d += 8) {
          if (load<u64>(t + <usize>(p + d)) != load<u64>(t + <usize>(prev + d))) break;
        }
        for (; d < length; d++) {
          if (load<u8>(t + <usize>(p + d)) != load<u8>(t + <usize>(prev + d))) break;
        }
        same = d == length;
      }
      if (!same) {
        names++;
        prev = p;
        prevLength = length;
      }
      put(out, x, names);
      if (ranks != 0) put(positions, x, rankOf(bitmap, ranks, p));
    }
  }
  nameSink = sink;
  return names;
}

/** Keeps nameRange's first loads from being optimised away. */
let nameSink: u64 = 0;

// ---- prefetching a scan's steps ----------------------------------------------------------------
// The induction scans are bound by the random loads of their entries' steps (T[p-2], T[p-1], see
// stepAt), which they load window by window before inducing from them. With the helper, the
// helper loads every second window's steps ahead of the scan into a ring in the workspace, and
// the scan loads the others itself; a helper with time to spare (its windows loaded as far as the
// ring reaches) loads the scan's windows too, nearest first, and the scan takes every window it
// finds loaded. With a team, every member but the scan's thread prefetches, a window in turn each
// from window 1 on, and the scan's thread only induces (and loads a window itself only where it
// catches up with them). A ring entry keeps the entry it was loaded for (the step is a function
// of it), and the scan takes the step only where its entry is still that one: an entry written
// after a prefetcher read the slot is loaded by the scan. So the result never depends on the
// prefetchers' timing; without them the scan loads every window itself.
//
// Ring (RING_SLOTS at `ring`): RING_WINDOWS windows of INDUCE_BLOCK u64 (entry << 32 | step) and
// a tag per window (1 + the window's number once its steps are written, minus that while they are
// being written: the scan waits a little for such a window instead of loading it too). A
// prefetcher writes window w only while the scan is past window w - RING_WINDOWS
// (MAIL_SCAN_WINDOW, which the scan publishes), and the scan reads a window's steps only after
// its tag, so they never touch one window at once; tags and the scan's window are atomic, which
// orders the plain stores.

/** Windows of the ring. */
@inline const RING_WINDOWS: i32 = 32;
/** Slots of the ring. */
@inline const RING_SLOTS: i32 = RING_WINDOWS * (2 * INDUCE_BLOCK + 1);
/** The scan loads every SCAN_SHARE-th window itself unless the helper got there first, the helper
 * the others (its windows cost it about as much as the scan's own window and inducing two). */
@inline const SCAN_SHARE: i32 = 2;
/** The scan publishes its window every SCAN_PUBLISH windows. */
@inline const SCAN_PUBLISH: i32 = 4;
/** Polls of the tag of the window the helper is loading before the scan loads it itself. */
@inline const RING_POLLS: i32 = 1 << 13;

@inline function ringSteps(ring: usize, window: i32): usize {
  return ring + (<usize>((window % RING_WINDOWS) * INDUCE_BLOCK) << 3);
}

@inline function ringTag(ring: usize, window: i32): usize {
  return ring + (<usize>(RING_WINDOWS * 2 * INDUCE_BLOCK + window % RING_WINDOWS) << 2);
}

/** Window w of a scan over SA[from..to): upwards [from + w B, ..), downwards (.., to - w B]. */
@inline function windowStart(from: i32, to: i32, w: i32, down: bool): i32 {
  return down ? max(to - (w + 1) * INDUCE_BLOCK, from) : from + w * INDUCE_BLOCK;
}

@inline function windowEnd(from: i32, to: i32, w: i32, down: bool): i32 {
  // (from + (w + 1) B would overflow i32 in the last window of a text near 2^31 bytes)
  return down ? to - w * INDUCE_BLOCK : from + min((w + 1) * INDUCE_BLOCK, to - from);
}

/** The position q whose step an entry needs: in the final scans q = the entry (entries <= 0 need
 * none); in the dense scans q = the entry without its mark, clamped (see denseScan). */
@inline function stepPosition(v: i32, n: i32, dense: bool): i32 {
  if (dense) {
    const p = v & ~MARK;
    return select<i32>(p, 2, <u32>(p - 2) < <u32>(n - 2));
  }
  return select<i32>(v, 2, v > 0);
}

/** Block caches hold u16 steps for the byte texts' dense scans, u32 ones otherwise. */
@inline function stepShift<C>(dense: bool): usize {
  return sizeof<C>() == 1 && dense ? 1 : 2;
}

@inline function storeStep<C>(cache: usize, x: i32, step: u32, dense: bool): void {
  if (stepShift<C>(dense) == 1) {
    store<u16>(cache + (<usize>x << 1), <u16>step);
  } else {
    store<u32>(cache + (<usize>x << 2), step);
  }
}

@inline function loadStep<C>(cache: usize, x: i32, dense: bool): u32 {
  return stepShift<C>(dense) == 1 ? <u32>load<u16>(cache + (<usize>x << 1)) : load<u32>(cache + (<usize>x << 2));
}

/** Clears the ring and posts the helper's part of a scan over SA[from..to). */
function startPrefetch<C>(mailbox: usize, t: usize, sa: usize, n: i32, from: i32, to: i32, down: bool, dense: bool, ring: usize): void {
  memory.fill(ringTag(ring, 0), 0, <usize>RING_WINDOWS << 2);
  atomic.store<i32>(mailbox + MAIL_SCAN_WINDOW, 0);
  atomic.store<i32>(mailbox + MAIL_RING, <i32>ring);
  const flags = (<i32>down) | (<i32>dense << 1) | (<i32>(sizeof<C>() == 4) << 2) | (<i32>(sizeof<C>() == 2) << 3);
  postCommand(mailbox, COMMAND_PREFETCH, t, flags, sa, n, from, to - from, prefetchersOf(mailbox));
}

/** Tells the prefetchers that the scan is over, and waits for those that started to leave the ring. */
function finishPrefetch(mailbox: usize): void {
  atomic.store<i32>(mailbox + MAIL_SCAN_WINDOW, i32.MAX_VALUE);
  finishChunks(mailbox, COMMAND_PREFETCH, 0, 0, 0, 0, 0, 0, prefetchersOf(mailbox), 0);
}

/** The prefetchers of a scan: the helper and the team's other members (a chunk each). */
@inline function prefetchersOf(mailbox: usize): i32 {
  return max(1, teamOf(mailbox) - 1);
}

/** Window w's steps in the ring (its u64 (entry << 32 | step) slots), or 0 where the helper has not
 * loaded them: then the scan loads them itself (loadSteps). Publishes the scan's window first.
 * Without a ring (0) every window is the scan's. */
@inline function readySteps(sa: usize, mailbox: usize, ring: usize, w: i32): usize {
  if (ring == 0) return 0;
  // Published every few windows only: a seq-cst store waits for the scan's pending stores.
  if (w % SCAN_PUBLISH == 0) atomic.store<i32>(mailbox + MAIL_SCAN_WINDOW, w);
  // Loaded by a prefetcher (tag w + 1), or being loaded (-(w + 1): wait a little), or not (load here).
  const tag = ringTag(ring, w);
  const seen = atomic.load<i32>(tag);
  let ready = seen == w + 1;
  if (seen == -(w + 1)) {
    for (let polls = 0; !ready && polls < RING_POLLS; polls++) ready = atomic.load<i32>(tag) == w + 1;
  }
  return ready ? ringSteps(ring, w) : 0;
}

/** The steps of SA[start..end) into `cache` (u16 each in the byte texts' dense scans, else u32). */
@inline function loadSteps<C>(t: usize, sa: usize, n: i32, cache: usize, start: i32, end: i32, dense: bool, sScan: bool): void {
  for (let i = start; i < end; i++) {
    storeStep<C>(cache, i - start, stepAt<C>(t, stepPosition(get(sa, i), n, dense), sScan), dense);
  }
}

/** The helper's part of a scan: its windows (those not a multiple of SCAN_SHARE) ahead of the
 * scan, at most RING_WINDOWS - 1 ahead, then the scan's ones in that reach; their entries and
 * steps go into the ring. It skips to the scan's window whenever the scan passed it, and returns
 * once the scan is over. flags: down, dense, i32 symbols, u16 symbols (bits 0-3; neither: bytes). */
function prefetchScan(t: usize, sa: usize, n: i32, from: i32, to: i32, flags: i32, mailbox: usize, index: i32, prefetchers: i32): void {
  const down = (flags & 1) != 0;
  const dense = (flags & 2) != 0;
  if ((flags & 4) != 0) {
    prefetchWindows<i32>(t, sa, n, from, to, down, dense, mailbox, index, prefetchers);
  } else if ((flags & 8) != 0) {
    prefetchWindows<u16>(t, sa, n, from, to, down, dense, mailbox, index, prefetchers);
  } else {
    prefetchWindows<u8>(t, sa, n, from, to, down, dense, mailbox, index, prefetchers);
  }
}

/** Prefetcher `index` of `prefetchers`. One (the helper) takes the windows that are not a multiple
 * of SCAN_SHARE, then the scan's ones in reach; several take a window in `prefetchers` each from
 * window 1 on (round robin), and the scan only induces unless it catches up with them. */
@inline function prefetchWindows<C>(
  t: usize, sa: usize, n: i32, from: i32, to: i32, down: bool, dense: bool, mailbox: usize, index: i32, prefetchers: i32,
): void {
  const ring = <usize><u32>atomic.load<i32>(mailbox + MAIL_RING);
  const windows = (to - from + INDUCE_BLOCK - 1) / INDUCE_BLOCK;
  let own = prefetchers == 1 ? 1 : 1 + index; // the next of its own windows
  let extra = 0; // the next of the scan's windows it may load when its own are done (one prefetcher)
  for (;;) {
    const scan = atomic.load<i32>(mailbox + MAIL_SCAN_WINDOW);
    if (scan >= windows) return;
    const limit = min(windows, scan + RING_WINDOWS); // the ring's end
    let w = own;
    if (prefetchers != 1) {
      // past the scan's published window (it may be up to SCAN_PUBLISH - 1 further)
      while (w <= scan) w += prefetchers;
      own = w;
      if (w >= windows) return;
      if (w >= limit) continue; // wait
      own += prefetchers;
    } else {
      own = max(own, scan + 1);
      if (own % SCAN_SHARE == 0) own++;
      w = own;
      if (own < limit) {
        own++;
      } else {
        // Ahead as far as the ring goes: the scan's windows too, nearest first, past where the
        // scan may already be (it publishes every SCAN_PUBLISH windows).
        extra = max(extra, scan + SCAN_PUBLISH);
        extra += (SCAN_SHARE - extra % SCAN_SHARE) % SCAN_SHARE;
        if (extra >= limit) continue; // wait
        w = extra;
        extra += SCAN_SHARE;
      }
    }
    atomic.store<i32>(ringTag(ring, w), -(w + 1)); // being loaded (readySteps waits a little)
    const steps = ringSteps(ring, w);
    const start = windowStart(from, to, w, down);
    const end = windowEnd(from, to, w, down);
    // One loop per (dense, down), their flags constants in it: a short loop keeps more of its
    // loads in flight (the scan's own loadSteps is as short).
    if (dense) {
      if (down) ringFill<C>(t, sa, n, steps, start, end, true, true);
      else ringFill<C>(t, sa, n, steps, start, end, true, false);
    } else {
      if (down) ringFill<C>(t, sa, n, steps, start, end, false, true);
      else ringFill<C>(t, sa, n, steps, start, end, false, false);
    }
    atomic.store<i32>(ringTag(ring, w), w + 1);
  }
}

/** The entries of SA[start..end) and their steps, as u64 (entry << 32 | step), into a ring window. */
@inline function ringFill<C>(t: usize, sa: usize, n: i32, steps: usize, start: i32, end: i32, dense: bool, sScan: bool): void {
  for (let i = start; i < end; i++) {
    const v = get(sa, i);
    const step = stepAt<C>(t, stepPosition(v, n, dense), sScan);
    store<u64>(steps + (<usize>(i - start) << 3), (<u64><u32>v << 32) | <u64>step);
  }
}

/** Writes the length of every LMS substring to SA[m + (p >> 1)] and zeroes the rest of SA[m..n). */
function lmsLengths<C>(t: usize, sa: usize, n: i32, m: i32): void {
  memory.fill(sa + (<usize>m << 2), 0, <usize>(n - m) << 2);
  lmsLengthsChunk<C>(t, sa, n, m, 0, n - 1, 0, n);
  put(sa, n - 1, 0); // the sink
}

/**
 * lmsLengths' scan of the positions from <= i < to (right to left), for the LMS positions i + 1,
 * starting from the state the scan has at `to`: whether `to` is S type, and the next LMS
 * position after it (n for none). For to = n - 1: L type (T[n-1] > the sentinel), none.
 */
function lmsLengthsChunk<C>(t: usize, sa: usize, n: i32, m: i32, from: i32, to: i32, toIsS: i32, nextLms: i32): void {
  // An LMS substring runs to the next LMS position inclusive; the last one runs to the sentinel,
  // so its length n - p + 1 reaches past T and marks it unique. Without a branch (LMS positions
  // come at random): non-LMS positions write to SA[n-1], a slot no LMS position uses (p <= n - 2
  // and m <= (n - 1) / 2 put every slot at or below n - 2), zeroed by the caller.
  const sink = sa + (<usize>(n - 1) << 2);
  let next = nextLms;
  let c1 = chr<C>(t, to);
  let nextIsS = toIsS;
  for (let i = to - 1; i >= from; i--) {
    const c0 = chr<C>(t, i);
    const isS = <i32>(c0 < c1 + nextIsS);
    const isLms = (nextIsS & ~isS) != 0;
    store<i32>(select<usize>(sa + (<usize>(m + ((i + 1) >> 1)) << 2), sink, isLms), next - i);
    next = select<i32>(i + 1, next, isLms);
    nextIsS = isS;
    c1 = c0;
  }
}

/**
 * The state lmsLengths' scan has at the end `to` of every chunk of the positions [0, n - 1), for
 * lmsLengthsChunk: S type or not in COUNTS[c], the next LMS position in COUNTS[MAX_CHUNKS + c].
 * From the last chunk down, each from the runs of equal symbols after `to`, walked no further
 * than the next chunk's end, whose state is known: O(n) in all, O(chunks) for most texts.
 */
function chunkEndStates<C>(t: usize, n: i32, mailbox: usize, chunks: i32): void {
  const types = mailbox + MAIL_COUNTS;
  const nexts = types + (<usize>MAX_CHUNKS << 2);
  put(types, chunks - 1, 0); // n - 1: L type, nothing after it
  put(nexts, chunks - 1, n);
  for (let c = chunks - 2; c >= 0; c--) {
    const to = chunkStart(n - 1, chunks, c + 1);
    const limit = chunkStart(n - 1, chunks, c + 2); // the next chunk's end, whose state is known
    // Runs [start, end] from `to`; a run reaching `limit` has limit's type, and then no run starts
    // between it and `limit`, so the next LMS position is limit's unless the run starts one.
    let isS = 0;
    let next = -1;
    let previousIsS = 0;
    let start = to;
    for (;;) {
      let end = start;
      while (end < limit && chr<C>(t, end) == chr<C>(t, end + 1)) end++;
      isS = end == limit ? get(types, c + 1) : <i32>(chr<C>(t, end) < chr<C>(t, end + 1));
      if (start == to) {
        put(types, c, isS);
      } else if (isS & ~previousIsS) {
        next = start;
        break;
      }
      if (end == limit) break;
      previousIsS = isS;
      start = end + 1;
    }
    put(nexts, c, next >= 0 ? next : get(nexts, c + 1));
  }
}

// Names the sorted LMS substrings (in SA[0..m)) with ranks 1..names, equal substrings equal names,
// written to SA[m + (p >> 1)] (LMS positions are >= 2 apart, so the slots are distinct and lie in
// SA[m..n)). Returns the number of distinct names. The same steps as nameLmsSubstringsShared, on
// one thread: lengths, the marks where names change (markNewNames, with the cache when there is
// one), then the names.
function nameLmsSubstrings<C>(t: usize, sa: usize, n: i32, m: i32, cache: usize): i32 {
  lmsLengths<C>(t, sa, n, m);
  const names = markNewNames<C>(t, sa, n, m, 0, m, cache);
  writeNames(sa, m, 0, m, 0);
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

// ---- sharing the parallel steps with a helper thread -------------------------------------------
// With two threads, a helper (saisHelper, on a second worker) takes a share of the steps that
// split into independent chunks: counting and placing stage 1's LMS positions (byte levels), the
// LMS substrings' lengths, marking where their names change (the text comparisons: random loads),
// writing the names, and mapping the reduced suffix array back to text positions; on levels with
// at least 2 * CHUNK_ENTRIES LMS positions (or positions, for the scans of the text). It also
// sorts and splits a share of the groups of each doubling round of at least 2 * DOUBLING_CHUNK
// grouped suffixes (sortByDoubling). The induction scans stay sequential, but the helper loads
// their steps ahead of them (see "prefetching a scan's steps"). The main thread posts a step to
// the mailbox; both threads claim its chunks one at a time, and the main thread, out of chunks,
// waits only for chunks the helper has claimed and is running. It never waits for a helper that
// has not started (or never starts): it then does every chunk itself, so the result does not
// depend on the helper's timing.
//
// Mailbox (bytes from `mailbox`; saisHelperReset zeroes its first MAIL_COUNTS before either kernel
// starts):
//   SEQ     the step's number, odd while the main thread writes a step (a seqlock: the helper
//           reads the step's fields, then SEQ again, and retries when it changed);
//   fields  KIND, TEXT, WIDE (the text's symbols: 0 bytes, 1 i32, 2 u16; a step's own value for
//           the prefetch and doubling steps), SA, N, M, and the step's ENTRIES cut into CHUNKS;
//   CLAIM   i64: the step's number << 32 | the next unclaimed chunk (the helper claims with a
//           compare-exchange, so it never claims a chunk of a later step);
//   DONE    chunks finished; COUNTS: two i32 per chunk (new names, then the names before it; or
//           the state of the text scan at the chunk's end, see chunkEndStates);
//   FAILED  set when a member trapped (saisHelperFailed): the main thread then traps instead of
//           waiting for the chunk that member held;
//   CACHE   the helper's naming cache (3 * NAME_BLOCK slots).

@inline const MAIL_SEQ: usize = 0;
@inline const MAIL_KIND: usize = 4;
@inline const MAIL_TEXT: usize = 8;
@inline const MAIL_WIDE: usize = 12;
@inline const MAIL_SA: usize = 16;
@inline const MAIL_N: usize = 20;
@inline const MAIL_M: usize = 24;
@inline const MAIL_CHUNKS: usize = 28;
@inline const MAIL_ENTRIES: usize = 32;
@inline const MAIL_SCAN_WINDOW: usize = 36; // the window a prefetched scan reads (readySteps)
@inline const MAIL_RING: usize = 40; // that scan's ring
@inline const MAIL_FAILED: usize = 44; // a member's kernel trapped (saisHelperFailed)
@inline const MAIL_HELPER_ALIVE: usize = 48; // the team's members that run (saisHelperAlive)
@inline const MAIL_NAME_OUT: usize = 52; // nameWindow's output
@inline const MAIL_NAME_BITMAP: usize = 56; // and its bitmap
@inline const MAIL_NAME_RANKS: usize = 60; // and the bitmap's rank directory (0: none)
@inline const MAIL_CLAIM: usize = 64; // own cache line: both threads hammer it
@inline const MAIL_DONE: usize = 128;
@inline const MAIL_COUNTS: usize = 192;
/** A doubling round's group list, next list, the helper's pairs and their batch (sortByDoubling). */
@inline const MAIL_DOUBLING_GROUPS: usize = 704; // after 2 * MAX_CHUNKS counts
@inline const MAIL_DOUBLING_NEXT: usize = 708;
@inline const MAIL_DOUBLING_PAIRS: usize = 712;
@inline const MAIL_DOUBLING_BATCH: usize = 716;
/** The team's size (saisHelperTeam; not cleared by saisHelperReset), and the shared final scans' tables. */
@inline const MAIL_TEAM: usize = 720;
@inline const MAIL_FINAL_WORK: usize = 724;
@inline const MAIL_CACHE: usize = 768;
/** The byte text's LMS positions per text chunk, then per symbol, from stage 1 (textLmsSaved). */
@inline const MAIL_TEXT_LMS: usize = MAIL_CACHE + 3 * NAME_BLOCK * 4;

/** Entries per chunk (at least): a chunk is a few hundred microseconds of work. */
@inline const CHUNK_ENTRIES: i32 = 1 << 15;
/** Most chunks of one step (the COUNTS slots: MAIL_COUNTS + 8 * MAX_CHUNKS <= MAIL_CACHE). */
@inline const MAX_CHUNKS: i32 = 64;
/** Polls of the mailbox before the idle helper sleeps, and its sleep between polls (ns). */
@inline const HELPER_SPINS: i32 = 1 << 14;
@inline const HELPER_SLEEP_NS: i64 = 1_000_000;
/** Polls of DONE before the main thread sleeps on it (woken by the helper's last chunk), and
 * that sleep's limit (ns; a safety net: the notify cannot be missed, wait32 compares first). */
@inline const MAIN_POLLS: i32 = 1 << 12;
@inline const MAIN_SLEEP_NS: i64 = 1_000_000;
/** The same polls in the shared final scans, whose steps come every few hundred microseconds: a
 * member that sleeps between them costs a wake-up (tens of microseconds) per step. */
@inline const SHARED_POLLS: i32 = 1 << 20;

@inline const COMMAND_MARK_NAMES: i32 = 1;
@inline const COMMAND_WRITE_NAMES: i32 = 2;
@inline const COMMAND_MAP_RANKS: i32 = 3;
@inline const COMMAND_LENGTHS: i32 = 4;
@inline const COMMAND_EXIT: i32 = 5;
@inline const COMMAND_COUNT_LMS: i32 = 6;
@inline const COMMAND_PLACE_LMS: i32 = 7;
@inline const COMMAND_DENSE_COUNT: i32 = 8;
@inline const COMMAND_PREFETCH: i32 = 9;
@inline const COMMAND_LMS_POSITIONS: i32 = 10;
@inline const COMMAND_DOUBLING_SORT: i32 = 11;
@inline const COMMAND_DOUBLING_SPLIT: i32 = 12;
@inline const COMMAND_NAME_WINDOW: i32 = 13;
@inline const COMMAND_FINAL_GATHER: i32 = 14;
@inline const COMMAND_FINAL_PLACE: i32 = 15;
@inline const COMMAND_DENSE_GATHER: i32 = 16;
@inline const COMMAND_DENSE_PLACE: i32 = 17;

/** The steps of the shared scans, whose members poll longer between steps. */
@inline function teamStep(kind: i32): bool {
  return kind >= COMMAND_FINAL_GATHER && kind <= COMMAND_DENSE_PLACE;
}

/** The steps the team's members beyond the helper take part in: those whose chunks keep their
 * state per chunk (the others keep some per helper, in the mailbox's cache). */
@inline function memberStep(kind: i32): bool {
  return teamStep(kind) || kind == COMMAND_PREFETCH || kind == COMMAND_NAME_WINDOW || kind == COMMAND_MAP_RANKS;
}

/** The sign bit of an SA[0..m) entry marks an LMS substring that differs from its predecessor. */
@inline const NEW_NAME: i32 = 0x80000000;

/** Bytes of the mailbox that sais and saisHelper share (the host reserves them). */
export function saisHelperBytes(): i32 {
  return <i32>MAIL_TEXT_LMS + (MAX_CHUNKS + BYTE_ALPHABET) * 4;
}

/** Readies `mailbox` for a sais call and its helper (the host calls it before starting either):
 * zeroes the step number, the step's fields, the claim and the done count. */
export function saisHelperReset(mailbox: usize): void {
  memory.fill(mailbox, 0, MAIL_COUNTS);
  store<i32>(mailbox + MAIL_TEAM, 2);
}

/** Sets the team of a mailbox: the calling thread and team - 1 helpers, each running saisHelper on it. */
export function saisHelperTeam(mailbox: usize, team: i32): void {
  store<i32>(mailbox + MAIL_TEAM, team);
}

/** How many saisHelper(mailbox) calls run (since saisHelperReset): a host that calls kernels with
 * this mailbox without yielding to its event loop waits for them first, or they never start. */
export function saisHelperAlive(mailbox: usize): i32 {
  return atomic.load<i32>(mailbox + MAIL_HELPER_ALIVE);
}

/** SA[i] = positions[SA[i]] for i in [0, m): the ranks of a reduced string sorted by saisReduced to
 * its positions in the text (sais-large.ts), with the helper when mailbox != 0. */
export function saisMapRanks(sa: usize, positions: usize, m: i32, mailbox: usize): void {
  const chunks = mailbox != 0 ? chunksFor(m) : 0;
  if (chunks != 0) {
    shareChunks(mailbox, COMMAND_MAP_RANKS, positions, 0, sa, m, m, m, chunks, 0);
  } else {
    mapRanks(sa, positions, 0, m);
  }
  if (mailbox != 0) saisHelperExit(mailbox);
}

/** Marks `mailbox`'s team as broken: a member's saisHelper trapped (the worker that ran it calls
 * this), so the kernel thread stops waiting for the chunk it held and traps too. */
export function saisHelperFailed(mailbox: usize): void {
  atomic.store<i32>(mailbox + MAIL_FAILED, 1);
  atomic.notify(mailbox + MAIL_DONE, -1);
}

/** Posts exit to the helper of `mailbox`: sais does when it returns; the host does too, after a
 * sais call that failed (never while one runs: the mailbox has one writer). */
export function saisHelperExit(mailbox: usize): void {
  postCommand(mailbox, COMMAND_EXIT, 0, 0, 0, 0, 0, 0, 0);
}

/** Chunks for a step over m entries, or 0 when m is too short to share. */
function chunksFor(m: i32): i32 {
  const chunks = min(MAX_CHUNKS, m / CHUNK_ENTRIES);
  return chunks >= 2 ? chunks : 0;
}

@inline function chunkStart(m: i32, chunks: i32, c: i32): i32 {
  return <i32>((<i64>m * c) / chunks);
}

/** Posts a step (single writer: the main thread) and wakes the helper. */
function postCommand(mailbox: usize, kind: i32, t: usize, wide: i32, sa: usize, n: i32, m: i32, entries: i32, chunks: i32): void {
  const seq = atomic.load<i32>(mailbox + MAIL_SEQ) & ~1; // even, also after a write cut short
  atomic.store<i32>(mailbox + MAIL_SEQ, seq + 1);
  atomic.store<i32>(mailbox + MAIL_KIND, kind);
  atomic.store<i32>(mailbox + MAIL_TEXT, <i32>t);
  atomic.store<i32>(mailbox + MAIL_WIDE, wide);
  atomic.store<i32>(mailbox + MAIL_SA, <i32>sa);
  atomic.store<i32>(mailbox + MAIL_N, n);
  atomic.store<i32>(mailbox + MAIL_M, m);
  atomic.store<i32>(mailbox + MAIL_ENTRIES, entries);
  atomic.store<i32>(mailbox + MAIL_CHUNKS, chunks);
  atomic.store<i32>(mailbox + MAIL_DONE, 0);
  atomic.store<i64>(mailbox + MAIL_CLAIM, <i64>(seq + 2) << 32);
  atomic.store<i32>(mailbox + MAIL_SEQ, seq + 2);
  atomic.notify(mailbox + MAIL_SEQ, -1); // every member
}

/** Runs one step over [0, entries) in `chunks` chunks with the helper; returns when every chunk
 * is done. */
function shareChunks(mailbox: usize, kind: i32, t: usize, wide: i32, sa: usize, n: i32, m: i32, entries: i32, chunks: i32, cache: usize): void {
  postCommand(mailbox, kind, t, wide, sa, n, m, entries, chunks);
  finishChunks(mailbox, kind, t, wide, sa, n, m, entries, chunks, cache);
}

/** The main thread's part of a posted step: the chunks the helper has not claimed, then a wait
 * for those it has. */
function finishChunks(mailbox: usize, kind: i32, t: usize, wide: i32, sa: usize, n: i32, m: i32, entries: i32, chunks: i32, cache: usize): void {
  for (;;) {
    const c = <i32>atomic.add<i64>(mailbox + MAIL_CLAIM, 1);
    if (c >= chunks) break;
    runChunk(mailbox, kind, t, wide, sa, n, m, entries, chunks, c, cache);
    atomic.add<i32>(mailbox + MAIL_DONE, 1);
  }
  // What is left was claimed by the helper, which is running it: poll, then sleep until its last
  // chunk is done (the helper may be off its core: polling would take the core from it).
  let polls = 0;
  const most = teamStep(kind) ? SHARED_POLLS : MAIN_POLLS;
  for (;;) {
    const done = atomic.load<i32>(mailbox + MAIL_DONE);
    if (done >= chunks) break;
    // a member that trapped never finishes its chunk: trap too (the host reports the member's error)
    if (atomic.load<i32>(mailbox + MAIL_FAILED) != 0) unreachable();
    if (polls < most) {
      polls++;
    } else {
      memory.atomic.wait32(mailbox + MAIL_DONE, done, MAIN_SLEEP_NS);
    }
  }
}

function runChunk(mailbox: usize, kind: i32, t: usize, wide: i32, sa: usize, n: i32, m: i32, entries: i32, chunks: i32, c: i32, cache: usize): void {
  const from = chunkStart(entries, chunks, c);
  const to = chunkStart(entries, chunks, c + 1);
  const count = mailbox + MAIL_COUNTS + (<usize>c << 2);
  if (kind == COMMAND_DENSE_COUNT) {
    store<i32>(count + (<usize>MAX_CHUNKS << 2), countAndGather<u8>(t, sa, from, to, load<i32>(count), denseChunkTable(sa, n, c), BYTE_ALPHABET));
  } else if (kind == COMMAND_COUNT_LMS || kind == COMMAND_PLACE_LMS) {
    // Byte texts only; the chunk's tables in the workspace, SA[n ..) (see placeLmsShared).
    const tables = sa + (<usize>n << 2) + (<usize>(c * 2 * BYTE_ALPHABET) << 2);
    lmsChunk(t, sa, from, to, load<i32>(count), tables, kind == COMMAND_PLACE_LMS);
  } else if (kind == COMMAND_LENGTHS) {
    const toIsS = load<i32>(count);
    const nextLms = load<i32>(count + (<usize>MAX_CHUNKS << 2));
    if (wide == 1) {
      lmsLengthsChunk<i32>(t, sa, n, m, from, to, toIsS, nextLms);
    } else if (wide == 2) {
      lmsLengthsChunk<u16>(t, sa, n, m, from, to, toIsS, nextLms);
    } else {
      lmsLengthsChunk<u8>(t, sa, n, m, from, to, toIsS, nextLms);
    }
  } else if (kind == COMMAND_MARK_NAMES) {
    const marked = wide == 1
      ? markNewNames<i32>(t, sa, n, m, from, to, cache)
      : wide == 2 ? markNewNames<u16>(t, sa, n, m, from, to, cache) : markNewNames<u8>(t, sa, n, m, from, to, cache);
    store<i32>(count, marked);
  } else if (kind == COMMAND_WRITE_NAMES) {
    writeNames(sa, m, from, to, load<i32>(count));
  } else if (kind == COMMAND_MAP_RANKS) {
    mapRanks(sa, t, from, to);
  } else if (kind == COMMAND_LMS_POSITIONS) {
    const top = load<i32>(count + (<usize>MAX_CHUNKS << 2));
    lmsPositions<u8>(t, sa, from, to, load<i32>(count), top, top - get(mailbox + MAIL_TEXT_LMS, c), false, 0);
  } else if (kind == COMMAND_DOUBLING_SORT || kind == COMMAND_DOUBLING_SPLIT) {
    // t: the ranks; wide: h; m: the groups; counts: each chunk's first group, then its runs.
    const first = load<i32>(count);
    const last = c + 1 < chunks ? load<i32>(count + 4) : m;
    const groups = <usize><u32>load<i32>(mailbox + MAIL_DOUBLING_GROUPS);
    const runs = count + (<usize>MAX_CHUNKS << 2);
    if (kind == COMMAND_DOUBLING_SORT) {
      const pairs = cache == mailbox + MAIL_CACHE ? <usize><u32>load<i32>(mailbox + MAIL_DOUBLING_PAIRS) : cache;
      store<i32>(runs, sortGroups(sa, t, groups, first, last, wide, pairs, load<i32>(mailbox + MAIL_DOUBLING_BATCH)));
    } else {
      splitGroups(sa, t, groups, first, last, <usize><u32>load<i32>(mailbox + MAIL_DOUBLING_NEXT), load<i32>(runs));
    }
  } else if (kind == COMMAND_PREFETCH) {
    prefetchScan(t, sa, n, m, m + entries, wide, mailbox, c, chunks); // m: the scan's first slot; wide: flags; c of chunks prefetchers
  } else if (kind == COMMAND_NAME_WINDOW) {
    nameChunk(mailbox, t, n, sa, from, to, c); // sa: the sorted positions
  } else if (kind == COMMAND_FINAL_GATHER) {
    // m: the block's start; wide: the S scan
    finalGather(t, sa, m, entries, chunks, c, <usize><u32>load<i32>(mailbox + MAIL_FINAL_WORK), wide != 0, mailbox);
  } else if (kind == COMMAND_FINAL_PLACE) {
    finalPlace(sa, entries, chunks, c, <usize><u32>load<i32>(mailbox + MAIL_FINAL_WORK), wide != 0, mailbox);
  } else if (kind == COMMAND_DENSE_GATHER) {
    denseGather(t, sa, m, entries, chunks, c, <usize><u32>load<i32>(mailbox + MAIL_FINAL_WORK), wide != 0, mailbox);
  } else if (kind == COMMAND_DENSE_PLACE) {
    densePlace(sa, m, entries, chunks, c, <usize><u32>load<i32>(mailbox + MAIL_FINAL_WORK), wide != 0, mailbox);
  }
}

/**
 * The helper thread: runs until the main thread (sais with the same mailbox) posts exit. Between
 * steps it polls, then sleeps on the step number. It claims chunks of the current step only.
 * index: 0 for the helper, which takes part in every step; 1 .. team - 2 for the team's other
 * members, which take part only in the steps of memberStep (the others keep state per helper).
 */
export function saisHelper(mailbox: usize, index: i32): void {
  const cache = mailbox + MAIL_CACHE;
  let seen = 0;
  let spins = 0;
  let spinsMost = HELPER_SPINS;
  atomic.add<i32>(mailbox + MAIL_HELPER_ALIVE, 1);
  for (;;) {
    const seq = atomic.load<i32>(mailbox + MAIL_SEQ);
    if (seq == seen || (seq & 1) != 0) {
      if (spins < spinsMost) {
        spins++;
      } else {
        memory.atomic.wait32(mailbox + MAIL_SEQ, seq, HELPER_SLEEP_NS);
      }
      continue;
    }
    const kind = atomic.load<i32>(mailbox + MAIL_KIND);
    const t = <usize><u32>atomic.load<i32>(mailbox + MAIL_TEXT);
    const wide = atomic.load<i32>(mailbox + MAIL_WIDE);
    const sa = <usize><u32>atomic.load<i32>(mailbox + MAIL_SA);
    const n = atomic.load<i32>(mailbox + MAIL_N);
    const m = atomic.load<i32>(mailbox + MAIL_M);
    const entries = atomic.load<i32>(mailbox + MAIL_ENTRIES);
    const chunks = atomic.load<i32>(mailbox + MAIL_CHUNKS);
    if (atomic.load<i32>(mailbox + MAIL_SEQ) != seq) continue; // rewritten meanwhile: read again
    seen = seq;
    spins = 0;
    spinsMost = teamStep(kind) ? SHARED_POLLS : HELPER_SPINS;
    if (kind == COMMAND_EXIT) return;
    if (index != 0 && !memberStep(kind)) continue;
    for (;;) {
      const claim = atomic.load<i64>(mailbox + MAIL_CLAIM);
      const c = <i32>claim;
      if (<i32>(claim >>> 32) != seq || c >= chunks) break;
      if (atomic.cmpxchg<i64>(mailbox + MAIL_CLAIM, claim, claim + 1) != claim) continue;
      runChunk(mailbox, kind, t, wide, sa, n, m, entries, chunks, c, cache);
      if (atomic.add<i32>(mailbox + MAIL_DONE, 1) == chunks - 1) atomic.notify(mailbox + MAIL_DONE, 1);
    }
  }
}

/**
 * Stage 1's counting and placing of the LMS positions of a byte text, with the helper: chunks of
 * the positions count their symbols and LMS positions per symbol (tables of 2 * 256 slots per
 * chunk at the start of the workspace); then each chunk places its LMS positions below those of
 * the chunks to its right, so SA is the same as the sequential scan's. Returns m.
 */
function placeLmsShared(t: usize, sa: usize, n: i32, counts: usize, buckets: usize, mailbox: usize, chunks: i32): i32 {
  chunkEndStates<u8>(t, n, mailbox, chunks);
  shareChunks(mailbox, COMMAND_COUNT_LMS, t, 0, sa, n, 0, n - 1, chunks, 0);
  const tables = sa + (<usize>n << 2);
  memory.fill(counts, 0, <usize>BYTE_ALPHABET << 2);
  for (let c = 0; c < chunks; c++) {
    const symbols = tables + (<usize>(c * 2 * BYTE_ALPHABET) << 2);
    for (let x = 0; x < BYTE_ALPHABET; x++) put(counts, x, get(counts, x) + get(symbols, x));
  }
  const last = chr<u8>(t, n - 1); // the chunks count positions 0 .. n - 2
  put(counts, last, get(counts, last) + 1);
  bucketBounds<u8>(t, n, counts, buckets, BYTE_ALPHABET, true);
  // Each chunk's LMS counts become the ends it places below, from the last chunk down.
  let m = 0;
  for (let x = 0; x < BYTE_ALPHABET; x++) {
    let end = get(buckets, x);
    for (let c = chunks - 1; c >= 0; c--) {
      const lms = tables + (<usize>(c * 2 * BYTE_ALPHABET + BYTE_ALPHABET) << 2);
      const count = get(lms, x);
      put(lms, x, end);
      end -= count;
      m += count;
    }
  }
  memory.fill(sa, 0, <usize>n << 2);
  shareChunks(mailbox, COMMAND_PLACE_LMS, t, 0, sa, n, 0, n - 1, chunks, 0);
  return m;
}

/** Stage 1's scan over the positions from <= i < to of a byte text (right to left, from the type
 * of `to`): counts the symbols T[i] and the LMS positions i + 1 per symbol into `tables`, or (place)
 * puts each LMS position i + 1 below the end that tables[256 + T[i+1]] holds. */
function lmsChunk(t: usize, sa: usize, from: i32, to: i32, toIsS: i32, tables: usize, place: bool): void {
  const symbols = tables;
  const lms = tables + (<usize>BYTE_ALPHABET << 2);
  if (!place) memory.fill(tables, 0, <usize>(2 * BYTE_ALPHABET) << 2);
  let c1 = chr<u8>(t, to);
  let nextIsS = toIsS;
  for (let i = to - 1; i >= from; i--) {
    const c0 = chr<u8>(t, i);
    const isS = <i32>(c0 < c1 + nextIsS);
    const isLms = nextIsS & ~isS;
    if (place) {
      if (isLms) {
        const pos = get(lms, c1) - 1;
        put(lms, c1, pos);
        put(sa, pos, i + 1);
      }
    } else {
      put(symbols, c0, get(symbols, c0) + 1);
      put(lms, c1, get(lms, c1) + isLms);
    }
    nextIsS = isS;
    c1 = c0;
  }
}

/** nameLmsSubstrings with the helper: lengths, then the changes of name marked by chunks, then the
 * names written by chunks, each chunk starting from the count of names before it. */
function nameLmsSubstringsShared<C>(t: usize, sa: usize, n: i32, m: i32, cache: usize, mailbox: usize, chunks: i32): i32 {
  const wide = sizeof<C>() == 1 ? 0 : sizeof<C>() == 4 ? 1 : 2;
  const textChunks = chunksFor(n - 1);
  if (textChunks != 0) {
    memory.fill(sa + (<usize>m << 2), 0, <usize>(n - m) << 2);
    chunkEndStates<C>(t, n, mailbox, textChunks);
    shareChunks(mailbox, COMMAND_LENGTHS, t, wide, sa, n, m, n - 1, textChunks, 0);
    put(sa, n - 1, 0); // the sink
  } else {
    lmsLengths<C>(t, sa, n, m);
  }
  shareChunks(mailbox, COMMAND_MARK_NAMES, t, wide, sa, n, m, m, chunks, cache);
  let names = 0;
  for (let c = 0; c < chunks; c++) {
    const count = mailbox + MAIL_COUNTS + (<usize>c << 2);
    const fresh = load<i32>(count);
    store<i32>(count, names);
    names += fresh;
  }
  shareChunks(mailbox, COMMAND_WRITE_NAMES, t, wide, sa, n, m, m, chunks, cache);
  return names;
}

/**
 * Marks with NEW_NAME every sorted LMS position SA[x], from <= x < to, whose LMS substring differs
 * from that of SA[x - 1] (SA[0]'s always does), reading the lengths lmsLengths left in SA[m..n);
 * returns how many it marked. The comparisons are those of nameLmsSubstrings, with its cache.
 */
function markNewNames<C>(t: usize, sa: usize, n: i32, m: i32, from: i32, to: i32, cache: usize): i32 {
  const wordSymbols = 8 >> alignof<C>();
  let marked = 0;
  // prevLength 0 differs from every length (an LMS substring has at least 3 symbols).
  let prev = 0;
  let prevLength = 0;
  let prevWord: u64 = 0;
  if (from > 0) {
    prev = get(sa, from - 1) & ~NEW_NAME; // the chunk before may be marking it meanwhile
    prevLength = get(sa, m + (prev >> 1));
    prevWord = load<u64>(t + (<usize>select<i32>(prev, 0, prev + wordSymbols <= n) << alignof<C>()));
  }
  if (cache == 0) {
    for (let x = from; x < to; x++) {
      const p = get(sa, x);
      const length = get(sa, m + (p >> 1));
      if (!(length == prevLength && sameSubstring<C>(t, n, p, prev, length))) {
        put(sa, x, p | NEW_NAME);
        marked++;
        prev = p;
        prevLength = length;
      }
    }
    return marked;
  }

  const words = cache;
  const lengths = cache + (<usize>NAME_BLOCK << 3);
  for (let start = from; start < to; start += NAME_BLOCK) {
    const end = min(start + NAME_BLOCK, to);
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
        put(sa, x, p | NEW_NAME);
        marked++;
        prev = p;
        prevLength = length;
        prevWord = word;
      }
    }
  }
  return marked;
}

/** Writes the names of SA[from..to) to SA[m + (p >> 1)] and clears their marks; `before` is the
 * number of names before `from`. */
function writeNames(sa: usize, m: i32, from: i32, to: i32, before: i32): void {
  let names = before;
  for (let x = from; x < to; x++) {
    const marked = get(sa, x);
    const p = marked & ~NEW_NAME;
    names += <i32>(<u32>marked >> 31);
    put(sa, x, p);
    put(sa, m + (p >> 1), names);
  }
}

/** writeNames with the helper, over SA[0..m) marked with NEW_NAME: each chunk starts from the
 * count of marks before it. */
function writeNamesShared(sa: usize, n: i32, m: i32, mailbox: usize, chunks: i32): void {
  let names = 0;
  for (let c = 0; c < chunks; c++) {
    store<i32>(mailbox + MAIL_COUNTS + (<usize>c << 2), names);
    const to = chunkStart(m, chunks, c + 1);
    for (let x = chunkStart(m, chunks, c); x < to; x++) names += <i32>(<u32>get(sa, x) >> 31);
  }
  shareChunks(mailbox, COMMAND_WRITE_NAMES, 0, 0, sa, n, m, m, chunks, 0);
}

/** SA[i] = positions[SA[i]] for from <= i < to: ranks of s1 to text positions. */
function mapRanks(sa: usize, positions: usize, from: i32, to: i32): void {
  for (let i = from; i < to; i++) put(sa, i, get(positions, get(sa, i)));
}
