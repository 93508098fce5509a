// Keys of segmented_sort.wgsl: two u32 per pair, compared as (high, low) (the includer defines TILE).

@group(0) @binding(2) var<storage, read_write> keys: array<u32>;
@group(0) @binding(4) var<storage, read_write> scratch_keys: array<u32>;
@group(0) @binding(6) var<storage, read_write> keys_high: array<u32>;
@group(0) @binding(7) var<storage, read_write> scratch_keys_high: array<u32>;

var<workgroup> merge_keys: array<u32, TILE + TILE / 32u>;
var<workgroup> merge_keys_high: array<u32, TILE + TILE / 32u>;

struct SortKey {
  low: u32,
  high: u32,
}

const KEY_PAST_END = SortKey(0xffffffffu, 0xffffffffu);

fn key_le(a: SortKey, b: SortKey) -> bool {
  return a.high < b.high || (a.high == b.high && a.low <= b.low);
}

fn key_load(at: u32) -> SortKey {
  return SortKey(keys[at], keys_high[at]);
}

fn key_store(at: u32, key: SortKey) {
  keys[at] = key.low;
  keys_high[at] = key.high;
}

fn scratch_key_load(at: u32) -> SortKey {
  return SortKey(scratch_keys[at], scratch_keys_high[at]);
}

fn scratch_key_store(at: u32, key: SortKey) {
  scratch_keys[at] = key.low;
  scratch_keys_high[at] = key.high;
}

fn shared_key(i: u32) -> SortKey {
  return SortKey(merge_keys[i], merge_keys_high[i]);
}

fn shared_key_store(i: u32, key: SortKey) {
  merge_keys[i] = key.low;
  merge_keys_high[i] = key.high;
}
