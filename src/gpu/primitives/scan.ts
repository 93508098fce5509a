// Exclusive scan of u32 (wrapping sums), plain or segmented by head flags: wgsl/scan.wgsl.
import { checkBinding, type GpuBatch, pipeline, tuned, WORKGROUP_SIZE } from "../kernels.js";

/** Elements per invocation (a tile is WORKGROUP_SIZE * items): segmented tiles also stage their
 * head flags, so they are half as long to fit 32 KiB of shared memory. */
export const SCAN_ITEMS = 16;
export const SEGMENTED_SCAN_ITEMS = 8;
/** Elements per invocation of the vec4 form (a multiple of 4). */
export const QUAD_SCAN_ITEMS = 16;
/** Elements per invocation of the striped plain scan (subgroups only; a multiple of 4). */
export const STRIPED_SCAN_ITEMS = 16;

export interface ScanOptions {
  /** Head flags (nonzero = a segment starts here): segmented scan, restarting at 0 at each head. */
  heads?: GPUBuffer;
  /** Sum the flags (input[i] != 0) instead of the values: positions for stream compaction. */
  countNonzero?: boolean;
  /** Include input[i] itself: output[i] = input[0] + ... + input[i]. */
  inclusive?: boolean;
}

/**
 * Encodes output[i] = input[0] + ... + input[i-1] (mod 2^32), or the same sum from the last head
 * at or before i when `heads` is given (see ScanOptions for the inclusive and flag-counting forms).
 * `input` and `output` must be different buffers.
 */
export function encodeExclusiveScan(batch: GpuBatch, input: GPUBuffer, output: GPUBuffer, n: number, options: ScanOptions = {}): void {
  if (n === 0) return;
  const ctx = batch.ctx;
  checkBinding(ctx, "scan", n);
  const segmented = options.heads !== undefined;
  const quads = useQuads(ctx, n, [input, output, options.heads]);
  if (quads && !segmented && ctx.features.subgroups) {
    encodeStripedScan(batch, input, output, n, options);
    return;
  }
  // The vec4 form stages nothing in shared memory, so segmented tiles can be as long as plain ones.
  const items = quads
    ? tuned(segmented ? "segscan4.items" : "scan4.items", QUAD_SCAN_ITEMS)
    : segmented
      ? tuned("segscan.items", SEGMENTED_SCAN_ITEMS)
      : tuned("scan.items", SCAN_ITEMS);
  const wg = quads ? tuned("scan4.wg", WORKGROUP_SIZE) : WORKGROUP_SIZE;
  const pipe = pipeline(ctx, {
    file: "scan.wgsl",
    entry: quads ? "scan_vec4" : "scan",
    constants: {
      WG: wg,
      ITEMS: items,
      SEGMENTED: segmented ? 1 : 0,
      COUNT_NONZERO: options.countNonzero ? 1 : 0,
      INCLUSIVE: options.inclusive ? 1 : 0,
    },
    libs: ["wg_scan", "scan_state", "look_back"],
  });
  const tiles = Math.ceil(n / (wg * items));
  const state = tileStates(batch, tiles);
  // The plain variants never read `heads`; the input stands in for the binding.
  if (quads) {
    batch.dispatch(pipe, [n], [undefined, undefined, undefined, state, input, options.heads ?? input, output], tiles);
  } else {
    batch.dispatch(pipe, [n], [input, options.heads ?? input, output, state], tiles);
  }
}

/** Plain scans with subgroups: wgsl/scan_striped.wgsl (long tiles, contiguous loads per subgroup). */
function encodeStripedScan(batch: GpuBatch, input: GPUBuffer, output: GPUBuffer, n: number, options: ScanOptions): void {
  const items = tuned("scan.striped.items", STRIPED_SCAN_ITEMS);
  const pipe = pipeline(batch.ctx, {
    file: "scan_striped.wgsl",
    entry: "scan",
    constants: { ITEMS: items, COUNT_NONZERO: options.countNonzero ? 1 : 0, INCLUSIVE: options.inclusive ? 1 : 0 },
    libs: ["scan_state", "look_back"],
  });
  const tiles = Math.ceil(n / (WORKGROUP_SIZE * items));
  batch.dispatch(pipe, [n], [input, output, tileStates(batch, tiles)], tiles);
}

/** Zeroed tile states for `tiles` tiles (wgsl/lib/scan_state.wgsl: the ticket, then 4 words a tile). */
function tileStates(batch: GpuBatch, tiles: number): GPUBuffer {
  const bytes = (1 + 4 * tiles) * 4;
  const state = batch.scratch(bytes, "scan tile states");
  batch.clear(state, 0, bytes);
  return state;
}

/** The vec4 form needs every array to hold ceil(n / 4) whole vec4s (SUFSORT_GPU_TUNE scan.vec4=2 turns it off). */
function useQuads(ctx: GpuBatch["ctx"], n: number, buffers: (GPUBuffer | undefined)[]): boolean {
  if (tuned("scan.vec4", 1) !== 1) return false;
  const bytes = Math.ceil(n / 4) * 16;
  return bytes <= ctx.maxBindingBytes && buffers.every((b) => b === undefined || b.size >= bytes);
}
