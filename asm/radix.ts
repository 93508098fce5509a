// LSD radix sort of (key, value) pairs, keys u32 or u64, values u32, arrays kept apart (SoA). One
// pass over a digit of `bits` bits at `shift` is three steps, the first and last parallel over
// blocks: count digits per block, turn the per-block counts into per-block write offsets (digit-major,
// block-minor, so the pass is stable), scatter each block. Counts live in a host-owned table of
// `blocks` rows of 2^bits u32; the host picks the digit width (src/cpu/primitives.ts).

@inline
function digitOf<K>(key: K, shift: u32, mask: u32): u32 {
  return <u32>(key >> <K>shift) & mask;
}

function countDigits<K>(keys: usize, lo: u32, hi: u32, shift: u32, bits: u32, counts: usize): void {
  const buckets: u32 = 1 << bits;
  const mask = buckets - 1;
  memory.fill(counts, 0, <usize>buckets << 2);
  for (let j = lo; j < hi; j++) {
    const d = digitOf<K>(load<K>(keys + (<usize>j << alignof<K>())), shift, mask);
    const at = counts + (<usize>d << 2);
    store<u32>(at, load<u32>(at) + 1);
  }
}

/**
 * Moves the pairs src[lo..hi) to the offsets of their digit at `shift`. With nextCounts != 0 it also
 * counts the digits at nextShift of the keys it moves there (the next pass's counts, one read of the
 * keys fewer; the host's heap never places data at address 0); @inline, so that callers passing 0
 * get the loop without the count.
 */
@inline
function scatterDigits<K>(
  srcKeys: usize, srcVals: usize, dstKeys: usize, dstVals: usize,
  lo: u32, hi: u32, shift: u32, bits: u32, offsets: usize,
  nextShift: u32 = 0, nextBits: u32 = 0, nextCounts: usize = 0,
): void {
  const mask: u32 = (1 << bits) - 1;
  const nextMask: u32 = (1 << nextBits) - 1;
  for (let j = lo; j < hi; j++) {
    const key = load<K>(srcKeys + (<usize>j << alignof<K>()));
    const at = offsets + (<usize>digitOf<K>(key, shift, mask) << 2);
    const to = load<u32>(at);
    store<u32>(at, to + 1);
    store<K>(dstKeys + (<usize>to << alignof<K>()), key);
    store<u32>(dstVals + (<usize>to << 2), load<u32>(srcVals + (<usize>j << 2)));
    if (nextCounts != 0) {
      const count = nextCounts + (<usize>digitOf<K>(key, nextShift, nextMask) << 2);
      store<u32>(count, load<u32>(count) + 1);
    }
  }
}

/** Counts the digits of keys[lo..hi) (u32 keys) into counts[0..2^bits). */
export function radixCountU32(keys: usize, lo: u32, hi: u32, shift: u32, bits: u32, counts: usize): void {
  countDigits<u32>(keys, lo, hi, shift, bits, counts);
}

/** Counts the digits of keys[lo..hi) (u64 keys) into counts[0..2^bits). */
export function radixCountU64(keys: usize, lo: u32, hi: u32, shift: u32, bits: u32, counts: usize): void {
  countDigits<u64>(keys, lo, hi, shift, bits, counts);
}

/**
 * Turns the count table (blocks rows of 2^bits) into write offsets in place, starting at `base`:
 * offset[b][d] = base + (keys with digit < d anywhere) + (keys with digit d in blocks before b).
 */
export function radixOffsets(counts: usize, blocks: u32, bits: u32, base: u32): void {
  const buckets: u32 = 1 << bits;
  let sum = base;
  for (let d: u32 = 0; d < buckets; d++) {
    for (let b: u32 = 0; b < blocks; b++) {
      const at = counts + ((<usize>b * buckets + d) << 2);
      const c = load<u32>(at);
      store<u32>(at, sum);
      sum += c;
    }
  }
}

