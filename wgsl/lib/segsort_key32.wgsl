// Keys of segmented_sort.wgsl: one u32 per pair (the includer defines TILE).

@group(0) @binding(2) var<storage, read_write> keys: array<u32>;
@group(0) @binding(4) var<storage, read_write> scratch_keys: array<u32>;

var<workgroup> merge_keys: array<u32, TILE + TILE / 32u>;

struct SortKey {
  low: u32,
}

const KEY_PAST_END = SortKey(0xffffffffu);

fn key_le(a: SortKey, b: SortKey) -> bool {
  return a.low <= b.low;
}

fn key_load(at: u32) -> SortKey {
  return SortKey(keys[at]);
}

fn key_store(at: u32, key: SortKey) {
  keys[at] = key.low;
}

fn scratch_key_load(at: u32) -> SortKey {
  return SortKey(scratch_keys[at]);
}

fn scratch_key_store(at: u32, key: SortKey) {
  scratch_keys[at] = key.low;
}

fn shared_key(i: u32) -> SortKey {
  return SortKey(merge_keys[i]);
}

fn shared_key_store(i: u32, key: SortKey) {
  merge_keys[i] = key.low;
}
