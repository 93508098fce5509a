// lcpLarge's three steps over plain shared arrays, by blocks, for texts beyond even a heap of text
// and Φ (about 850 MB): asm/lcp.ts's kernels in TypeScript, run on the plain-step workers
// (workers/plain.ts) when text, SA and Φ lie in SharedArrayBuffers.

export interface LcpBlock {
  text: Uint8Array;
  sa: Uint32Array;
  phi: Uint32Array;
  from: number;
  to: number;
}

/** Step 1 for k in [from, to): Φ[SA[k]] = SA[k - 1], Φ[SA[0]] = n (no predecessor). */
export function phiBlock(task: LcpBlock): number {
  const { sa, phi, from, to } = task;
  for (let k = from; k < to; k++) phi[sa[k]] = k === 0 ? sa.length : sa[k - 1];
  return 0;
}

/** Step 2 for text positions [from, to): Φ[i] becomes PLCP[i] (PLCP[i + 1] >= PLCP[i] - 1; the block starts from 0). */
export function plcpBlock(task: LcpBlock): number {
  const { text, phi, from, to } = task;
  const n = text.length;
  let l = 0;
  for (let i = from; i < to; i++) {
    const j = phi[i];
    if (j === n) {
      phi[i] = 0;
      l = 0;
      continue;
    }
    while (i + l < n && j + l < n && text[i + l] === text[j + l]) l++;
    phi[i] = l;
    if (l > 0) l--;
  }
  return 0;
}

/** Step 3 for k in [from, to): LCP[k] = PLCP[SA[k]], written over the SA. */
export function lcpBlock(task: LcpBlock): number {
  const { sa, phi, from, to } = task;
  for (let k = from; k < to; k++) sa[k] = phi[sa[k]];
  return 0;
}
