// Where the fixed costs of a GPU build go: text upload, buffer allocation (first use), SA readback.
//   node bench/gpu-io.mjs [MiB of text, default 128]
import { SharedHeap } from "../dist/src/cpu/memory.js";
import { acquireGpu } from "../dist/src/gpu/device.js";
import { uploadText, downloadSuffixArray } from "../dist/src/gpu/algorithms/io.js";

const n = Number(process.argv[2] ?? 128) * 2 ** 20;
const gpu = await acquireGpu({ mode: process.env.SUFSORT_GPU ?? "hardware", required: true });
const heap = new SharedHeap(5 * n + (1 << 20));
const textPtr = heap.alloc(n);
const saPtr = heap.alloc(4 * n, 4);
const ms = (t) => (performance.now() - t).toFixed(1);
for (let r = 0; r < 3; r++) {
  let t = performance.now();
  const text = await uploadText(gpu, heap.u8(textPtr, n));
  const tHost = ms(t);
  await gpu.finish();
  const tUpload = ms(t);
  t = performance.now();
  const buffers = Array.from({ length: 8 }, () => gpu.pool.acquire(4 * n));
  const encoder = gpu.device.createCommandEncoder();
  for (const b of buffers) encoder.clearBuffer(b, 0, 4);
  gpu.device.queue.submit([encoder.finish()]);
  await gpu.finish();
  const tAlloc = ms(t);
  t = performance.now();
  await downloadSuffixArray(gpu, buffers[0], heap.u32(saPtr, n));
  const tDown = ms(t);
  // the same readback in 64 MiB chunks: map of chunk k+1 overlaps the copy of chunk k
  t = performance.now();
  const chunk = 64 * 2 ** 20;
  const target = new Uint8Array(heap.memory.buffer, saPtr, 4 * n);
  const pending = [];
  for (let at = 0; at < 4 * n; at += chunk) {
    const size = Math.min(chunk, 4 * n - at);
    const staging = gpu.device.createBuffer({ size, usage: 0x1 | 0x8 });
    const enc = gpu.device.createCommandEncoder();
    enc.copyBufferToBuffer(buffers[0], at, staging, 0, size);
    gpu.device.queue.submit([enc.finish()]);
    pending.push({ at, size, staging, mapped: staging.mapAsync(1) });
  }
  let tMapWait = 0;
  for (const p of pending) {
    const w = performance.now();
    await p.mapped;
    tMapWait += performance.now() - w;
    target.set(new Uint8Array(p.staging.getMappedRange()), p.at);
    p.staging.destroy();
  }
  const tChunked = ms(t);
  // the copy alone, mapped memory to heap
  const staging = gpu.device.createBuffer({ size: 4 * n, usage: 0x1 | 0x8 });
  const enc = gpu.device.createCommandEncoder();
  enc.copyBufferToBuffer(buffers[0], 0, staging, 0, 4 * n);
  gpu.device.queue.submit([enc.finish()]);
  t = performance.now();
  await staging.mapAsync(1);
  const tMap = ms(t);
  t = performance.now();
  target.set(new Uint8Array(staging.getMappedRange()));
  const tCopy = ms(t);
  staging.destroy();
  console.log(`chunked download ${tChunked} ms (map waits ${tMapWait.toFixed(1)}); one buffer: copy+map ${tMap} ms, memcpy ${tCopy} ms`);
  console.log(`${n} bytes: upload ${tUpload} ms (host part ${tHost}), 8 x ${4 * n} B buffers first use ${tAlloc} ms, SA download ${tDown} ms`);
  for (const b of buffers) gpu.pool.release(b);
  gpu.pool.afterSubmit();
  gpu.pool.trim();
  text.destroy();
}
gpu.release();
