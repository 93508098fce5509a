/** Bits that hold every value in [0, max] (at least 1). */
export function bitsFor(max: number): number {
  return Math.max(1, 32 - Math.clz32(max));
}
