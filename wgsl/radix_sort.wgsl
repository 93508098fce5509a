// One pass of a stable LSD radix sort of (key, value) pairs by a digit of up to RADIX_BITS bits
// (parameters, pair arrays, staging and write-out: lib/radix_pass.wgsl).
// Keys have KEY_WORDS u32 words (1: u32 keys; 2: u64 keys stored as separate low and high words).
//
// A pass = histogram (this file) + exclusive scan of the digit-major count matrix (scan.wgsl) +
// scatter (this file). Both kernels cut the input into the same tiles of TILE = WG * ITEMS pairs.
// Scatter ranks a tile's pairs stably in shared memory: invocation t owns the blocked run
// t*ITEMS .. t*ITEMS+ITEMS-1 and counts its digits in column t of a count matrix; an exclusive scan
// of that matrix in digit-major order gives every pair its rank in the tile sorted by digit. The tile
// is rearranged in shared memory in that order and written out coalesced, run by digit run, to
// global offset[digit][tile] + (rank - first rank of the digit in the tile).
// Count matrix cells pack two digits, d (low 16 bits) and d + BINS/2 (high 16 bits): a tile has
// fewer than 2^16 pairs, so neither half overflows.
// Limits: RADIX_BITS <= 4 for scatter (the histogram also serves the 8-bit passes of
// radix_sort_wide.wgsl); tiles * BINS < 2^32.

const TILE: u32 = WG * ITEMS;
const BINS: u32 = 1u << RADIX_BITS;
const HALF_BINS: u32 = BINS / 2u;
const HIST_COPIES: u32 = 8u;

@group(0) @binding(4) var<storage, read_write> counts_out: array<u32>;

var<workgroup> hist: array<atomic<u32>, BINS * HIST_COPIES>;
// (1 slot at 8-bit digits: only the histogram entry is used there, see radix_sort_wide.wgsl)
var<workgroup> rank_cells: array<u32, select(HALF_BINS * WG, 1u, RADIX_BITS > 4u)>;

fn key_high(i: u32) -> u32 {
  if (KEY_WORDS == 2u) {
    return keys_high[i];
  }
  return 0u;
}

// counts_out[d * tiles + tile] = number of pairs of the tile whose digit is d.
@compute @workgroup_size(WG)
fn histogram(@builtin(local_invocation_index) lid: u32,
             @builtin(workgroup_id) wid: vec3<u32>,
             @builtin(num_workgroups) nwg: vec3<u32>) {
  let tile = flat_group(wid, nwg);
  if (tile >= params.tiles) {
    return;
  }
  for (var c = lid; c < BINS * HIST_COPIES; c += WG) {
    atomicStore(&hist[c], 0u);
  }
  workgroupBarrier();
  let base = tile * TILE;
  let copy = (lid % HIST_COPIES) * BINS;
  var digits: array<u32, ITEMS>;
  for (var i = 0u; i < ITEMS; i++) {
    let at = base + i * WG + lid;
    digits[i] = BINS; // past the end: not counted
    if (at < params.n) {
      digits[i] = digit_of(keys_low[at], key_high(at));
    }
  }
  for (var i = 0u; i < ITEMS; i++) {
    if (digits[i] < BINS) {
      atomicAdd(&hist[copy + digits[i]], 1u);
    }
  }
  workgroupBarrier();
  if (lid < BINS) {
    var total = 0u;
    for (var c = 0u; c < HIST_COPIES; c++) {
      total += atomicLoad(&hist[c * BINS + lid]);
    }
    counts_out[lid * params.tiles + tile] = total;
  }
}

fn rank_cell_increment(digit: u32) -> u32 {
  return select(1u, 1u << 16u, digit >= HALF_BINS);
}

// Tile loading (lib/tile_load.wgsl): a pair's words into the stage arrays.
struct TileItem {
  low: u32,
  high: u32,
  value: u32,
}

fn tile_fetch(at: u32) -> TileItem {
  var item = TileItem(keys_low[at], 0u, 0u);
  if (KEY_WORDS == 2u) {
    item.high = keys_high[at];
  }
  item.value = values_in[at];
  return item;
}

fn tile_past_end() -> TileItem {
  return TileItem(0u, 0u, 0u);
}

fn tile_stage(local: u32, item: TileItem) {
  stage_low[padded(local)] = item.low;
  if (KEY_WORDS == 2u) {
    stage_high[padded(local)] = item.high;
  }
  stage_values[padded(local)] = item.value;
}

@compute @workgroup_size(WG)
fn scatter(@builtin(local_invocation_index) lid: u32,
           @builtin(workgroup_id) wid: vec3<u32>,
           @builtin(num_workgroups) nwg: vec3<u32>) {
  let tile = flat_group(wid, nwg);
  if (tile >= params.tiles) {
    return;
  }
  let base = tile * TILE;
  let valid = min(TILE, params.n - base);

  load_tile(lid, base, valid);
  for (var c = 0u; c < HALF_BINS; c++) {
    rank_cells[c * WG + lid] = 0u;
  }
  workgroupBarrier();

  // Take the blocked run into registers and count its digits in column lid.
  var run_low: array<u32, ITEMS>;
  var run_high: array<u32, ITEMS>;
  var run_values: array<u32, ITEMS>;
  for (var k = 0u; k < ITEMS; k++) {
    let local = lid * ITEMS + k;
    if (local < valid) {
      run_low[k] = stage_low[padded(local)];
      if (KEY_WORDS == 2u) {
        run_high[k] = stage_high[padded(local)];
      }
      run_values[k] = stage_values[padded(local)];
      let digit = digit_of(run_low[k], run_high[k]);
      rank_cells[(digit % HALF_BINS) * WG + lid] += rank_cell_increment(digit);
    }
  }
  workgroupBarrier();

  // Exclusive scan of the count matrix in digit-major order: invocation lid scans the cells
  // lid*HALF_BINS .. +HALF_BINS of the flattened matrix.
  var cell_sum = 0u;
  for (var c = 0u; c < HALF_BINS; c++) {
    cell_sum += rank_cells[lid * HALF_BINS + c];
  }
  var running = wg_exclusive_add(lid, cell_sum);
  let low_total = wg_scan_sum & 0xffffu;
  for (var c = 0u; c < HALF_BINS; c++) {
    let count = rank_cells[lid * HALF_BINS + c];
    rank_cells[lid * HALF_BINS + c] = running;
    running += count;
  }
  workgroupBarrier();
  if (lid < BINS) {
    let cell = rank_cells[(lid % HALF_BINS) * WG];
    var first = cell & 0xffffu;
    if (lid >= HALF_BINS) {
      first = (cell >> 16u) + low_total;
    }
    digit_base[lid] = offsets[lid * params.tiles + tile] - first;
  }
  workgroupBarrier();

  // Every pair to its rank in the tile (stable: column lid holds the run in order).
  for (var k = 0u; k < ITEMS; k++) {
    let local = lid * ITEMS + k;
    if (local < valid) {
      let digit = digit_of(run_low[k], run_high[k]);
      let at = (digit % HALF_BINS) * WG + lid;
      let cell = rank_cells[at];
      rank_cells[at] = cell + rank_cell_increment(digit);
      var rank = cell & 0xffffu;
      if (digit >= HALF_BINS) {
        rank = (cell >> 16u) + low_total;
      }
      stage_pair(rank, run_low[k], run_high[k], run_values[k]);
    }
  }
  workgroupBarrier();

  write_tile(lid, valid);
}