/** Scatters the block [lo, hi) of (u32 key, value) pairs to the offsets of its row (stable). */
export function radixScatterU32(
  srcKeys: usize, srcVals: usize, dstKeys: usize, dstVals: usize,
  lo: u32, hi: u32, shift: u32, bits: u32, offsets: usize,
): void {
  scatterDigits<u32>(srcKeys, srcVals, dstKeys, dstVals, lo, hi, shift, bits, offsets);
}

/** Counts the keys[lo..hi) below, equal to and above `pivot` into counts[0..3) (and 0 to counts[3]). */
export function pivotCountU32(keys: usize, lo: u32, hi: u32, pivot: u32, counts: usize): void {
  let below: u32 = 0;
  let above: u32 = 0;
  for (let j = lo; j < hi; j++) {
    const key = load<u32>(keys + (<usize>j << 2));
    below += <u32>(key < pivot);
    above += <u32>(key > pivot);
  }
  store<u32>(counts, below);
  store<u32>(counts, hi - lo - below - above, 4);
  store<u32>(counts, above, 8);
  store<u32>(counts, 0, 12);
}

/** Moves the block [lo, hi) of (u32 key, value) pairs to its row's offsets of the three sides of `pivot` (stable). */
export function pivotScatterU32(
  srcKeys: usize, srcVals: usize, dstKeys: usize, dstVals: usize, lo: u32, hi: u32, pivot: u32, offsets: usize,
): void {
  // the three offsets in locals: a run of keys on one side does not wait on a store and its reload
  let below = load<u32>(offsets);
  let equal = load<u32>(offsets, 4);
  let above = load<u32>(offsets, 8);
  for (let j = lo; j < hi; j++) {
    const key = load<u32>(srcKeys + (<usize>j << 2));
    const isBelow = key < pivot;
    const isAbove = key > pivot;
    const to = isBelow ? below : isAbove ? above : equal;
    below += <u32>isBelow;
    above += <u32>isAbove;
    equal += <u32>(!isBelow && !isAbove);
    store<u32>(dstKeys + (<usize>to << 2), key);
    store<u32>(dstVals + (<usize>to << 2), load<u32>(srcVals + (<usize>j << 2)));
  }
}

/** Scatters the block [lo, hi) of (u64 key, value) pairs to the offsets of its row (stable). */
export function radixScatterU64(
  srcKeys: usize, srcVals: usize, dstKeys: usize, dstVals: usize,
  lo: u32, hi: u32, shift: u32, bits: u32, offsets: usize,
): void {
  scatterDigits<u64>(srcKeys, srcVals, dstKeys, dstVals, lo, hi, shift, bits, offsets);
}

@inline const SMALL_BLOCK: u32 = 32;
/** Blocks of at least WIDE_DIGIT_MIN pairs take digits of up to WIDE_DIGIT bits (fewer passes; the
 * 2^12 counters are cleared per pass, which only pays on long blocks): random DNA 4 -> 3 passes. */
@inline const WIDE_DIGIT: u32 = 12;
@inline const WIDE_DIGIT_MIN: u32 = 1 << 14;

function insertionSortPairs<K>(keys: usize, vals: usize, lo: u32, hi: u32): void {
  for (let i = lo + 1; i < hi; i++) {
    const k = load<K>(keys + (<usize>i << alignof<K>()));
    const v = load<u32>(vals + (<usize>i << 2));
    let j = i;
    while (j > lo && load<K>(keys + (<usize>(j - 1) << alignof<K>())) > k) {
      store<K>(keys + (<usize>j << alignof<K>()), load<K>(keys + (<usize>(j - 1) << alignof<K>())));
      store<u32>(vals + (<usize>j << 2), load<u32>(vals + (<usize>(j - 1) << 2)));
      j--;
    }
    store<K>(keys + (<usize>j << alignof<K>()), k);
    store<u32>(vals + (<usize>j << 2), v);
  }
}

/**
 * Serial LSD sort of the pairs src[lo..hi) by key bits [bitLo, bitHi), leaving the result in
 * dst[lo..hi) (src is scratch). The leaf that sorts one bucket of an MSD pass inside one worker,
 * where the block fits in cache. counts: 2 * 2^WIDE_DIGIT u32 of scratch.
 */
