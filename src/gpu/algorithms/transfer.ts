// The transfer floor of a GPU build: the text goes up (uploadText) and an n-entry array comes back
// into the heap's SA region (deliverSuffixArray), the ways every GPU sorter takes, with nothing
// sorted in between; the array is 0, 1, ..., n - 1, written on the GPU. `sufsort bench --floor`
// times it beside the sorters, so that a sorter's time splits into what moving its text and SA
// costs on this host and what its sorting adds. Not an algorithm: never registered.
import type { BuildContext, SuffixSorter } from "../../engine/registry.js";
import { suffixArrayOf, textOf } from "../../engine/registry.js";
import { limitError } from "../../errors.js";
import { GpuBatch } from "../kernels.js";
import { encodeIota } from "../primitives/helpers.js";
import { deliverSuffixArray, maxPooledLength, packedReadback, requireGpu, uploadText } from "./io.js";

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
    if (n > maxPooledLength(gpu)) throw limitError(`gpu-transfer: ${n} entries are over one binding on this device`);
    const text = await uploadText(gpu, textOf(ctx), ctx);
    const sa = gpu.pool.acquire(Math.max(4, 4 * n), undefined, "identity");
    try {
      const batch = new GpuBatch(gpu, "identity");
      encodeIota(batch, sa, n);
      batch.submit();
      await deliverSuffixArray(ctx, gpu, sa, text);
    } finally {
      gpu.pool.release(sa);
      gpu.pool.release(text);
      gpu.pool.afterSubmit();
    }
  },
};
