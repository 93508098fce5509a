// An SA piece packed at `bits` bits per entry for the readback (src/gpu/algorithms/io.ts): entry j
// of the piece takes bits [j * bits, (j + 1) * bits) of the output, little-endian. The host
// unpacks it on its workers (asm/unpack.ts). One output word per invocation: it gathers the
// (at most 32) entries that overlap it, so no two invocations write one word.

struct Params {
  count: u32, // entries in the piece; those past it read as 0
  words: u32, // output words: ceil(count * bits / 32)
  bits: u32,  // 1 ..= 32
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> sa: array<u32>;
@group(0) @binding(2) var<storage, read_write> packed: array<u32>;

@compute @workgroup_size(WG)
fn pack_bits(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let w = element(lid, wid, nwg);
  if (w >= params.words) {
    return;
  }
  let b = params.bits;
  let low = w * 32u; // the word's first bit (a piece holds at most 2^27 words)
  var out = 0u;
  for (var j = low / b; j * b < low + 32u; j++) {
    var v = 0u;
    if (j < params.count) {
      v = sa[j];
    }
    let at = j * b;
    if (at >= low) {
      out |= v << (at - low);
    } else {
      out |= v >> (low - at);
    }
  }
  packed[w] = out;
}
