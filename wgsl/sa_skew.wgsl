// Steps of the GPU skew (DC3) algorithm (src/gpu/algorithms/skew.ts; gpu-spd uses the mod-0 steps and the merge).
//
// One level works on a text t[0 .. n) of u32 symbols >= 1 followed by three 0s. The sample is the
// positions p with p mod 3 != 0 below n + (n0 - n1) (Kärkkäinen-Sanders: a dummy mod-1 position n
// when n mod 3 = 1); sample index k < n0 is p = 3k + 1, and k >= n0 is p = 3(k - n0) + 2.
// rank[p] is the 1-based rank of sample suffix p among the sample, 0 at positions past the sample.

struct Params {
  count: u32,    // elements this dispatch covers
  n: u32,        // text length of this level
  n0: u32,       // (n + 2) / 3
  bits: u32,     // bits per symbol (or per rank) in packed keys
  skip: u32,     // merge: entries of SA12 to skip (the dummy)
  nb: u32,       // merge: entries of SA12 after the skip
  first: u32,    // merge: the first output this dispatch writes
  end: u32,      // merge: one past the last output this dispatch writes
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> bytes: array<u32>;
@group(0) @binding(2) var<storage, read_write> t: array<u32>;
@group(0) @binding(3) var<storage, read_write> rank: array<u32>;
@group(0) @binding(4) var<storage, read_write> sa12: array<u32>;
@group(0) @binding(5) var<storage, read_write> key_low: array<u32>;
@group(0) @binding(6) var<storage, read_write> key_high: array<u32>;
@group(0) @binding(7) var<storage, read_write> aux: array<u32>;
@group(0) @binding(8) var<storage, read_write> sa0: array<u32>;

fn sample_position(k: u32) -> u32 {
  if (k < params.n0) {
    return 3u * k + 1u;
  }
  return 3u * (k - params.n0) + 2u;
}

// (low, high) words of a + b * 2^shift for shift in 0..63, a < 2^shift (b's bits above 64 dropped).
fn pack(a: u32, b: u32, shift: u32) -> vec2<u32> {
  if (shift == 0u) {
    return vec2<u32>(b, 0u);
  }
  if (shift < 32u) {
    return vec2<u32>(a | (b << shift), b >> (32u - shift));
  }
  if (shift == 32u) {
    return vec2<u32>(a, b);
  }
  return vec2<u32>(a, b << (shift - 32u));
}

// Top level: t[i] = byte i + 1 (so 0 is free for the padding), three 0s after the text.
@compute @workgroup_size(WG)
fn to_symbols(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = element(lid, wid, nwg);
  if (i >= params.count) {
    return;
  }
  if (i < params.n) {
    t[i] = ((bytes[i >> 2u] >> ((i & 3u) * 8u)) & 0xffu) + 1u;
  } else {
    t[i] = 0u;
  }
}

// Sample key, packed: the triple (t[p], t[p+1], t[p+2]) in 3 * bits <= 64 bits; sa12[k] = p.
@compute @workgroup_size(WG)
fn sample_keys_triple(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let k = element(lid, wid, nwg);
  if (k >= params.count) {
    return;
  }
  let p = sample_position(k);
  let b = params.bits; // <= 21 here
  let first2 = pack(t[p + 1u], t[p], b); // t[p] * 2^b + t[p+1] < 2^(2b)
  key_low[k] = t[p + 2u] | (first2.x << b);
  key_high[k] = (first2.x >> (32u - b)) | (first2.y << b);
  sa12[k] = p;
}

// Sample key, first of two LSD passes (wide symbols): t[p + 2] alone; sa12[k] = p.
@compute @workgroup_size(WG)
fn sample_keys_last(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let k = element(lid, wid, nwg);
  if (k >= params.count) {
    return;
  }
  let p = sample_position(k);
  key_low[k] = t[p + 2u];
  sa12[k] = p;
}

// Second pass: (t[p], t[p+1]) packed in 2 * bits <= 64 bits for the p now in sa12[k].
@compute @workgroup_size(WG)
fn sample_keys_first2(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let k = element(lid, wid, nwg);
  if (k >= params.count) {
    return;
  }
  let p = sa12[k];
  let key = pack(t[p + 1u], t[p], params.bits);
  key_low[k] = key.x;
  key_high[k] = key.y;
}

// key_high[k] = 1 where the triple of sa12[k] differs from the previous one (names: inclusive scan).
@compute @workgroup_size(WG)
fn triple_flags(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let k = element(lid, wid, nwg);
  if (k >= params.count) {
    return;
  }
  var head = k == 0u;
  if (!head) {
    let p = sa12[k];
    let q = sa12[k - 1u];
    head = t[p] != t[q] || t[p + 1u] != t[q + 1u] || t[p + 2u] != t[q + 2u];
  }
  key_high[k] = select(0u, 1u, head);
}

// All names unique: rank[sa12[k]] = k + 1.
@compute @workgroup_size(WG)
fn rank_sample(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let k = element(lid, wid, nwg);
  if (k >= params.count) {
    return;
  }
  rank[sa12[k]] = k + 1u;
}

// The reduced text (aux = names): key_low[index of p] = name, mod-1 half first; three 0s follow.
@compute @workgroup_size(WG)
fn reduced_text(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let k = element(lid, wid, nwg);
  if (k >= params.count + 3u) {
    return;
  }
  if (k >= params.count) {
    key_low[k] = 0u;
    return;
  }
  let p = sa12[k];
  let index = select(params.n0 + p / 3u, p / 3u, p % 3u == 1u);
  key_low[index] = aux[k];
}

// From the reduced text's SA (in aux): sa12[k] = its text position, rank[that position] = k + 1.
@compute @workgroup_size(WG)
fn ranks_from_reduced(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let k = element(lid, wid, nwg);
  if (k >= params.count) {
    return;
  }
  let p = sample_position(aux[k]);
  sa12[k] = p;
  rank[p] = k + 1u;
}

// gpu-spd: from the sample's final slots (aux = ISA by text position): sa12[slot] = p, rank[p] =
// slot + 1.
@compute @workgroup_size(WG)
fn sample_from_isa(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let k = element(lid, wid, nwg);
  if (k >= params.count) {
    return;
  }
  let p = sample_position(k);
  let slot = aux[p];
  sa12[slot] = p;
  rank[p] = slot + 1u;
}

// SA0 in the order of the suffixes' successors: the sample's slots k whose suffix p = sa12[k] is
// 1 mod 3 are flagged (key_low) and carry i = p - 1 (key_high), for a compaction. Every mod-0
// suffix i has its successor i + 1 in the sample (the dummy n when i = n - 1 and n = 1 mod 3).
@compute @workgroup_size(WG)
fn mod0_by_successor(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let k = element(lid, wid, nwg);
  if (k >= params.count) {
    return;
  }
  let p = sa12[k];
  key_low[k] = select(0u, 1u, p % 3u == 1u);
  key_high[k] = p - 1u;
}

// The first symbol of each mod-0 suffix, in sa0's order: the key of the stable sort that finishes SA0.
@compute @workgroup_size(WG)
fn mod0_symbols(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let k = element(lid, wid, nwg);
  if (k >= params.count) {
    return;
  }
  key_low[k] = t[sa0[k]];
}

// Whether mod-0 suffix i precedes sample suffix j (never equal: distinct suffixes).
fn mod0_before(i: u32, j: u32) -> bool {
  if (t[i] != t[j]) {
    return t[i] < t[j];
  }
  if (j % 3u == 1u) {
    return rank[i + 1u] < rank[j + 1u];
  }
  if (t[i + 1u] != t[j + 1u]) {
    return t[i + 1u] < t[j + 1u];
  }
  return rank[i + 2u] < rank[j + 2u];
}

fn merge_a(k: u32) -> u32 {
  return sa0[k];
}

fn merge_b(k: u32) -> u32 {
  return sa12[params.skip + k];
}

fn merge_before(i: u32, j: u32) -> bool {
  return mod0_before(i, j);
}

fn merge_emit(o: u32, x: u32) {
  aux[o] = x;
}

// Merge path over SA0 (na = count) and SA12[skip .. skip + nb) (lib/merge_path_global.wgsl): each
// invocation writes ITEMS outputs into aux. A dispatch writes the outputs [first, end) only, so
// that the SA can be read back in pieces as they are merged.
@compute @workgroup_size(WG)
fn merge(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let diag = params.first + element(lid, wid, nwg) * ITEMS;
  if (diag >= params.end) {
    return;
  }
  merge_outputs(diag, min(diag + ITEMS, params.end), params.count, params.nb);
}
