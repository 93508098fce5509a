// The CPU's share of a hybrid gpu-ls round (src/gpu/algorithms/hybrid.ts): small groups of
// (rank2 << 32 | suffix) u64 pairs, gathered by the GPU, each sorted whole inside one worker.
import { sortU64 } from "./sort";

@inline const HEAD_BIT: u32 = 0x80000000;

@inline
function isHead(heads: usize, j: u32): bool {
  return (load<u32>(heads + (<usize>j << 2)) & HEAD_BIT) != 0;
}

/**
 * Sorts every group whose first entry lies in [lo, hi) (so that blocks of one list cut anywhere
 * share no group): a group starts at an entry of `heads` with HEAD_BIT set and ends before the next
 * such entry, or at `count`. pairs[0] starts a group.
 */
export function sortHeadedGroupsU64(pairs: usize, heads: usize, lo: u32, hi: u32, count: u32): void {
  let start = lo;
  while (start < hi && !isHead(heads, start)) start++;
  while (start < hi) {
    let end = start + 1;
    while (end < count && !isHead(heads, end)) end++;
    sortU64(pairs, start, end);
    start = end;
  }
}
