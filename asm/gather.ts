// Gather, scatter and the other element-wise moves over u32 arrays (blocks [lo, hi)).

/** dst[j] = src[index[j]] for j in [lo, hi). */
export function gatherU32(dst: usize, src: usize, index: usize, lo: u32, hi: u32): void {
  for (let j = lo; j < hi; j++) {
    const i = load<u32>(index + (<usize>j << 2));
    store<u32>(dst + (<usize>j << 2), load<u32>(src + (<usize>i << 2)));
  }
}

/** dst[index[j]] = src[j] for j in [lo, hi). */
export function scatterU32(dst: usize, index: usize, src: usize, lo: u32, hi: u32): void {
  for (let j = lo; j < hi; j++) {
    const i = load<u32>(index + (<usize>j << 2));
    store<u32>(dst + (<usize>i << 2), load<u32>(src + (<usize>j << 2)));
  }
}

/** dst[index[j]] = j + base for j in [lo, hi): inverts a permutation (SA -> ISA when base is 0). */
export function scatterIotaU32(dst: usize, index: usize, lo: u32, hi: u32, base: u32): void {
  for (let j = lo; j < hi; j++) {
    store<u32>(dst + (<usize>load<u32>(index + (<usize>j << 2)) << 2), j + base);
  }
}

/** dst[j] = j + base for j in [lo, hi). */
export function iotaU32(dst: usize, lo: u32, hi: u32, base: u32): void {
  for (let j = lo; j < hi; j++) store<u32>(dst + (<usize>j << 2), j + base);
}

/** dst[j] = src[j] for j in [lo, hi) (regions must not overlap). */
export function copyU32(dst: usize, src: usize, lo: u32, hi: u32): void {
  memory.copy(dst + (<usize>lo << 2), src + (<usize>lo << 2), <usize>(hi - lo) << 2);
}

/** Copies for k in [lo, hi): list[k] = (dst, src, words) as three u32; regions must not overlap. */
export function copyListU32(list: usize, lo: u32, hi: u32): void {
  for (let k = lo; k < hi; k++) {
    const at = list + <usize>k * 12;
    memory.copy(<usize>load<u32>(at), <usize>load<u32>(at + 4), <usize>load<u32>(at + 8) << 2);
  }
}
