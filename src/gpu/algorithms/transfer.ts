// The transfer floor of a GPU build: the text goes up (uploadText) and an n-entry array comes back
// into the heap's SA region (deliverSuffixArray), the ways every GPU sorter takes, with nothing
// sorted in between; the array is 0, 1, ..., n - 1, written on the GPU. `sufsort bench --floor`
// times it beside the sorters, so that a sorter's time splits into what moving its text and SA
// costs on this host and what its sorting adds. Not an algorithm: never registered.
import type { BuildContext, SuffixSorter } from "../../engine/registry.js";
import { suffixArrayOf, textOf } from "../../engine/registry.js";
import { limitError } from "../../errors.js";
import { GpuBatch, tuned } from "../kernels.js";
import { encodeIota } from "../primitives/helpers.js";
import { deliverSuffixArray, maxPooledLength, packedReadback, requireGpu, uploadText } from "./io.js";

/** Entries the identity is written in per dispatch ("transfer.window", a multiple of 64: windows
 * start on 256 bytes), so that an array beyond one binding is written window by window. */
const WINDOW = 2 ** 27;

export const transferFloor: SuffixSorter = {
  name: "gpu-transfer",
  engine: "gpu",
  description: "the text uploaded and an n-entry array (the identity) delivered as a GPU sorter's SA; nothing sorted",
  maxLength: 2 ** 30,
  ...packedReadback,
  async build(ctx: BuildContext): Promise<void> {
    const gpu = requireGpu(ctx, "gpu-transfer");
    const n = ctx.n;
    if (n <= 1) {
      suffixArrayOf(ctx).fill(0); // as the sorters, which finish such inputs on the host
      return;
    }
    if (4 * n > gpu.device.limits.maxBufferSize) throw limitError(`gpu-transfer: an array of ${n} entries is over this device's largest buffer`);
    const pooled = n <= maxPooledLength(gpu);
    const sa = pooled ? gpu.pool.acquire(4 * n, undefined, "identity") : gpu.pool.acquireExact(4 * n, "identity");
    const window = Math.max(64, tuned("transfer.window", WINDOW) & ~63);
    let text: GPUBuffer | undefined;
    try {
      text = await uploadText(gpu, textOf(ctx), ctx);
      const batch = new GpuBatch(gpu, "identity");
      for (let first = 0; first < n; first += window) {
        const count = Math.min(window, n - first);
        encodeIota(batch, { buffer: sa, offset: 4 * first, size: 4 * count }, count, first);
      }
      batch.submit();
      await deliverSuffixArray(ctx, gpu, sa, text);
    } finally {
      gpu.pool.release(sa);
      if (text) gpu.pool.release(text);
      gpu.pool.afterSubmit();
    }
  },
};
