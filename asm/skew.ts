// Kernels of the parallel DC3 / skew sorter (src/cpu/algorithms/skew.ts). A level's string s holds
// u32 characters in 1..K followed by three zeros; its mod-1/2 suffixes are numbered as in
// Kärkkäinen–Sanders: index k < n0 is position 3k + 1, index n0 + k is position 3k + 2.
import { mergePathSplit, mergeSlice } from "./merge";

@inline
function u32At(ptr: usize, j: u32): usize {
  return ptr + (<usize>j << 2);
}

@inline
function ch(s: usize, i: u32): u32 {
  return load<u32>(u32At(s, i));
}

/** s[j] = text[j] + 1 for j in [lo, hi): the byte text as a level-0 string over 1..256. */
export function skewWiden(text: usize, s: usize, lo: u32, hi: u32): void {
  for (let j = lo; j < hi; j++) store<u32>(u32At(s, j), <u32>load<u8>(text + <usize>j) + 1);
}

/** pos[j] = the j-th position that is not a multiple of 3, for j in [lo, hi). */
export function skewSamplePositions(pos: usize, lo: u32, hi: u32): void {
  for (let j = lo; j < hi; j++) store<u32>(u32At(pos, j), 3 * (j >> 1) + 1 + (j & 1));
}

/** keys[j] = the triple at pos[j] in base `base`, as u32 (caller checks base^3 <= 2^32). */
export function skewTripleKeysU32(s: usize, pos: usize, keys: usize, lo: u32, hi: u32, base: u32): void {
  for (let j = lo; j < hi; j++) {
    const p = load<u32>(u32At(pos, j));
    store<u32>(u32At(keys, j), (ch(s, p) * base + ch(s, p + 1)) * base + ch(s, p + 2));
  }
}

/** keys[j] = the triple at pos[j] in base `base`, as u64 (caller checks base^3 <= 2^64). */
export function skewTripleKeysU64(s: usize, pos: usize, keys: usize, lo: u32, hi: u32, base: u32): void {
  for (let j = lo; j < hi; j++) {
    const p = load<u32>(u32At(pos, j));
    const b = <u64>base;
    store<u64>(keys + (<usize>j << 3), (<u64>ch(s, p) * b + ch(s, p + 1)) * b + ch(s, p + 2));
  }
}

/** keys[j] = s[pos[j] + 2]: the first pass of a triple sort too wide for one u64 key. */
export function skewThirdKeysU32(s: usize, pos: usize, keys: usize, lo: u32, hi: u32): void {
  for (let j = lo; j < hi; j++) store<u32>(u32At(keys, j), ch(s, load<u32>(u32At(pos, j)) + 2));
}

/** keys[j] = s[pos[j]] * base + s[pos[j] + 1] as u64: the second pass of that sort. */
export function skewPairKeysU64(s: usize, pos: usize, keys: usize, lo: u32, hi: u32, base: u32): void {
  for (let j = lo; j < hi; j++) {
    const p = load<u32>(u32At(pos, j));
    store<u64>(keys + (<usize>j << 3), <u64>ch(s, p) * base + ch(s, p + 1));
  }
}

/** flags[j] = 1 where the triple at pos[j] differs from the one at pos[j - 1] (and at j = 0). */
export function skewNameFlags(s: usize, pos: usize, flags: usize, lo: u32, hi: u32): void {
  for (let j = lo; j < hi; j++) {
    let differs: u32 = 1;
    if (j > 0) {
      const p = load<u32>(u32At(pos, j));
      const q = load<u32>(u32At(pos, j - 1));
      differs = <u32>(ch(s, p) != ch(s, q) || ch(s, p + 1) != ch(s, q + 1) || ch(s, p + 2) != ch(s, q + 2));
    }
    store<u32>(u32At(flags, j), differs);
  }
}

/** flags[j] = 1 where keys[j] (u32) differs from keys[j - 1] (and at j = 0): runs of equal sorted keys. */
export function skewKeyFlagsU32(keys: usize, flags: usize, lo: u32, hi: u32): void {
  for (let j = lo; j < hi; j++) {
    store<u32>(u32At(flags, j), <u32>(j == 0 || load<u32>(u32At(keys, j)) != load<u32>(u32At(keys, j - 1))));
  }
}

