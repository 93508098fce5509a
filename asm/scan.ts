// Prefix sums over u32 blocks, the serial leaves of a parallel scan (PBBS: reduce each block, scan
// the block sums on the host, then scan each block with its carry).

/** Sum of ptr[lo..hi) as u32 (wraps modulo 2^32; callers keep totals below 2^32). */
export function scanBlockSum(ptr: usize, lo: u32, hi: u32): u32 {
  let sum: u32 = 0;
  for (let j = lo; j < hi; j++) sum += load<u32>(ptr + (<usize>j << 2));
  return sum;
}

/**
 * Scans ptr[lo..hi) in place starting from `carry`: exclusive (each slot gets the sum before it) or
 * inclusive (the sum up to and including it). Returns carry + the block's sum.
 */
export function scanBlock(ptr: usize, lo: u32, hi: u32, carry: u32, inclusive: bool): u32 {
  let sum = carry;
  if (inclusive) {
    for (let j = lo; j < hi; j++) {
      const at = ptr + (<usize>j << 2);
      sum += load<u32>(at);
      store<u32>(at, sum);
    }
  } else {
    for (let j = lo; j < hi; j++) {
      const at = ptr + (<usize>j << 2);
      const v = load<u32>(at);
      store<u32>(at, sum);
      sum += v;
    }
  }
  return sum;
}
