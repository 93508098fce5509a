// gpu-ls: Larsson–Sadakane prefix doubling on the GPU (Wang, Deng, Lin, Hu, "Fast in-memory suffix
// sorting on the GPU", 2014, ../shared/seeds/001, Algorithm 1).
//
//   sort all suffixes by their first h0 = 7 characters (radix sort of 64-bit keys: 7 bytes and the
//     suffix's length capped at 8, so that the text's end sorts first)
//   rank each suffix by its group's head slot; extract the unsorted groups (compaction)
//   repeat with h = 7, 14, 28, ...:
//     sort each unsorted group by rank2 = ISA[s + h] alone (all groups share their h-rank, LS)
//     split groups where rank2 changes; ISA_2h by segmented scan of head slots; drop singletons
//
// The paper sorts small groups by a bitonic sort in workgroup memory, medium ones by segmented merge
// sort, and large ones by radix sort each. Here one segmented sort (src/gpu/primitives/
// segmented-sort.ts, a moderngpu-style segsort) serves all three: its block sort orders every
// group that lies within one tile of 2048 pairs in workgroup memory, and its merge passes touch
// only tiles that a group crosses, so small groups cost one pass and large ones log2(size / tile).
// Frame, invariants and limits: doubling.ts (n <= maxStorageBufferBindingSize / 4).
import { registerSorter, type BuildContext, type SuffixSorter } from "../../engine/registry.js";
import { encodeHeadFlags } from "../primitives/helpers.js";
import { encodeRadixSortPairs64 } from "../primitives/radix-sort.js";
import { encodeSegmentedSort } from "../primitives/segmented-sort.js";
import { buildByDoubling, DOUBLING_MAX_LENGTH, step, type DoublingAlgorithm, type RoundState } from "./doubling.js";

export const larssonSadakane: DoublingAlgorithm = {
  name: "gpu-ls",
  initialChars: 7,
  initialSort(state: RoundState): void {
    const { batch, buffers, n } = state;
    step(state, "init_keys64", n, ["text", "suffixes", "positions", "keyLow", "keyHigh"]);
    encodeRadixSortPairs64(batch, buffers.keyLow, buffers.keyHigh, buffers.suffixes, n);
    encodeHeadFlags(batch, buffers.keyLow, buffers.flags, n, buffers.keyHigh);
  },
  refine(state: RoundState): void {
    const { batch, buffers, m } = state;
    step(state, "group_keys", m, ["isa", "suffixes", "positions", "keyLow", "flags"]);
    encodeSegmentedSort(batch, buffers.keyLow, buffers.suffixes, buffers.flags, m);
    step(state, "split_flags", m, ["keyLow", "flags"]);
  },
};

export const gpuLsSorter: SuffixSorter = {
  name: "gpu-ls",
  engine: "gpu",
  description: "Larsson-Sadakane prefix doubling with segmented sorts of the unsorted groups (Wang et al. 2014), WebGPU",
  maxLength: DOUBLING_MAX_LENGTH,
  scratchBytes: () => 0,
  build: (ctx: BuildContext) => buildByDoubling(ctx, larssonSadakane),
};

registerSorter(gpuLsSorter);
