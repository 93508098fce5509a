// Kernels of the parallel prefix-doubling sorter (src/cpu/algorithms/range.ts): packing the first
// characters into u64 keys, sorting small groups inside one worker, and turning sorted runs of equal
// keys into Larsson–Sadakane ranks (rank = 1 + index of the run's head; rank[n] = 0 for the empty
// suffix) and new unsorted groups.
import { sortU64 } from "./sort";

@inline
function u32At(ptr: usize, j: u32): usize {
  return ptr + (<usize>j << 2);
}

/** The code of text[i] (u32 codes[256] maps bytes to 0..sigma-1), 0 past the end: keys pad a
 * suffix that runs out with the smallest code (see roundKey for how such ties are broken). */
@inline
function codeAt(text: usize, n: u32, codes: usize, i: u32): u64 {
  return i < n ? <u64>load<u32>(codes + (<usize>load<u8>(text + <usize>i) << 2)) : 0;
}

/** text[i..i+chars) as codes of `bits` bits, first character highest, in the top bits of a u64. */
@inline
function packedKey(text: usize, n: u32, codes: usize, bits: u32, chars: u32, i: u32): u64 {
  let key: u64 = 0;
  for (let c: u32 = 0; c < chars; c++) key = (key << bits) | codeAt(text, n, codes, i + c);
  return key << (64 - <u64>bits * chars);
}

/**
 * First pass of the first sort, straight from the text (no key array is written): counts the top
 * `digitBits` bits of the packed keys (see packedKey) of the suffixes [lo, hi) into counts[0..2^digitBits).
 */
export function rangeCountKeys(
  text: usize, n: u32, codes: usize, bits: u32, chars: u32, lo: u32, hi: u32, digitBits: u32, counts: usize,
): void {
  memory.fill(counts, 0, <usize>4 << digitBits);
  if (lo >= hi) return;
  const low: u64 = 64 - <u64>bits * chars;
  const shift: u64 = 64 - <u64>digitBits;
  let key = packedKey(text, n, codes, bits, chars, lo);
  for (let i = lo; i < hi; i++) {
    const at = u32At(counts, <u32>(key >> shift));
    store<u32>(at, load<u32>(at) + 1);
    key = (key << bits) | (codeAt(text, n, codes, i + chars) << low);
  }
}

/**
 * Second half of that pass: (packed key of suffix i, i) for i in [lo, hi) go to keys/vals at the
 * write offsets of this block (radixOffsets over the counts of rangeCountKeys), stably.
 */
export function rangeScatterKeys(
  text: usize, n: u32, codes: usize, bits: u32, chars: u32, lo: u32, hi: u32, digitBits: u32, offsets: usize,
  keys: usize, vals: usize,
): void {
  if (lo >= hi) return;
  const low: u64 = 64 - <u64>bits * chars;
  const shift: u64 = 64 - <u64>digitBits;
  let key = packedKey(text, n, codes, bits, chars, lo);
  for (let i = lo; i < hi; i++) {
    const at = u32At(offsets, <u32>(key >> shift));
    const to = load<u32>(at);
    store<u32>(at, to + 1);
    store<u64>(keys + (<usize>to << 3), key);
    store<u32>(u32At(vals, to), i);
    key = (key << bits) | (codeAt(text, n, codes, i + chars) << low);
  }
}

/**
 * One slice [lo, hi) of a group [s, e) whose keys are sorted: every suffix gets 1 + the index of the
 * head of its run of equal keys as its rank (0 is the empty suffix's), and each run of two or more whose head lies in the slice is
 * written to out as (head, length). Returns the number of runs written; their total length goes to
 * `total`. With inSAOrder the ranks go to isa[j] (SA order), for a later scatter by buckets. With
 * keepFirst, [s, e) is a group of a doubling round whose members all rank s + 1 already: the run
 * headed at s keeps that rank and is not written again.
 */
