// One scatter pass of the LSD radix sort, shared by radix_sort.wgsl (4-bit digits) and
// radix_sort_wide.wgsl (8-bit digits): launch parameters, the pair arrays, the tile staged in
// shared memory in digit order, and its coalesced write-out. The includer defines TILE, BINS,
// KEY_WORDS and ITEMS, and fills digit_base before write_tile.

struct Params {
  n: u32,
  tiles: u32,
  word: u32,
  shift: u32,
  mask: u32,
  pad0: u32,
  pad1: u32,
  pad2: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> keys_low: array<u32>;
@group(0) @binding(2) var<storage, read> keys_high: array<u32>;
@group(0) @binding(3) var<storage, read> values_in: array<u32>;
@group(0) @binding(5) var<storage, read> offsets: array<u32>;
@group(0) @binding(6) var<storage, read_write> keys_low_out: array<u32>;
@group(0) @binding(7) var<storage, read_write> keys_high_out: array<u32>;
@group(0) @binding(8) var<storage, read_write> values_out: array<u32>;

var<workgroup> stage_low: array<u32, TILE + TILE / 32u>;
var<workgroup> stage_high: array<u32, select(1u, TILE + TILE / 32u, KEY_WORDS == 2u)>;
var<workgroup> stage_values: array<u32, TILE + TILE / 32u>;
/** Per digit: its first output position minus its first rank in the tile. */
var<workgroup> digit_base: array<u32, BINS>;

fn digit_of(low: u32, high: u32) -> u32 {
  var word = low;
  if (KEY_WORDS == 2u && params.word == 1u) {
    word = high;
  }
  return (word >> params.shift) & params.mask;
}

/** Puts a pair at its rank in the tile sorted by digit. */
fn stage_pair(rank: u32, low: u32, high: u32, value: u32) {
  stage_low[padded(rank)] = low;
  if (KEY_WORDS == 2u) {
    stage_high[padded(rank)] = high;
  }
  stage_values[padded(rank)] = value;
}

/** Writes the staged tile out: its pair `local` to digit_base[digit] + local, so that each digit's
 * run of the tile is one coalesced span. */
fn write_tile(lid: u32, valid: u32) {
  for (var i = 0u; i < ITEMS; i++) {
    let local = i * WG + lid;
    if (local < valid) {
      let low = stage_low[padded(local)];
      var high = 0u;
      if (KEY_WORDS == 2u) {
        high = stage_high[padded(local)];
      }
      let destination = digit_base[digit_of(low, high)] + local;
      keys_low_out[destination] = low;
      if (KEY_WORDS == 2u) {
        keys_high_out[destination] = high;
      }
      values_out[destination] = stage_values[padded(local)];
    }
  }
}
