// Segmented sort of (key, u32 value) pairs, after Wang, Baxter, Owens (section 4.2, Figure 6)
// and moderngpu's segsort. Segments are given by labels: label[i] = number of heads in [0, i], so
// labels are non-decreasing and change exactly where a segment starts.
//
// blocksort: every tile of TILE pairs is sorted by (label, key) in shared memory (insertion sort
//   of each invocation's ITEMS pairs, then merge-path merges of doubling runs), which sorts the
//   tile's pieces of segments while keeping the segments in place. Tiles start at `width` (0, or
//   TILE / 2 for the second blocksort that finishes segments of at most TILE / 2 pairs).
// merge pass (width w = TILE, 2 TILE, ...): runs [p*2w, p*2w+w) and [p*2w+w, p*2w+2w) are each
//   sorted within segments. Only the segment that crosses their boundary b changes when they are
//   merged, so `merge_pass` merges just that segment's part [cs, b) with [b, ce), by key, into the
//   scratch arrays, one output tile of TILE per workgroup, and `copy_back` returns it. A tile that
//   meets no crossing segment (its segments are all done at this width) exits at once (early exit).
//   The crossing segment's ends come from `starts` (segment_starts: the first index of each label),
//   and the tile's merge-path splits from a search by the whole workgroup (WG / 2 probes per split
//   and step): a handful of dependent global loads per tile, where one invocation's binary
//   searches took about 4 log2(w) of them. Segments of at most w pairs cross at most one run
//   boundary: two passes of width w, the second over pairs shifted by `origin` = w, finish them.
// Invariant before the pass of width w: every run [q*w, q*w+w) is sorted within segments.
// Keys are one u32 or two (lib/segsort_key32.wgsl, lib/segsort_key64.wgsl: bindings 2, 4 and, for
// 64-bit keys, 6, 7; shared merge_keys; key_le and the loads and stores).
// Limits: n < 2^32 - 2 * TILE; ties keep input order (stable).

const TILE: u32 = WG * ITEMS;
const NO_LABEL: u32 = 0xffffffffu;

