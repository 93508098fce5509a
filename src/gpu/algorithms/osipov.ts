// gpu-osipov: GPU prefix doubling with filtering (Osipov, "Parallel suffix array construction for
// shared memory architectures", SPIRE 2012), the baseline of Wang, Baxter, Owens (2016,
// ../shared/seeds/000) and Wang, Deng, Lin, Hu (2014, ../shared/seeds/001, section 3.2).
//
//   sort all suffixes by their first 4 characters (radix sort of 40-bit keys)
//   repeat with h = 4, 8, 16, ...:
//     sort the active suffixes globally by (rank of s, rank of s + h)   [one radix sort]
//     regroup, re-rank, and filter out the suffixes now alone in their group
//
// Unlike gpu-ls, every round sorts all remaining suffixes together: the packed key carries the
// group's rank (its head slot) above rank2, 2 * ceil(log2(n + 1)) bits in all.
// Frame, invariants and limits: doubling.ts (n <= 528,482,304 on the H100/H200).
import { registerSorter, type BuildContext, type SuffixSorter } from "../../engine/registry.js";
import { encodeHeadFlags } from "../primitives/helpers.js";
import { encodeRadixSortPairs64 } from "../primitives/radix-sort.js";
import { buildByDoubling, DOUBLING_MAX_LENGTH, step, type DoublingAlgorithm, type Growth, type RoundState } from "./doubling.js";
import { packedReadback } from "./io.js";

/** Characters of the initial sort, and the bits of its key (4 characters, a length byte below). */
const INITIAL_CHARS = 4;
const INITIAL_KEY_BITS = 40;

export const osipov: DoublingAlgorithm = {
  name: "gpu-osipov",
  async initialSort(state: RoundState): Promise<number> {
    const { batch, buffers, n } = state;
    step(state, "init_keys4", n, ["text", "suffixes", "positions", "keyLow", "keyHigh"]);
    encodeRadixSortPairs64(batch, buffers.keyLow, buffers.keyHigh, buffers.suffixes, n, { endBit: INITIAL_KEY_BITS });
    encodeHeadFlags(batch, buffers.keyLow, buffers.flags, n, buffers.keyHigh);
    return INITIAL_CHARS;
  },
  refine(state: RoundState): Growth {
    const { batch, buffers, m, rankBits } = state;
    step(state, "packed_keys", m, ["isa", "suffixes", "keyLow", "keyHigh"]);
    encodeRadixSortPairs64(batch, buffers.keyLow, buffers.keyHigh, buffers.suffixes, m, { endBit: 2 * rankBits });
    encodeHeadFlags(batch, buffers.keyLow, buffers.flags, m, buffers.keyHigh);
    return 2;
  },
};

export const gpuOsipovSorter: SuffixSorter = {
  name: "gpu-osipov",
  engine: "gpu",
  description: "prefix doubling with global radix sorts and filtering of sorted suffixes (Osipov 2012), WebGPU",
  maxLength: DOUBLING_MAX_LENGTH,
  ...packedReadback,
  build: (ctx: BuildContext) => buildByDoubling(ctx, osipov),
};

registerSorter(gpuOsipovSorter);
