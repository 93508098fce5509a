// SAs in plain arrays, beyond the WebAssembly memory (the large paths), reach the kernels through a
// window in a heap: copied in a window of entries at a time, and handed to the kernels as a base
// address from which entry k lies at base + 4k in u32 arithmetic (the window holds only [from, b)).

/** SA entries copied into the heap per window (64 MiB): few host round trips, little memory. */
export const SA_WINDOW_ENTRIES = 1 << 24;

export interface WindowOptions {
  /** Copy entry a - 1 too (a kernel that reads SA[k - 1]): the window then needs w + 1 entries. */
  previous?: boolean;
  /** Copy the window's entries [a, b) back to the SA after the pass (a kernel wrote them in place). */
  writeBack?: boolean;
}

/**
 * Runs `pass(a, b, base)` for the windows [a, b) of `sa`, w entries each, copied to `window` in the
 * heap's memory (`memory`: its buffer); `base` is the u32 address of entry 0 as the kernels compute it.
 */
export async function forEachWindow(
  memory: WebAssembly.Memory, sa: Uint32Array, window: number, w: number,
  pass: (a: number, b: number, base: number) => Promise<void>, options: WindowOptions = {},
): Promise<void> {
  const n = sa.length;
  for (let a = 0; a < n; a += w) {
    const b = Math.min(n, a + w);
    const from = options.previous && a > 0 ? a - 1 : a;
    new Uint32Array(memory.buffer, window, b - from).set(sa.subarray(from, b));
    await pass(a, b, (window - 4 * from) >>> 0);
    if (options.writeBack) sa.set(new Uint32Array(memory.buffer, window + 4 * (a - from), b - a), a);
  }
}
