// Decoupled look-back for scan.wgsl with subgroups: the first subgroup alone reads a window of
// predecessor states per round (lane k: tile end-1-k) and combines them with a ballot and a
// subgroup sum, with no workgroup barrier inside the loop; the rest of the workgroup waits once.
// The nearest state that is not an aggregate stops a round: an inclusive prefix ends the look-back,
// an unpublished state makes the next round start there. Unpublished tiles started before this one
// (tickets), so they publish eventually. Every invocation calls it.

// Index of the lowest set bit of a ballot, or 128 when none.
fn first_lane(ballot: vec4<u32>) -> u32 {
  for (var word = 0u; word < 4u; word++) {
    if (ballot[word] != 0u) {
      return 32u * word + countTrailingZeros(ballot[word]);
    }
  }
  return 128u;
}

// The look-back as run by the first subgroup alone (lanes lid < size); every lane gets the sum.
fn look_back_subgroup(lid: u32, tile: u32, size: u32) -> u32 {
  var end = tile;
  var prefix = 0u;
  loop {
    var status = STATUS_INCLUSIVE; // before tile 0 (never reached: tile 0 is always inclusive)
    var value = 0u;
    if (lid < end) {
      let published = tile_state(end - 1u - lid);
      status = published.x;
      value = published.y;
    }
    let stop = min(first_lane(subgroupBallot(status != STATUS_AGGREGATE)), size);
    let take = lid < stop || (lid == stop && status == STATUS_INCLUSIVE);
    prefix += subgroupAdd(select(0u, value, take));
    let stop_status = subgroupShuffle(status, min(stop, size - 1u));
    if (stop < size && stop_status == STATUS_INCLUSIVE) {
      break;
    }
    end -= stop;
  }
  return prefix;
}

fn look_back(lid: u32, tile: u32) -> u32 {
  let size = subgroupAdd(1u);
  if (lid < size) {
    let prefix = look_back_subgroup(lid, tile, size);
    if (lid == 0u) {
      look_prefix = prefix;
    }
  }
  return workgroupUniformLoad(&look_prefix);
}
