// FM-index (Ferragina–Manzini) over the BWT of T$: count by backward search, locate by LF-walking to
// a suffix-array sample. The index is one byte image, the same in memory and on disk (the host
// writes the header; src/apps/fmindex.ts documents every field). All integers little-endian.
//
//   header (128 B) | codeOf: u32[256] | C: u32[sigma+1], padded to 64 | blocks | samples: u32[]
//
// Rows 0..n of the BWT matrix are cut into blocks of b rows (b a power of two). A block is one
// contiguous run of blockBytes (a multiple of 64):
//   sampleRank u32       sampled rows before this block
//   counts u32[sigma]    occurrences of each code in L[0, blockStart) (the $ not counted)
//   (pad to 16) marks    b bits: row is sampled (its text position is a multiple of K)
//   bytes u8[b]          L as codes (0..sigma-1; the $ at the primary row is stored as code 0)
// so rank(c, i) = counts[c] of i's block + matches of c in the block's bytes before i: one block,
// a few adjacent cache lines. One extra block after the last row makes rank(c, n+1) valid.
// Samples hold SA values of the sampled rows in row order; sample index = sampleRank + marks before.
// Limits: n <= 2^31 - 1 (rows fit u32); the image must lie in the 4 GiB memory.

// Header fields (byte offsets); the u64 fields are read by their low 32 bits.
@inline const H_N: usize = 16;
@inline const H_PRIMARY: usize = 24;
@inline const H_SAMPLE_RATE: usize = 32;
@inline const H_SIGMA: usize = 36;
@inline const H_BLOCK_ROWS: usize = 40;
@inline const H_BLOCK_BYTES: usize = 44;
@inline const H_BLOCK_COUNT: usize = 48;
@inline const H_SAMPLE_COUNT: usize = 52;
@inline const H_CODES: usize = 56;
@inline const H_BOUNDS: usize = 64;
@inline const H_BLOCKS: usize = 72;
@inline const H_SAMPLES: usize = 80;
@inline const H_MARKS_AT: usize = 96;
@inline const H_BYTES_AT: usize = 100;
/** codeOf[byte] for a byte absent from T. */
@inline const ABSENT: u32 = 0xffffffff;
/** Patterns (count) or rows (locate) one thread advances interleaved, to overlap cache misses. */
@inline const INTERLEAVE: i32 = 16;

@inline function field(index: usize, at: usize): u32 {
  return load<u32>(index + at);
}

/** Address of the section (codeOf, C, blocks, samples) whose offset the header field at `at` holds. */
@inline function section(index: usize, at: usize): usize {
  return index + (field(index, at) as usize);
}

/** Start of the block that holds `row`. */
@inline function blockOf(blocks: usize, blockShift: u32, blockBytes: usize, row: u32): usize {
  return blocks + ((row >> blockShift) as usize) * blockBytes;
}

