// Benchmark helpers: the streaming kernel that measures the device's bandwidth (read + write of a
// large buffer, 16 bytes per invocation) and a generator of pseudo-random u32 data on the device.

struct Params {
  count: u32,
  seed: u32,
  mask: u32,
  pad0: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> source: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read_write> destination: array<vec4<u32>>;
@group(0) @binding(3) var<storage, read_write> generated: array<u32>;

// Copies params.count vec4s (plus 1 so that the compiler cannot drop the read).
@compute @workgroup_size(WG)
fn stream(@builtin(local_invocation_index) lid: u32,
          @builtin(workgroup_id) wid: vec3<u32>,
          @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = flat_group(wid, nwg) * WG + lid;
  if (i < params.count) {
    destination[i] = source[i] + vec4<u32>(1u);
  }
}

fn hash(x: u32) -> u32 {
  var h = x * 0x9e3779b9u;
  h ^= h >> 16u;
  h *= 0x85ebca6bu;
  h ^= h >> 13u;
  h *= 0xc2b2ae35u;
  h ^= h >> 16u;
  return h;
}

// generated[i] = hash(i, seed) & mask.
@compute @workgroup_size(WG)
fn random(@builtin(local_invocation_index) lid: u32,
          @builtin(workgroup_id) wid: vec3<u32>,
          @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = flat_group(wid, nwg) * WG + lid;
  if (i < params.count) {
    generated[i] = hash(i ^ hash(params.seed)) & params.mask;
  }
}