function rankSlice<K>(
  keys: usize, sa: usize, isa: usize, s: u32, e: u32, lo: u32, hi: u32, out: usize, total: usize, inSAOrder: bool,
  keepFirst: bool,
): u32 {
  let written: u32 = 0;
  let suffixes: u32 = 0;
  let j = lo;
  while (j < hi) {
    const key = load<K>(keys + (<usize>j << alignof<K>()));
    // head: first index in [s, j] holding key (binary search; keys are sorted)
    let head = j;
    if (j == lo && j > s && load<K>(keys + (<usize>(j - 1) << alignof<K>())) == key) {
      let a = s;
      let b = j;
      while (a < b) {
        const m = a + ((b - a) >> 1);
        if (load<K>(keys + (<usize>m << alignof<K>())) < key) a = m + 1;
        else b = m;
      }
      head = a;
    }
    // end: first index in (j, e) holding a larger key: scan within the slice, then binary search
    let end = j + 1;
    while (end < hi && load<K>(keys + (<usize>end << alignof<K>())) == key) end++;
    if (end == hi && end < e && load<K>(keys + (<usize>end << alignof<K>())) == key) {
      let a = end;
      let b = e;
      while (a < b) {
        const m = a + ((b - a) >> 1);
        if (load<K>(keys + (<usize>m << alignof<K>())) <= key) a = m + 1;
        else b = m;
      }
      end = a;
    }
    const stop = end < hi ? end : hi;
    if (inSAOrder) {
      for (let m = j; m < stop; m++) store<u32>(u32At(isa, m), head + 1);
    } else if (!keepFirst || head != s) {
      for (let m = j; m < stop; m++) store<u32>(u32At(isa, load<u32>(u32At(sa, m))), head + 1);
    }
    if (head >= lo && end - head >= 2) {
      store<u32>(out + (<usize>written << 3), head);
      store<u32>(out + (<usize>written << 3) + 4, end - head);
      written++;
      suffixes += end - head;
    }
    j = stop;
  }
  store<u32>(total, suffixes);
  return written;
}

/** rankSlice over u64 keys (the initial sort of packed characters). */
export function rangeRankSliceU64(
  keys: usize, sa: usize, isa: usize, s: u32, e: u32, lo: u32, hi: u32, inSAOrder: bool, out: usize, total: usize,
): u32 {
  return rankSlice<u64>(keys, sa, isa, s, e, lo, hi, out, total, inSAOrder, false);
}

/** rankSlice over u32 keys (a large group sorted by rank of suffix + h). */
export function rangeRankSliceU32(
  keys: usize, sa: usize, isa: usize, s: u32, e: u32, lo: u32, hi: u32, out: usize, total: usize,
): u32 {
  return rankSlice<u32>(keys, sa, isa, s, e, lo, hi, out, total, false, true);
}

/**
 * The sort key of suffix i in the doubling round of prefix length h: h + rank[i + h] (rank[n] = 0),
 * or, when the suffix is shorter than h, its length n - i (< h). Keys pad suffixes with the smallest
 * code, so a group may hold suffixes that run out beside ones that go on with that code: a suffix
 * that runs out is a proper prefix of every other member, and of every longer one that runs out
 * too, so it sorts first, the shorter first. Keys lie in [1, n + h].
 */
@inline
function roundKey(isa: usize, i: u32, h: u32, n: u32): u32 {
  return i + h <= n ? h + load<u32>(u32At(isa, i + h)) : n - i;
}

/** keys[j] = roundKey(sa[j]) for j in [lo, hi): the sort key of a doubling round. Returns how many keys equal `self`. */
export function rangeGatherKeys(sa: usize, isa: usize, keys: usize, lo: u32, hi: u32, h: u32, n: u32, self: u32): u32 {
  let same: u32 = 0;
  for (let j = lo; j < hi; j++) {
    const key = roundKey(isa, load<u32>(u32At(sa, j)), h, n);
    store<u32>(u32At(keys, j), key);
    same += <u32>(key == self);
  }
  return same;
}

