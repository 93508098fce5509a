// FM-index queries on the GPU (src/gpu/apps/fm-search.ts) over the index image exactly as on disk
// (src/apps/fmindex.ts documents it; asm/fmindex.ts runs the same queries on the CPU), bound whole as
// u32 words: every section and every field inside a block lies at a multiple of 4 bytes.
//
//   count:  one invocation per pattern: backward search from its last byte; writes the row range
//           [sp, ep) (0, 0 when absent).
//   locate: one invocation per reported row: row = ranges[2p] + (i - starts[p]) for the pattern p
//           whose output slots [starts[p], starts[p+1]) hold i; LF-walks back to a sampled row
//           (fewer than K steps) and writes sample + steps.
//
// Both go at most step_budget steps per dispatch, and the host dispatches them again until the
// longest pattern (the K steps) is done: Mesa's llvmpipe (the software adapter) ends every loop
// of an invocation once it has run about 65,000 iterations in all, silently, so an unbounded walk
// returned a wrong row there. Between dispatches, count keeps [sp, ep) in ranges (the next step's
// position follows from step_from), and locate keeps the row in positions (the steps taken are
// step_from) and whether positions already holds the answer in walk_done (1).
//
// rank(c, i) = occurrences of code c in L[0, i), the $ (stored as code 0 at the primary row) left out:
// the count word of i's block plus the matching bytes from the block's start up to i, or, in the
// upper half of a full block, the next block's count word minus the matches from i to its end.

