// Bit-packed SA pieces back to u32 entries. A GPU build reads its SA back packed at `bits` bits per
// entry (ceil(log2 n), e.g. 24 for 10 MB): the host's single-threaded copy out of the mapped
// readback buffers is the slowest part of a GPU build (~6 GB/s), and it shrinks by 32 - bits out
// of 32. The main thread copies each packed chunk into a ring slot of the heap and publishes it;
// helpers on the workers (unpackHelper, one per worker) claim pieces of the published chunks and
// expand them into the SA. The host (src/gpu/algorithms/io.ts) owns the mailbox; the helpers only
// claim, unpack and count.

// Mailbox fields (i32), written by the host before the helpers start, except the counters.
@inline const PUBLISHED: usize = 0; // items the host has published (atomic; helpers wait on it)
@inline const CLAIMED: usize = 4; // items claimed by helpers (atomic)
@inline const STOP: usize = 8; // 1: the host gave up (an error); helpers return at once
@inline const TOTAL: usize = 12; // items in all
@inline const BITS: usize = 16;
@inline const ITEM_ENTRIES: usize = 20; // entries per item (a multiple of 8: items start on a byte)
@inline const CHUNK_ENTRIES: usize = 24; // entries per chunk (a multiple of ITEM_ENTRIES)
@inline const RING: usize = 28; // pointer to the ring of slots
@inline const SLOTS: usize = 32;
@inline const SLOT_BYTES: usize = 36;
@inline const TARGET: usize = 40; // pointer to the SA
@inline const ENTRIES: usize = 44; // n
/** Per slot: items of its current chunk that are unpacked (atomic; the host waits on it). */
@inline const SLOT_DONE: usize = 48;

/** Most ring slots a mailbox has room for. */
@inline const MAX_SLOTS: i32 = 16;

/** Bytes of an unpack mailbox (the host reserves them, 64-byte aligned). */
export function unpackMailboxBytes(): i32 {
  return <i32>SLOT_DONE + MAX_SLOTS * 4;
}

/** How long a helper sleeps at most between looks at PUBLISHED and STOP. */
@inline const HELPER_SLEEP_NS: i64 = 1_000_000;

/**
 * One helper: claims items in order until all are claimed; waits for each one's chunk to be
 * published, expands it, counts it done for its slot. Returns the items it unpacked.
 */
export function unpackHelper(mailbox: usize): i32 {
  const total = load<i32>(mailbox + TOTAL);
  const bits = load<i32>(mailbox + BITS);
  const itemEntries = load<i32>(mailbox + ITEM_ENTRIES);
  const chunkEntries = load<i32>(mailbox + CHUNK_ENTRIES);
  const ring = <usize><u32>load<i32>(mailbox + RING);
  const slots = load<i32>(mailbox + SLOTS);
  const slotBytes = <usize><u32>load<i32>(mailbox + SLOT_BYTES);
  const target = <usize><u32>load<i32>(mailbox + TARGET);
  const n = load<i32>(mailbox + ENTRIES);
  let unpacked = 0;
  for (;;) {
    const item = atomic.add<i32>(mailbox + CLAIMED, 1);
    if (item >= total) {
      // the host waits for every helper's claim past the end before it reuses the mailbox
      atomic.notify(mailbox + CLAIMED, 1);
      return unpacked;
    }
    for (;;) {
      if (atomic.load<i32>(mailbox + STOP) != 0) return unpacked;
      const published = atomic.load<i32>(mailbox + PUBLISHED);
      if (published > item) break;
      memory.atomic.wait32(mailbox + PUBLISHED, published, HELPER_SLEEP_NS);
    }
    const first = item * itemEntries;
    const chunk = first / chunkEntries;
    const slot = chunk % slots;
    const source = ring + <usize>slot * slotBytes + ((<usize>(first - chunk * chunkEntries) * <usize>bits) >> 3);
    unpackBits(source, target + (<usize>first << 2), min(itemEntries, n - first), bits);
    unpacked++;
    atomic.add<i32>(mailbox + SLOT_DONE + (<usize>slot << 2), 1);
    atomic.notify(mailbox + SLOT_DONE + (<usize>slot << 2), 1);
  }
  return unpacked; // not reached
}

/**
 * Writes `count` entries of `bits` bits each (1..32), packed little-endian from the first bit of
 * `source`, to u32 at `target`. Reads up to 8 bytes past the last packed byte (the host pads).
 */
export function unpackBits(source: usize, target: usize, count: i32, bits: i32): void {
  const mask: u64 = (<u64>1 << <u64>bits) - 1;
  let at: u64 = 0;
  for (let i = 0; i < count; i++) {
    const word = load<u64>(source + <usize>(at >> 3));
    store<u32>(target + (<usize>i << 2), <u32>((word >> (at & 7)) & mask));
    at += <u64>bits;
  }
}
