// The applications on the GPU against the CPU: the BWT derived on the device from a GPU sorter's SA
// (byte-identical to the CPU BWT and to the definition), and FM-index count and locate on the device
// (identical ranges and positions to the CPU's, and to a substring scan), on the software adapter
// with small inputs.
// Run on a real GPU with SUFSORT_GPU=hardware.
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { bwtLarge, bwtPlaced, type BwtInHeap } from "../../src/apps/bwt.js";
import { closePlaced, placeText, resolveSorter } from "../../src/engine/build.js";
import type { GpuContext } from "../../src/gpu/device.js";
import { GpuBatch, WORKGROUP_SIZE } from "../../src/gpu/kernels.js";
import { SEGSORT_TILE } from "../../src/gpu/primitives/segmented-sort.js";
import { bwt, FMIndex, SufsortError } from "../../src/index.js";
import { firstDifference, hardFamilies, naiveSuffixArray, randomText, rng } from "../support/inputs.js";
import { tempDirs } from "../support/temp.js";
import { packagePath } from "../../src/paths.js";
import { readU32 } from "../../src/gpu/kernels.js";
import { SequentialExecutor } from "../../src/cpu/executor.js";
import { SharedHeap } from "../../src/cpu/memory.js";
import { gpuIt, testGpuMode, withTune } from "./support.js";
import { stepsPerDispatch } from "../../src/gpu/apps/fm-search.js";

/** The stored BWT (n bytes) and primary index of `text` by `algo`, through the one BWT path. */
async function bwtBy(algo: string, text: Uint8Array, gpu?: GpuContext): Promise<{ bwt: Uint8Array; primary: number; result: BwtInHeap }> {
  const placed = placeText(text.length, resolveSorter(algo), 1);
  placed.heap.u8(placed.textPtr, text.length).set(text);
  try {
    const result = await bwtPlaced(placed, gpu ? { gpuContext: gpu } : {});
    const out = new Uint8Array(text.length);
    out.set(result.parts[0]);
    out.set(result.parts[1], result.parts[0].length);
    return { bwt: out, primary: result.primary, result };
  } finally {
    await closePlaced(placed);
  }
}

/** The BWT by definition from the naive SA (small n). */
function naiveBwt(t: Uint8Array): { bwt: Uint8Array; primary: number } {
  const n = t.length;
  if (n === 0) return { bwt: new Uint8Array(0), primary: 0 };
  const out: number[] = [t[n - 1]];
  let primary = 0;
  naiveSuffixArray(t).forEach((s, k) => (s === 0 ? (primary = k + 1) : out.push(t[s - 1])));
  return { bwt: Uint8Array.from(out), primary };
}

async function expectLikeCpu(gpu: GpuContext, algo: string, text: Uint8Array, what: string): Promise<void> {
  const want = text.length <= 300 ? naiveBwt(text) : await bwtBy("sais", text);
  const got = await bwtBy(algo, text, gpu);
  const at = firstDifference(got.bwt, want.bwt);
  expect(at, `${algo} BWT of ${what} (n = ${text.length}): first difference at ${at} (got ${got.bwt[at]}, want ${want.bwt[at]})`).toBe(-1);
  expect(got.primary, `${algo} primary index of ${what} (n = ${text.length})`).toBe(want.primary);
}

const tempDir = tempDirs("sufsort-gpu-apps-");

/** Every GPU sorter, and gpu-spd's two layouts forced (it takes the position-indexed one only
 * below 64 MiB where long runs are common). */
const DEVICE_SA_VARIANTS: [string, string][] = [
  ["gpu-ls", ""],
  ["gpu-osipov", ""],
  ["gpu-skew", ""],
  ["gpu-spd", ""],
  ["gpu-spd", "spd.compact=1"],
  ["gpu-spd", "spd.compact=0"],
  ["gpu-dc7", ""],
];