struct Params {
  count: u32,        // patterns (count) or output slots (locate) in this dispatch
  first_item: u32,   // index of the first of them
  n: u32,            // text length; rows are 0..n
  primary: u32,
  block_shift: u32,  // log2(rows per block)
  block_words: u32,  // words per block
  blocks_at: u32,    // word offset of block 0 in the image
  samples_at: u32,   // word offset of the samples
  marks_at: u32,     // word offset of a block's marks within the block
  bytes_at: u32,     // word offset of a block's codes within the block
  sample_rate: u32,
  patterns: u32,     // patterns of the whole batch (bounds the search over starts)
  step_from: u32,    // steps every invocation took in the dispatches before this one
  step_budget: u32,  // most steps of one invocation in this dispatch
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> index: array<u32>;
@group(0) @binding(2) var<storage, read> patterns: array<u32>;
@group(0) @binding(3) var<storage, read> spans: array<u32>;
// locate
@group(0) @binding(3) var<storage, read_write> walk_done: array<u32>;
@group(0) @binding(4) var<storage, read_write> ranges: array<u32>;
@group(0) @binding(5) var<storage, read> starts: array<u32>;
@group(0) @binding(6) var<storage, read_write> positions: array<u32>;
@group(0) @binding(7) var<storage, read_write> status: atomic<u32>;

// CODES_AT (codeOf: u32[256]) and BOUNDS_AT (C: u32[sigma + 1]), word offsets in the image, are
// prepended by the host (src/gpu/apps/fm-search.ts).
const ABSENT: u32 = 0xffffffffu;

fn pattern_byte(j: u32) -> u32 {
  return (patterns[j >> 2u] >> ((j & 3u) * 8u)) & 0xffu;
}

// Codes equal to c among bytes [lo, hi) of the code bytes starting at word `base`, four per word:
// a byte of x = word ^ (c in every byte) is zero exactly where the code matches; the 0x80 bit of
// each zero byte is set in ~(((x & 0x7f7f7f7f) + 0x7f7f7f7f) | x | 0x7f7f7f7f), exactly.
fn matches(base: u32, lo: u32, hi: u32, c: u32) -> u32 {
  if (lo >= hi) {
    return 0u;
  }
  let spread = c * 0x01010101u;
  var total = 0u;
  let last = (hi - 1u) >> 2u;
  for (var w = lo >> 2u; w <= last; w++) {
    let x = index[base + w] ^ spread;
    var zero = ~(((x & 0x7f7f7f7fu) + 0x7f7f7f7fu) | x | 0x7f7f7f7fu);
    let first_byte = max(lo, 4u * w) - 4u * w; // bytes [first_byte, end_byte) of this word are in range
    let end_byte = min(hi, 4u * w + 4u) - 4u * w;
    zero &= (0x80808080u << (8u * first_byte)) & (0x80808080u >> (8u * (4u - end_byte)));
    total += countOneBits(zero);
  }
  return total;
}

fn block_of(i: u32) -> u32 {
  return params.blocks_at + (i >> params.block_shift) * params.block_words;
}

// Occurrences of code c in L[0, i), 0 <= i <= n + 1.
fn rank(c: u32, i: u32) -> u32 {
  let b = 1u << params.block_shift;
  let blk = block_of(i);
  let within = i & (b - 1u);
  let start = i - within;
  if (within <= (b >> 1u) || start + b > params.n + 1u) {
    var r = index[blk + 1u + c] + matches(blk + params.bytes_at, 0u, within, c);
    if (c == 0u && params.primary < i && params.primary >= start) {
      r -= 1u;
    }
    return r;
  }
  var after = matches(blk + params.bytes_at, within, b, c);
  if (c == 0u && params.primary >= i && params.primary < start + b) {
    after -= 1u;
  }
  return index[blk + params.block_words + 1u + c] - after;
}

// Invariant per step: rows [sp, ep) are those whose suffixes start with the pattern's bytes
// [pos, end), and sp < ep.
@compute @workgroup_size(WG)
fn count(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let e = element(lid, wid, nwg);
  if (e >= params.count) {
    return;
  }
  let p = params.first_item + e;
  let begin = spans[2u * p];
  let end = spans[2u * p + 1u];
  if (params.step_from >= end - begin) {
    return; // done in an earlier dispatch
  }
  var sp = 0u;
  var ep = params.n + 1u;
  if (params.step_from > 0u) {
    sp = ranges[2u * p];
    ep = ranges[2u * p + 1u];
    if (sp >= ep) {
      return; // absent
    }
  }
  var pos = end - params.step_from;
  let stop = select(begin, pos - params.step_budget, pos - begin > params.step_budget);
  let b = 1u << params.block_shift;
  while (pos > stop) {
    pos -= 1u;
    let c = index[CODES_AT + pattern_byte(pos)];
    if (c == ABSENT) {
      sp = 0u;
      ep = 0u;
      break;
    }
    let base = index[BOUNDS_AT + c];
    let next_sp = base + rank(c, sp);
    var next_ep: u32;
    if ((sp >> params.block_shift) == (ep >> params.block_shift) && ep - sp <= (b >> 1u)) {
      // A narrow range inside one block: count its own bytes.
      let blk = block_of(sp);
      var inside = matches(blk + params.bytes_at, sp & (b - 1u), ep & (b - 1u), c);
      if (c == 0u && params.primary >= sp && params.primary < ep) {
        inside -= 1u;
      }
      next_ep = next_sp + inside;
    } else {
      next_ep = base + rank(c, ep);
    }
    sp = next_sp;
    ep = next_ep;
    if (sp >= ep) {
      sp = 0u;
      ep = 0u;
      break;
    }
  }
  ranges[2u * p] = sp;
  ranges[2u * p + 1u] = ep;
}

// The pattern whose output slots hold slot i: the last p with starts[p] <= i.
fn pattern_of(i: u32) -> u32 {
  var lo = 0u;
  var hi = params.patterns; // starts[patterns] = all slots > i
  while (hi - lo > 1u) {
    let mid = (lo + hi) >> 1u;
    if (starts[mid] <= i) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return lo;
}

@compute @workgroup_size(WG)
fn locate(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let e = element(lid, wid, nwg);
  if (e >= params.count) {
    return;
  }
  let slot = params.first_item + e;
  var r = 0u;
  var steps = params.step_from;
  if (steps == 0u) {
    let p = pattern_of(slot);
    r = ranges[2u * p] + (slot - starts[p]);
  } else {
    if (walk_done[e] != 0u) {
      return;
    }
    r = positions[e];
  }
  let mask = (1u << params.block_shift) - 1u;
  let stop = min(params.sample_rate, steps + params.step_budget);
  for (; steps < stop; steps++) {
    let blk = block_of(r);
    let j = r & mask;
    let marks = blk + params.marks_at;
    if (((index[marks + (j >> 5u)] >> (j & 31u)) & 1u) != 0u) {
      var k = index[blk];
      for (var w = 0u; w < (j >> 5u); w++) {
        k += countOneBits(index[marks + w]);
      }
      k += countOneBits(index[marks + (j >> 5u)] & ((1u << (j & 31u)) - 1u));
      positions[e] = index[params.samples_at + k] + steps;
      walk_done[e] = 1u;
      return;
    }
    let c = (index[blk + params.bytes_at + (j >> 2u)] >> ((j & 3u) * 8u)) & 0xffu;
    r = index[BOUNDS_AT + c] + rank(c, r);
  }
  if (steps < params.sample_rate) {
    positions[e] = r; // the walk goes on in the next dispatch
    walk_done[e] = 0u;
    return;
  }
  // No sample within K - 1 steps: a damaged index (loaded images are checked, so never expected).
  atomicStore(&status, 1u);
  positions[e] = 0u;
  walk_done[e] = 1u;
}
