// Burrows–Wheeler transform from a suffix array, and its inverse.
//
// Convention (libsais's): the n+1 suffixes of T$ are sorted, $ smaller than every byte. Row 0 is the
// suffix "$" (position n); row r >= 1 is suffix SA[r-1]. L[r] is the byte before row r's suffix;
// the row of suffix 0 has none ($): it is the primary index, and the stored BWT is L without it.
//
// Forward: a gather, L[k+1] = T[SA[k]-1] (independent loads; blocks of SA run on any worker).
// Inverse: psi = LF^-1 maps the row of suffix i to the row of suffix i+1, so walking psi from the
// primary row spells T from the front; the first byte of row r's suffix is F[r], found from r by
// the bucket boundaries C. One chain is a dependent load per byte (~100 ns each once psi leaves the
// cache), so the walk is cut into many chains started at chosen rows ("starts"): each chain runs
// until it reaches the next start (or row 0, the $ row), chains run interleaved for memory-level
// parallelism and split across workers. A chain's length is unknown until it ends, so its bytes go
// to chunks of 2^chunkShift bytes taken from a shared pool (an atomic counter: workers take chunks
// concurrently) and linked per chain; the host then links the chains in text order from the primary
// row and copies their chunks into place. One walk, plus a sequential copy.
// Limits: n <= 2^31 - 1 (psi's top bit marks start rows).

/** Bit set in psi[r] when row r is a chain start or row 0: a walk stops on arriving there. */
@inline const MARK: u32 = 0x80000000;
/** Chains one thread walks interleaved: enough independent loads in flight to hide latency. */
@inline const INTERLEAVE: i32 = 32;
@inline const SLOT_BYTES: usize = 24;

/**
 * L[k+1] = T[SA[k]-1] for k in [k0, k1) (n+1 bytes at out; out[0] = T[n-1] is the host's). Returns the
 * primary index (k+1 where SA[k] = 0) if it falls in this block, else 0; out[primary] is left 0.
 */
export function bwtFromSA(text: usize, sa: usize, out: usize, k0: u32, k1: u32): u32 {
  let primary: u32 = 0;
  for (let k = k0; k < k1; k++) {
    const s = load<u32>(sa + ((k as usize) << 2));
    if (s == 0) {
      primary = k + 1;
      store<u8>(out + (k as usize) + 1, 0);
    } else {
      store<u8>(out + (k as usize) + 1, load<u8>(text + ((s - 1) as usize)));
    }
  }
  return primary;
}

/** Adds the byte counts of bytes[from, to) to counts (256 u32). */
export function byteHistogram(bytes: usize, from: usize, to: usize, counts: usize): void {
  for (let i = from; i < to; i++) {
    const slot = counts + ((load<u8>(bytes + i) as usize) << 2);
    store<u32>(slot, load<u32>(slot) + 1);
  }
}

/**
 * Scatters rows [r0, r1) of L (rows 0..n, the stored n bytes with the primary row skipped) into
 * psi: psi[next[c]++] = r for c = L[r]. `next` (256 u32) holds this block's first slot per byte,
 * i.e. C[c] plus the count of c in the rows before r0. The primary row is skipped (psi[0] = primary
 * is the host's).
 */
export function psiFromBWT(bwt: usize, primary: u32, psi: usize, next: usize, r0: u32, r1: u32): void {
  for (let r = r0; r < r1; r++) {
    if (r == primary) continue;
    const c = load<u8>(bwt + ((r < primary ? r : r - 1) as usize));
    const slot = next + ((c as usize) << 2);
    const at = load<u32>(slot);
    store<u32>(slot, at + 1);
    store<u32>(psi + ((at as usize) << 2), r);
  }
}

/**
 * The first byte of row r's suffix: the c with C[c] <= r < C[c+1]. `rowByte[r >> shift]` is a lower
 * bound (the byte of row (r >> shift) << shift), so a few steps up the bucket boundaries finish it.
 */
@inline function firstByte(r: u32, bounds: usize, rowByte: usize, shift: u32): u32 {
  let c = load<u8>(rowByte + ((r >> shift) as usize)) as u32;
  while (load<u32>(bounds + (((c + 1) as usize) << 2)) <= r) c++;
  return c;
}

