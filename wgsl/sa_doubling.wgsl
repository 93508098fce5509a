// Steps of GPU prefix doubling (src/gpu/algorithms/doubling.ts: gpu-osipov, gpu-ls, gpu-spd).
//
// Vocabulary. The active list holds the suffixes of unsorted groups (groups of >= 2 suffixes that
// share their first h characters), in SA order of their groups: suffixes[k] is a suffix and
// positions[k] the SA slot its group reserves for it (ascending in k). isa[s] is the rank of suffix
// s: the SA position of the first slot of its group ("rank by group head", Wang et al. 2014, 4.1).
// The key that refines a group at step h is rank2(s) = isa[s + h] + 1, or 0 past the text's end.
//
// Osipov's initial key packs the first 4 bytes, most significant first, and below them
// min(n - s, 5): equal keys mean equal first 4 characters and both suffixes longer than that, so the
// text's end sorts before every character (NUL too). gpu-ls and gpu-spd pack more characters the
// same way (wgsl/sa_packed.wgsl).

// A live round (live = 1) is encoded before the host knows how many entries the last one left:
// it runs over m, an upper bound, and takes the true count from counters[0], where the previous
// round's compaction wrote it. Entries past the count are padding: singletons that sort nothing
// and are never kept. Live rounds have no large groups (the segmented sort takes every group).
struct Params {
  m: u32,         // active entries (or text length for per-suffix entries); an upper bound when live
  h: u32,         // doubling offset
  n: u32,         // text length
  rank_bits: u32, // bits of the refining key in a packed (head, rank2) key
  live: u32,      // 1 in a live round
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> text: array<u32>;
@group(0) @binding(2) var<storage, read_write> isa: array<u32>;
@group(0) @binding(3) var<storage, read_write> suffixes: array<u32>;
@group(0) @binding(4) var<storage, read_write> positions: array<u32>;
@group(0) @binding(5) var<storage, read_write> key_low: array<u32>;
@group(0) @binding(6) var<storage, read_write> key_high: array<u32>;
@group(0) @binding(7) var<storage, read_write> flags: array<u32>;
@group(0) @binding(8) var<storage, read_write> aux: array<u32>;
@group(0) @binding(9) var<storage, read_write> group_end: array<u32>;
@group(0) @binding(10) var<storage, read_write> counters: array<atomic<u32>>;
@group(0) @binding(11) var<storage, read_write> large_index: array<u32>;
@group(0) @binding(12) var<storage, read> scan: array<u32>;

// Byte j of the text, 0 past its end (the caller adds the length byte that tells the two apart).
fn text_byte(j: u32) -> u32 {
  if (j >= params.n) {
    return 0u;
  }
  return (text[j >> 2u] >> ((j & 3u) * 8u)) & 0xffu;
}

// Entries of the active list (see Params.live).
fn active_count() -> u32 {
  if (params.live != 0u) {
    return min(params.m, atomicLoad(&counters[0]));
  }
  return params.m;
}

fn rank2(s: u32) -> u32 {
  return rank_at(s, params.h);
}

// isa[s + d] + 1, or 0 past the text's end (d <= 2h < 2^31, s + d < 2^32).
fn rank_at(s: u32, d: u32) -> u32 {
  if (s + d >= params.n) {
    return 0u;
  }
  return isa[s + d] + 1u;
}

// Osipov's initial key: (4 bytes, min(n - i, 5)) in the low 40 bits of (high, low).
@compute @workgroup_size(WG)
fn init_keys4(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = element(lid, wid, nwg);
  if (i >= params.m) {
    return;
  }
  suffixes[i] = i;
  positions[i] = i;
  key_high[i] = text_byte(i);
  key_low[i] = (text_byte(i + 1u) << 24u) | (text_byte(i + 2u) << 16u) | (text_byte(i + 3u) << 8u) | min(params.n - i, 5u);
}

// Osipov's key: (head rank, rank2) packed into rank_bits * 2 bits of a (high, low) u64.
@compute @workgroup_size(WG)
fn packed_keys(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let k = element(lid, wid, nwg);
  if (k >= params.m) {
    return;
  }
  let s = suffixes[k];
  let head = isa[s];
  let b = params.rank_bits; // 1..31
  key_low[k] = (head << b) | rank2(s);
  key_high[k] = head >> (32u - b);
}

// A padding entry of a live round (past the true count): a singleton segment with zero keys.
fn padding_keys(k: u32) {
  key_low[k] = 0u;
  key_high[k] = 0u;
  flags[k] = 1u;
  aux[k] = 1u;
}

// LS's key: rank2 alone, sorted within groups; flags[k] = 1 at each group's first slot;
// key_high[k] = 1 in groups larger than LARGE_GROUP (they are radix-sorted apart); aux[k] = the
// heads for the segmented sort, where each member of a large group stands alone.
@compute @workgroup_size(WG)
fn group_keys(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let k = element(lid, wid, nwg);
  if (k >= params.m) {
    return;
  }
  if (k >= active_count()) {
    padding_keys(k);
    return;
  }
  let s = suffixes[k];
  let head = isa[s];
  let is_head = head == positions[k];
  let large = params.live == 0u && group_end[head] - head > LARGE_GROUP;
  key_low[k] = rank2(s);
  flags[k] = select(0u, 1u, is_head);
  key_high[k] = select(0u, 1u, large);
  aux[k] = select(0u, 1u, is_head || large);
}

// gpu-spd's key (Wang, Baxter, Owens 4.2): (rank2, rank3) = (isa[s + h] + 1, isa[s + 2h] + 1) in
// (key_high, key_low), sorted within groups, which compares 3h characters; flags and aux as in
// group_keys. Only for rounds without large groups.
@compute @workgroup_size(WG)
fn pair_keys(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let k = element(lid, wid, nwg);
  if (k >= params.m) {
    return;
  }
  let s = keyed_suffix(k);
  if (s != NO_SUFFIX) {
    pair_key(k, s);
  }
}

const NO_SUFFIX = 0xffffffffu;

// The suffix entry k of the active list keys, with flags[k] and aux[k] (the segment heads) set at
// its group's first slot; NO_SUFFIX for padding, whose keys it writes.
fn keyed_suffix(k: u32) -> u32 {
  if (k >= active_count()) {
    padding_keys(k);
    return NO_SUFFIX;
  }
  let s = suffixes[k];
  flags[k] = select(0u, 1u, isa[s] == positions[k]);
  aux[k] = flags[k];
  return s;
}

fn pair_key(k: u32, s: u32) {
  key_high[k] = rank_at(s, params.h);
  key_low[k] = rank_at(s, 2u * params.h);
}

// Members of large groups, in order (scan = exclusive count of key_high): large_index[j] = their
// index in the active list, aux[j] = the suffix.
@compute @workgroup_size(WG)
fn large_extract(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let k = element(lid, wid, nwg);
  if (k >= params.m || key_high[k] == 0u) {
    return;
  }
  let j = scan[k];
  large_index[j] = k;
  aux[j] = suffixes[k];
}

// Back into the active list after their sort by (head, rank2): aux = the sorted suffixes, scan =
// the low words of their packed keys, whose low rank_bits are rank2.
@compute @workgroup_size(WG)
fn large_return(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let j = element(lid, wid, nwg);
  if (j >= params.m) {
    return;
  }
  let k = large_index[j];
  suffixes[k] = aux[j];
  key_low[k] = scan[j] & ((1u << params.rank_bits) - 1u);
}

// After the groups were sorted by key: a new group also starts where the key changes.
@compute @workgroup_size(WG)
fn split_flags(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let k = element(lid, wid, nwg);
  if (k >= params.m) {
    return;
  }
  if (k > 0u && key_low[k] != key_low[k - 1u]) {
    flags[k] = 1u;
  }
}

// As split_flags, for the keys of pair_keys.
@compute @workgroup_size(WG)
fn split_flags_pair(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let k = element(lid, wid, nwg);
  if (k >= params.m) {
    return;
  }
  if (k > 0u && (key_low[k] != key_low[k - 1u] || key_high[k] != key_high[k - 1u])) {
    flags[k] = 1u;
  }
}

// aux[k] = positions[k] at group heads, else 0: a segmented sum spreads each head's slot.
@compute @workgroup_size(WG)
fn head_slots(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let k = element(lid, wid, nwg);
  if (k >= params.m) {
    return;
  }
  aux[k] = select(0u, positions[k], flags[k] != 0u);
}

// isa[suffixes[k]] = its new group's head slot (key_low holds the spread head slots); key_high[k]
// = 1 where the entry stays active (its group has >= 2 members), else 0. The last member of each
// group records the group's end at its head slot, counts large groups' members in counters[1] and
// raises counters[2] to the size of the largest group longer than LONG_GROUP (half a segmented-sort
// tile: shorter groups need no merge passes).
@compute @workgroup_size(WG)
fn update_ranks(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let k = element(lid, wid, nwg);
  if (k >= params.m) {
    return;
  }
  let m = active_count();
  if (k >= m) {
    key_high[k] = 0u;
    return;
  }
  let head = key_low[k];
  isa[suffixes[k]] = head;
  let next_is_head = k + 1u == m || flags[k + 1u] != 0u;
  key_high[k] = select(1u, 0u, flags[k] != 0u && next_is_head);
  if (next_is_head) {
    let end = positions[k] + 1u;
    group_end[head] = end;
    if (end - head > LARGE_GROUP) {
      atomicAdd(&counters[1], end - head);
    }
    if (end - head > LONG_GROUP) {
      atomicMax(&counters[2], end - head); // rare: one counter for every group would contend
    }
  }
}

// SA[isa[i]] = i once every group is a singleton (aux is the SA).
@compute @workgroup_size(WG)
fn invert(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = element(lid, wid, nwg);
  if (i >= params.m) {
    return;
  }
  aux[isa[i]] = i;
}

// Runs of one symbol (gpu-spd, which binds its symbols as `text`, one per u32, 0 past the end).
// Doubling needs log3(L) rounds over a run of length L; one round by run keys sorts it whole.
// A suffix s inside a run c^r d (r >= 1 copies of c from s on, then d != c) compares with another
// c^r' d' by: d < c before d > c; among d < c the shorter run first, among d > c the longer; then d.
// So (key_high, key_low) below orders suffixes of one group that all start with c^h, and the
// classes it leaves (equal r and d) share r + 1 >= h + 1 characters.

// A census for the host's choice of the run round: counters[0] += the positions i = 0 mod 64 that
// start 64 equal symbols (one atomic per workgroup).
var<workgroup> census: atomic<u32>;

@compute @workgroup_size(WG)
fn run_census(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = 64u * element(lid, wid, nwg);
  if (lid == 0u) {
    atomicStore(&census, 0u);
  }
  workgroupBarrier();
  if (i + 64u <= params.n) {
    let c = text[i];
    var same = true;
    for (var j = 1u; j < 64u && same; j++) {
      same = text[i + j] == c;
    }
    if (same) {
      atomicAdd(&census, 1u);
    }
  }
  workgroupBarrier();
  if (lid == 0u) {
    let hits = atomicLoad(&census);
    if (hits > 0u) {
      atomicAdd(&counters[0], hits);
    }
  }
}

// Heads of the reversed text's runs: aux[j] = 1 where i = n - 1 - j is the last symbol of its run.
// A segmented count over them gives scan[n - 1 - i] = the run length from i on.
@compute @workgroup_size(WG)
fn run_ends(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let j = element(lid, wid, nwg);
  if (j >= params.n) {
    return;
  }
  let i = params.n - 1u - j;
  aux[j] = select(0u, 1u, i + 1u == params.n || text[i] != text[i + 1u]);
}

// pair_keys, except that groups of suffixes that start with a run of at least h symbols get run
// keys (every member of such a group does: they share c^h): key_high = r, or 2^31 + (2^31 - 1 - r)
// when d > c; key_low = d. Run lengths in scan (run_ends).
@compute @workgroup_size(WG)
fn run_keys(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let k = element(lid, wid, nwg);
  if (k >= params.m) {
    return;
  }
  let s = keyed_suffix(k);
  if (s == NO_SUFFIX) {
    return;
  }
  let r = scan[params.n - 1u - s];
  if (r >= params.h) {
    let c = text[s];
    let d = text[s + r];
    key_high[k] = select(0x80000000u | (0x7fffffffu - r), r, d < c);
    key_low[k] = d;
  } else {
    pair_key(k, s);
  }
}
