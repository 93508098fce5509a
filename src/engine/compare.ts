// Comparing suffix arrays element by element.

/** Index of the first difference of two arrays, or -1 when equal (a length difference counts). */
export function firstDifference(a: ArrayLike<number>, b: ArrayLike<number>): number {
  const m = Math.min(a.length, b.length);
  for (let i = 0; i < m; i++) if (a[i] !== b[i]) return i;
  return a.length === b.length ? -1 : m;
}
