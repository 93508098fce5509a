// Merge path (Green, McColl, Bader 2012) over two sorted runs in storage, for merges whose
// comparisons read other arrays (skew's and gpu-dc7's suffix merges; wgsl/merge.wgsl merges keys in
// shared memory instead). The includer defines merge_a(i) and merge_b(i), the i-th entries of runs
// A and B; merge_before(x, y), whether A's entry x precedes B's entry y; merge_emit(o, x), which
// stores output o.

// Writes outputs [diag, end) of the merge of A (na entries) and B (nb): a binary search along
// diagonal diag, then one output per step.
fn merge_outputs(diag: u32, end: u32, na: u32, nb: u32) {
  var lo = select(0u, diag - nb, diag > nb);
  var hi = min(diag, na);
  while (lo < hi) {
    let mid = (lo + hi) >> 1u;
    if (merge_before(merge_a(mid), merge_b(diag - 1u - mid))) {
      lo = mid + 1u;
    } else {
      hi = mid;
    }
  }
  var ia = lo;
  var ib = diag - lo;
  var next_a = 0u;
  var next_b = 0u;
  if (ia < na) {
    next_a = merge_a(ia);
  }
  if (ib < nb) {
    next_b = merge_b(ib);
  }
  for (var o = diag; o < end; o++) {
    if (ib >= nb || (ia < na && merge_before(next_a, next_b))) {
      merge_emit(o, next_a);
      ia += 1u;
      if (ia < na) {
        next_a = merge_a(ia);
      }
    } else {
      merge_emit(o, next_b);
      ib += 1u;
      if (ib < nb) {
        next_b = merge_b(ib);
      }
    }
  }
}