/** Whether the (key << 32 | suffix) pairs tmp[s..e) all have the same key. */
function keysTie(tmp: usize, s: u32, e: u32): bool {
  const key = load<u64>(tmp + (<usize>s << 3)) >> 32;
  for (let j = s + 1; j < e; j++) {
    if (load<u64>(tmp + (<usize>j << 3)) >> 32 != key) return false;
  }
  return true;
}

/**
 * Sorts the (rank << 32 | suffix) pairs tmp[s..e) by rank, a stable LSD radix sort over the low
 * rankBits bits of the rank, leaving ranks in keys[s..e) and suffixes in sa[s..e). Passes alternate
 * between the pairs and the (keys, sa) arrays, so it needs no other scratch. counts: 2^11 u32.
 */
function radixSortGroup(tmp: usize, s: u32, e: u32, keys: usize, sa: usize, rankBits: u32, counts: usize): void {
  const passes = (rankBits + 10) / 11;
  const digit = (rankBits + passes - 1) / passes;
  for (let p: u32 = 0; p < passes; p++) {
    const shift = p * digit;
    const bits = min(digit, rankBits - shift);
    const buckets: u32 = 1 << bits;
    const mask = buckets - 1;
    memory.fill(counts, 0, <usize>buckets << 2);
    const fromPairs = (p & 1) == 0;
    for (let j = s; j < e; j++) {
      const rank = fromPairs ? <u32>(load<u64>(tmp + (<usize>j << 3)) >> 32) : load<u32>(u32At(keys, j));
      const at = u32At(counts, (rank >> shift) & mask);
      store<u32>(at, load<u32>(at) + 1);
    }
    let sum = s;
    for (let d: u32 = 0; d < buckets; d++) {
      const at = u32At(counts, d);
      const c = load<u32>(at);
      store<u32>(at, sum);
      sum += c;
    }
    if (fromPairs) {
      for (let j = s; j < e; j++) {
        const v = load<u64>(tmp + (<usize>j << 3));
        const rank = <u32>(v >> 32);
        const at = u32At(counts, (rank >> shift) & mask);
        const to = load<u32>(at);
        store<u32>(at, to + 1);
        store<u32>(u32At(keys, to), rank);
        store<u32>(u32At(sa, to), <u32>v);
      }
    } else {
      for (let j = s; j < e; j++) {
        const rank = load<u32>(u32At(keys, j));
        const at = u32At(counts, (rank >> shift) & mask);
        const to = load<u32>(at);
        store<u32>(at, to + 1);
        store<u64>(tmp + (<usize>to << 3), (<u64>rank << 32) | load<u32>(u32At(sa, j)));
      }
    }
  }
  if ((passes & 1) == 0) {
    for (let j = s; j < e; j++) {
      const v = load<u64>(tmp + (<usize>j << 3));
      store<u32>(u32At(keys, j), <u32>(v >> 32));
      store<u32>(u32At(sa, j), <u32>v);
    }
  }
}

/** Groups of up to this many suffixes are sorted by counting (len^2 comparisons, no branches). */
@inline const PLACE_SORT_MAX: u32 = 16;

/**
 * Sorts the distinct (key << 32 | suffix) pairs tmp[s..e) of a small group straight into keys[] and
 * sa[]: each pair goes to s + the number of pairs below it. The comparisons do not branch on the
 * data, so nothing is mispredicted, unlike an insertion sort of random keys.
 */
function placeSmallGroup(tmp: usize, s: u32, e: u32, keys: usize, sa: usize): void {
  for (let i = s; i < e; i++) {
    const v = load<u64>(tmp + (<usize>i << 3));
    let below: u32 = 0;
    for (let j = s; j < e; j++) below += <u32>(load<u64>(tmp + (<usize>j << 3)) < v);
    store<u32>(u32At(keys, s + below), <u32>(v >> 32));
    store<u32>(u32At(sa, s + below), <u32>v);
  }
}

