// gpu-ls: Larsson–Sadakane prefix doubling on the GPU (Wang, Deng, Lin, Hu, "Fast in-memory suffix
// sorting on the GPU", 2014, ../shared/seeds/001, Algorithm 1).
//
//   sort all suffixes by their first h0 characters (radix sort of 64-bit keys: the paper's 8 bytes
//     become as many characters as the text's alphabet packs beside a length field, which makes
//     the text's end sort first: 7 for all 256 bytes, 8 for 7-bit text, 29 for DNA; packed-keys.ts)
//   rank each suffix by its group's head slot; extract the unsorted groups (compaction)
//   repeat with h = h0, 2 h0, 4 h0, ...:
//     sort each unsorted group by rank2 = ISA[s + h] alone (all groups share their h-rank, LS)
//     split groups where rank2 changes; ISA_2h by segmented scan of head slots; drop singletons
//
// The paper sorts small groups by a bitonic sort in workgroup memory, medium ones by segmented merge
// sort, and large ones (> R2 = 65536 members) by radix sort each. Here small and medium groups go to
// one segmented sort (src/gpu/primitives/segmented-sort.ts, a moderngpu-style segsort): its block
// sort orders every group that lies within one tile in workgroup memory, and its merge passes touch
// only tiles that a group crosses. Large groups (LARGE_GROUP = 2^22 here, counted by the previous round's split
// at no extra readback) are taken out, radix-sorted all together by (group head, rank2) as in
// gpu-osipov, and put back (sortLargeGroups); in the segmented sort their members stand alone.
// Frame, invariants and limits: doubling.ts (n <= 528,482,304 on the H100/H200).
import { registerSorter, type BuildContext, type SuffixSorter } from "../../engine/registry.js";
import { encodeHeadFlags } from "../primitives/helpers.js";
import { encodeRadixSortPairs64 } from "../primitives/radix-sort.js";
import { encodeExclusiveScan } from "../primitives/scan.js";
import { encodeSegmentedSort } from "../primitives/segmented-sort.js";
import { buildByDoubling, DOUBLING_MAX_LENGTH, step, type DoublingAlgorithm, type Growth, type RoundState } from "./doubling.js";
import { encodePackedKeys, planPackedKeys } from "./packed-keys.js";
import { packedReadback } from "./io.js";

export const larssonSadakane: DoublingAlgorithm = {
  name: "gpu-ls",
  async initialSort(state: RoundState): Promise<number> {
    const { batch, buffers, n } = state;
    const plan = await planPackedKeys(batch.ctx, buffers.text, n);
    encodePackedKeys(batch, plan, "all", n, n, buffers);
    encodeRadixSortPairs64(batch, buffers.keyLow, buffers.keyHigh, buffers.suffixes, n, { endBit: plan.keyBits });
    encodeHeadFlags(batch, buffers.keyLow, buffers.flags, n, buffers.keyHigh);
    batch.releaseAfter(plan.code);
    return plan.chars;
  },
  refine(state: RoundState): Growth {
    const { batch, buffers, m, large } = state;
    // key = rank2; flags = group starts; aux = segment heads (large groups' members stand alone)
    step(state, "group_keys", m, ["isa", "suffixes", "positions", "keyLow", "keyHigh", "flags", "aux", "groupEnd", "counters"]);
    // small and medium groups: one segmented sort (block sort in workgroup memory, merges across tiles)
    encodeSegmentedSort(batch, buffers.keyLow, buffers.suffixes, buffers.aux, m, { longest: state.longest });
    if (large > 0) sortLargeGroups(state);
    step(state, "split_flags", m, ["keyLow", "flags"]);
    return 2;
  },
  // padding entries are singleton segments of the segmented sort, and split_flags leaves them so
  live: true,
};

/**
 * Large groups (> LARGE_GROUP members, counted by the last split): their members are extracted in
 * order, radix-sorted together by (group head, rank2), which keeps each group within its own range,
 * and written back to the same indices with their rank2 keys.
 */
export function sortLargeGroups(state: RoundState): void {
  const { batch, m, large, rankBits } = state;
  const scan = batch.scratch(m * 4);
  const largeIndex = batch.scratch(large * 4);
  const largeSuffixes = batch.scratch(large * 4);
  const largeKeyLow = batch.scratch(large * 4);
  const largeKeyHigh = batch.scratch(large * 4);
  encodeExclusiveScan(batch, state.buffers.keyHigh, scan, m, { countNonzero: true });
  step(state, "large_extract", m, ["suffixes", "keyHigh", "aux", "largeIndex", "scan"], { aux: largeSuffixes, largeIndex, scan });
  const sub: RoundState = { ...state, m: large };
  step(sub, "packed_keys", large, ["isa", "suffixes", "keyLow", "keyHigh"], { suffixes: largeSuffixes, keyLow: largeKeyLow, keyHigh: largeKeyHigh });
  encodeRadixSortPairs64(batch, largeKeyLow, largeKeyHigh, largeSuffixes, large, { endBit: 2 * rankBits });
  step(sub, "large_return", large, ["suffixes", "keyLow", "aux", "largeIndex", "scan"], { aux: largeSuffixes, largeIndex, scan: largeKeyLow });
}

export const gpuLsSorter: SuffixSorter = {
  name: "gpu-ls",
  engine: "gpu",
  description: "Larsson-Sadakane prefix doubling with segmented sorts of the unsorted groups (Wang et al. 2014), WebGPU",
  maxLength: DOUBLING_MAX_LENGTH,
  ...packedReadback,
  build: (ctx: BuildContext) => buildByDoubling(ctx, larssonSadakane),
};

registerSorter(gpuLsSorter);
