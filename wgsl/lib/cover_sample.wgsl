// The reduced string R of a difference-cover sample (src/gpu/algorithms/difference-cover.ts): the
// positions of class 1 (1, 1 + v, ...), then class 2 from R index start2, then class 4 from start4
// (start4 = R's length when the cover has no 4). Shared by wgsl/sa_packed.wgsl (R's first keys) and
// wgsl/sa_cover.wgsl (the sample order).

// The text position of R's entry k.
fn cover_sample_position(k: u32, v: u32, start2: u32, start4: u32) -> u32 {
  if (k < start2) {
    return v * k + 1u;
  }
  if (k < start4) {
    return v * (k - start2) + 2u;
  }
  return v * (k - start4) + 4u;
}
