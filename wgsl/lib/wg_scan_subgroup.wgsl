// Workgroup exclusive sum with subgroups: scan inside each subgroup, then the first subgroup scans
// the subgroup totals. Assumes subgroups hold consecutive local indices (true for 1D workgroups on
// the Vulkan drivers we run on; the tests check it through every primitive on hardware).

var<workgroup> wg_scan_partials: array<u32, WG>;
var<workgroup> wg_scan_sum: u32;

// Exclusive sum of x over the workgroup in local-index order; the total is left in wg_scan_sum.
// Every invocation of the workgroup must call it (it contains barriers and subgroup operations).
fn wg_exclusive_add(lid: u32, x: u32) -> u32 {
  workgroupBarrier();
  let lane = subgroupExclusiveAdd(1u);
  let size = subgroupAdd(1u);
  let subgroup = lid / size;
  let subgroups = (WG + size - 1u) / size;
  let inclusive = subgroupInclusiveAdd(x);
  if (lane == size - 1u) {
    wg_scan_partials[subgroup] = inclusive;
  }
  workgroupBarrier();
  if (lid < size) {
    var carry = 0u;
    for (var first = 0u; first < subgroups; first += size) {
      let i = first + lid;
      var total = 0u;
      if (i < subgroups) {
        total = wg_scan_partials[i];
      }
      let before = subgroupExclusiveAdd(total);
      if (i < subgroups) {
        wg_scan_partials[i] = before + carry;
      }
      carry += subgroupAdd(total);
    }
    if (lid == 0u) {
      wg_scan_sum = carry;
    }
  }
  workgroupBarrier();
  return wg_scan_partials[subgroup] + inclusive - x;
}
