// The scatter of one stable LSD radix pass by an 8-bit digit (256 bins), for devices whose
// subgroups have at least 32 lanes: half the passes of radix_sort.wgsl's 4-bit digits, whose count
// matrix (a column per invocation) would not fit shared memory at 8 bits.
// A pass = radix_sort.wgsl's histogram (RADIX_BITS = 8) + exclusive scan of the digit-major count
// matrix (scan.wgsl) + this scatter, over the same tiles of TILE = WG * ITEMS pairs.
//
// Each group of 32 consecutive invocations (a subgroup, or a 32-lane part of one) takes a run of
// 32 * ITEMS consecutive pairs of the tile, in ITEMS steps of 32 (a pair per lane and step). For
// each step, nine ballots (the digit's 8 bits and a past-the-end bit) tell every lane which lanes
// of that step hold each of its own ITEMS digits; so each lane counts, for each of its pairs, the
// pairs of the run before it with the same digit (earlier steps, and lower lanes of its step) and
// the run's total of that digit, with no shared-memory counting (the work grows with ITEMS^2, so
// ITEMS is small). The first pair of each digit in the run writes that total; a digit-major scan
// of the totals (digits in order, then runs in order) gives each run's first rank per digit, and
// so every pair its stable rank in the tile. The tile is staged in shared memory in that order and
// written out coalesced (lib/radix_pass.wgsl). Subgroups hold consecutive local indices (see
// lib/wg_scan_subgroup.wgsl).

const TILE: u32 = WG * ITEMS;
const BINS: u32 = 256u;
const RUNS: u32 = WG / 32u;
/** The digit of lanes past the end of the input: it matches only them. */
const PAST_END: u32 = 256u;

/** [run][digit]: the run's count of the digit, then its first rank in the tile. */
var<workgroup> run_counts: array<u32, RUNS * BINS>;

@compute @workgroup_size(WG)
fn scatter_wide(@builtin(local_invocation_index) lid: u32,
                @builtin(workgroup_id) wid: vec3<u32>,
                @builtin(num_workgroups) nwg: vec3<u32>,
                @builtin(subgroup_invocation_id) lane: u32) {
  let tile = flat_group(wid, nwg);
  if (tile >= params.tiles) {
    return;
  }
  let base = tile * TILE;
  let valid = min(TILE, params.n - base);
  let run = lid / 32u;
  let lane32 = lid % 32u;
  let part = lane / 32u; // the ballots' word that holds this lane's 32-lane group
  for (var c = lid; c < RUNS * BINS; c += WG) {
    run_counts[c] = 0u;
  }

  // The run's pairs into registers, every load in flight before any is used.
  let first_local = run * 32u * ITEMS + lane32;
  var run_low: array<u32, ITEMS>;
  var run_high: array<u32, ITEMS>;
  var run_values: array<u32, ITEMS>;
  var digits: array<u32, ITEMS>;
  for (var k = 0u; k < ITEMS; k++) {
    let local = first_local + 32u * k;
    if (local < valid) {
      run_low[k] = keys_low[base + local];
      if (KEY_WORDS == 2u) {
        run_high[k] = keys_high[base + local];
      }
      run_values[k] = values_in[base + local];
    }
  }
  for (var k = 0u; k < ITEMS; k++) {
    digits[k] = PAST_END;
    if (first_local + 32u * k < valid) {
      digits[k] = digit_of(run_low[k], run_high[k]);
    }
  }
  workgroupBarrier(); // run_counts zeroed

  // Each pair's rank in its run among pairs of its digit, step by step: a step's nine ballots are
  // compared at once with all of the lane's digits.
  let below = (1u << lane32) - 1u;
  var ranks: array<u32, ITEMS>;
  var totals: array<u32, ITEMS>;
  for (var step = 0u; step < ITEMS; step++) {
    let d = digits[step];
    let b0 = subgroupBallot((d & 1u) != 0u)[part];
    let b1 = subgroupBallot((d & 2u) != 0u)[part];
    let b2 = subgroupBallot((d & 4u) != 0u)[part];
    let b3 = subgroupBallot((d & 8u) != 0u)[part];
    let b4 = subgroupBallot((d & 16u) != 0u)[part];
    let b5 = subgroupBallot((d & 32u) != 0u)[part];
    let b6 = subgroupBallot((d & 64u) != 0u)[part];
    let b7 = subgroupBallot((d & 128u) != 0u)[part];
    let b8 = subgroupBallot((d & 256u) != 0u)[part];
    for (var k = 0u; k < ITEMS; k++) {
      let e = digits[k];
      let same = select(~b0, b0, (e & 1u) != 0u) & select(~b1, b1, (e & 2u) != 0u) & select(~b2, b2, (e & 4u) != 0u)
        & select(~b3, b3, (e & 8u) != 0u) & select(~b4, b4, (e & 16u) != 0u) & select(~b5, b5, (e & 32u) != 0u)
        & select(~b6, b6, (e & 64u) != 0u) & select(~b7, b7, (e & 128u) != 0u) & select(~b8, b8, (e & 256u) != 0u);
      let count = countOneBits(same);
      totals[k] += count;
      if (step < k) {
        ranks[k] += count;
      } else if (step == k) {
        ranks[k] += countOneBits(same & below);
      }
    }
  }
  // The first pair of each digit in the run writes the run's total.
  for (var k = 0u; k < ITEMS; k++) {
    if (digits[k] != PAST_END && ranks[k] == 0u) {
      run_counts[run * BINS + digits[k]] = totals[k];
    }
  }
  workgroupBarrier();

  // First rank of each (digit, run): invocation lid takes digit lid (WG == BINS).
  var total = 0u;
  for (var r = 0u; r < RUNS; r++) {
    total += run_counts[r * BINS + lid];
  }
  let start = wg_exclusive_add(lid, total);
  var next = start;
  for (var r = 0u; r < RUNS; r++) {
    let count = run_counts[r * BINS + lid];
    run_counts[r * BINS + lid] = next;
    next += count;
  }
  digit_base[lid] = offsets[lid * params.tiles + tile] - start;
  workgroupBarrier();

  for (var k = 0u; k < ITEMS; k++) {
    if (digits[k] != PAST_END) {
      let rank = run_counts[run * BINS + digits[k]] + ranks[k];
      stage_pair(rank, run_low[k], run_high[k], run_values[k]);
    }
  }
  workgroupBarrier();

  write_tile(lid, valid);
}
