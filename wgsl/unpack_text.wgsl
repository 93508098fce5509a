// The text from its upload at `bits` (2 or 4) bits per byte (src/gpu/algorithms/io.ts, uploadText):
// byte i of the text is symbol[code i], code i being bits [i * bits, (i + 1) * bits) of the packed
// words (little-endian; asm/text.ts packs it). One output word (4 bytes) per invocation; bytes at
// or past `n` are 0, as the padding of an unpacked upload.

struct Params {
  n: u32,     // text bytes
  words: u32, // output words: the text buffer's words to write
  bits: u32,  // 2 or 4
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> packed: array<u32>;
@group(0) @binding(2) var<storage, read> symbol: array<u32, 16>;
@group(0) @binding(3) var<storage, read_write> text: array<u32>;

@compute @workgroup_size(WG)
fn unpack_text(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let w = element(lid, wid, nwg);
  if (w >= params.words) {
    return;
  }
  let b = params.bits;
  let mask = (1u << b) - 1u;
  // the word's 4 codes lie in one packed word (4 * bits divides 32)
  let first = 4u * w;
  let per_word = 32u / b;
  let codes = packed[first / per_word] >> ((first % per_word) * b);
  var out = 0u;
  for (var k = 0u; k < 4u; k++) {
    if (first + k < params.n) {
      out |= symbol[(codes >> (k * b)) & mask] << (8u * k);
    }
  }
  text[w] = out;
}
