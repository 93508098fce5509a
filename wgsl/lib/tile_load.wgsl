// Loading a tile of TILE = WG * ITEMS consecutive elements from global into shared memory, strided:
// invocation lid takes the tile's elements i * WG + lid, so each step i is one coalesced access.
// Every load is issued before any is stored, so all of an invocation's loads are in flight together.
// The includer defines:
//   struct TileItem: one element's words, a field per array that holds them;
//   fn tile_fetch(at: u32) -> TileItem: element `at` of the global arrays;
//   fn tile_past_end() -> TileItem: what the tile's slots past the end of the input hold;
//   fn tile_stage(local: u32, item: TileItem): stores tile element `local` into shared memory.

// Stages elements base .. base+TILE-1 (those at local >= valid as tile_past_end()).
fn load_tile(lid: u32, base: u32, valid: u32) {
  var loaded: array<TileItem, ITEMS>;
  for (var i = 0u; i < ITEMS; i++) {
    let local = i * WG + lid;
    loaded[i] = tile_past_end();
    if (local < valid) {
      loaded[i] = tile_fetch(base + local);
    }
  }
  for (var i = 0u; i < ITEMS; i++) {
    tile_stage(i * WG + lid, loaded[i]);
  }
}
