// Exclusive scan of u32 (sums wrap mod 2^32), optionally segmented by head flags, in one pass over
// memory (decoupled look-back, Merrill & Garland 2016, "Single-pass Parallel Prefix Scan").
//
// Each workgroup draws the next tile from a ticket counter (state[0]), so every earlier tile has
// already started and the look-back below always makes progress. A tile publishes its aggregate,
// then walks back over earlier tiles summing aggregates until it meets an inclusive prefix.
// Tile states: wgsl/lib/scan_state.wgsl.
// Segmented (SEGMENTED = 1): out[i] = sum of in[h..i-1] where h is the last head <= i. A tile that
// holds a head publishes its aggregate (the sum since its last head) as inclusive at once, so no
// look-back crosses a head.
// The look-back itself is look_back() in wgsl/lib/look_back_{subgroup,plain}.wgsl.
// Constants: ITEMS per invocation, SEGMENTED; COUNT_NONZERO = 1 scans (in[i] != 0) instead of
// in[i] (positions for stream compaction); INCLUSIVE = 1 adds in[i] itself (out[i] = sum of
// in[..i]). Limits: n <= 2^32 - TILE; state holds 1 + 4 * tiles words, zeroed before the dispatch.
// Plain scans on devices with subgroups take wgsl/scan_striped.wgsl instead when they can.

