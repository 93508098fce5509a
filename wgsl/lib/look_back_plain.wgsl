// Decoupled look-back for scan.wgsl without subgroups: the whole workgroup reads a window of WG
// predecessor states per round.

var<workgroup> look_stop: atomic<u32>;
var<workgroup> look_end: u32;
var<workgroup> look_done: u32;

// Sum of everything before `tile` (since the last head when segmented). Each round, invocation k
// loads the state of tile end-1-k (a window of WG predecessors, nearest first); the nearest state
// that is not an aggregate stops the round: an inclusive prefix ends the look-back, an unpublished
// state makes the next round start there. The aggregates before the stop (and the inclusive value
// at it) are summed by a workgroup scan. Unpublished tiles started before this one (tickets), so
// they publish eventually. Every invocation calls it (barriers inside).
fn look_back(lid: u32, tile: u32) -> u32 {
  if (lid == 0u) {
    look_end = tile;
    look_prefix = 0u;
  }
  loop {
    let end = workgroupUniformLoad(&look_end);
    var status = STATUS_INCLUSIVE; // before tile 0 (never reached: tile 0 is always inclusive)
    var value = 0u;
    if (lid < end) {
      let j = end - 1u - lid;
      let published = tile_state(j);
      status = published.x;
      value = published.y;
    }
    if (lid == 0u) {
      atomicStore(&look_stop, WG);
    }
    workgroupBarrier();
    if (status != STATUS_AGGREGATE) {
      atomicMin(&look_stop, lid);
    }
    workgroupBarrier();
    let stop = atomicLoad(&look_stop);
    let take = lid < stop || (lid == stop && status == STATUS_INCLUSIVE);
    _ = wg_exclusive_add(lid, select(0u, value, take));
    if (lid == 0u) {
      look_prefix += wg_scan_sum;
      look_end = end - stop;
      look_done = 0u;
    }
    workgroupBarrier();
    if (lid == stop && status == STATUS_INCLUSIVE) {
      look_done = 1u;
    }
    if (workgroupUniformLoad(&look_done) == 1u) {
      break;
    }
  }
  return workgroupUniformLoad(&look_prefix);
}