describe("GPU sorters hand their SA over on the device", () => {
  gpuIt("the consumer gets the SA and the packed text; the heap's SA region is left alone", async (gpu) => {
    for (const [algo, tune] of DEVICE_SA_VARIANTS) {
      await withTune(tune, async () => {
        for (const text of [randomText(2, 2, 1), randomText(1001, 4, 2), hardFamilies(300, 3)[0][1]]) {
          const n = text.length;
          const heap = new SharedHeap(8 * n + (1 << 16));
          const textPtr = heap.alloc(n);
          heap.u8(textPtr, n).set(text);
          const saPtr = heap.alloc(4 * n);
          heap.u32(saPtr, n).fill(0xdeadbeef);
          const executor = new SequentialExecutor(heap);
          let calls = 0;
          await resolveSorter(algo).build({
            heap, kernels: executor.kernels, executor, textPtr, n, saPtr, threads: 1, gpu,
            consumeDeviceSuffixArray: async (device, sa, packed, ctx, produce) => {
              calls++;
              if (produce) {
                // the sorter's last merge, left to the consumer: the whole SA at once
                const batch = new GpuBatch(device, "SA");
                produce(batch, 0, n);
                batch.submit();
              }
              expect(device).toBe(gpu);
              expect(ctx.saPtr).toBe(saPtr);
              const want = naiveSuffixArray(text);
              const got = await readU32(device, sa, n);
              expect(firstDifference(got, want), `${algo} SA on the device (n = ${n})`).toBe(-1);
              const words = await readU32(device, packed, Math.ceil(n / 4));
              expect(Array.from(new Uint8Array(words.buffer, 0, n))).toEqual(Array.from(text));
            },
          });
          expect(calls, algo).toBe(1);
          expect(heap.u32(saPtr, n).every((x) => x === 0xdeadbeef), `${algo} left the heap's SA region alone`).toBe(true);
        }
      });
    }
  });
});

describe("GPU BWT", () => {
  gpuIt("banana through every GPU sorter, with the SA left on the device", async (gpu) => {
    for (const [algo, tune] of DEVICE_SA_VARIANTS) {
      const got = await withTune(tune, () => bwtBy(algo, new TextEncoder().encode("banana"), gpu));
      expect(new TextDecoder().decode(got.bwt)).toBe("annbaa");
      expect(got.primary).toBe(4);
      // The BWT lands in the build's SA region: the SA itself never came back.
      expect(got.result.parts[0].byteOffset % 4).toBe(0);
    }
  });

  gpuIt("lengths 0, 1, 2, 3 and random texts of alphabet sizes 1, 2, 4, 26, 256", async (gpu) => {
    for (let n = 0; n <= 3; n++) {
      for (const sigma of [1, 2, 256]) await expectLikeCpu(gpu, "gpu-ls", randomText(n, sigma, 7 * n + sigma), `random sigma ${sigma}`);
    }
    await expectLikeCpu(gpu, "gpu-ls", new Uint8Array([0, 0, 0]), "NUL NUL NUL");
    for (const sigma of [1, 2, 4, 26, 256]) {
      for (const n of [5, 6, 7, 8, 9, 100, 3001]) await expectLikeCpu(gpu, "gpu-ls", randomText(n, sigma, n * 13 + sigma), `random sigma ${sigma}`);
    }
  });

  gpuIt("hard families, through gpu-ls and gpu-skew", async (gpu) => {
    for (const algo of ["gpu-ls", "gpu-skew"]) {
      for (const n of [17, 2000]) {
        for (const [name, text] of hardFamilies(n, n)) await expectLikeCpu(gpu, algo, text, name);
      }
    }
  });

  gpuIt("an SA over one binding: read in windows (bwt.window lowered to 128 and 192 entries)", async (gpu) => {
    for (const window of [128, 192]) {
      await withTune(`bwt.window=${window}`, async () => {
        for (const n of [2, 3, 63, 64, 65, 127, 128, 129, 130, 131, 191, 192, 193, 255, 256, 257, 383, 384, 385, 1000, 4099]) {
          await expectLikeCpu(gpu, "gpu-spd", randomText(n, 4, 31 * n + window), `random sigma 4, window ${window}`);
        }
        for (const [name, text] of hardFamilies(777, 5)) await expectLikeCpu(gpu, "gpu-ls", text, `${name}, window ${window}`);
      });
    }
  });

  gpuIt("read back in pieces, each derived right after the sorter's last merge produced the SA it reads (io.readChunk lowered)", async (gpu) => {
    for (const tune of ["io.readChunk=256", "io.readChunk=64,bwt.window=128"]) {
      await withTune(tune, async () => {
        for (const algo of ["gpu-ls", "gpu-skew", "gpu-spd", "gpu-dc7"]) {
          for (const n of [2, 3, 4, 5, 63, 64, 65, 257, 1000, 4099]) {
            await expectLikeCpu(gpu, algo, randomText(n, 4, 17 * n + 1), `${algo}, random sigma 4, ${tune}`);
          }
        }
        for (const algo of ["gpu-spd", "gpu-dc7"]) {
          for (const [name, text] of hardFamilies(700, 9)) await expectLikeCpu(gpu, algo, text, `${algo}, ${name}, ${tune}`);
        }
      });
    }
  });

  gpuIt("lengths around the workgroup and tile sizes (4 bytes per output word)", async (gpu) => {
    for (const base of [WORKGROUP_SIZE, 4 * WORKGROUP_SIZE, SEGSORT_TILE]) {
      for (const n of [base - 1, base, base + 1, base + 2]) await expectLikeCpu(gpu, "gpu-spd", randomText(n, 4, n), "random sigma 4");
    }
  });
});