struct Params {
  n: u32,
  pad0: u32,
  pad1: u32,
  pad2: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> input: array<u32>;
@group(0) @binding(2) var<storage, read> heads: array<u32>;
@group(0) @binding(3) var<storage, read_write> output: array<u32>;
@group(0) @binding(4) var<storage, read_write> state: array<atomic<u32>>;

const TILE: u32 = WG * ITEMS;

var<workgroup> tile_values: array<u32, TILE + TILE / 32u>;
var<workgroup> tile_heads: array<u32, select(1u, TILE + TILE / 32u, SEGMENTED == 1u)>;
var<workgroup> seg_sums: array<u32, WG>;
var<workgroup> seg_flags: array<u32, WG>;
var<workgroup> tile_aggregate: u32;
var<workgroup> tile_has_head: u32;

// Segmented exclusive scan of (head seen, sum) pairs over the workgroup (Kogge-Stone); returns the
// pair for everything before `lid` in this tile and leaves the tile's pair in tile_has_head/_aggregate.
fn wg_exclusive_segmented(lid: u32, flag: u32, sum: u32) -> vec2<u32> {
  seg_flags[lid] = flag;
  seg_sums[lid] = sum;
  workgroupBarrier();
  for (var offset = 1u; offset < WG; offset <<= 1u) {
    var earlier_flag = 0u;
    var earlier_sum = 0u;
    if (lid >= offset) {
      earlier_flag = seg_flags[lid - offset];
      earlier_sum = seg_sums[lid - offset];
    }
    workgroupBarrier();
    if (seg_flags[lid] == 0u) {
      seg_sums[lid] += earlier_sum;
    }
    seg_flags[lid] |= earlier_flag;
    workgroupBarrier();
  }
  if (lid == WG - 1u) {
    tile_has_head = seg_flags[lid];
    tile_aggregate = seg_sums[lid];
  }
  var before = vec2<u32>(0u, 0u);
  if (lid > 0u) {
    before = vec2<u32>(seg_flags[lid - 1u], seg_sums[lid - 1u]);
  }
  workgroupBarrier();
  return before;
}

// The running sum invocation lid starts its run at: the carry from earlier invocations of this
// tile (stopped by a head between them and us), plus the carry into the tile from the look-back.
// `has_head` and `sum` describe the invocation's own run. Publishes this tile's state.
fn run_start(lid: u32, tile: u32, has_head: u32, sum: u32) -> u32 {
  var before_in_tile = 0u;
  var head_before = 0u;
  if (SEGMENTED == 1u) {
    let pair = wg_exclusive_segmented(lid, has_head, sum);
    head_before = pair.x;
    before_in_tile = pair.y;
  } else {
    before_in_tile = wg_exclusive_add(lid, sum);
    if (lid == 0u) {
      tile_aggregate = wg_scan_sum;
      tile_has_head = 0u;
    }
  }

  // Publish, then look back for the carry into this tile.
  let tile_head = workgroupUniformLoad(&tile_has_head);
  if (lid == 0u) {
    publish(tile, select(STATUS_AGGREGATE, STATUS_INCLUSIVE, tile == 0u || tile_head != 0u), tile_aggregate);
  }
  var carry = 0u;
  if (tile > 0u) {
    carry = look_back(lid, tile);
    if (lid == 0u && tile_head == 0u) {
      publish(tile, STATUS_INCLUSIVE, carry + tile_aggregate);
    }
  }

  var running = before_in_tile;
  if (head_before == 0u) {
    running += carry;
  }
  return running;
}

@compute @workgroup_size(WG)
fn scan(@builtin(local_invocation_index) lid: u32) {
  let tile = take_tile(lid);
  let n = params.n;
  if (tile * TILE >= n) {
    return;
  }
  let base = tile * TILE;

  // Load the tile coalesced, every load issued before any is used (a full tile needs no bounds
  // test); each invocation then owns the blocked run lid*ITEMS .. +ITEMS in shared memory.
  var loaded: array<u32, ITEMS>;
  var loaded_heads: array<u32, ITEMS>;
  if (base + TILE <= n) {
    for (var i = 0u; i < ITEMS; i++) {
      loaded[i] = input[base + i * WG + lid];
      if (SEGMENTED == 1u) {
        loaded_heads[i] = heads[base + i * WG + lid];
      }
    }
  } else {
    for (var i = 0u; i < ITEMS; i++) {
      let at = base + i * WG + lid;
      if (at < n) {
        loaded[i] = input[at];
        if (SEGMENTED == 1u) {
          loaded_heads[i] = heads[at];
        }
      }
    }
  }
  for (var i = 0u; i < ITEMS; i++) {
    let local = i * WG + lid;
    var value = loaded[i];
    if (COUNT_NONZERO == 1u) {
      value = select(0u, 1u, value != 0u);
    }
    tile_values[padded(local)] = value;
    if (SEGMENTED == 1u) {
      tile_heads[padded(local)] = select(0u, 1u, loaded_heads[i] != 0u);
    }
  }
  workgroupBarrier();

  var sum = 0u;
  var has_head = 0u;
  for (var k = 0u; k < ITEMS; k++) {
    let at = padded(lid * ITEMS + k);
    if (SEGMENTED == 1u && tile_heads[at] != 0u) {
      sum = 0u;
      has_head = 1u;
    }
    sum += tile_values[at];
  }

  var running = run_start(lid, tile, has_head, sum);
  for (var k = 0u; k < ITEMS; k++) {
    let at = padded(lid * ITEMS + k);
    if (SEGMENTED == 1u && tile_heads[at] != 0u) {
      running = 0u;
    }
    let value = tile_values[at];
    running += value;
    tile_values[at] = select(running - value, running, INCLUSIVE == 1u);
  }
  workgroupBarrier();
  for (var i = 0u; i < ITEMS; i++) {
    let local = i * WG + lid;
    if (base + local < n) {
      output[base + local] = tile_values[padded(local)];
    }
  }
}

// The same scan with 16-byte loads and stores and no staging in shared memory: invocation lid
// owns the run tile*TILE + lid*ITEMS .. +ITEMS, read and written as ITEMS/4 vec4s (the four
// accesses of a warp together cover its lines; measured faster than staging on the H200).
// The host picks it when input, heads and output each hold ceil(n / 4) whole vec4s. The last quad
// may reach past n: what it holds there is read but never reaches an output at or below n, and the
// output keeps its old words there.
@group(0) @binding(5) var<storage, read> input4: array<vec4<u32>>;
@group(0) @binding(6) var<storage, read> heads4: array<vec4<u32>>;
@group(0) @binding(7) var<storage, read_write> output4: array<vec4<u32>>;

const QUADS: u32 = ITEMS / 4u;

@compute @workgroup_size(WG)
fn scan_vec4(@builtin(local_invocation_index) lid: u32) {
  let tile = take_tile(lid);
  let n = params.n;
  if (tile * TILE >= n) {
    return;
  }
  let quads = (n + 3u) / 4u;
  let first = (tile * TILE + lid * ITEMS) / 4u;

  var values: array<vec4<u32>, QUADS>;
  var flags: array<vec4<u32>, QUADS>;
  for (var q = 0u; q < QUADS; q++) {
    if (first + q < quads) {
      values[q] = input4[first + q];
      if (SEGMENTED == 1u) {
        flags[q] = heads4[first + q];
      }
    }
  }
  var sum = 0u;
  var has_head = 0u;
  for (var q = 0u; q < QUADS; q++) {
    if (COUNT_NONZERO == 1u) {
      values[q] = select(vec4<u32>(0u), vec4<u32>(1u), values[q] != vec4<u32>(0u));
    }
    for (var c = 0u; c < 4u; c++) {
      if (SEGMENTED == 1u && flags[q][c] != 0u) {
        sum = 0u;
        has_head = 1u;
      }
      sum += values[q][c];
    }
  }

  var running = run_start(lid, tile, has_head, sum);
  for (var q = 0u; q < QUADS; q++) {
    var out: vec4<u32>;
    for (var c = 0u; c < 4u; c++) {
      if (SEGMENTED == 1u && flags[q][c] != 0u) {
        running = 0u;
      }
      let value = values[q][c];
      running += value;
      out[c] = select(running - value, running, INCLUSIVE == 1u);
    }
    let at = first + q;
    if (at < quads) {
      store_quad(at, out, n);
    }
  }
}