struct Params {
  n: u32,
  width: u32,
  tiles: u32,
  origin: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> labels: array<u32>;
@group(0) @binding(3) var<storage, read_write> values: array<u32>;
@group(0) @binding(5) var<storage, read_write> scratch_values: array<u32>;
// starts[l] = first index whose label is l, for every label present; starts[last + 1] = n.
@group(0) @binding(8) var<storage, read_write> starts: array<u32>;

var<workgroup> merge_values: array<u32, TILE + TILE / 32u>;
var<workgroup> merge_labels: array<u32, TILE + TILE / 32u>;
// The crossing segment's part in this tile's pair of runs, and this tile's share of it:
// (cs, b, ce, out_start, out_end, a_split, b_split at out_start/out_end), or cs = NO_LABEL.
var<workgroup> crossing: array<u32, 8>;
// The two splits' search bounds [lo, hi] (merge_pass's workgroup search).
var<workgroup> split_lo: array<atomic<u32>, 2>;
var<workgroup> split_hi: array<atomic<u32>, 2>;
const PROBES: u32 = WG / 2u;

fn merge_before_or_equal(a: u32, b: u32) -> bool {
  let la = merge_labels[padded(a)];
  let lb = merge_labels[padded(b)];
  return la < lb || (la == lb && key_le(shared_key(padded(a)), shared_key(padded(b))));
}

// Tile loading (lib/tile_load.wgsl): a pair and its label into the merge arrays.
struct TileItem {
  key: SortKey,
  value: u32,
  label: u32,
}

fn tile_fetch(at: u32) -> TileItem {
  return TileItem(key_load(at), values[at], labels[at]);
}

fn tile_past_end() -> TileItem {
  return TileItem(KEY_PAST_END, 0u, NO_LABEL);
}

fn tile_stage(local: u32, item: TileItem) {
  shared_key_store(padded(local), item.key);
  merge_values[padded(local)] = item.value;
  merge_labels[padded(local)] = item.label;
}

@compute @workgroup_size(WG)
fn blocksort(@builtin(local_invocation_index) lid: u32,
             @builtin(workgroup_id) wid: vec3<u32>,
             @builtin(num_workgroups) nwg: vec3<u32>) {
  let tile = flat_group(wid, nwg);
  if (tile >= params.tiles) {
    return;
  }
  let base = params.width + tile * TILE;
  let valid = min(TILE, params.n - base);
  // Pairs past the end get the label NO_LABEL, which sorts after every real label.
  load_tile(lid, base, valid);
  workgroupBarrier();

  // Each invocation sorts its ITEMS pairs (stable insertion sort in shared memory).
  let run = lid * ITEMS;
  for (var i = 1u; i < ITEMS; i++) {
    let key = shared_key(padded(run + i));
    let value = merge_values[padded(run + i)];
    let label = merge_labels[padded(run + i)];
    var j = i;
    while (j > 0u) {
      let before = padded(run + j - 1u);
      let bl = merge_labels[before];
      if (bl < label || (bl == label && key_le(shared_key(before), key))) {
        break;
      }
      shared_key_store(padded(run + j), shared_key(before));
      merge_values[padded(run + j)] = merge_values[before];
      merge_labels[padded(run + j)] = bl;
      j -= 1u;
    }
    shared_key_store(padded(run + j), key);
    merge_values[padded(run + j)] = value;
    merge_labels[padded(run + j)] = label;
  }
  workgroupBarrier();

  // Merge runs of ITEMS, 2 ITEMS, ... until the tile is one run.
  for (var width = ITEMS; width < TILE; width <<= 1u) {
    let first = (run / (2u * width)) * (2u * width);
    let sources = merge_path_sources(first, width, width, run - first);
    var k: array<SortKey, ITEMS>;
    var v: array<u32, ITEMS>;
    var l: array<u32, ITEMS>;
    for (var j = 0u; j < ITEMS; j++) {
      let at = padded(sources[j]);
      k[j] = shared_key(at);
      v[j] = merge_values[at];
      l[j] = merge_labels[at];
    }
    workgroupBarrier();
    for (var j = 0u; j < ITEMS; j++) {
      let at = padded(run + j);
      shared_key_store(at, k[j]);
      merge_values[at] = v[j];
      merge_labels[at] = l[j];
    }
    workgroupBarrier();
  }

  for (var i = 0u; i < ITEMS; i++) {
    let local = i * WG + lid;
    if (local < valid) {
      key_store(base + local, shared_key(padded(local)));
      values[base + local] = merge_values[padded(local)];
    }
  }
}

@compute @workgroup_size(WG)
fn segment_starts(@builtin(local_invocation_index) lid: u32,
                  @builtin(workgroup_id) wid: vec3<u32>,
                  @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = element(lid, wid, nwg);
  let n = params.n;
  if (i >= n) {
    return;
  }
  let label = labels[i];
  if (i == 0u || labels[i - 1u] != label) {
    starts[label] = i;
  }
  if (i == n - 1u) {
    starts[label + 1u] = n;
  }
}

// Fills `crossing` for this tile (invocation 0 only); returns through workgroup memory.
fn find_crossing(tile: u32) {
  let n = params.n;
  let w = params.width;
  let tile_start = tile * TILE;
  let tile_end = min(tile_start + TILE, n);
  crossing[0] = NO_LABEL;
  // Pairs of runs start at origin + multiples of 2w (origin: 0, or w for the last pass of a sort
  // whose segments are at most w long; both are multiples of TILE, so a tile lies in one pair).
  if (tile_start < params.origin) {
    return;
  }
  let pair_start = params.origin + ((tile_start - params.origin) / (2u * w)) * (2u * w);
  let b = pair_start + w;
  if (b >= n) {
    return;
  }
  let label = labels[b];
  if (labels[b - 1u] != label) {
    return;
  }
  // Only tiles holding part of b's segment take part (labels never decrease).
  if (labels[tile_start] > label || labels[tile_end - 1u] < label) {
    return;
  }
  let pair_end = min(pair_start + 2u * w, n);
  let cs = max(pair_start, starts[label]);
  let ce = min(pair_end, starts[label + 1u]);
  let out_start = max(tile_start, cs);
  let out_end = min(tile_end, ce);
  if (out_start >= out_end) {
    return;
  }
  crossing[0] = cs;
  crossing[1] = b;
  crossing[2] = ce;
  crossing[3] = out_start;
  crossing[4] = out_end;
}

// Search steps that narrow a split's range to one value, PROBES probes per step.
fn search_steps(range_in: u32) -> u32 {
  var range = range_in;
  var steps = 0u;
  while (range > 0u) {
    range = (range + PROBES - 1u) / PROBES - 1u;
    steps += 1u;
  }
  return steps;
}

@compute @workgroup_size(WG)
fn merge_pass(@builtin(local_invocation_index) lid: u32,
              @builtin(workgroup_id) wid: vec3<u32>,
              @builtin(num_workgroups) nwg: vec3<u32>) {
  let tile = flat_group(wid, nwg);
  if (tile >= params.tiles) {
    return;
  }
  if (lid == 0u) {
    find_crossing(tile);
    let cs = crossing[0];
    if (cs != NO_LABEL) {
      // Split s: pairs of [cs, b) among the first diag_s outputs of the crossing merge, in
      // [max(0, diag - lb), min(diag, la)]: the first m there with A[m] > B[diag - 1 - m].
      let la = crossing[1] - cs;
      let lb = crossing[2] - crossing[1];
      var widest = 0u;
      for (var s = 0u; s < 2u; s++) {
        let diag = crossing[3u + s] - cs;
        let lo = select(0u, diag - lb, diag > lb);
        let hi = min(diag, la);
        atomicStore(&split_lo[s], lo);
        atomicStore(&split_hi[s], hi);
        widest = max(widest, hi - lo);
      }
      crossing[7] = search_steps(widest);
    }
  }
  let cs = workgroupUniformLoad(&crossing[0]);
  if (cs == NO_LABEL) {
    return;
  }
  let b = crossing[1];
  let out_start = crossing[3];
  let out_end = crossing[4];
  let steps = workgroupUniformLoad(&crossing[7]);
  // Both splits at once: invocations [0, PROBES) search the first, the others the second.
  let s = lid / PROBES;
  let probe = lid % PROBES;
  let diag = crossing[3u + s] - cs;
  for (var step = 0u; step < steps; step++) {
    let lo = atomicLoad(&split_lo[s]);
    let hi = atomicLoad(&split_hi[s]);
    workgroupBarrier();
    let stride = max(1u, (hi - lo + PROBES - 1u) / PROBES);
    let m = lo + probe * stride;
    if (m < hi) {
      if (key_le(key_load(cs + m), key_load(b + diag - 1u - m))) {
        atomicMax(&split_lo[s], m + 1u);
      } else {
        atomicMin(&split_hi[s], m);
      }
    }
    workgroupBarrier();
  }
  let a0 = cs + atomicLoad(&split_lo[0]);
  let a1 = cs + atomicLoad(&split_lo[1]);
  let b0 = b + (out_start - cs) - (a0 - cs);
  let la = a1 - a0;
  let lb = (out_end - out_start) - la;

  var loaded_keys: array<SortKey, ITEMS>;
  var loaded_values: array<u32, ITEMS>;
  for (var i = 0u; i < ITEMS; i++) {
    let local = i * WG + lid;
    if (local < la + lb) {
      let at = select(b0 + local - la, a0 + local, local < la);
      loaded_keys[i] = key_load(at);
      loaded_values[i] = values[at];
    }
  }
  for (var i = 0u; i < ITEMS; i++) {
    let local = i * WG + lid;
    shared_key_store(padded(local), loaded_keys[i]);
    merge_values[padded(local)] = loaded_values[i];
    merge_labels[padded(local)] = 0u; // one segment: compare by key alone
  }
  workgroupBarrier();
  let sources = merge_path_sources(0u, la, lb, min(lid * ITEMS, la + lb));
  for (var j = 0u; j < ITEMS; j++) {
    if (sources[j] != NO_SOURCE) {
      let at = padded(sources[j]);
      scratch_key_store(out_start + lid * ITEMS + j, shared_key(at));
      scratch_values[out_start + lid * ITEMS + j] = merge_values[at];
    }
  }
}

@compute @workgroup_size(WG)
fn copy_back(@builtin(local_invocation_index) lid: u32,
             @builtin(workgroup_id) wid: vec3<u32>,
             @builtin(num_workgroups) nwg: vec3<u32>) {
  let tile = flat_group(wid, nwg);
  if (tile >= params.tiles) {
    return;
  }
  if (lid == 0u) {
    find_crossing(tile);
  }
  let cs = workgroupUniformLoad(&crossing[0]);
  if (cs == NO_LABEL) {
    return;
  }
  let out_start = crossing[3];
  let out_end = crossing[4];
  for (var at = out_start + lid; at < out_end; at += WG) {
    key_store(at, scratch_key_load(at));
    values[at] = scratch_values[at];
  }
}
