// Steps of a hybrid gpu-ls round (src/gpu/algorithms/hybrid.ts): the members of small unsorted
// groups are gathered as (suffix, rank2) pairs for the CPU workers, which sort them while the GPU
// sorts the other groups; then the sorted pairs go back to their places in the active list.
// Vocabulary as in sa_doubling.wgsl (active list, positions, isa = rank by group head, group_end).

struct Params {
  m: u32,     // entries: the active list (cpu_mark, cpu_gather) or the gathered pairs (cpu_return)
  cap: u32,   // most entries the CPU takes this round
  small: u32, // groups of at most this many suffixes go to the CPU
  unused: u32
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read_write> isa: array<u32>;
@group(0) @binding(2) var<storage, read_write> suffixes: array<u32>;
@group(0) @binding(3) var<storage, read_write> positions: array<u32>;
@group(0) @binding(4) var<storage, read_write> key_low: array<u32>;
@group(0) @binding(5) var<storage, read_write> aux: array<u32>;
@group(0) @binding(6) var<storage, read_write> group_end: array<u32>;
@group(0) @binding(7) var<storage, read_write> mark: array<u32>;
@group(0) @binding(8) var<storage, read_write> scan: array<u32>;
@group(0) @binding(9) var<storage, read_write> pairs: array<u32>;
@group(0) @binding(10) var<storage, read_write> cpu_index: array<u32>;
@group(0) @binding(11) var<storage, read_write> counters: array<atomic<u32>>;

// Marks a group's first member (in mark and in cpu_index); entry indices stay below 2^31.
const HEAD_BIT: u32 = 0x80000000u;

// mark[k] = for a member of a group of at most params.small suffixes: how many of the group's
// members are at k or after it (HEAD_BIT added at the group's first member); 0 for other groups.
@compute @workgroup_size(WG)
fn cpu_mark(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let k = element(lid, wid, nwg);
  if (k >= params.m) {
    return;
  }
  let head = isa[suffixes[k]];
  let end = group_end[head];
  var value = 0u;
  if (end - head <= params.small) {
    value = end - positions[k];
    if (positions[k] == head) {
      value = value | HEAD_BIT;
    }
  }
  mark[k] = value;
}

// scan = exclusive count of nonzero marks, so the marked members are numbered j = 0, 1, ... in
// order and each group's members are consecutive. A group goes to the CPU when its last member's
// number is below params.cap (the groups taken are a prefix of the marked ones): pairs[2j] = the
// suffix, pairs[2j + 1] = its rank2 key (a little-endian u64 key << 32 | suffix for the CPU's sort),
// cpu_index[j] = k (HEAD_BIT at group starts), aux[k] = 1 (the GPU's segmented sort leaves the
// member alone), counters[0] = the number of entries taken.
@compute @workgroup_size(WG)
fn cpu_gather(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let k = element(lid, wid, nwg);
  if (k >= params.m) {
    return;
  }
  let value = mark[k];
  if (value == 0u) {
    return;
  }
  let j = scan[k];
  let group_after = j + (value & ~HEAD_BIT); // one past the number of the group's last member
  if (group_after > params.cap) {
    return;
  }
  pairs[2u * j] = suffixes[k];
  pairs[2u * j + 1u] = key_low[k];
  cpu_index[j] = k | (value & HEAD_BIT);
  aux[k] = 1u;
  if ((value & HEAD_BIT) != 0u) {
    atomicMax(&counters[0], group_after);
  }
}

// The CPU's sorted pairs back into the active list at the slots they were taken from.
@compute @workgroup_size(WG)
fn cpu_return(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let j = element(lid, wid, nwg);
  if (j >= params.m) {
    return;
  }
  let k = cpu_index[j] & ~HEAD_BIT;
  suffixes[k] = pairs[2u * j];
  key_low[k] = pairs[2u * j + 1u];
}
