// Each parallel primitive alone, against a plain JS reference, on the sequential executor and on a
// piscina pool (inputs large enough to be split into several blocks).
import { afterAll, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { SharedHeap } from "../../src/cpu/memory.js";
import { createExecutor, prefault, workerExecArgv, type Executor } from "../../src/cpu/executor.js";
import { MIN_PARALLEL, copy, gather, mergeU32, pack, radixSort, scan, scatter, splitByPivot } from "../../src/cpu/primitives.js";
import { packagePath } from "../../src/paths.js";
import { TEAM_MAX_ARGS } from "../../src/cpu/team.js";
import { rng } from "../support/inputs.js";

const N = 3 * MIN_PARALLEL + 1234; // several blocks at 2 and 3 threads

function randomU32(n: number, seed: number, below = 2 ** 32): Uint32Array {
  const r = rng(seed);
  return Uint32Array.from({ length: n }, () => Math.floor(r() * below));
}

const executors: Executor[] = [];
afterAll(async () => {
  for (const e of executors) await e.close();
});

describe.each([1, 3])("primitives at %i thread(s)", (threads) => {
  const heap = new SharedHeap();
  const exec = createExecutor(heap, threads);
  executors.push(exec);
  const put = (data: Uint32Array): number => {
    const ptr = heap.alloc(4 * data.length);
    heap.u32(ptr, data.length).set(data);
    return ptr;
  };

  it("scan: exclusive and inclusive prefix sums", async () => {
    const data = randomU32(N, 1, 1000);
    for (const inclusive of [false, true]) {
      const ptr = put(data);
      const total = await scan(exec, ptr, 0, N, inclusive);
      const want = new Uint32Array(N);
      let sum = 0;
      for (let i = 0; i < N; i++) {
        if (!inclusive) want[i] = sum;
        sum += data[i];
        if (inclusive) want[i] = sum;
      }
      expect(total).toBe(sum);
      expect(heap.u32(ptr, N)).toEqual(want);
    }
  });

  it.each([4, 8] as const)("radix sort of (%i-byte key, u32 value) pairs is a stable sort", async (keyBytes) => {
    const r = rng(keyBytes);
    const keyWords = keyBytes / 4;
    const keyData = Uint32Array.from({ length: N * keyWords }, (_, i) =>
      keyWords === 2 && i % 2 === 1 ? Math.floor(r() * 50) : Math.floor(r() * 2 ** 32) & 0xfff0ffff,
    );
    const keys = put(keyData);
    const vals = put(Uint32Array.from({ length: N }, (_, i) => i));
    const tmpKeys = heap.alloc(keyBytes * N);
    const tmpVals = heap.alloc(4 * N);
    const bitHi = keyBytes * 8 - (keyBytes === 8 ? 26 : 0); // u64 keys here stay below 2^38
    await radixSort(exec, { keys, vals, tmpKeys, tmpVals, keyBytes }, 0, N, 0, bitHi);
    const keyOf = (i: number): bigint =>
      keyWords === 2 ? (BigInt(keyData[2 * i + 1]) << 32n) | BigInt(keyData[2 * i]) : BigInt(keyData[i]);
    const want = Array.from({ length: N }, (_, i) => i).sort((a, b) => {
      const d = keyOf(a) - keyOf(b);
      return d < 0n ? -1 : d > 0n ? 1 : a - b;
    });
    expect(Array.from(heap.u32(vals, N))).toEqual(want);
    const sortedKeys = heap.u32(keys, N * keyWords);
    for (let j = 0; j < N; j += 997) {
      const i = want[j];
      for (let w = 0; w < keyWords; w++) expect(sortedKeys[j * keyWords + w]).toBe(keyData[i * keyWords + w]);
    }
  });

  it("radix sort of a sub-range leaves the rest alone", async () => {
    const data = randomU32(N, 7, 1 << 20);
    const keys = put(data);
    const vals = put(Uint32Array.from({ length: N }, (_, i) => i));
    const tmpKeys = heap.alloc(4 * N);
    const tmpVals = heap.alloc(4 * N);
    const lo = 1000;
    const hi = N - 1000;
    await radixSort(exec, { keys, vals, tmpKeys, tmpVals, keyBytes: 4 }, lo, hi, 0, 20);
    const got = heap.u32(keys, N);
    expect(Array.from(got.subarray(0, lo))).toEqual(Array.from(data.subarray(0, lo)));
    expect(Array.from(got.subarray(hi))).toEqual(Array.from(data.subarray(hi)));
    expect(Array.from(got.subarray(lo, hi))).toEqual(Array.from(data.subarray(lo, hi)).sort((a, b) => a - b));
  });

  it("split by pivot: below, equal, above, each in its input order", async () => {
    const r = rng(11);
    const pivot = 5000;
    // mostly the pivot (a large group of range's whose members rank in the group itself), with
    // keys on both sides, and a sub-range so that the rest must stay as it is
    const data = Uint32Array.from({ length: N }, () => (r() < 0.8 ? pivot : Math.floor(r() * 2 * pivot)));
    const keys = put(data);
    const vals = put(Uint32Array.from({ length: N }, (_, i) => i));
    const dstKeys = put(new Uint32Array(N).fill(7));
    const dstVals = put(new Uint32Array(N).fill(7));
    const [lo, hi] = [100, N - 100];
    const [equalFrom, aboveFrom] = await splitByPivot(exec, { keys, vals }, { keys: dstKeys, vals: dstVals }, lo, hi, pivot);
    const order = Array.from({ length: hi - lo }, (_, j) => lo + j);
    const below = order.filter((i) => data[i] < pivot);
    const equal = order.filter((i) => data[i] === pivot);
    const above = order.filter((i) => data[i] > pivot);
    expect([equalFrom, aboveFrom]).toEqual([lo + below.length, lo + below.length + equal.length]);
    const got = heap.u32(dstVals, N);
    expect(Array.from(got.subarray(lo, hi))).toEqual([...below, ...equal, ...above]);
    expect(Array.from(heap.u32(dstKeys, N).subarray(lo, hi))).toEqual([...below, ...equal, ...above].map((i) => data[i]));
    expect(got[lo - 1]).toBe(7);
    expect(got[hi]).toBe(7);
  });

  it("pack keeps the flagged values in order", async () => {
    const data = randomU32(N, 3);
    const src = put(data);
    const flags = heap.alloc(N);
    const flagView = heap.u8(flags, N);
    const r = rng(4);
    for (let i = 0; i < N; i++) flagView[i] = r() < 0.3 ? 1 + Math.floor(r() * 200) : 0;
    const dst = heap.alloc(4 * N);
    const count = await pack(exec, src, flags, N, dst);
    const want = Array.from(data).filter((_, i) => flagView[i] !== 0);
    expect(count).toBe(want.length);
    expect(Array.from(heap.u32(dst, count))).toEqual(want);
  });

  it("gather, scatter and copy move values by index", async () => {
    const r = rng(5);
    const perm = Array.from({ length: N }, (_, i) => i);
    for (let i = N - 1; i > 0; i--) {
      const j = Math.floor(r() * (i + 1));
      [perm[i], perm[j]] = [perm[j], perm[i]];
    }
    const data = randomU32(N, 6);
    const src = put(data);
    const index = put(Uint32Array.from(perm));
    const gathered = heap.alloc(4 * N);
    await gather(exec, gathered, src, index, N);
    expect(Array.from(heap.u32(gathered, N))).toEqual(perm.map((i) => data[i]));
    const scattered = heap.alloc(4 * N);
    await scatter(exec, scattered, index, gathered, N);
    expect(heap.u32(scattered, N)).toEqual(data);
    const copied = heap.alloc(4 * N);
    await copy(exec, copied, src, 0, N);
    expect(heap.u32(copied, N)).toEqual(data);
  });

  it("merge of two sorted arrays (merge path) equals a sort of both", async () => {
    for (const [aLen, bLen] of [[N, N >> 1], [0, N], [N, 0], [5, N]]) {
      const a = randomU32(aLen, aLen + 1, 1 << 16).sort();
      const b = randomU32(bLen, bLen + 2, 1 << 16).sort();
      const dst = heap.alloc(4 * (aLen + bLen));
      await mergeU32(exec, put(a), aLen, put(b), bLen, dst);
      expect(Array.from(heap.u32(dst, aLen + bLen))).toEqual([...a, ...b].sort((x, y) => x - y));
    }
  });
});

describe("serial kernels", () => {
  it("unpackBits expands entries of every width 1..32 packed little-endian (the GPU readback's format)", () => {
    const heap = new SharedHeap();
    const exec = createExecutor(heap, 1);
    const unpackBits = exec.kernels.unpackBits as (source: number, target: number, count: number, bits: number) => void;
    const r = rng(12);
    for (let bits = 1; bits <= 32; bits++) {
      for (const count of [1, 7, 8, 33, 1000]) {
        const values = Array.from({ length: count }, (_, i) => (i === 0 ? 2 ** bits - 1 : Math.floor(r() * 2 ** bits)));
        const packed = new Uint8Array(Math.ceil((count * bits) / 8) + 8);
        values.forEach((v, i) => {
          for (let b = 0; b < bits; b++) if (Math.floor(v / 2 ** b) % 2) packed[(i * bits + b) >> 3] |= 1 << ((i * bits + b) & 7);
        });
        const source = heap.alloc(packed.length, 8);
        heap.u8(source, packed.length).set(packed);
        const target = heap.alloc(4 * count, 4);
        unpackBits(source, target, count, bits);
        expect(Array.from(heap.u32(target, count)), `${count} entries of ${bits} bits`).toEqual(values);
      }
    }
  });

  it("sortU64 (the in-worker group sort) sorts any order, duplicates included", () => {
    const heap = new SharedHeap();
    const exec = createExecutor(heap, 1);
    const sortU64 = exec.kernels.sortU64 as (ptr: number, lo: number, hi: number) => void;
    const r = rng(9);
    for (const [n, spread] of [[0, 1], [1, 1], [2, 2], [17, 2 ** 30], [30, 5], [1000, 3], [5000, 2 ** 30], [4096, 1]] as const) {
      const ptr = heap.alloc(8 * n + 8, 8);
      const view = new BigUint64Array(heap.memory.buffer, ptr, n);
      for (let i = 0; i < n; i++) view[i] = (BigInt(Math.floor(r() * spread)) << 20n) | BigInt(i % 7);
      if (n === 4096) view.sort().reverse(); // descending input
      const want = Array.from(view).sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
      sortU64(ptr, 0, n);
      expect(Array.from(view)).toEqual(want);
    }
    // a slice inside a larger array: the values outside it stay where they are
    const ptr = heap.alloc(8 * 1000, 8);
    const view = new BigUint64Array(heap.memory.buffer, ptr, 1000);
    for (let i = 0; i < 1000; i++) view[i] = BigInt(Math.floor(r() * 2 ** 40));
    const before = Array.from(view);
    const want = [...before.slice(0, 100), ...before.slice(100, 900).sort((x, y) => (x < y ? -1 : x > y ? 1 : 0)), ...before.slice(900)];
    sortU64(ptr, 100, 900);
    expect(Array.from(view)).toEqual(want);
  });

  it("the module has no data segment (instances on one shared memory would rewrite it)", () => {
    const bytes = readFileSync(packagePath("dist", "sufsort.wasm"));
    let at = 8;
    const sections: number[] = [];
    const leb = (): number => {
      let value = 0;
      let shift = 0;
      let b: number;
      do {
        b = bytes[at++];
        value += (b & 0x7f) * 2 ** shift;
        shift += 7;
      } while (b & 0x80);
      return value;
    };
    while (at < bytes.length) {
      const id = bytes[at++];
      const size = leb();
      sections.push(id);
      at += size;
    }
    expect(sections).toContain(10); // code
    expect(sections).not.toContain(11); // data
  });
});

describe("the worker pool", () => {
  it("starts its workers with require(esm) off, keeping the process's other options", () => {
    expect(process.allowedNodeEnvironmentFlags.has("--no-experimental-require-module")).toBe(true); // Node 20.19+
    const argv = workerExecArgv()!;
    expect(argv.at(-1)).toBe("--no-experimental-require-module");
    expect(argv.slice(0, -1)).toEqual(process.execArgv.filter((a) => a !== "--experimental-require-module"));
  });

  it("prefault zeroes every entry of a shared array on plain workers (and does nothing on one thread)", async () => {
    const array = new Int32Array(new SharedArrayBuffer(4 * 100_003));
    array.fill(7);
    await prefault(array, 1);
    expect(array.every((v) => v === 7)).toBe(true);
    await prefault(array, 3);
    expect(array.every((v) => v === 0)).toBe(true);
  });

  // Closing a pool whose workers are still loading once aborted Node 20 (require(esm) cut short,
  // "IsGraphAsync must be used on an instantiated module"): 1 of 6 runs of 30 cycles did, so this
  // catches a return of it only now and then.
  it("survives being closed while its workers are still loading", () => {
    const script = `
      import { SharedHeap } from ${JSON.stringify(packagePath("dist", "src", "cpu", "memory.js"))};
      import { createExecutor } from ${JSON.stringify(packagePath("dist", "src", "cpu", "executor.js"))};
      const heap = new SharedHeap(1 << 16);
      const p = heap.alloc(64);
      let sum = 0;
      for (let i = 0; i < 30; i++) {
        const pool = createExecutor(heap, 8);
        sum += (await pool.map("probe", [[p, 16], [p, 16]])).length;
        await pool.close();
      }
      console.log(sum);`;
    const child = spawnSync(process.execPath, ["--input-type=module", "-e", script], { timeout: 120_000, encoding: "utf8" });
    expect(child.status, child.stderr.split("\n").slice(0, 3).join("\n")).toBe(0);
    expect(child.stdout.trim()).toBe("60");
  });
});

// CPU builds run their phases as a team (src/cpu/team.ts): the calling thread and the workers take
// blocks from a board in shared memory.
describe.each([2, 3])("the team at %i threads", (threads) => {
  const heap = new SharedHeap();
  const exec = createExecutor(heap, threads);
  executors.push(exec);
  const bytes = heap.alloc(1 << 16);
  const view = heap.u8(bytes, 1 << 16);
  for (let i = 0; i < view.length; i++) view[i] = (i * 31 + 7) & 255;
  const probeSum = (a: number, b: number) => view.subarray(a, b).reduce((s, x) => s + x, 0);

  it("runs many phases, each block's result in its place, and the primitives on top of it", async () => {
    const data = randomU32(N, 11, 1 << 24);
    const keys = heap.alloc(4 * N);
    const vals = heap.alloc(4 * N);
    const tmpKeys = heap.alloc(4 * N);
    const tmpVals = heap.alloc(4 * N);
    await exec.asTeam(async () => {
      for (let phase = 0; phase < 300; phase++) {
        const calls = Array.from({ length: 1 + (phase % 9) }, (_, k) => [bytes + 97 * k, 50 + phase + k]);
        const want = calls.map((_, k) => probeSum(97 * k, 97 * k + 50 + phase + k));
        expect(await exec.map("probe", calls)).toEqual(want);
      }
      heap.u32(keys, N).set(data);
      heap.u32(vals, N).set(Uint32Array.from({ length: N }, (_, i) => i));
      await radixSort(exec, { keys, vals, tmpKeys, tmpVals, keyBytes: 4 }, 0, N, 0, 24);
      // two phases at once (Promise.all) take their turns on the board
      const [a, b] = await Promise.all([exec.map("probe", [[bytes, 10], [bytes + 10, 10]]), exec.map("probe", [[bytes, 20], [bytes + 20, 20]])]);
      expect([a, b]).toEqual([[probeSum(0, 10), probeSum(10, 20)], [probeSum(0, 20), probeSum(20, 40)]]);
    });
    const order = Array.from({ length: N }, (_, i) => i).sort((x, y) => data[x] - data[y] || x - y);
    expect(Array.from(heap.u32(vals, N))).toEqual(order);
  });

  it("reports a block that fails, then goes on; runOne, phases of more blocks than the board holds and blocks of too many arguments still work", async () => {
    await exec.asTeam(async () => {
      const bad = [[bytes, 8], [0xffffff00, 4096], [bytes, 8]];
      await expect(exec.map("probe", bad)).rejects.toThrow(/sufsort: kernel probe: .*out of bounds/);
      expect(await exec.map("probe", [[bytes, 8], [bytes + 8, 8]])).toEqual([probeSum(0, 8), probeSum(8, 16)]);
      expect(await exec.runOne("probe", [bytes, 100])).toBe(probeSum(0, 100));
      const many = Array.from({ length: 1500 }, (_, k) => [bytes + k, 3]);
      expect(await exec.map("probe", many)).toEqual(many.map((_, k) => probeSum(k, k + 3)));
      expect(await exec.map("probe", [[bytes, 5], [bytes + 5, 5]])).toEqual([probeSum(0, 5), probeSum(5, 10)]);
      // blocks with more arguments than a board slot holds go to the whole pool (the extra ones are ignored)
      const long = [0, 1].map((k) => [bytes + 7 * k, 7, ...new Array<number>(TEAM_MAX_ARGS).fill(0)]);
      expect(await exec.map("probe", long)).toEqual([probeSum(0, 7), probeSum(7, 14)]);
      expect(await exec.map("probe", [[bytes, 4], [bytes + 4, 4]])).toEqual([probeSum(0, 4), probeSum(4, 8)]);
    });
    // after the build the pool runs tasks as before
    expect(await exec.map("probe", [[bytes, 6], [bytes + 6, 6]])).toEqual([probeSum(0, 6), probeSum(6, 12)]);
  });
});