describe("GPU BWT through the API", () => {
  gpuIt("bwt(text, { algo: 'gpu-ls', gpu }) and bwt(text, { engine: 'gpu', gpu }) equal the CPU's", async () => {
    const text = randomText(5000, 3, 11);
    const got = await bwt(text, { algo: "gpu-ls", gpu: testGpuMode() });
    const want = await bwt(text);
    expect(firstDifference(got.bwt, want.bwt)).toBe(-1);
    expect(got.primary).toBe(want.primary);
    const onEngine = await bwt(text, { engine: "gpu", gpu: testGpuMode() });
    expect(firstDifference(onEngine.bwt, want.bwt)).toBe(-1);
    expect(onEngine.primary).toBe(want.primary);
  });

  gpuIt("bwtLarge with gpu-dc7 (its text outside the heap, as for texts over it; L derived on the device) equals the CPU's", async (gpu) => {
    for (const text of [randomText(5000, 3, 12), randomText(70_000, 256, 13), ...hardFamilies(2000, 14).map(([, t]) => t)]) {
      const got = await bwtLarge(text, { gpuContext: gpu }, resolveSorter("gpu-dc7"));
      // L derived on the device (bwtSeconds is its time; 0 where the SA came back instead)
      if (text.length >= 2) expect(got.bwtSeconds).toBeGreaterThan(0);
      const want = await bwt(text);
      expect(got.primary).toBe(want.primary);
      expect(firstDifference(Uint8Array.from([...got.parts[0], ...got.parts[1]]), want.bwt)).toBe(-1);
    }
  });
});

/** Start positions of p in t, ascending (a scan). */
function scan(t: Uint8Array, p: Uint8Array): number[] {
  const out: number[] = [];
  outer: for (let i = 0; i + p.length <= t.length; i++) {
    for (let j = 0; j < p.length; j++) if (t[i + j] !== p[j]) continue outer;
    out.push(i);
  }
  return out;
}

/** Patterns of length 1..min(100, n): substrings of t (found) and random bytes (mostly not found). */
function patternsFor(t: Uint8Array, count: number, seed: number): Uint8Array[] {
  const r = rng(seed);
  const out: Uint8Array[] = [];
  for (let q = 0; q < count; q++) {
    const length = 1 + Math.floor(r() * Math.min(100, t.length));
    if (q % 3 === 2) {
      out.push(Uint8Array.from({ length }, () => Math.floor(r() * 256)));
    } else {
      const at = Math.floor(r() * (t.length - length + 1));
      out.push(t.slice(at, at + length));
    }
  }
  return out;
}

