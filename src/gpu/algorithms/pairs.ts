// gpu-spd's doubling round (Wang, Baxter, Owens 2016, section 4.2), shared by gpu-spd and the
// difference-cover sorters: every unsorted group sorted by the pair (ISA[p + h], ISA[p + 2h]);
// and gpu-spd's first round where runs of one symbol are common (wgsl/sa_doubling.wgsl, "Runs").
import { tuned, type GpuBatch } from "../kernels.js";
import { encodeExclusiveScan } from "../primitives/scan.js";
import { encodeSegmentedSort } from "../primitives/segmented-sort.js";
import { step, type DoublingBuffers, type Growth, type RoundState } from "./doubling.js";
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

/** Symbols a census site looks at (wgsl/sa_doubling.wgsl run_census). */
export const CENSUS_RUN = 64;

/**
 * Counts into census[0] (4 bytes, cleared here) the positions i = 0 mod 64 that start 64 equal
 * symbols, for runsAreCommon. `buffers.text` holds one symbol per u32.
 */
export function encodeRunCensus(batch: GpuBatch, buffers: DoublingBuffers, n: number, census: GPUBuffer): void {
  batch.clear(census, 0, 4);
  const sites = Math.ceil(n / CENSUS_RUN);
  step({ batch, buffers, n, m: sites, h: 0, rankBits: 0, large: 0, counters: census }, "run_census", sites, ["text", "counters"]);
}

/**
 * Whether the first round should sort runs by their run keys (refineByRuns): where runs of 64 or
 * more cover about 1/32 of the text or more. Short runs resolve in a round or two anyway, and the
 * run round costs the other groups a tripling: with runs of 8 as the mark, dickens (runs of
 * spaces) lost 10%. "spd.runRound" = 1 takes the run round always, 2 never (tests).
 */
export function runsAreCommon(census: number, n: number): boolean {
  const forced = tuned("spd.runRound", 0, 0);
  if (forced !== 0) return forced === 1;
  return census * CENSUS_RUN * 32 >= n && n >= CENSUS_RUN;
}

/**
 * Census sites runsLookCommon probes: every 17th. Odd, because a power of two aliases with the rows
 * of images: silesia-mr has 39,997 sites that start runs, every 16th site counted 168 (x 16 = 2,688,
 * under the mark of 4,869), every 13th, 17th and 31st 40,014, 39,984 and 40,021.
 */
const CENSUS_SAMPLE = 17;

/**
 * runsAreCommon's verdict from every 17th census site, read on the host before the text goes to
 * the device (gpu-spd's choice of layout: only the position-indexed one has the run round).
 */
export function runsLookCommon(text: Uint8Array): boolean {
  let runs = 0;
  for (let i = 0; i + CENSUS_RUN <= text.length; i += CENSUS_RUN * CENSUS_SAMPLE) {
    const c = text[i];
    let j = 1;
    while (j < CENSUS_RUN && text[i + j] === c) j++;
    if (j === CENSUS_RUN) runs++;
  }
  return runsAreCommon(runs * CENSUS_SAMPLE, text.length);
}

/**
 * gpu-spd's first round on a text with long runs: groups of suffixes that start with a run of at
 * least h symbols are sorted by (run kind and length, the symbol after the run), the others by
 * pairs as refineByPairs. Run classes share only r + 1 >= h + 1 characters, so h stays (growth 1).
 */
export function refineByRuns(state: RoundState): Growth {
  const { batch, buffers, m, n } = state;
  const runLengths = batch.scratch(4 * n);
  // aux: the reversed text's run heads, then (run_keys) the segment heads
  step(state, "run_ends", n, ["text", "aux"]);
  encodeExclusiveScan(batch, buffers.text, runLengths, n, { heads: buffers.aux, countNonzero: true, inclusive: true });
  step(state, "run_keys", m, ["text", "isa", "suffixes", "positions", "keyLow", "keyHigh", "flags", "aux", "counters", "scan"], { scan: runLengths });
  encodeSegmentedSort(batch, buffers.keyLow, buffers.suffixes, buffers.aux, m, { longest: state.longest, keysHigh: buffers.keyHigh });
  step(state, "split_flags_pair", m, ["keyLow", "keyHigh", "flags"]);
  return 1;
}
