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

function scatterDigits<K>(
  srcKeys: usize, srcVals: usize, dstKeys: usize, dstVals: usize,
  lo: u32, hi: u32, shift: u32, bits: u32, offsets: usize,
): void {
  const mask: u32 = (1 << bits) - 1;
  for (let j = lo; j < hi; j++) {
    const key = load<K>(srcKeys + (<usize>j << alignof<K>()));
    const at = offsets + (<usize>digitOf<K>(key, shift, mask) << 2);
    const to = load<u32>(at);
    store<u32>(at, to + 1);
    store<K>(dstKeys + (<usize>to << alignof<K>()), key);
    store<u32>(dstVals + (<usize>to << 2), load<u32>(srcVals + (<usize>j << 2)));
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

/** Scatters the block [lo, hi) of (u64 key, value) pairs to the offsets of its row (stable). */
export function radixScatterU64(
  srcKeys: usize, srcVals: usize, dstKeys: usize, dstVals: usize,
  lo: u32, hi: u32, shift: u32, bits: u32, offsets: usize,
): void {
  scatterDigits<u64>(srcKeys, srcVals, dstKeys, dstVals, lo, hi, shift, bits, offsets);
}
