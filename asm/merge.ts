// Parallel merge of two sorted u32 sequences by merge path (moderngpu's two-phase merge): each block
// of the output first finds where its diagonal crosses the path (a binary search), then merges its
// own slice serially. The order is a class O with a method before(ctx, x, y): does element x of A
// come before element y of B? (A class, not a function value: function values would need static
// data, and instances on one shared memory must not have any.) Merge path only ever compares an A
// element with a B element, so the order may treat the two sequences differently (the skew merge
// does). Ties go to A.

/** How many of the first `diag` outputs come from A. */
@inline
export function mergePathSplit<O>(a: usize, aLen: u32, b: usize, bLen: u32, diag: u32, ctx: usize): u32 {
  let lo: u32 = diag > bLen ? diag - bLen : 0;
  let hi: u32 = diag < aLen ? diag : aLen;
  while (lo < hi) {
    const mid = lo + ((hi - lo) >> 1);
    const x = load<u32>(a + (<usize>mid << 2));
    const y = load<u32>(b + (<usize>(diag - 1 - mid) << 2));
    if (changetype<O>(0).before(ctx, x, y)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Merges a[aLo..aHi) and b[bLo..bHi) into dst[at..). */
@inline
export function mergeSlice<O>(
  a: usize, aLo: u32, aHi: u32, b: usize, bLo: u32, bHi: u32, dst: usize, at: u32, ctx: usize,
): void {
  let i = aLo;
  let j = bLo;
  let k = at;
  while (i < aHi && j < bHi) {
    const x = load<u32>(a + (<usize>i << 2));
    const y = load<u32>(b + (<usize>j << 2));
    if (changetype<O>(0).before(ctx, x, y)) {
      store<u32>(dst + (<usize>k << 2), x);
      i++;
    } else {
      store<u32>(dst + (<usize>k << 2), y);
      j++;
    }
    k++;
  }
  if (i < aHi) memory.copy(dst + (<usize>k << 2), a + (<usize>i << 2), <usize>(aHi - i) << 2);
  else if (j < bHi) memory.copy(dst + (<usize>k << 2), b + (<usize>j << 2), <usize>(bHi - j) << 2);
}

@final
class Ascending {
  @inline before(_ctx: usize, x: u32, y: u32): bool {
    return x <= y;
  }
}

/** mergePathSplit for plain u32 keys in ascending order. */
export function mergeSplitU32(a: usize, aLen: u32, b: usize, bLen: u32, diag: u32): u32 {
  return mergePathSplit<Ascending>(a, aLen, b, bLen, diag, 0);
}

/** mergeSlice for plain u32 keys in ascending order. */
export function mergeSliceU32(a: usize, aLo: u32, aHi: u32, b: usize, bLo: u32, bHi: u32, dst: usize, at: u32): void {
  mergeSlice<Ascending>(a, aLo, aHi, b, bLo, bHi, dst, at, 0);
}
