// Merge path (Green, McColl, Bader 2012; moderngpu's cta_merge) over two runs held in shared memory.
// The includer defines merge_before_or_equal(a, b): whether the element at shared index a (from the
// first run) may precede the element at shared index b (from the second run); taking the first run
// on ties keeps the merge stable.

// Shared indices of the ITEMS outputs at diagonals diag .. diag+ITEMS-1 of the merge of the runs
// [first, first+la) and [first+la, first+la+lb); NO_SOURCE past the end.
const NO_SOURCE: u32 = 0xffffffffu;

fn merge_path_sources(first: u32, la: u32, lb: u32, diag: u32) -> array<u32, ITEMS> {
  var lo = select(0u, diag - lb, diag > lb);
  var hi = min(diag, la);
  while (lo < hi) {
    let mid = (lo + hi) >> 1u;
    if (merge_before_or_equal(first + mid, first + la + diag - 1u - mid)) {
      lo = mid + 1u;
    } else {
      hi = mid;
    }
  }
  var ia = first + lo;
  var ib = first + la + diag - lo;
  let a_end = first + la;
  let b_end = a_end + lb;
  var sources: array<u32, ITEMS>;
  for (var j = 0u; j < ITEMS; j++) {
    if (ia >= a_end && ib >= b_end) {
      sources[j] = NO_SOURCE;
    } else if (ib >= b_end || (ia < a_end && merge_before_or_equal(ia, ib))) {
      sources[j] = ia;
      ia += 1u;
    } else {
      sources[j] = ib;
      ib += 1u;
    }
  }
  return sources;
}
