// Stable merge of two sorted runs of (u32 key, u32 value) pairs by merge path (Green, McColl,
// Bader 2012; Wang, Baxter, Owens section 4.1): `find_splits` finds, for every TILE-th output
// diagonal, how many pairs of A precede it (a binary search along the diagonal); `merge` then
// loads exactly the A and B pairs of one output tile into shared memory, merges them there (each
// invocation ITEMS outputs, again by merge path) and writes the tile out coalesced. Ties take A first.
// Limits: na + nb < 2^32.

const TILE: u32 = WG * ITEMS;

struct Params {
  na: u32,
  nb: u32,
  tiles: u32,
  pad0: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> a_keys: array<u32>;
@group(0) @binding(2) var<storage, read> a_values: array<u32>;
@group(0) @binding(3) var<storage, read> b_keys: array<u32>;
@group(0) @binding(4) var<storage, read> b_values: array<u32>;
@group(0) @binding(5) var<storage, read_write> splits: array<u32>;
@group(0) @binding(6) var<storage, read_write> out_keys: array<u32>;
@group(0) @binding(7) var<storage, read_write> out_values: array<u32>;

var<workgroup> merge_keys: array<u32, TILE + TILE / 32u>;
var<workgroup> merge_values: array<u32, TILE + TILE / 32u>;

fn merge_before_or_equal(a: u32, b: u32) -> bool {
  return merge_keys[padded(a)] <= merge_keys[padded(b)];
}

// splits[k] = number of A pairs among the first min(k * TILE, na + nb) outputs, k = 0 .. tiles.
@compute @workgroup_size(WG)
fn find_splits(@builtin(local_invocation_index) lid: u32,
             @builtin(workgroup_id) wid: vec3<u32>,
             @builtin(num_workgroups) nwg: vec3<u32>) {
  let k = flat_group(wid, nwg) * WG + lid;
  if (k > params.tiles) {
    return;
  }
  let na = params.na;
  let nb = params.nb;
  let diag = min(k * TILE, na + nb);
  var lo = select(0u, diag - nb, diag > nb);
  var hi = min(diag, na);
  while (lo < hi) {
    let mid = (lo + hi) >> 1u;
    if (a_keys[mid] <= b_keys[diag - 1u - mid]) {
      lo = mid + 1u;
    } else {
      hi = mid;
    }
  }
  splits[k] = lo;
}

@compute @workgroup_size(WG)
fn merge(@builtin(local_invocation_index) lid: u32,
         @builtin(workgroup_id) wid: vec3<u32>,
         @builtin(num_workgroups) nwg: vec3<u32>) {
  let tile = flat_group(wid, nwg);
  if (tile >= params.tiles) {
    return;
  }
  let total = params.na + params.nb;
  let d0 = tile * TILE;
  let d1 = min(d0 + TILE, total);
  let a0 = splits[tile];
  let a1 = splits[tile + 1u];
  let b0 = d0 - a0;
  let la = a1 - a0;
  let lb = (d1 - a1) - b0;

  // Loads first (all in flight together), then the stores into shared memory.
  var loaded_keys: array<u32, ITEMS>;
  var loaded_values: array<u32, ITEMS>;
  for (var i = 0u; i < ITEMS; i++) {
    let local = i * WG + lid;
    if (local < la) {
      loaded_keys[i] = a_keys[a0 + local];
      loaded_values[i] = a_values[a0 + local];
    }
  }
  for (var i = 0u; i < ITEMS; i++) {
    let local = i * WG + lid;
    if (local >= la && local < la + lb) {
      loaded_keys[i] = b_keys[b0 + local - la];
      loaded_values[i] = b_values[b0 + local - la];
    }
  }
  for (var i = 0u; i < ITEMS; i++) {
    let local = i * WG + lid;
    merge_keys[padded(local)] = loaded_keys[i];
    merge_values[padded(local)] = loaded_values[i];
  }
  workgroupBarrier();
  let sources = merge_path_sources(0u, la, lb, min(lid * ITEMS, la + lb));
  var keys: array<u32, ITEMS>;
  var values: array<u32, ITEMS>;
  for (var j = 0u; j < ITEMS; j++) {
    if (sources[j] != NO_SOURCE) {
      keys[j] = merge_keys[padded(sources[j])];
      values[j] = merge_values[padded(sources[j])];
    }
  }
  workgroupBarrier();
  for (var j = 0u; j < ITEMS; j++) {
    if (sources[j] != NO_SOURCE) {
      merge_keys[padded(lid * ITEMS + j)] = keys[j];
      merge_values[padded(lid * ITEMS + j)] = values[j];
    }
  }
  workgroupBarrier();
  for (var i = 0u; i < ITEMS; i++) {
    let local = i * WG + lid;
    if (local < la + lb) {
      out_keys[d0 + local] = merge_keys[padded(local)];
      out_values[d0 + local] = merge_values[padded(local)];
    }
  }
}
