// The inverse BWT's walk over plain shared arrays, for BWTs beyond the WebAssembly memory
// (unbwtLarge): psi in a SharedArrayBuffer with the chains' start rows marked in its top bit, each
// worker walking a range of chains into chunks of its own. In the heap, asm/bwt.ts's unbwtWalk
// does the same.

/** Rows [r0, r1) of L (rows 0..n, the stored bytes with the primary row skipped), as one task. */
export interface PsiRows {
  L: Uint8Array;
  primary: number;
  r0: number;
  r1: number;
}

/** The byte counts of rows [r0, r1) of L (256 entries). */
export function rowCounts(task: PsiRows): Uint32Array {
  const { L, primary, r0, r1 } = task;
  const counts = new Uint32Array(256);
  const from = r0 - (r0 > primary ? 1 : 0);
  const to = r1 - (r1 > primary ? 1 : 0);
  for (let i = from; i < to; i++) counts[L[i]]++;
  return counts;
}

/**
 * psi[next[c]++] = r for the rows r in [r0, r1) but the primary one, c = L[r]: `next` holds this
 * block's first slot per byte (C[c] plus the count of c in the rows before r0).
 */
export function scatterPsi(task: PsiRows & { psi: Uint32Array; next: Uint32Array }): number {
  const { L, primary, r0, r1, psi, next } = task;
  for (let r = r0; r < r1; r++) {
    if (r === primary) continue;
    psi[next[L[r < primary ? r : r - 1]]++] = r;
  }
  return 0;
}

/** The top bit of a psi entry: its row starts a chain. Rows and psi values stay below 2^31. */
export const START_BIT = 0x80000000;
/** Bytes of one lane's output chunk; a lane takes a new one when its chunk is full. */
const CHUNK_BYTES = 1 << 16;
/** Most chunks in one SharedArrayBuffer of a worker's output (16 MiB). */
const MAX_POOL_CHUNKS = 256;
/** Chains one worker walks side by side (walkChains' eight lanes). */
const LANES = 8;
/** A psi entry without its START_BIT. */
const ROW_BITS = 0x7fffffff;

/** What one walk task gets: all views over SharedArrayBuffers, or small plain arrays. */
export interface ChainWalk {
  /** psi over rows 0..n, start rows marked with START_BIT. */
  psi: Uint32Array;
  /** F[r - 1]: the first byte of row r's suffix, r in 1..n. */
  F: Uint8Array;
  /** The chains' start rows, and the range [first, last) of them to walk. */
  starts: Uint32Array;
  first: number;
  last: number;
  /** Steps after which the walk gives up: an input that is no BWT may cycle without a start. */
  maxSteps: number;
}

/**
 * The walk's output. Chain j of the range wrote lengths[j] bytes and stopped at row ends[j]; its
 * bytes begin in chunk firstChunk[j] at firstOffset[j] and go on in chunkNext's chunks.
 */
export interface WalkedChains {
  lengths: Uint32Array;
  ends: Uint32Array;
  firstChunk: Uint32Array;
  firstOffset: Uint32Array;
  chunkNext: Uint32Array;
  /** Each chunk's bytes (views into a few SharedArrayBuffers). */
  chunks: Uint8Array[];
  /** Whether it stopped at maxSteps (the input is then no BWT). */
  overrun: boolean;
}

/**
 * Walks chains [first, last): from its start row, each writes the first byte of its row's suffix
 * (F) and steps to psi[row], until it reaches another start row or row 0 (the $ row).
 *
 * Each step waits for a random load (about 220 ns on the 2-core VM), so eight lanes walk eight
 * chains side by side, their state in locals: the loads of one round overlap. Measured on the psi
 * of 300 MB, one thread, ns a step: one chain 215-226; eight lanes in locals 71-82; lanes whose
 * state lay in typed arrays 120-160, and with the byte looked up from C instead of loaded from F
 * 110-130 (bench/results/history.md). A lane whose chain ends, or whose chunk is full, goes
 * through `turn`; once chains run out the last ones finish one lane at a time.
 */
