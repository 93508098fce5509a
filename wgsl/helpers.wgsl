// Element-wise helpers: iota/fill, gather, scatter, head flags of sorted u32 or u64 keys, and the
// scatter step of stream compaction. One invocation per element; no limits beyond one binding.

struct Params {
  n: u32,
  start: u32,
  step: u32,
  pad0: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> source: array<u32>;
@group(0) @binding(2) var<storage, read> index: array<u32>;
@group(0) @binding(3) var<storage, read_write> destination: array<u32>;
@group(0) @binding(4) var<storage, read> source_high: array<u32>;
@group(0) @binding(5) var<storage, read_write> count: array<u32>;
@group(0) @binding(6) var<storage, read> source2: array<u32>;
@group(0) @binding(7) var<storage, read_write> destination2: array<u32>;

// destination[i] = start + step * i
@compute @workgroup_size(WG)
fn iota(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = element(lid, wid, nwg);
  if (i < params.n) {
    destination[i] = params.start + params.step * i;
  }
}

// destination[i] = source[index[i]]
@compute @workgroup_size(WG)
fn gather(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = element(lid, wid, nwg);
  if (i < params.n) {
    destination[i] = source[index[i]];
  }
}

// destination[index[i]] = source[i]
@compute @workgroup_size(WG)
fn scatter(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = element(lid, wid, nwg);
  if (i < params.n) {
    destination[index[i]] = source[i];
  }
}

// destination[i] = 1 where a run of equal keys starts (i = 0 or key[i] != key[i-1]), else 0.
@compute @workgroup_size(WG)
fn head_flags(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = element(lid, wid, nwg);
  if (i < params.n) {
    destination[i] = select(0u, 1u, i == 0u || source[i] != source[i - 1u]);
  }
}

// The same for u64 keys given as low words (source) and high words (source_high).
@compute @workgroup_size(WG)
fn head_flags64(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = element(lid, wid, nwg);
  if (i < params.n) {
    destination[i] = select(0u, 1u, i == 0u || source[i] != source[i - 1u] || source_high[i] != source_high[i - 1u]);
  }
}

// The last invocation of a compaction writes the number kept to count[0].
fn count_kept(i: u32, keep: bool) {
  if (i == params.n - 1u) {
    count[0] = index[i] + select(0u, 1u, keep);
  }
}

// Stream compaction, second step: source = values, index = exclusive count of nonzero flags (the
// flags themselves are source_high). Kept values go to destination[position]; the last invocation
// writes the number kept to count[0].
@compute @workgroup_size(WG)
fn compact_scatter(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = element(lid, wid, nwg);
  if (i < params.n) {
    let keep = source_high[i] != 0u;
    if (keep) {
      destination[index[i]] = source[i];
    }
    count_kept(i, keep);
  }
}

// The same for two value arrays kept by one set of flags (source2 goes to destination2).
@compute @workgroup_size(WG)
fn compact_scatter_pair(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = element(lid, wid, nwg);
  if (i < params.n) {
    let keep = source_high[i] != 0u;
    if (keep) {
      let at = index[i];
      destination[at] = source[i];
      destination2[at] = source2[i];
    }
    count_kept(i, keep);
  }
}
