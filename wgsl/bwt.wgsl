// The BWT from a suffix array that is still on the device (src/gpu/apps/bwt.ts).
//
// Convention (libsais's, as src/apps/bwt.ts on the CPU): rows 0..n sort the suffixes of T$; row 0 is
// the $ suffix (L[0] = T[n-1]), row r >= 1 is suffix SA[r-1] with L[r] = T[SA[r-1] - 1], except the
// row of suffix 0 (the primary index), which the stored BWT leaves out. Needs n >= 2 (the host
// handles shorter texts). Output: the n + 1 rows packed 4 per u32 in out[0, words) (little-endian,
// the primary row and the bytes past row n zero), the primary index in out[words].
// An SA larger than one binding is bound in windows: `sa` holds SA[base ..), and each dispatch
// covers the SA entries (find_primary) or output words (gather) [first, end) that its window holds.

struct Params {
  n: u32,
  words: u32, // ceil((n + 1) / 4)
  base: u32,  // SA index of sa[0]
  first: u32, // first entry (find_primary) or output word (gather) of this dispatch
  end: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> text: array<u32>;
@group(0) @binding(2) var<storage, read> sa: array<u32>;
@group(0) @binding(3) var<storage, read_write> out: array<u32>;

fn text_byte(j: u32) -> u32 {
  return (text[j >> 2u] >> ((j & 3u) * 8u)) & 0xffu;
}

// The row of suffix 0, plus one (the $ row comes first): exactly one i has sa[i] = 0.
@compute @workgroup_size(WG)
fn find_primary(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = params.first + element(lid, wid, nwg);
  if (i < params.end && sa[i - params.base] == 0u) {
    out[params.words] = i + 1u;
  }
}

// One output word (rows 4w .. 4w + 3) per invocation. Row 0 is T[n-1], row r >= 1 is T[SA[r-1] - 1],
// and the primary row (SA[r-1] = 0) holds 0: the host leaves it out. A word reads no row but its
// own, so the words of a piece need only the SA entries before its end.
@compute @workgroup_size(WG)
fn gather(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let w = params.first + element(lid, wid, nwg);
  if (w >= params.end) {
    return;
  }
  var word = 0u;
  for (var j = 0u; j < 4u; j++) {
    let r = 4u * w + j;
    if (r > params.n) {
      break;
    }
    var byte = 0u;
    if (r == 0u) {
      byte = text_byte(params.n - 1u);
    } else {
      let s = sa[r - 1u - params.base];
      if (s != 0u) {
        byte = text_byte(s - 1u);
      }
    }
    word |= byte << (8u * j);
  }
  out[w] = word;
}