export function walkChains(task: ChainWalk): WalkedChains {
  const { psi, F, starts, first, last, maxSteps } = task;
  const count = last - first;
  const lengths = new Uint32Array(count);
  const ends = new Uint32Array(count);
  const firstChunk = new Uint32Array(count);
  const firstOffset = new Uint32Array(count);
  const chunkNext: number[] = [];
  const chunks: Uint8Array[] = [];
  let poolLeft = 0;
  let pool: SharedArrayBuffer | undefined;
  const newChunk = (): number => {
    if (poolLeft === 0) {
      poolLeft = Math.min(MAX_POOL_CHUNKS, Math.max(LANES, chunks.length)); // doubling: small inputs take little
      pool = new SharedArrayBuffer(poolLeft * CHUNK_BYTES);
    }
    chunks.push(new Uint8Array(pool!, --poolLeft * CHUNK_BYTES, CHUNK_BYTES));
    chunkNext.push(0);
    return chunks.length - 1;
  };
  // Per lane: its chain (-1 when idle), row, chunk, offset in it, and the bytes it wrote in earlier chunks.
  const chainOf = new Int32Array(LANES).fill(-1);
  const rowOf = new Uint32Array(LANES);
  const chunkOf = new Uint32Array(LANES);
  const at = new Uint32Array(LANES);
  const before = new Float64Array(LANES);
  const chainStart = new Float64Array(LANES);
  const view: Uint8Array[] = [];
  let taken = 0;
  let active = 0;
  const take = (k: number): void => {
    if (taken === count) {
      chainOf[k] = -1;
      return;
    }
    const j = taken++;
    chainOf[k] = j;
    rowOf[k] = starts[first + j];
    firstChunk[j] = chunkOf[k];
    firstOffset[j] = at[k];
    chainStart[k] = before[k] + at[k];
    active++;
  };
  /**
   * Lane k wrote its byte up to at[k] and read `next`: ends its chain there (the lane takes the
   * next chain), and moves the lane to a new chunk when its chunk is full. Returns the lane's row.
   */
  const turn = (k: number, next: number): number => {
    let row = next;
    if (next === 0 || (psi[next] & START_BIT) !== 0) {
      const j = chainOf[k];
      lengths[j] = before[k] + at[k] - chainStart[k];
      ends[j] = next;
      active--;
      take(k);
      row = rowOf[k];
    }
    if (at[k] === CHUNK_BYTES && chainOf[k] >= 0) {
      const id = newChunk();
      chunkNext[chunkOf[k]] = id;
      chunkOf[k] = id;
      view[k] = chunks[id];
      before[k] += CHUNK_BYTES;
      at[k] = 0;
    }
    return row;
  };
  for (let k = 0; k < LANES; k++) {
    chunkOf[k] = newChunk();
    view.push(chunks[chunkOf[k]]);
    take(k);
  }
  let steps = 0;
  if (active === LANES) {
    let [r0, r1, r2, r3, r4, r5, r6, r7] = rowOf;
    let [w0, w1, w2, w3, w4, w5, w6, w7] = at;
    let [v0, v1, v2, v3, v4, v5, v6, v7] = view;
    let x = 0;
    while (active === LANES && steps <= maxSteps) {
      steps += LANES;
      v0[w0++] = F[r0 - 1]; x = psi[r0] & ROW_BITS;
      if (x === 0 || (psi[x] & START_BIT) !== 0 || w0 === CHUNK_BYTES) { at[0] = w0; r0 = turn(0, x); v0 = view[0]; w0 = at[0]; } else r0 = x;
      v1[w1++] = F[r1 - 1]; x = psi[r1] & ROW_BITS;
      if (x === 0 || (psi[x] & START_BIT) !== 0 || w1 === CHUNK_BYTES) { at[1] = w1; r1 = turn(1, x); v1 = view[1]; w1 = at[1]; } else r1 = x;
      v2[w2++] = F[r2 - 1]; x = psi[r2] & ROW_BITS;
      if (x === 0 || (psi[x] & START_BIT) !== 0 || w2 === CHUNK_BYTES) { at[2] = w2; r2 = turn(2, x); v2 = view[2]; w2 = at[2]; } else r2 = x;
      v3[w3++] = F[r3 - 1]; x = psi[r3] & ROW_BITS;
      if (x === 0 || (psi[x] & START_BIT) !== 0 || w3 === CHUNK_BYTES) { at[3] = w3; r3 = turn(3, x); v3 = view[3]; w3 = at[3]; } else r3 = x;
      v4[w4++] = F[r4 - 1]; x = psi[r4] & ROW_BITS;
      if (x === 0 || (psi[x] & START_BIT) !== 0 || w4 === CHUNK_BYTES) { at[4] = w4; r4 = turn(4, x); v4 = view[4]; w4 = at[4]; } else r4 = x;
      v5[w5++] = F[r5 - 1]; x = psi[r5] & ROW_BITS;
      if (x === 0 || (psi[x] & START_BIT) !== 0 || w5 === CHUNK_BYTES) { at[5] = w5; r5 = turn(5, x); v5 = view[5]; w5 = at[5]; } else r5 = x;
      v6[w6++] = F[r6 - 1]; x = psi[r6] & ROW_BITS;
      if (x === 0 || (psi[x] & START_BIT) !== 0 || w6 === CHUNK_BYTES) { at[6] = w6; r6 = turn(6, x); v6 = view[6]; w6 = at[6]; } else r6 = x;
      v7[w7++] = F[r7 - 1]; x = psi[r7] & ROW_BITS;
      if (x === 0 || (psi[x] & START_BIT) !== 0 || w7 === CHUNK_BYTES) { at[7] = w7; r7 = turn(7, x); v7 = view[7]; w7 = at[7]; } else r7 = x;
    }
    rowOf.set([r0, r1, r2, r3, r4, r5, r6, r7]);
    at.set([w0, w1, w2, w3, w4, w5, w6, w7]);
  }
  // the last chains (or all of a range shorter than the lanes), one lane at a time
  for (let k = 0; k < LANES; k++) {
    while (chainOf[k] >= 0 && steps <= maxSteps) {
      const row = rowOf[k];
      view[k][at[k]++] = F[row - 1];
      steps++;
      const next = psi[row] & ROW_BITS;
      rowOf[k] = next === 0 || (psi[next] & START_BIT) !== 0 || at[k] === CHUNK_BYTES ? turn(k, next) : next;
    }
  }
  return { lengths, ends, firstChunk, firstOffset, chunkNext: Uint32Array.from(chunkNext), chunks, overrun: steps > maxSteps };
}

/** Copies chain j's bytes from the walk's chunks into out at `to`. */
export function copyChain(walked: WalkedChains, j: number, out: Uint8Array, to: number): void {
  let chunk = walked.firstChunk[j];
  let offset = walked.firstOffset[j];
  for (let left = walked.lengths[j]; left > 0; ) {
    if (offset === CHUNK_BYTES) {
      chunk = walked.chunkNext[chunk];
      offset = 0;
    }
    const n = Math.min(left, CHUNK_BYTES - offset);
    out.set(walked.chunks[chunk].subarray(offset, offset + n), to);
    to += n;
    offset += n;
    left -= n;
  }
}