/**
 * Walks chains [first, last) of psi (marks set). Chain j starts at row starts[j] and stops on
 * arriving at a marked row, which is written to ends[j]; its length goes to lengths[j] and its bytes
 * to chunks of the pool (2^chunkShift bytes each; heads[j] = its first chunk, chunkNext[c] = the
 * chunk after c). Chunks are taken by atomic increments of the u32 at chunkCount. `slots` is
 * scratch of 24 * INTERLEAVE bytes (INTERLEAVE = 32). bounds = C (257 u32: C[c] = 1 + bytes smaller
 * than c; C[256] = n+1); rowByte/shift as in firstByte.
 *
 * Each round first gathers psi of every slot's next row in a tight loop (all loads independent, so
 * they overlap in the memory system), then advances the slots from the gathered values.
 *
 * Invariant per slot: row r is on chain j, its byte not yet emitted, v = psi[r] without mark;
 * written counts the bytes emitted so far, the last of them in chunk `chunk`.
 */
export function unbwtWalk(
  psi: usize, bounds: usize, rowByte: usize, shift: u32,
  starts: usize, first: u32, last: u32, lengths: usize, ends: usize,
  heads: usize, pool: usize, chunkNext: usize, chunkShift: u32, chunkCount: usize, slots: usize,
): void {
  const chunkMask: u32 = (1 << chunkShift) - 1;
  let active: i32 = 0;
  let nextChain = first;
  // slot layout: [chain, row, psi of row, bytes written, psi of the next row (gathered), chunk]
  while (active < INTERLEAVE && nextChain < last) {
    startChain(psi, starts, heads, chunkCount, nextChain++, slots + (active as usize) * SLOT_BYTES);
    active++;
  }
  while (active > 0) {
    for (let g: i32 = 0; g < active; g++) {
      const slot = slots + (g as usize) * SLOT_BYTES;
      store<u32>(slot, load<u32>(psi + ((load<u32>(slot, 8) as usize) << 2)), 16);
    }
    for (let g: i32 = 0; g < active; g++) {
      const slot = slots + (g as usize) * SLOT_BYTES;
      const chain = load<u32>(slot);
      const r = load<u32>(slot, 4);
      const v = load<u32>(slot, 8);
      const written = load<u32>(slot, 12);
      const nv = load<u32>(slot, 16);
      let chunk = load<u32>(slot, 20);
      if (written != 0 && (written & chunkMask) == 0) {
        const fresh = atomic.add<u32>(chunkCount, 1);
        store<u32>(chunkNext + ((chunk as usize) << 2), fresh);
        chunk = fresh;
        store<u32>(slot, chunk, 20);
      }
      const at = pool + ((chunk as usize) << chunkShift) + ((written & chunkMask) as usize);
      store<u8>(at, firstByte(r, bounds, rowByte, shift) as u8);
      if (nv & MARK) {
        store<u32>(lengths + ((chain as usize) << 2), written + 1);
        store<u32>(ends + ((chain as usize) << 2), v);
        if (nextChain < last) {
          startChain(psi, starts, heads, chunkCount, nextChain++, slot);
        } else {
          // Swap-remove: the last active slot (gathered, not yet advanced) moves here, next in turn.
          active--;
          memory.copy(slot, slots + (active as usize) * SLOT_BYTES, SLOT_BYTES);
          g--;
        }
      } else {
        store<u32>(slot, v, 4);
        store<u32>(slot, nv, 8);
        store<u32>(slot, written + 1, 12);
      }
    }
  }
}

@inline function startChain(psi: usize, starts: usize, heads: usize, chunkCount: usize, chain: u32, slot: usize): void {
  const r = load<u32>(starts + ((chain as usize) << 2));
  const chunk = atomic.add<u32>(chunkCount, 1);
  store<u32>(heads + ((chain as usize) << 2), chunk);
  store<u32>(slot, chain);
  store<u32>(slot, r, 4);
  store<u32>(slot, load<u32>(psi + ((r as usize) << 2)) & ~MARK, 8);
  store<u32>(slot, 0, 12);
  store<u32>(slot, chunk, 20);
}

/** Sets (or clears) the mark bit of psi[r] for each of `count` rows at rows. */
export function markRows(psi: usize, rows: usize, count: u32, set: bool): void {
  for (let j: u32 = 0; j < count; j++) {
    const at = psi + ((load<u32>(rows + ((j as usize) << 2)) as usize) << 2);
    store<u32>(at, set ? load<u32>(at) | MARK : load<u32>(at) & ~MARK);
  }
}