describe("FM-index on the GPU", () => {
  const texts: Array<[string, Uint8Array]> = [
    ["one byte", new Uint8Array([7])],
    ["two bytes", new Uint8Array([0, 0])],
    ["banana", new TextEncoder().encode("banana")],
    ...[2, 4, 26, 256].map((sigma): [string, Uint8Array] => [`random sigma ${sigma}`, randomText(sigma === 256 ? 5000 : 3000, sigma, sigma)]),
    ...hardFamilies(1500, 3),
  ];

  gpuIt("count and locate equal the CPU's and a substring scan (sample rates 1, 5, 32)", async (gpu) => {
    for (const [name, t] of texts) {
      for (const sampleRate of [1, 5, 32]) {
        const index = await FMIndex.build(t, { sampleRate });
        const onGpu = await index.onGpu({ gpuContext: gpu });
        try {
          const patterns = patternsFor(t, 40, t.length + sampleRate);
          const want = await index.search(patterns, { locate: true });
          const got = await onGpu.search(patterns, { locate: true });
          let found = 0;
          patterns.forEach((p, q) => {
            const what = `${name}, K=${sampleRate}, pattern ${q} (length ${p.length})`;
            const occurrences = scan(t, p);
            if (occurrences.length > 0) found++;
            expect(got[q].count, what).toBe(want[q].count);
            expect(got[q].count, what).toBe(occurrences.length);
            expect(Array.from(got[q].positions!), what).toEqual(occurrences);
          });
          expect(found, name).toBeGreaterThan(0);
          const counted = await onGpu.search(patterns);
          expect(counted.map((x) => x.count)).toEqual(want.map((x) => x.count));
          expect(counted[0].positions).toBeUndefined();
        } finally {
          onGpu.release();
        }
      }
    }
  }, 120_000);

  // Walks of thousands of steps: the software adapter ends an invocation's loops after about 65,000
  // iterations in all, so the kernels go a bounded number of steps per dispatch (fm-search.ts).
  gpuIt("long walks: patterns of thousands of bytes, and sample rates of thousands", async (gpu) => {
    for (const [sigma, n, sampleRate] of [[3, 12_000, 8], [200, 12_000, 8], [4, 40_000, 5000]] as const) {
      const text = randomText(n, sigma, 11 + sigma);
      const index = await FMIndex.build(text, { sampleRate });
      const onGpu = await index.onGpu({ gpuContext: gpu });
      try {
        expect(stepsPerDispatch(1 << 10)).toBeLessThan(2000); // so that these walks take several
        const patterns = [9000, 4000, 2500, 700, 30].flatMap((length) => [text.slice(7, 7 + length), text.slice(n - length)]);
        patterns.push(Uint8Array.from(text.slice(100, 3100), (c, i) => (i === 2900 ? (c + 1) % sigma : c))); // absent, 100 steps in
        const want = await index.search(patterns, { locate: true });
        expect(want[0].count).toBe(1);
        expect(Array.from(want[0].positions!)).toEqual([7]);
        expect(want[want.length - 1].count).toBe(0);
        const got = await onGpu.search(patterns, { locate: true });
        got.forEach((x, i) => {
          const what = `sigma ${sigma}, K ${sampleRate}, pattern ${i} (length ${patterns[i].length})`;
          expect(x.count, what).toBe(want[i].count);
          expect(Array.from(x.positions!), what).toEqual(Array.from(want[i].positions!));
        });
        // the walks of hundreds of rows, up to K - 1 steps each
        const w = sigma > 100 ? 1 : 3;
        const short = [text.slice(0, w), text.slice(1, 1 + w)];
        const all = await onGpu.search(short, { locate: true });
        const cpu = await index.search(short, { locate: true });
        expect(cpu[0].count).toBeGreaterThan(40);
        expect(all.map((x) => Array.from(x.positions!))).toEqual(cpu.map((x) => Array.from(x.positions!)));
      } finally {
        onGpu.release();
      }
    }
  }, 120_000);

  gpuIt("count, locate with a limit, single patterns, and the CPU's errors", async (gpu) => {
    const text = randomText(4000, 3, 5);
    const index = await FMIndex.build(text, { sampleRate: 8 });
    const onGpu = await index.onGpu({ gpuContext: gpu });
    try {
      expect(onGpu.length).toBe(4000);
      const p = text.slice(100, 104);
      expect(await onGpu.count(p)).toBe(await index.count(p));
      expect(Array.from(await onGpu.locate(p))).toEqual(Array.from(await index.locate(p)));
      for (const limit of [0, 1, 3]) {
        expect(Array.from(await onGpu.locate(text.slice(7, 9), { limit }))).toEqual(Array.from(await index.locate(text.slice(7, 9), { limit })));
      }
      expect(await onGpu.count("z")).toBe(0);
      expect(await onGpu.search([])).toEqual([]);
      for (const bad of [[""], [text, new Uint8Array(0)]]) {
        await expect(onGpu.search(bad)).rejects.toThrow(SufsortError);
        await expect(index.search(bad)).rejects.toThrow(SufsortError);
      }
      // patterns longer than the text are found nowhere, and the others around them as alone
      const mixed = [new Uint8Array(4001), p, text, new Uint8Array(5000).fill(1), text.slice(7, 9), new Uint8Array(4002)];
      const want = await index.search(mixed, { locate: true });
      expect([0, 2, 3, 5].map((i) => want[i].count)).toEqual([0, 1, 0, 0]);
      expect(want[1].count).toBe(await index.count(p));
      expect(await onGpu.search(mixed, { locate: true })).toEqual(want);
      expect((await onGpu.search(mixed)).map((x) => x.count)).toEqual(want.map((x) => x.count));
      expect(await onGpu.search([new Uint8Array(4001)], { locate: true })).toEqual([{ count: 0, positions: new Uint32Array(0) }]);
      await expect(onGpu.search(["a"], { locate: true, limit: -1 })).rejects.toThrow(/limit must be/);
    } finally {
      onGpu.release();
    }
    await expect(onGpu.count("a")).rejects.toThrow(/after release/);
  });

  gpuIt("an image over the storage binding limit is refused with a clear error", async (gpu) => {
    const index = await FMIndex.build(randomText(4000, 3, 5));
    const small = Object.create(gpu, { maxBindingBytes: { value: 4096 } }) as GpuContext;
    await expect(index.onGpu({ gpuContext: small })).rejects.toThrow(/FM-index image: \d+ elements exceed the device's storage binding limit \(1024 elements/);
  });
});

describe("GPU applications through the CLI", () => {
  const sufsort = (dir: string, ...args: string[]) => {
    const r = spawnSync(process.execPath, [packagePath("dist", "cli.js"), ...args], { cwd: dir });
    return { code: r.status ?? -1, out: r.stdout, err: r.stderr.toString() };
  };

  gpuIt("bwt --algo gpu-ls, bwt, lcp and index --engine gpu, and search --engine gpu write what the CPU writes", async () => {
    const dir = tempDir();
    const text = randomText(3000, 5, 9).map((b) => 97 + b / 51); // a..e
    writeFileSync(join(dir, "t"), text);
    const mode = testGpuMode();
    expect(sufsort(dir, "bwt", "t", "-o", "cpu.bwt", "--threads", "1").code).toBe(0);
    expect(sufsort(dir, "bwt", "t", "-o", "gpu.bwt", "--algo", "gpu-ls", "--gpu", mode).code).toBe(0);
    expect(Buffer.compare(readFileSync(join(dir, "gpu.bwt")), readFileSync(join(dir, "cpu.bwt")))).toBe(0);
    // --engine gpu: the engine policy's GPU sorter builds the SA of bwt, lcp and index
    expect(sufsort(dir, "lcp", "t", "-o", "cpu.lcp", "--threads", "1").code).toBe(0);
    expect(sufsort(dir, "index", "t", "-o", "cpu.fmi", "--threads", "1").code).toBe(0);
    for (const [cmd, suffix] of [["bwt", "bwt"], ["lcp", "lcp"], ["index", "fmi"]]) {
      const r = sufsort(dir, cmd, "t", "-o", `engine.${suffix}`, "--engine", "gpu", "--gpu", mode);
      expect(r.code, r.err).toBe(0);
      expect(Buffer.compare(readFileSync(join(dir, `engine.${suffix}`)), readFileSync(join(dir, `cpu.${suffix}`))), cmd).toBe(0);
    }

    expect(sufsort(dir, "index", "t", "-o", "t.fmi", "--threads", "1").code).toBe(0);
    // Substrings of the text, and random letters a..f (f is absent) in place of random bytes.
    const lines = patternsFor(text, 30, 4).map((p) => Array.from(p, (b) => String.fromCharCode(b >= 97 && b <= 101 ? b : 97 + (b % 6))).join(""));
    writeFileSync(join(dir, "patterns"), lines.join("\n") + "\n");
    for (const query of [["--count"], ["--locate"], ["--locate", "--limit", "2"]]) {
      const cpu = sufsort(dir, "search", "t.fmi", "--patterns-file", "patterns", ...query, "--threads", "1");
      const gpu = sufsort(dir, "search", "t.fmi", "--patterns-file", "patterns", ...query, "--engine", "gpu", "--gpu", mode);
      expect(cpu.code).toBe(0);
      expect(cpu.out.toString()).toMatch(/\t[1-9]/);
      expect(gpu.code, gpu.err).toBe(0);
      expect(gpu.out.toString()).toBe(cpu.out.toString());
    }
    // auto: the GPU of SUFSORT_GPU's mode (hardware by default) when there is one, else the CPU.
    const auto = sufsort(dir, "search", "t.fmi", "--patterns-file", "patterns", "--engine", "auto");
    expect(auto.code, auto.err).toBe(0);
    expect(auto.out.toString()).toBe(sufsort(dir, "search", "t.fmi", "--patterns-file", "patterns").out.toString());
    const empty = sufsort(dir, "search", "t.fmi", "", "--gpu", mode);
    expect(empty.code).toBe(2);
    expect(empty.err).toMatch(/pattern 1 is empty/);
    const bad = sufsort(dir, "search", "t.fmi", "a", "--engine", "fast");
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/invalid engine 'fast'/);
  }, 120_000);
});
