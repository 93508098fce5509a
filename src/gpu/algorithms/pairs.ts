// gpu-spd's doubling round (Wang, Baxter, Owens 2016, section 4.2), shared by gpu-spd and the
// difference-cover sorters: every unsorted group sorted by the pair (ISA[p + h], ISA[p + 2h]).
import { tuned } from "../kernels.js";
import { encodeSegmentedSort } from "../primitives/segmented-sort.js";
import { step, type Growth, type RoundState } from "./doubling.js";
import { larssonSadakane } from "./ls.js";

/**
 * One round of the paper's gpu-spd: every active group sorted by (rank2, rank3), tripling h. Rounds
 * with large groups (counted by the last split; never live ones) are gpu-ls's.
 */
export function refineByPairs(state: RoundState): Growth | Promise<Growth> {
  if (state.large > 0 || tuned("spd.pairKeys", 1, 0) === 0) return larssonSadakane.refine(state);
  const { batch, buffers, m } = state;
  // keyHigh = rank2, keyLow = rank3; flags = group starts; aux = segment heads
  step(state, "pair_keys", m, ["isa", "suffixes", "positions", "keyLow", "keyHigh", "flags", "aux", "counters"]);
  encodeSegmentedSort(batch, buffers.keyLow, buffers.suffixes, buffers.aux, m, { longest: state.longest, keysHigh: buffers.keyHigh });
  step(state, "split_flags_pair", m, ["keyLow", "keyHigh", "flags"]);
  return 3;
}
