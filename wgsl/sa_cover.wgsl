// Steps of the difference-cover sorters (src/gpu/algorithms/difference-cover.ts): V = 3 with the
// cover D = {1, 2} (gpu-spd's compact layout), V = 7 with D = {1, 2, 4} (gpu-dc7). COVER_MASK has
// bit r set for each r in D.
//
// Vocabulary. For any residues a, b mod V some l < V has (a + l) mod V and (b + l) mod V both in D.
// The sample is the positions q <= n with q mod V in D, laid out as the reduced string R: first the
// positions 1, 1 + V, 1 + 2V, ... (class 1), then class 2 from start2, then class 4 from start4
// (V = 7; for V = 3, start4 = the length of R). Each class ends at its first position past n - V,
// whose key is unique, so no comparison of R's suffixes runs from one class into the next. isa[k]
// is the final slot of R's suffix k among the sample; rank(q) = isa[index of q]. A non-sample suffix
// i of residue r is sorted by its first k_r characters and rank(i + k_r), the first sample position
// after it.

struct Params {
  count: u32,     // elements of this dispatch (merge: entries of A)
  n: u32,         // text length
  start2: u32,    // R index of class 2's first position
  start4: u32,    // R index of class 4's first position
  residue: u32,   // class_by_successor: the class r; sample_order: slots to skip (the empty suffix)
  pad0: u32,
  char_bits: u32, // class_symbols: bits per character code
  wa: u32,        // merge: entries of A in window a0 (the rest are in a1)
  nb: u32,        // merge: entries of B
  wb: u32,        // merge: entries of B in window b0
  first: u32,     // merge: the first output this dispatch writes
  end: u32,       // merge: one past the last output this dispatch writes
  out_base: u32,  // merge: the output index that out[0] holds
  ahead: u32,     // class_by_successor, class_symbols: k_r, the distance from the class to the next sample residue
  skip: u32,      // class_by_successor: slots of the empty suffix (before the sample run)
  extra: u32,     // class_by_successor: class entries i with i + k_r > n (the class's last ones)
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> text: array<u32>;
@group(0) @binding(2) var<storage, read> isa: array<u32>;
@group(0) @binding(3) var<storage, read> code: array<u32>;
// class_symbols, class_by_successor
@group(0) @binding(4) var<storage, read_write> values: array<u32>;
@group(0) @binding(5) var<storage, read_write> key_low: array<u32>;
@group(0) @binding(6) var<storage, read_write> key_high: array<u32>;
// merge (read-only, so that one buffer may stand in for an unused window)
@group(0) @binding(4) var<storage, read> a0: array<u32>;
@group(0) @binding(5) var<storage, read> a1: array<u32>;
@group(0) @binding(6) var<storage, read> b0: array<u32>;
@group(0) @binding(7) var<storage, read> b1: array<u32>;
@group(0) @binding(8) var<storage, read_write> out: array<u32>;

fn text_byte(j: u32) -> u32 {
  return (text[j >> 2u] >> ((j & 3u) * 8u)) & 0xffu;
}

// The slot of sample position q (q <= n, q mod V in D) among the sorted sample.
fn rank(q: u32) -> u32 {
  let c = q % V;
  var k = q / V;
  if (c == 2u) {
    k += params.start2;
  } else if (c == 4u) {
    k += params.start4;
  }
  return isa[k];
}

// out[slot - skip] = the sample position in that slot (slots below skip: the empty suffix).
@compute @workgroup_size(WG)
fn sample_order(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let k = element(lid, wid, nwg);
  if (k >= params.count) {
    return;
  }
  let slot = isa[k];
  if (slot >= params.residue) {
    out[slot - params.residue] = cover_sample_position(k, V, params.start2, params.start4);
  }
}

// Class r in the order of its suffixes' successors i + k_r: entries j < extra are the class's
// last ones, whose successor lies past n (rank 0; unique by their characters, which hold the end);
// then slot j - extra of the sample (the empty suffix n below skip, else the sample run in out)
// holds q, flagged (key_low) when q = r + k_r mod V and q >= k_r, carrying i = q - k_r (key_high),
// for a compaction. params.end is the class's size. Every other i of the class has i + k_r <= n,
// in the sample.
@compute @workgroup_size(WG)
fn class_by_successor(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let j = element(lid, wid, nwg);
  if (j >= params.count) {
    return;
  }
  if (j < params.extra) {
    key_low[j] = 1u;
    key_high[j] = params.residue + V * (params.end - params.extra + j);
    return;
  }
  let slot = j - params.extra;
  var q = params.n;
  if (slot >= params.skip) {
    q = out[slot - params.skip];
  }
  key_low[j] = select(0u, 1u, q % V == (params.residue + params.ahead) % V && q >= params.ahead);
  key_high[j] = q - params.ahead;
}

// The codes of each class entry's first k_r characters (values[k] = i), most significant first, 0
// past the end: the key of the stable sort that finishes a class taken in its successors' order.
// A code 0 past the end ties with the smallest character, but the suffix that ends there is the
// class's first entry (its successor lies past n), so the stable sort keeps it first, and it is
// the smaller.
@compute @workgroup_size(WG)
fn class_symbols(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let k = element(lid, wid, nwg);
  if (k >= params.count) {
    return;
  }
  let i = values[k];
  var chars = 0u;
  for (var j = 0u; j < params.ahead; j++) {
    var c = 0u;
    if (i + j < params.n) {
      c = code[text_byte(i + j)];
    }
    chars = (chars << params.char_bits) | c;
  }
  key_low[k] = chars;
}

fn in_cover(r: u32) -> bool {
  return ((COVER_MASK >> r) & 1u) != 0u;
}

// The smallest l with (a + l) mod V and (b + l) mod V both in D (a, b < V).
fn cover_offset(a: u32, b: u32) -> u32 {
  var l = 0u;
  while (!(in_cover((a + l) % V) && in_cover((b + l) % V))) {
    l++;
  }
  return l;
}

// Text bytes i .. i + 7, little-endian in (low, high); bytes past the text are whatever is there.
fn bytes_at(i: u32) -> vec2<u32> {
  let w = i >> 2u;
  let s = (i & 3u) * 8u;
  let a = text[w];
  let b = text[w + 1u];
  if (s == 0u) {
    return vec2<u32>(a, b);
  }
  let c = text[w + 2u];
  return vec2<u32>((a >> s) | (b << (32u - s)), (b >> s) | (c << (32u - s)));
}

// Whether suffix i precedes suffix j (i != j): their first l characters, then the ranks at i + l
// and j + l, where l (< V <= 8) is the offset that lands both in the cover.
fn before(i: u32, j: u32) -> bool {
  let l = cover_offset(i % V, j % V);
  // the first k bytes lie inside the text for both
  let k = min(l, min(params.n - i, params.n - j));
  if (k > 0u) {
    let x = bytes_at(i);
    let y = bytes_at(j);
    let low_mask = select((1u << (8u * k)) - 1u, 0xffffffffu, k >= 4u);
    let high_mask = select(0u, (1u << (8u * (k - 4u))) - 1u, k > 4u);
    let low = (x.x ^ y.x) & low_mask;
    let high = (x.y ^ y.y) & high_mask;
    if (low != 0u) {
      let at = (countTrailingZeros(low) >> 3u) * 8u;
      return ((x.x >> at) & 0xffu) < ((y.x >> at) & 0xffu);
    }
    if (high != 0u) {
      let at = (countTrailingZeros(high) >> 3u) * 8u;
      return ((x.y >> at) & 0xffu) < ((y.y >> at) & 0xffu);
    }
  }
  if (k < l) {
    // equal up to where one of them ends: the one that ended is the smaller
    return params.n - i == k;
  }
  // both go on past l characters, so i + l and j + l <= n
  return rank(i + l) < rank(j + l);
}

// A and B, each held in two windows (a0 then a1; b0 then b1), for runs longer than one binding.
fn merge_a(k: u32) -> u32 {
  if (k < params.wa) {
    return a0[k];
  }
  return a1[k - params.wa];
}

fn merge_b(k: u32) -> u32 {
  if (k < params.wb) {
    return b0[k];
  }
  return b1[k - params.wb];
}

fn merge_before(x: u32, y: u32) -> bool {
  return before(x, y);
}

fn merge_emit(o: u32, x: u32) {
  out[o - params.out_base] = x;
}

// Merge path over the sorted runs A (count entries) and B (nb) (lib/merge_path_global.wgsl): each
// invocation writes ITEMS outputs. A dispatch writes the outputs [first, end) into out, whose index
// 0 is output out_base.
@compute @workgroup_size(WG)
fn merge(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let diag = params.first + element(lid, wid, nwg) * ITEMS;
  if (diag >= params.end) {
    return;
  }
  merge_outputs(diag, min(diag + ITEMS, params.end), params.count, params.nb);
}
