// The text packed for its GPU upload (src/gpu/algorithms/io.ts, uploadText): the byte equal to
// symbol k becomes code k of `bits` (2 or 4) bits, code i at bits [i * bits, (i + 1) * bits) of the
// output words, little-endian (wgsl/unpack_text.wgsl expands it on the GPU). Blocks start at
// multiples of 16 bytes, so each writes whole words of its own. 16 bytes at a time: one compare
// per symbol, then the codes are folded into 32 (2 bits) or 64 (4 bits) bits.

/**
 * Packs text[from, to) into dst (the words of those bytes). `splats` holds the alphabet, symbol k
 * repeated 16 times at splats + 16 k, for k < sigma (sigma <= 4 for 2 bits, <= 16 for 4). Returns 1
 * if a byte outside the alphabet occurs (the packing is then of no use), else 0.
 */
export function packText(text: usize, from: u32, to: u32, splats: usize, sigma: u32, bits: u32, dst: usize): u32 {
  let out = dst + ((<usize>from * <usize>bits) >> 3);
  let allFound = i8x16.splat(-1);
  let i = from;
  for (; i + 16 <= to; i += 16) {
    const v = v128.load(text + <usize>i);
    let codes = i8x16.splat(0);
    let found = i8x16.splat(0);
    for (let k: u32 = 0; k < sigma; k++) {
      const hit = i8x16.eq(v, v128.load(splats + (<usize>k << 4)));
      codes = v128.or(codes, v128.and(hit, i8x16.splat(<i8>k)));
      found = v128.or(found, hit);
    }
    allFound = v128.and(allFound, found);
    if (bits == 2) {
      // u16 lanes: code(2L) | code(2L + 1) << 2; u32 lanes: then 8 bits; the low byte of each u32
      const t = v128.or(v128.and(codes, i16x8.splat(0x0003)), v128.and(i16x8.shr_u(codes, 6), i16x8.splat(0x000c)));
      const u = v128.or(v128.and(t, i32x4.splat(0x0f)), v128.and(i32x4.shr_u(t, 12), i32x4.splat(0xf0)));
      const w = i8x16.swizzle(u, i8x16(0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1));
      store<u32>(out, i32x4.extract_lane(w, 0));
      out += 4;
    } else {
      // u16 lanes: code(2L) | code(2L + 1) << 4; the low byte of each u16
      const t = v128.or(v128.and(codes, i16x8.splat(0x000f)), v128.and(i16x8.shr_u(codes, 4), i16x8.splat(0x00f0)));
      const w = i8x16.swizzle(t, i8x16(0, 2, 4, 6, 8, 10, 12, 14, -1, -1, -1, -1, -1, -1, -1, -1));
      store<u64>(out, i64x2.extract_lane(w, 0));
      out += 8;
    }
  }
  let foreign: u32 = i8x16.all_true(allFound) ? 0 : 1;
  // the last bytes (fewer than 16), one at a time
  let word: u64 = 0;
  let shift: u32 = 0;
  for (; i < to; i++) {
    const b = load<u8>(text + <usize>i);
    let code: u32 = 0;
    while (code < sigma && load<u8>(splats + (<usize>code << 4)) != b) code++;
    if (code == sigma) {
      foreign = 1;
      code = 0;
    }
    word |= <u64>code << shift;
    shift += bits;
  }
  if (shift > 32) {
    store<u64>(out, word);
  } else if (shift > 0) {
    store<u32>(out, <u32>word);
  }
  return foreign;
}