/** flags[j] = 1 where keys[j] (u64) differs from keys[j - 1] (and at j = 0). */
export function skewKeyFlagsU64(keys: usize, flags: usize, lo: u32, hi: u32): void {
  for (let j = lo; j < hi; j++) {
    const differs = j == 0 || load<u64>(keys + (<usize>j << 3)) != load<u64>(keys + (<usize>(j - 1) << 3));
    store<u32>(u32At(flags, j), <u32>differs);
  }
}

/** s12[index of pos[j]] = names[j]: the reduced string, mod-1 half then mod-2 half. */
export function skewScatterNames(pos: usize, names: usize, s12: usize, lo: u32, hi: u32, n0: u32): void {
  for (let j = lo; j < hi; j++) {
    const p = load<u32>(u32At(pos, j));
    const index = p % 3 == 1 ? p / 3 : p / 3 + n0;
    store<u32>(u32At(s12, index), load<u32>(u32At(names, j)));
  }
}

/** sa12[s12[k] - 1] = k: the suffix array of a reduced string whose names are all distinct. */
export function skewInvertNames(s12: usize, sa12: usize, lo: u32, hi: u32): void {
  for (let k = lo; k < hi; k++) store<u32>(u32At(sa12, ch(s12, k) - 1), k);
}

/** flags[j] = 1 where sa12[j] is a mod-1 index (its suffix minus one is a mod-0 suffix). */
export function skewMod0Flags(sa12: usize, flags: usize, lo: u32, hi: u32, n0: u32): void {
  for (let j = lo; j < hi; j++) store<u8>(flags + <usize>j, <u8>(load<u32>(u32At(sa12, j)) < n0));
}

/** pos0[j] = 3 * pos0[j] (mod-1 index -> mod-0 position); keys[j] = s[pos0[j]]. */
export function skewMod0Keys(s: usize, pos0: usize, keys: usize, lo: u32, hi: u32): void {
  for (let j = lo; j < hi; j++) {
    const p = 3 * load<u32>(u32At(pos0, j));
    store<u32>(u32At(pos0, j), p);
    store<u32>(u32At(keys, j), ch(s, p));
  }
}

/** pos12[j - skip] = the position of index sa12[j], for j in [lo, hi). */
export function skewIndexToPosition(sa12: usize, pos12: usize, lo: u32, hi: u32, n0: u32, skip: u32): void {
  for (let j = lo; j < hi; j++) {
    const k = load<u32>(u32At(sa12, j));
    store<u32>(u32At(pos12, j - skip), k < n0 ? 3 * k + 1 : 3 * (k - n0) + 2);
  }
}

// The merge order: does mod-1/2 suffix p precede mod-0 suffix q? The context is three u32 in
// shared memory: s, s12 (ranks 1.. of the mod-1/2 suffixes, zero past the end) and n0.
@final
class SampleBeforeMod0 {
  @inline before(ctx: usize, p: u32, q: u32): bool {
    return sampleBeforeMod0(ctx, p, q);
  }
}

function sampleBeforeMod0(ctx: usize, p: u32, q: u32): bool {
  const s = <usize>load<u32>(ctx);
  const rank = <usize>load<u32>(ctx + 4);
  const n0 = load<u32>(ctx + 8);
  const a = ch(s, p);
  const b = ch(s, q);
  if (a != b) return a < b;
  if (p % 3 == 1) return ch(rank, (p + 1) / 3 + n0) < ch(rank, (q + 1) / 3);
  const a1 = ch(s, p + 1);
  const b1 = ch(s, q + 1);
  if (a1 != b1) return a1 < b1;
  return ch(rank, (p + 2) / 3) < ch(rank, (q + 2) / 3 + n0);
}

/** Merge path split of the sorted mod-1/2 positions and mod-0 positions at `diag`. */
export function skewMergeSplit(ctx: usize, pos12: usize, len12: u32, pos0: usize, len0: u32, diag: u32): u32 {
  return mergePathSplit<SampleBeforeMod0>(pos12, len12, pos0, len0, diag, ctx);
}

/** Merges pos12[aLo..aHi) and pos0[bLo..bHi) into sa[at..). */
export function skewMergeSlice(
  ctx: usize, pos12: usize, aLo: u32, aHi: u32, pos0: usize, bLo: u32, bHi: u32, sa: usize, at: u32,
): void {
  mergeSlice<SampleBeforeMod0>(pos12, aLo, aHi, pos0, bLo, bHi, sa, at, ctx);
}
