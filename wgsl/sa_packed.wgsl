// Initial keys that pack as many characters as the text's alphabet allows into 64 bits
// (src/gpu/algorithms/packed-keys.ts). code[byte] is the byte's rank among the bytes present
// (order-preserving), char_bits wide; a key is `chars` codes, most significant first (0 past the
// text's end), then min(n - s, chars + 1) in len_bits: equal keys mean equal first `chars`
// characters and both suffixes longer than that, and a suffix that ends sooner sorts first.
// chars * char_bits + len_bits <= 64; char_bits and len_bits in 1 .. 31.

struct Params {
  count: u32,  // entries to write
  n: u32,      // text length
  n0: u32,     // sample: (n + 2) / 3
  chars: u32,
  char_bits: u32,
  len_bits: u32,
  start2: u32, // cover: R index of class 2's first position (src/gpu/algorithms/difference-cover.ts)
  start4: u32, // cover: R index of class 4's first position (R's length when v = 3)
  v: u32,      // cover: the period, 3 or 7
  pad0: u32,
  pad1: u32,
  pad2: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> text: array<u32>;
@group(0) @binding(2) var<storage, read_write> mask: array<atomic<u32>>;
@group(0) @binding(3) var<storage, read> code: array<u32>;
@group(0) @binding(4) var<storage, read_write> suffixes: array<u32>;
@group(0) @binding(5) var<storage, read_write> positions: array<u32>;
@group(0) @binding(6) var<storage, read_write> key_low: array<u32>;
@group(0) @binding(7) var<storage, read_write> key_high: array<u32>;

var<workgroup> seen: array<atomic<u32>, 8>;

// mask bit b is set when byte b occurs (count = text words; bytes past n are not looked at).
@compute @workgroup_size(WG)
fn alphabet(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  if (lid < 8u) {
    atomicStore(&seen[lid], 0u);
  }
  workgroupBarrier();
  let first = flat_group(wid, nwg) * WG * WORDS_PER_THREAD;
  for (var j = 0u; j < WORDS_PER_THREAD; j++) {
    let w = first + j * WG + lid;
    if (w < params.count) {
      let word = text[w];
      for (var b = 0u; b < 4u; b++) {
        if (w * 4u + b < params.n) {
          let byte = (word >> (8u * b)) & 0xffu;
          atomicOr(&seen[byte >> 5u], 1u << (byte & 31u));
        }
      }
    }
  }
  workgroupBarrier();
  if (lid < 8u) {
    let bits = atomicLoad(&seen[lid]);
    if (bits != 0u) {
      atomicOr(&mask[lid], bits);
    }
  }
}

fn code_at(j: u32) -> u32 {
  if (j >= params.n) {
    return 0u;
  }
  return code[(text[j >> 2u] >> ((j & 3u) * 8u)) & 0xffu];
}

// The packed key of suffix s as (low, high).
fn packed_key(s: u32) -> vec2<u32> {
  var low = 0u;
  var high = 0u;
  let cb = params.char_bits;
  let lb = params.len_bits;
  for (var j = 0u; j < params.chars; j++) {
    // (high, low) = (high, low) << char_bits | code
    high = (high << cb) | (low >> (32u - cb));
    low = (low << cb) | code_at(s + j);
  }
  let len = min(params.n - min(s, params.n), params.chars + 1u);
  high = (high << lb) | (low >> (32u - lb));
  low = (low << lb) | len;
  return vec2<u32>(low, high);
}

// Every suffix: suffixes[i] = positions[i] = i and its key.
@compute @workgroup_size(WG)
fn keys_all(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = element(lid, wid, nwg);
  if (i >= params.count) {
    return;
  }
  let key = packed_key(i);
  suffixes[i] = i;
  positions[i] = i;
  key_low[i] = key.x;
  key_high[i] = key.y;
}

// The skew sample (k < n0: 3k + 1, else 3(k - n0) + 2; the dummy at n gets length 0, the
// smallest key): suffixes[k] = its position, positions[k] = k.
@compute @workgroup_size(WG)
fn keys_sample(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let k = element(lid, wid, nwg);
  if (k >= params.count) {
    return;
  }
  let p = select(3u * (k - params.n0) + 2u, 3u * k + 1u, k < params.n0);
  let key = packed_key(p);
  suffixes[k] = p;
  positions[k] = k;
  key_low[k] = key.x;
  key_high[k] = key.y;
}

// A difference-cover sample as its reduced string R (lib/cover_sample.wgsl); suffixes[k] =
// positions[k] = k (R's suffixes are sorted, and isa is indexed by k).
@compute @workgroup_size(WG)
fn keys_cover(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let k = element(lid, wid, nwg);
  if (k >= params.count) {
    return;
  }
  let key = packed_key(cover_sample_position(k, params.v, params.start2, params.start4));
  suffixes[k] = k;
  positions[k] = k;
  key_low[k] = key.x;
  key_high[k] = key.y;
}
