// Compaction by flags: keep src[j] where flags[j] != 0 (u8 flags), preserving order. Parallel as
// count per block, scan of the counts on the host, then pack each block at its offset.

/** Number of set flags in flags[lo..hi). */
export function packCount(flags: usize, lo: u32, hi: u32): u32 {
  let count: u32 = 0;
  for (let j = lo; j < hi; j++) count += <u32>(load<u8>(flags + <usize>j) != 0);
  return count;
}

/** Writes the flagged u32 of src[lo..hi) to dst[at..); returns how many it wrote. */
export function packU32(src: usize, flags: usize, lo: u32, hi: u32, dst: usize, at: u32): u32 {
  let to = at;
  for (let j = lo; j < hi; j++) {
    if (load<u8>(flags + <usize>j) != 0) {
      store<u32>(dst + (<usize>to << 2), load<u32>(src + (<usize>j << 2)));
      to++;
    }
  }
  return to - at;
}
