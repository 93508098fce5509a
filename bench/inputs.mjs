// Helpers the bench scripts share for generated inputs.

/** Bytes in a size like 128M (K, M, G: binary multiples). */
export function size(text) {
  const m = /^(\d+)([KMG]?)$/.exec(text);
  if (!m) throw new Error(`bad size ${text}`);
  return Number(m[1]) * { "": 1, K: 1024, M: 1024 ** 2, G: 1024 ** 3 }[m[2]];
}

/** A xorshift32 generator of u32 values (seed 0 counts as 1). */
export function xorshift(seed) {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return x >>> 0;
  };
}