/**
 * Phase A of a round for groups[g0..g1) ((start, length) pairs): each group of at most `large`
 * suffixes is sorted whole here by its roundKey (packed with the suffix into u64 at tmp[j]), and
 * its sorted keys left in keys[]; a group whose keys all tie is left as it is, with its key in its
 * first and last slot of keys[] only. Groups of at least radixMin suffixes are radix sorted (keys
 * below 2^rankBits, which covers n + h; counts: 2^11 u32 of scratch), smaller ones by introsort.
 * Larger groups than `large` are listed in largeOut for the parallel sort. Returns how many were
 * listed.
 */
export function rangeSortGroups(
  groups: usize, g0: u32, g1: u32, sa: usize, isa: usize, keys: usize, tmp: usize, h: u32, n: u32, large: u32,
  largeOut: usize, radixMin: u32, rankBits: u32, counts: usize,
): u32 {
  // Two sweeps over the block's groups, so that the random rank loads of the first are
  // independent of each other (many in flight) instead of waiting behind each group's sort.
  let listed: u32 = 0;
  for (let g = g0; g < g1; g++) {
    const s = load<u32>(groups + (<usize>g << 3));
    const len = load<u32>(groups + (<usize>g << 3) + 4);
    if (len > large) {
      store<u32>(u32At(largeOut, listed++), g);
      continue;
    }
    for (let j = s, e = s + len; j < e; j++) {
      const suffix = load<u32>(u32At(sa, j));
      store<u64>(tmp + (<usize>j << 3), (<u64>roundKey(isa, suffix, h, n) << 32) | suffix);
    }
  }
  for (let g = g0; g < g1; g++) {
    const s = load<u32>(groups + (<usize>g << 3));
    const len = load<u32>(groups + (<usize>g << 3) + 4);
    if (len > large) continue;
    const e = s + len;
    if (keysTie(tmp, s, e)) {
      // the group survives whole: SA stays, and B needs only its first and last key to see that
      const key = <u32>(load<u64>(tmp + (<usize>s << 3)) >> 32);
      store<u32>(u32At(keys, s), key);
      store<u32>(u32At(keys, e - 1), key);
      continue;
    }
    if (len >= radixMin) {
      radixSortGroup(tmp, s, e, keys, sa, rankBits, counts);
      continue;
    }
    if (len <= PLACE_SORT_MAX) {
      placeSmallGroup(tmp, s, e, keys, sa);
      continue;
    }
    sortU64(tmp, s, e);
    for (let j = s; j < e; j++) {
      const v = load<u64>(tmp + (<usize>j << 3));
      store<u32>(u32At(keys, j), <u32>(v >> 32));
      store<u32>(u32At(sa, j), <u32>v);
    }
  }
  return listed;
}

/**
 * Phase B of a round for groups[g0..g1) of at most `large` suffixes (larger ones are ranked by
 * slices): new ranks from the sorted keys, new groups to out. Returns how many groups were written;
 * their total length goes to `total`.
 */
export function rangeRankGroups(
  groups: usize, g0: u32, g1: u32, sa: usize, isa: usize, keys: usize, large: u32, out: usize, total: usize,
): u32 {
  let written: u32 = 0;
  let suffixes: u32 = 0;
  for (let g = g0; g < g1; g++) {
    const s = load<u32>(groups + (<usize>g << 3));
    const len = load<u32>(groups + (<usize>g << 3) + 4);
    if (len > large) continue;
    if (load<u32>(u32At(keys, s)) == load<u32>(u32At(keys, s + len - 1))) {
      // one run: every member keeps rank s + 1 (keys between the ends may be unset, see phase A)
      store<u32>(out + (<usize>written << 3), s);
      store<u32>(out + (<usize>written << 3) + 4, len);
      written++;
      suffixes += len;
      continue;
    }
    written += rankSlice<u32>(keys, sa, isa, s, s + len, s, s + len, out + (<usize>written << 3), total, false, true);
    suffixes += load<u32>(total);
  }
  store<u32>(total, suffixes);
  return written;
}
