// Long repeats of a text, for auto's choice between prefix doubling and SA-IS or the GPU
// (src/engine/repeats.ts): the share of positions whose REPEAT_GRAM-byte (or twice as long) string
// occurs at another position anywhere in the text. Sampled windows (src/engine/choice.ts) see repeats between nearby bytes only; copies far
// apart (a collection of similar genomes, a file stored twice) need the whole text read.
//
// The positions are sampled by content: a position is an anchor when the hash of its string has
// its top `k` bits zero (one position in 2^k), so a string's copies are anchors whenever the
// string is. The share of anchors whose string is another anchor's too is then the share of
// repeated positions, with no pair of far positions missed. Strings are hashed by a gear hash:
// h = h << 2 ^ gear[byte] keeps the last 32 bytes in 64 bits, one shift and one xor a byte on
// the scan's dependency chain; equal hashes are compared byte by byte.

@inline const REPEAT_GRAM: i32 = 32;
@inline const MIX: u64 = 0x9e3779b97f4a7c15;
/** Table slot: u64 hash, u32 first anchor's position, u32 anchors with that string. */
@inline const SLOT_BYTES: usize = 16;

export function repeatGram(): i32 {
  return REPEAT_GRAM;
}

/** The 256 gear values (splitmix64 of each byte) at gear. */
export function repeatGear(gear: usize): void {
  for (let c: u64 = 0; c < 256; c++) {
    let z = (c + 1) * MIX;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9;
    z = (z ^ (z >> 27)) * 0x94d049bb133111eb;
    store<u64>(gear + (<usize>c << 3), z ^ (z >> 31));
  }
}

@inline function gearHash(text: usize, at: usize, gear: usize): u64 {
  let h: u64 = 0;
  for (let j: usize = 0; j < <usize>REPEAT_GRAM; j++) h = (h << 2) ^ load<u64>(gear + (<usize>load<u8>(text + at + j) << 3));
  return h;
}

@inline function sameGram(text: usize, a: usize, b: usize): bool {
  for (let j: usize = 0; j < <usize>REPEAT_GRAM; j += 8) {
    if (load<u64>(text + a + j) != load<u64>(text + b + j)) return false;
  }
  return true;
}

/**
 * Lists the anchors among the positions [from, to) that start a string (those <= n - REPEAT_GRAM):
 * positions whose hash has its top k bits zero (1 <= k <= 32; each of those bits is the xor of
 * bits of all 32 bytes' gear values). Writes the first `cap` to out (u32), in order; returns how
 * many there are. Two halves of the range are hashed side by side (two dependency chains).
 */
export function repeatAnchors(text: usize, n: i32, from: i32, to: i32, k: u32, gear: usize, out: usize, cap: u32): u32 {
  const last = min(to, n - REPEAT_GRAM + 1);
  if (from >= last) return 0;
  const below: u64 = <u64>1 << (64 - <u64>k); // an anchor's hash is below it: its top k bits are zero
  const half = from + ((last - from) >> 1);
  // the second half's anchors go to a list of their own past the first's room, moved down after
  let found: u32 = 0;
  let foundB: u32 = 0;
  const capA = cap >> 1;
  const outB = out + (<usize>capA << 2);
  const capB = cap - capA;
  let a = <usize>from;
  let b = <usize>half;
  let ha = gearHash(text, a, gear);
  let hb = gearHash(text, b, gear);
  const endA = <usize>half;
  const endB = <usize>last;
  // side by side while both halves have positions (the second is at least as long)
  while (a < endA) {
    if (ha < below) {
      if (found < capA) store<u32>(out + (<usize>found << 2), <u32>a);
      found++;
    }
    if (hb < below) {
      if (foundB < capB) store<u32>(outB + (<usize>foundB << 2), <u32>b);
      foundB++;
    }
    a++;
    b++;
    ha = (ha << 2) ^ load<u64>(gear + (<usize>load<u8>(text + a + <usize>(REPEAT_GRAM - 1)) << 3));
    if (b < endB) hb = (hb << 2) ^ load<u64>(gear + (<usize>load<u8>(text + b + <usize>(REPEAT_GRAM - 1)) << 3));
  }
  for (; b < endB; ) {
    if (hb < below) {
      if (foundB < capB) store<u32>(outB + (<usize>foundB << 2), <u32>b);
      foundB++;
    }
    if (++b >= endB) break;
    hb = (hb << 2) ^ load<u64>(gear + (<usize>load<u8>(text + b + <usize>(REPEAT_GRAM - 1)) << 3));
  }
  if (found > capA || foundB > capB) return max(found + foundB, cap + 1); // over the room: the caller retries
  memory.copy(out + (<usize>found << 2), outB, <usize>foundB << 2);
  return found + foundB;
}

/**
 * How many of the `count` anchors (u32 positions) start a string of `blocks` * REPEAT_GRAM bytes
 * (blocks 1 or 2) that another of them starts too; anchors past n - blocks * REPEAT_GRAM start
 * none. A string's copies are anchors whenever it is (its first REPEAT_GRAM bytes make it one),
 * so 2 blocks give the share of positions that share 64 bytes with another. table: 2^bits zeroed
 * slots, 2^bits > count.
 */
export function repeatShared(text: usize, n: i32, anchors: usize, count: i32, blocks: i32, table: usize, bits: u32, gear: usize): i32 {
  const mask: usize = (<usize>1 << bits) - 1;
  const length = blocks * REPEAT_GRAM;
  for (let pass = 0; pass < 2; pass++) {
    let repeated = 0;
    for (let a = 0; a < count; a++) {
      const p = <usize>load<u32>(anchors + (<usize>a << 2));
      if (<i32>p > n - length) continue;
      let h = gearHash(text, p, gear);
      if (blocks == 2) h ^= gearHash(text, p + <usize>REPEAT_GRAM, gear) * MIX;
      let slot = <usize>((h * 0xc2b2ae3d27d4eb4f) >> (64 - <u64>bits));
      for (;;) {
        const at = table + slot * SLOT_BYTES;
        const seen = load<u32>(at + 12);
        if (seen == 0) {
          // only the first pass finds a string's slot empty
          store<u64>(at, h);
          store<u32>(at + 8, <u32>p);
          store<u32>(at + 12, 1);
          break;
        }
        const first = <usize>load<u32>(at + 8);
        if (load<u64>(at) == h && sameGram(text, p, first) && (blocks == 1 || sameGram(text, p + <usize>REPEAT_GRAM, first + <usize>REPEAT_GRAM))) {
          if (pass == 0) {
            if (first != p) store<u32>(at + 12, seen + 1);
          } else if (seen >= 2) {
            repeated++;
          }
          break;
        }
        slot = (slot + 1) & mask;
      }
    }
    if (pass == 1) return repeated;
  }
  return 0; // not reached
}
