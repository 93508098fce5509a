// Plain exclusive scan (no heads) with subgroups and long tiles: the same single pass with
// decoupled look-back as wgsl/scan.wgsl, laid out for the widest loads. Invocation lid reads the
// vec4s tile*TILE/4 + c*WG + lid for chunks c = 0..QUADS-1, so every load of a subgroup covers
// one contiguous span. Order within a tile is chunk by chunk, lane by lane: each chunk is scanned
// by subgroups, the subgroup totals of all chunks (in that order) by the first subgroup, and no
// value is staged in shared memory. Long tiles matter: on the H200 the look-back costs about as
// much per tile whatever the tile's length.
// Constants: ITEMS per invocation (a multiple of 4), COUNT_NONZERO, INCLUSIVE as in scan.wgsl.
// Bindings hold ceil(n / 4) vec4s; the last may reach past n: what it holds there is read but
// never reaches an output at or below n, and the output keeps its old words there.

struct Params {
  n: u32,
  pad0: u32,
  pad1: u32,
  pad2: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> input4: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read_write> output4: array<vec4<u32>>;
@group(0) @binding(3) var<storage, read_write> state: array<atomic<u32>>;

const TILE: u32 = WG * ITEMS;
const QUADS: u32 = ITEMS / 4u;
// subgroup totals per tile: QUADS chunks of WG / (subgroup size >= 4) subgroups
const MAX_TOTALS: u32 = QUADS * (WG / 4u);

var<workgroup> totals: array<u32, MAX_TOTALS>;

fn quad_sum(v: vec4<u32>) -> u32 {
  return v.x + v.y + v.z + v.w;
}

@compute @workgroup_size(WG)
fn scan(@builtin(local_invocation_index) lid: u32,
        @builtin(subgroup_invocation_id) lane: u32,
        @builtin(subgroup_size) size: u32) {
  let tile = take_tile(lid);
  let n = params.n;
  if (tile * TILE >= n) {
    return;
  }
  let quads = (n + 3u) / 4u;
  let base = tile * (TILE / 4u) + lid;

  var values: array<vec4<u32>, QUADS>;
  for (var c = 0u; c < QUADS; c++) {
    if (base + c * WG < quads) {
      values[c] = input4[base + c * WG];
    }
  }
  if (COUNT_NONZERO == 1u) {
    for (var c = 0u; c < QUADS; c++) {
      values[c] = select(vec4<u32>(0u), vec4<u32>(1u), values[c] != vec4<u32>(0u));
    }
  }

  // Within each chunk: this lane's prefix inside its subgroup; subgroup totals to shared memory.
  let subgroup = lid / size;
  let subgroups = WG / size;
  var lane_prefix: array<u32, QUADS>;
  for (var c = 0u; c < QUADS; c++) {
    let sum = quad_sum(values[c]);
    let inclusive = subgroupInclusiveAdd(sum);
    lane_prefix[c] = inclusive - sum;
    if (lane == size - 1u) {
      totals[c * subgroups + subgroup] = inclusive;
    }
  }
  workgroupBarrier();

  // The first subgroup turns the totals into exclusive prefixes, publishes the tile, looks back.
  let count = QUADS * subgroups;
  if (lid < size) {
    var carry = 0u;
    for (var first = 0u; first < count; first += size) {
      let i = first + lid;
      var total = 0u;
      if (i < count) {
        total = totals[i];
      }
      let before = subgroupExclusiveAdd(total);
      if (i < count) {
        totals[i] = before + carry;
      }
      carry += subgroupAdd(total);
    }
    if (lid == 0u) {
      publish(tile, select(STATUS_AGGREGATE, STATUS_INCLUSIVE, tile == 0u), carry);
    }
    if (tile > 0u) {
      let earlier = look_back_subgroup(lid, tile, size);
      if (lid == 0u) {
        publish(tile, STATUS_INCLUSIVE, earlier + carry);
        look_prefix = earlier;
      }
    } else if (lid == 0u) {
      look_prefix = 0u;
    }
  }
  let carry_in = workgroupUniformLoad(&look_prefix);

  for (var c = 0u; c < QUADS; c++) {
    let at = base + c * WG;
    if (at < quads) {
      let v = values[c];
      let start = carry_in + totals[c * subgroups + subgroup] + lane_prefix[c];
      var out = vec4<u32>(start, start + v.x, start + v.x + v.y, start + v.x + v.y + v.z);
      if (INCLUSIVE == 1u) {
        out += v;
      }
      store_quad(at, out, n);
    }
  }
}
