// Workgroup exclusive sum without subgroups: Kogge-Stone over shared memory, log2(WG) steps.

var<workgroup> wg_scan_cells: array<u32, WG>;
var<workgroup> wg_scan_sum: u32;

// Exclusive sum of x over the workgroup in local-index order; the total is left in wg_scan_sum.
// Every invocation of the workgroup must call it (it contains barriers).
fn wg_exclusive_add(lid: u32, x: u32) -> u32 {
  workgroupBarrier();
  wg_scan_cells[lid] = x;
  workgroupBarrier();
  for (var offset = 1u; offset < WG; offset <<= 1u) {
    var earlier = 0u;
    if (lid >= offset) {
      earlier = wg_scan_cells[lid - offset];
    }
    workgroupBarrier();
    wg_scan_cells[lid] += earlier;
    workgroupBarrier();
  }
  let inclusive = wg_scan_cells[lid];
  if (lid == WG - 1u) {
    wg_scan_sum = inclusive;
  }
  workgroupBarrier();
  return inclusive - x;
}