function sortBlock<K>(
  srcKeys: usize, srcVals: usize, dstKeys: usize, dstVals: usize, lo: u32, hi: u32, bitLo: u32, bitHi: u32, counts: usize,
): void {
  const len = hi - lo;
  const keyBytes = <usize>len << alignof<K>();
  if (len <= SMALL_BLOCK || bitHi <= bitLo) {
    memory.copy(dstKeys + (<usize>lo << alignof<K>()), srcKeys + (<usize>lo << alignof<K>()), keyBytes);
    memory.copy(dstVals + (<usize>lo << 2), srcVals + (<usize>lo << 2), <usize>len << 2);
    if (bitHi > bitLo) insertionSortPairs<K>(dstKeys, dstVals, lo, hi);
    return;
  }
  const width = bitHi - bitLo;
  const maxDigit: u32 = len >= WIDE_DIGIT_MIN ? WIDE_DIGIT : 11;
  const passes = (width + maxDigit - 1) / maxDigit;
  const digit = (width + passes - 1) / passes;
  let fromKeys = srcKeys, fromVals = srcVals, toKeys = dstKeys, toVals = dstVals;
  if ((passes & 1) == 0) {
    // an even number of passes starting in dst ends in dst
    memory.copy(dstKeys + (<usize>lo << alignof<K>()), srcKeys + (<usize>lo << alignof<K>()), keyBytes);
    memory.copy(dstVals + (<usize>lo << 2), srcVals + (<usize>lo << 2), <usize>len << 2);
    fromKeys = dstKeys; fromVals = dstVals; toKeys = srcKeys; toVals = srcVals;
  }
  // Each scatter counts the next pass's digits of the keys it moves (into the other half of
  // counts), so only the first pass reads the keys just to count them.
  let offsets = counts;
  let next = counts + (<usize>4 << WIDE_DIGIT);
  countDigits<K>(fromKeys, lo, hi, bitLo, min(digit, width), offsets);
  for (let p: u32 = 0; p < passes; p++) {
    const shift = bitLo + p * digit;
    const bits = min(digit, bitHi - shift);
    let sum = lo;
    const buckets: u32 = 1 << bits;
    for (let d: u32 = 0; d < buckets; d++) {
      const at = offsets + (<usize>d << 2);
      const c = load<u32>(at);
      store<u32>(at, sum);
      sum += c;
    }
    if (p + 1 < passes) {
      const nextShift = shift + digit;
      const nextBits = min(digit, bitHi - nextShift);
      memory.fill(next, 0, <usize>4 << nextBits);
      scatterDigits<K>(fromKeys, fromVals, toKeys, toVals, lo, hi, shift, bits, offsets, nextShift, nextBits, next);
    } else {
      scatterDigits<K>(fromKeys, fromVals, toKeys, toVals, lo, hi, shift, bits, offsets);
    }
    const tk = fromKeys; fromKeys = toKeys; toKeys = tk;
    const tv = fromVals; fromVals = toVals; toVals = tv;
    const tc = offsets; offsets = next; next = tc;
  }
}

/**
 * Sorts each bucket [starts[d], starts[d + 1]) for d in [d0, d1) by key bits [bitLo, bitHi) from
 * src into dst (u64 keys; starts is a u32 table). Buckets longer than `skipAbove` are left alone
 * (the host sorts them with all workers). counts: 2 * 2^WIDE_DIGIT u32 of scratch.
 */
export function radixSortBucketsU64(
  starts: usize, d0: u32, d1: u32, srcKeys: usize, srcVals: usize, dstKeys: usize, dstVals: usize,
  bitLo: u32, bitHi: u32, skipAbove: u32, counts: usize,
): void {
  for (let d = d0; d < d1; d++) {
    const lo = load<u32>(starts + (<usize>d << 2));
    const hi = load<u32>(starts + (<usize>(d + 1) << 2));
    if (hi - lo > skipAbove) continue;
    sortBlock<u64>(srcKeys, srcVals, dstKeys, dstVals, lo, hi, bitLo, bitHi, counts);
  }
}