/** Matches of code c among the len bytes at p (16 at a time). */
@inline function countByte(p: usize, len: u32, c: u32): u32 {
  // Each equal lane is -1: subtracting the comparison counts matches per lane (at most b/16 <= 64
  // 16-byte steps), summed across lanes once at the end.
  const cv = i8x16.splat(c as i8);
  let perLane = i8x16.splat(0);
  let q = p;
  for (let left = len; left >= 16; left -= 16) {
    perLane = i8x16.sub(perLane, i8x16.eq(v128.load(q), cv));
    q += 16;
  }
  const rest = len & 15;
  if (rest != 0) {
    const laneIndex = i8x16(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    const inRange = i8x16.lt_u(laneIndex, i8x16.splat(rest as i8));
    perLane = i8x16.sub(perLane, v128.and(i8x16.eq(v128.load(q), cv), inRange));
  }
  const quads = i32x4.extadd_pairwise_i16x8_u(i16x8.extadd_pairwise_i8x16_u(perLane));
  return (i32x4.extract_lane(quads, 0) + i32x4.extract_lane(quads, 1) + i32x4.extract_lane(quads, 2) + i32x4.extract_lane(quads, 3)) as u32;
}

/**
 * Occurrences of code c in L[0, i), 0 <= i <= n+1 (the $ excluded). The layout arguments are the
 * header's, read once per kernel call; rows = n+1. Counts from the nearer end of i's block: from its
 * start up, or (in the upper half of a full block) down from the next block's counts, so at most
 * b/2 bytes are scanned and the bytes read are contiguous with the count word read.
 */
@inline function rank(blocks: usize, blockShift: u32, blockBytes: usize, bytesAt: usize, primary: u32, rows: u32, c: u32, i: u32): u32 {
  const b: u32 = 1 << blockShift;
  const blk = blockOf(blocks, blockShift, blockBytes, i);
  const within = i & (b - 1);
  const start = i - within;
  if (within <= b >> 1 || start + b > rows) {
    let r = load<u32>(blk + 4 + ((c as usize) << 2)) + countByte(blk + bytesAt, within, c);
    // The $ is stored as code 0: take it back out when it lies in the counted part.
    if (c == 0 && primary < i && primary >= start) r--;
    return r;
  }
  let after = countByte(blk + bytesAt + (within as usize), b - within, c);
  if (c == 0 && primary >= i && primary < start + b) after--;
  return load<u32>(blk + blockBytes + 4 + ((c as usize) << 2)) - after;
}

/**
 * Loads one byte of every cache line `rank` will read for (c, i), so that a round of these over
 * all interleaved queries puts their misses in flight together; returns a sum to keep the loads.
 */
@inline function touchRank(blocks: usize, blockShift: u32, blockBytes: usize, bytesAt: usize, rows: u32, c: u32, i: u32): u32 {
  const b: u32 = 1 << blockShift;
  const blk = blockOf(blocks, blockShift, blockBytes, i);
  const within = i & (b - 1);
  let from: usize;
  let to: usize;
  let word: usize;
  if (within <= b >> 1 || i - within + b > rows) {
    word = blk + 4 + ((c as usize) << 2);
    from = blk + bytesAt;
    to = from + (within as usize);
  } else {
    word = blk + blockBytes + 4 + ((c as usize) << 2);
    from = blk + bytesAt + (within as usize);
    to = blk + bytesAt + (b as usize);
  }
  let sum = load<u8>(word) as u32;
  for (let p = from; p < to; p += 64) sum += load<u8>(p);
  return sum;
}

// ---------------------------------------------------------------------------------------------
// Build
// ---------------------------------------------------------------------------------------------

/** Sampled rows among the rows of the 32-row words [w0, w1) of the marks. */
@inline function markedIn(marks: usize, w0: u32, w1: u32): u32 {
  let sampled: u32 = 0;
  for (let w = w0; w < w1; w++) sampled += popcnt<u32>(load<u32>(marks + ((w as usize) << 2)));
  return sampled;
}

/**
 * Writes the marks of rows [r0, r1) (r0 a multiple of 32: whole u32 words, so calls over disjoint
 * ranges write disjoint words): bit r is set when row r's text position SA[r - 1] is a multiple of
 * the sample rate (row 0, the $'s, is never sampled). Returns how many are set. A power-of-two rate
 * (the default 32) is tested with a mask instead of a division.
 */
export function fmMarkRows(sa: usize, sampleRate: u32, marks: usize, r0: u32, r1: u32): u32 {
  const mask = sampleRate - 1;
  const pow2 = (sampleRate & mask) == 0;
  let sampled: u32 = 0;
  for (let w0 = r0; w0 < r1; w0 += 32) {
    const end = min<u32>(w0 + 32, r1);
    let word: u32 = 0;
    if (pow2) {
      for (let r = max<u32>(w0, 1); r < end; r++) word |= ((load<u32>(sa + (((r - 1) as usize) << 2)) & mask) == 0 ? 1 : 0) << (r & 31);
    } else {
      for (let r = max<u32>(w0, 1); r < end; r++) word |= (load<u32>(sa + (((r - 1) as usize) << 2)) % sampleRate == 0 ? 1 : 0) << (r & 31);
    }
    store<u32>(marks + (((w0 >> 5) as usize) << 2), word);
    sampled += popcnt<u32>(word);
  }
  return sampled;
}

/** Writes SA[r - 1] of the marked rows r in [r0, r1) (r0 a multiple of 32), in row order, to out (u32). */
export function fmGatherSamples(sa: usize, marks: usize, r0: u32, r1: u32, out: usize): void {
  let k: usize = 0;
  for (let w0 = r0; w0 < r1; w0 += 32) {
    let word = load<u32>(marks + (((w0 >> 5) as usize) << 2));
    while (word != 0) {
      const r = w0 + ctz<u32>(word);
      word &= word - 1;
      store<u32>(out + (k << 2), load<u32>(sa + (((r - 1) as usize) << 2)));
      k++;
    }
  }
}

/**
 * Fills blocks [firstBlock, lastBlock) from L (n+1 bytes at bwt: rows 0..n, the primary row's byte
 * ignored) and the marks (fmMarkRows; zero past row n, through the last block). `running` (sigma+1 u32) holds the counts per code and the
 * sample count before firstBlock (fmRangeCounts of the rows before), and is advanced to lastBlock's.
 * Header, codeOf and C must already be written; the samples are the host's to copy. Rows past n are
 * padding (code 0, unmarked, not counted). Blocks of different calls are disjoint, so calls may run
 * in parallel.
 */
export function fmFillBlocks(bwt: usize, marks: usize, index: usize, firstBlock: u32, lastBlock: u32, running: usize): void {
  const n = field(index, H_N);
  const primary = field(index, H_PRIMARY);
  const sigma = field(index, H_SIGMA);
  const b = field(index, H_BLOCK_ROWS);
  const blockBytes = field(index, H_BLOCK_BYTES) as usize;
  const codes = section(index, H_CODES);
  const blocks = section(index, H_BLOCKS);
  const marksAt = field(index, H_MARKS_AT) as usize;
  const bytesAt = field(index, H_BYTES_AT) as usize;
  const sampleCountAt = running + ((sigma as usize) << 2);
  for (let bi = firstBlock; bi < lastBlock; bi++) {
    const blk = blocks + (bi as usize) * blockBytes;
    memory.fill(blk, 0, blockBytes);
    store<u32>(blk, load<u32>(sampleCountAt));
    memory.copy(blk + 4, running, (sigma as usize) << 2);
    const rowEnd = min<u32>(b, n + 1 - min<u32>(n + 1, bi * b));
    // the block's marks are bits [bi * b, bi * b + b) of the marks: b is a multiple of 256
    memory.copy(blk + marksAt, marks + (((bi * b) >> 3) as usize), (b >> 3) as usize);
    const sampled = markedIn(marks, (bi * b) >> 5, (bi * b + b) >> 5);
    for (let j: u32 = 0; j < rowEnd; j++) {
      const r = bi * b + j;
      if (r == primary) continue; // the $: stored as 0 (the block was zeroed), not counted
      const code = load<u32>(codes + ((load<u8>(bwt + (r as usize)) as usize) << 2));
      store<u8>(blk + bytesAt + (j as usize), code as u8);
      const slot = running + ((code as usize) << 2);
      store<u32>(slot, load<u32>(slot) + 1);
    }
    store<u32>(sampleCountAt, load<u32>(sampleCountAt) + sampled);
  }
}

/** Adds to `running` (sigma+1 u32) the code counts and the sampled rows of rows [r0, r1) of L. */
export function fmRangeCounts(bwt: usize, marks: usize, index: usize, r0: u32, r1: u32, running: usize): void {
  const primary = field(index, H_PRIMARY);
  const sigma = field(index, H_SIGMA);
  const codes = section(index, H_CODES);
  // r0 and r1 are block bounds (multiples of b, or n + 1 at the end: no marks past n)
  const sampled = r0 < r1 ? markedIn(marks, r0 >> 5, (r1 + 31) >> 5) : 0;
  for (let r = r0; r < r1; r++) {
    if (r == primary) continue;
    const slot = running + ((load<u32>(codes + ((load<u8>(bwt + (r as usize)) as usize) << 2)) as usize) << 2);
    store<u32>(slot, load<u32>(slot) + 1);
  }
  const at = running + ((sigma as usize) << 2);
  store<u32>(at, load<u32>(at) + sampled);
}

/**
 * Checks a loaded image against itself in one pass (so a damaged file cannot send queries out of
 * bounds or into endless walks): every code < sigma, block counts and sample ranks consistent with
 * the bytes and marks, totals equal to C, the $ row marked with sample 0, samples multiples of K and
 * < n. `running` is scratch of sigma+1 u32. Returns 0 when consistent, else the failing check (1..6).
 */
export function fmCheck(index: usize, running: usize): u32 {
  const n = field(index, H_N);
  const sigma = field(index, H_SIGMA);
  const b = field(index, H_BLOCK_ROWS);
  const blockBytes = field(index, H_BLOCK_BYTES) as usize;
  const blockCount = field(index, H_BLOCK_COUNT);
  const sampleRate = field(index, H_SAMPLE_RATE);
  const primary = field(index, H_PRIMARY);
  const bounds = section(index, H_BOUNDS);
  const blocks = section(index, H_BLOCKS);
  const samples = section(index, H_SAMPLES);
  const sampleCount = field(index, H_SAMPLE_COUNT);
  const marksAt = field(index, H_MARKS_AT) as usize;
  const bytesAt = field(index, H_BYTES_AT) as usize;
  memory.fill(running, 0, ((sigma + 1) as usize) << 2);
  const sampleCountAt = running + ((sigma as usize) << 2);
  for (let bi: u32 = 0; bi < blockCount; bi++) {
    const blk = blocks + (bi as usize) * blockBytes;
    if (load<u32>(blk) != load<u32>(sampleCountAt)) return 2;
    for (let c: u32 = 0; c < sigma; c++) {
      if (load<u32>(blk + 4 + ((c as usize) << 2)) != load<u32>(running + ((c as usize) << 2))) return 2;
    }
    for (let j: u32 = 0; j < b; j++) {
      const r = bi * b + j;
      const code = load<u8>(blk + bytesAt + (j as usize)) as u32;
      const marked = ((load<u8>(blk + marksAt + ((j >> 3) as usize)) as u32) >> (j & 7)) & 1;
      if (r > n) {
        if (code != 0 || marked != 0) return 1;
        continue;
      }
      if (code >= sigma && r != primary) return 1;
      if (marked) {
        const k = load<u32>(sampleCountAt);
        if (k >= sampleCount) return 3;
        const s = load<u32>(samples + ((k as usize) << 2));
        if (s >= n || s % sampleRate != 0 || (r == primary) != (s == 0)) return 3;
        store<u32>(sampleCountAt, k + 1);
      } else if (r == primary && n > 0) {
        return 4;
      }
      if (r == primary) {
        if (code != 0) return 4;
        continue;
      }
      const slot = running + ((code as usize) << 2);
      store<u32>(slot, load<u32>(slot) + 1);
    }
  }
  if (load<u32>(sampleCountAt) != sampleCount) return 3;
  for (let c: u32 = 0; c < sigma; c++) {
    const inBucket = load<u32>(bounds + (((c + 1) as usize) << 2)) - load<u32>(bounds + ((c as usize) << 2));
    if (load<u32>(running + ((c as usize) << 2)) != inBucket) return 5;
  }
  return 0;
}

// ---------------------------------------------------------------------------------------------
// Queries
// ---------------------------------------------------------------------------------------------

/**
 * Count: backward search of patterns [first, last) (pattern p is the bytes at
 * patterns + spans[2p] .. patterns + spans[2p+1], never empty). Writes the row range [sp, ep) of each to
 * ranges[2p], ranges[2p+1] (sp = ep = 0 when absent). `slots` is scratch of 32 * INTERLEAVE bytes.
 *
 * Invariant per slot: rows [sp, ep) are those whose suffixes start with the pattern's bytes
 * [pos, end), and sp < ep.
 */
export function fmCount(index: usize, patterns: usize, spans: usize, first: u32, last: u32, ranges: usize, slots: usize): void {
  const n = field(index, H_N);
  const primary = field(index, H_PRIMARY);
  const blockShift = ctz(field(index, H_BLOCK_ROWS));
  const blockBytes = field(index, H_BLOCK_BYTES) as usize;
  const codes = section(index, H_CODES);
  const bounds = section(index, H_BOUNDS);
  const blocks = section(index, H_BLOCKS);
  const bytesAt = field(index, H_BYTES_AT) as usize;
  let active: i32 = 0;
  let next = first;
  // slot layout: [pattern, pos, start, sp, ep]; word 7 of slot 0 keeps the touched sum
  // Each round touches the lines every slot's two ranks read, then computes them from cache.
  while (active < INTERLEAVE && next < last) {
    startPattern(n, spans, next++, slots + ((active as usize) << 5));
    active++;
  }
  const rows = n + 1;
  while (active > 0) {
    let touched: u32 = 0;
    for (let g: i32 = 0; g < active; g++) {
      const slot = slots + ((g as usize) << 5);
      const code = load<u32>(codes + ((load<u8>(patterns + ((load<u32>(slot, 4) - 1) as usize)) as usize) << 2));
      if (code == ABSENT) continue;
      const from = load<u32>(slot, 12);
      const to = load<u32>(slot, 16);
      touched += touchRank(blocks, blockShift, blockBytes, bytesAt, rows, code, from);
      if ((from ^ to) >> blockShift != 0) touched += touchRank(blocks, blockShift, blockBytes, bytesAt, rows, code, to);
    }
    store<u32>(slots, touched, 28);
    for (let g: i32 = 0; g < active; g++) {
      const slot = slots + ((g as usize) << 5);
      const pos = load<u32>(slot, 4) - 1;
      const code = load<u32>(codes + ((load<u8>(patterns + (pos as usize)) as usize) << 2));
      let sp: u32 = 0;
      let ep: u32 = 0;
      if (code != ABSENT) {
        const base = load<u32>(bounds + ((code as usize) << 2));
        const from = load<u32>(slot, 12);
        const to = load<u32>(slot, 16);
        sp = base + rank(blocks, blockShift, blockBytes, bytesAt, primary, rows, code, from);
        if ((from ^ to) >> blockShift == 0) {
          // Same block (the usual case once the range is narrow): ep = sp + matches in L[from, to).
          let inside = countByte(blockOf(blocks, blockShift, blockBytes, from) + bytesAt + ((from & ((1 << blockShift) - 1)) as usize), to - from, code);
          if (code == 0 && primary >= from && primary < to) inside--;
          ep = sp + inside;
        } else {
          ep = base + rank(blocks, blockShift, blockBytes, bytesAt, primary, rows, code, to);
        }
      }
      if (sp >= ep || pos == load<u32>(slot, 8)) {
        const p = load<u32>(slot);
        const out = ranges + ((p as usize) << 3);
        store<u32>(out, sp < ep ? sp : 0);
        store<u32>(out, sp < ep ? ep : 0, 4);
        if (next < last) {
          startPattern(n, spans, next++, slot);
        } else {
          active--;
          memory.copy(slot, slots + ((active as usize) << 5), 32);
          g--;
        }
      } else {
        store<u32>(slot, pos, 4);
        store<u32>(slot, sp, 12);
        store<u32>(slot, ep, 16);
      }
    }
  }
}

@inline function startPattern(n: u32, spans: usize, p: u32, slot: usize): void {
  store<u32>(slot, p);
  store<u32>(slot, load<u32>(spans + ((p as usize) << 3), 4), 4);
  store<u32>(slot, load<u32>(spans + ((p as usize) << 3)), 8);
  store<u32>(slot, 0, 12);
  store<u32>(slot, n + 1, 16);
}

/**
 * Locate: the text position of each of `count` rows at rows (each in 1..n), written to out. Each row
 * LF-walks back to a sampled row (at most K-1 steps: positions multiple of K are sampled, 0 among
 * them) and adds the steps taken to the sample. `slots` is scratch of 16 * INTERLEAVE + 16 bytes.
 * Returns count, or the index of a row whose walk overran K steps (a damaged index).
 */
export function fmLocate(index: usize, rows: usize, count: u32, out: usize, slots: usize): u32 {
  const n = field(index, H_N);
  const primary = field(index, H_PRIMARY);
  const sampleRate = field(index, H_SAMPLE_RATE);
  const blockShift = ctz(field(index, H_BLOCK_ROWS));
  const blockBytes = field(index, H_BLOCK_BYTES) as usize;
  const bounds = section(index, H_BOUNDS);
  const blocks = section(index, H_BLOCKS);
  const samples = section(index, H_SAMPLES);
  const marksAt = field(index, H_MARKS_AT) as usize;
  const bytesAt = field(index, H_BYTES_AT) as usize;
  const rowMask: u32 = (1 << blockShift) - 1;
  let active: i32 = 0;
  let next: u32 = 0;
  // slot layout: [which, row, steps, code of L[row] | marked << 8]
  while (active < INTERLEAVE && next < count) {
    startRow(rows, next++, slots + ((active as usize) << 4));
    active++;
  }
  const rowCount = n + 1;
  while (active > 0) {
    // Round: (1) each slot's byte and mark of L at its row, (2) touch the lines of the ranks,
    // (3) step; phases (1) and (2) put every slot's misses in flight together.
    for (let g: i32 = 0; g < active; g++) {
      const slot = slots + ((g as usize) << 4);
      const r = load<u32>(slot, 4);
      const blk = blockOf(blocks, blockShift, blockBytes, r);
      const j = r & rowMask;
      const marked = ((load<u8>(blk + marksAt + ((j >> 3) as usize)) as u32) >> (j & 7)) & 1;
      store<u32>(slot, (load<u8>(blk + bytesAt + (j as usize)) as u32) | (marked << 8), 12);
    }
    let touched: u32 = 0;
    for (let g: i32 = 0; g < active; g++) {
      const slot = slots + ((g as usize) << 4);
      const codeMark = load<u32>(slot, 12);
      if (codeMark < 256) touched += touchRank(blocks, blockShift, blockBytes, bytesAt, rowCount, codeMark, load<u32>(slot, 4));
    }
    for (let g: i32 = 0; g < active; g++) {
      const slot = slots + ((g as usize) << 4);
      const r = load<u32>(slot, 4);
      const steps = load<u32>(slot, 8);
      const codeMark = load<u32>(slot, 12);
      if (codeMark >= 256) {
        const blk = blockOf(blocks, blockShift, blockBytes, r);
        const k = load<u32>(blk) + marksBefore(blk + marksAt, r & rowMask);
        const which = load<u32>(slot);
        store<u32>(out + ((which as usize) << 2), load<u32>(samples + ((k as usize) << 2)) + steps);
        if (next < count) {
          startRow(rows, next++, slot);
        } else {
          active--;
          memory.copy(slot, slots + ((active as usize) << 4), 16);
          g--;
        }
      } else {
        if (steps >= sampleRate) return load<u32>(slot);
        const lf = load<u32>(bounds + ((codeMark as usize) << 2)) + rank(blocks, blockShift, blockBytes, bytesAt, primary, rowCount, codeMark, r);
        store<u32>(slot, lf, 4);
        store<u32>(slot, steps + 1, 8);
      }
    }
    store<u32>(slots, touched, 12 + ((INTERLEAVE as usize) << 4));
  }
  return count;
}

@inline function startRow(rows: usize, which: u32, slot: usize): void {
  store<u32>(slot, which);
  store<u32>(slot, load<u32>(rows + ((which as usize) << 2)), 4);
  store<u32>(slot, 0, 8);
}

/** Set bits among the first j bits of the marks. */
@inline function marksBefore(marks: usize, j: u32): u32 {
  let total: u32 = 0;
  let w: u32 = 0;
  for (; w + 64 <= j; w += 64) total += popcnt(load<u64>(marks + ((w >> 3) as usize))) as u32;
  const rest = j - w;
  if (rest != 0) total += popcnt(load<u64>(marks + ((w >> 3) as usize)) & ((1 << (rest as u64)) - 1)) as u32;
  return total;
}
