// Runs the SA-IS kernel on a Uint8Array the way the engine lays it out: text, then SA, then the
// workspace right after the SA, all in one SharedHeap.
import { SharedHeap } from "../../src/cpu/memory.js";
import { instantiate, type Kernels } from "../../src/cpu/wasm.js";
import { runSais, saisWorkspaceSlots, type SaisKernel } from "../../src/cpu/algorithms/sais.js";

export interface SaisRun {
  sa: Uint32Array;
  /** The workspace size that succeeded (larger than asked when a retry happened). */
  fs: number;
}

/** Suffix array of `text` by the WASM kernel; `fs` overrides the first workspace size. */
export function saisWasm(text: Uint8Array, fs = saisWorkspaceSlots(text.length)): SaisRun {
  const n = text.length;
  const heap = new SharedHeap(n * 6 + 4 * fs + (1 << 16));
  const kernels: Kernels = instantiate(heap.memory);
  const textPtr = heap.alloc(n);
  heap.u8(textPtr, n).set(text);
  const saPtr = heap.alloc(4 * n, 4);
  const workspace = saPtr + 4 * n;
  const reserve = (slots: number) => {
    const end = workspace + 4 * slots;
    if (heap.used < end) heap.alloc(end - heap.used, 1);
  };
  reserve(fs);
  const used = runSais(kernels as unknown as SaisKernel, textPtr, saPtr, n, fs, reserve);
  return { sa: heap.u32(saPtr, n).slice(), fs: used };
}
