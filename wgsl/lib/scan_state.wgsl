// Tile states of the single-pass scans (wgsl/scan.wgsl, wgsl/scan_striped.wgsl): each tile
// publishes its aggregate, then its inclusive prefix, for the look-back of later tiles
// (lib/look_back_*.wgsl). The including file declares `state: array<atomic<u32>>`; state[0] is the
// tile ticket counter.
// A published value is two atomic words, (status << 16) | 16-bit half of the value: one atomic then
// holds a status together with its data, and a reader accepts a value only when both halves carry
// its status. Status 1 = aggregate, 2 = inclusive prefix; 0 = not yet published.

const STATUS_AGGREGATE: u32 = 1u;
const STATUS_INCLUSIVE: u32 = 2u;

var<workgroup> look_prefix: u32;
var<workgroup> tile_ticket: u32;

// The next tile by ticket (state[0]): every earlier tile has already started, so the look-back
// always makes progress. Every invocation calls it.
fn take_tile(lid: u32) -> u32 {
  if (lid == 0u) {
    tile_ticket = atomicAdd(&state[0], 1u);
  }
  return workgroupUniformLoad(&tile_ticket);
}

// A tile's aggregate and its inclusive prefix have a pair of words each, so each pair is written
// once: a reader never sees an aggregate vanish while the inclusive value is being written.
fn publish(tile: u32, status: u32, value: u32) {
  let at = 1u + 4u * tile + select(0u, 2u, status == STATUS_INCLUSIVE);
  atomicStore(&state[at], (status << 16u) | (value & 0xffffu));
  atomicStore(&state[at + 1u], (status << 16u) | (value >> 16u));
}

// (status, value) of tile j: inclusive when that pair is complete, else aggregate when that one
// is, else (0, 0): not yet published.
fn tile_state(j: u32) -> vec2<u32> {
  let inclusive_low = atomicLoad(&state[3u + 4u * j]);
  let inclusive_high = atomicLoad(&state[4u + 4u * j]);
  let aggregate_low = atomicLoad(&state[1u + 4u * j]);
  let aggregate_high = atomicLoad(&state[2u + 4u * j]);
  if ((inclusive_low >> 16u) == STATUS_INCLUSIVE && (inclusive_high >> 16u) == STATUS_INCLUSIVE) {
    return vec2<u32>(STATUS_INCLUSIVE, (inclusive_low & 0xffffu) | (inclusive_high << 16u));
  }
  if ((aggregate_low >> 16u) == STATUS_AGGREGATE && (aggregate_high >> 16u) == STATUS_AGGREGATE) {
    return vec2<u32>(STATUS_AGGREGATE, (aggregate_low & 0xffffu) | (aggregate_high << 16u));
  }
  return vec2<u32>(0u, 0u);
}


// output4[at] = value, but the words at index n and beyond keep what they hold (the last quad of a
// scan may reach past n). The including file declares `output4: array<vec4<u32>>`.
fn store_quad(at: u32, value: vec4<u32>, n: u32) {
  var out = value;
  if (4u * at + 4u > n) {
    let beyond = vec4<u32>(4u * at) + vec4<u32>(0u, 1u, 2u, 3u) >= vec4<u32>(n);
    out = select(value, output4[at], beyond);
  }
  output4[at] = out;
}
