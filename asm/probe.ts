// Smoke kernel used by the loader's self-test: sums n bytes at ptr.
export function probe(ptr: usize, n: usize): u32 {
  let s: u32 = 0;
  for (let i: usize = 0; i < n; i++) s += load<u8>(ptr + i);
  return s;
}
