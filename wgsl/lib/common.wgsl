// Helpers every primitive uses. Compile-time constants (WG and each file's own) are prepended by
// src/gpu/kernels.ts.

// Workgroup index of a 1D grid dispatched as x*y groups (see gridShape in src/gpu/kernels.ts).
fn flat_group(wid: vec3<u32>, nwg: vec3<u32>) -> u32 {
  return wid.x + wid.y * nwg.x;
}

// Index of an invocation of a 1D grid of WG-wide workgroups (one element per invocation).
fn element(lid: u32, wid: vec3<u32>, nwg: vec3<u32>) -> u32 {
  return flat_group(wid, nwg) * WG + lid;
}

// Shared-memory index padded by one word per 32 so that a thread reading a blocked run
// (stride = items per thread) hits distinct banks.
fn padded(i: u32) -> u32 {
  return i + (i >> 5u);
}
