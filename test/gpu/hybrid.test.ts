// The hybrid engine (gpu-ls-hybrid: each round's small groups sorted by the CPU workers while the
// GPU sorts the rest) against SA-IS on the software adapter. Its thresholds are lowered through
// SUFSORT_GPU_TUNE so that small inputs split their rounds; every case that has unsorted rounds
// must show CPU work in the reported overlap. Run on a real GPU with SUFSORT_GPU=hardware.
import { afterEach, describe, expect } from "vitest";
import { buildSuffixArray, selectEngine } from "../../src/engine/build.js";
import { AUTO_GPU_MIN_BYTES_OVER_RANGE } from "../../src/engine/choice.js";
import type { GpuContext } from "../../src/gpu/device.js";
import { SEGSORT_TILE } from "../../src/gpu/primitives/segmented-sort.js";
import { firstDifference, hardFamilies, naiveSuffixArray, randomText } from "../support/inputs.js";
import { saisWasm } from "../support/sais-runner.js";
import { gpuIt } from "./support.js";

/** Every active group of <= `small` members may go to the CPU, up to `percent` % of a round. */
function lowerThresholds(small: number, percent: number): void {
  process.env.SUFSORT_GPU_TUNE = `hybrid.minActive=1,hybrid.small=${small},hybrid.cpuPercent=${percent}`;
}

afterEach(() => {
  delete process.env.SUFSORT_GPU_TUNE;
});

/** Builds with the hybrid engine and compares with SA-IS; returns the reported overlap. */
async function expectLikeSais(gpu: GpuContext, text: Uint8Array, what: string, threads = 1) {
  const r = await buildSuffixArray(text, { engine: "hybrid", threads, gpuContext: gpu });
  expect(r.algo).toBe("gpu-ls-hybrid");
  expect(r.engine).toBe("hybrid");
  const want = text.length < 2000 ? naiveSuffixArray(text) : saisWasm(text).sa;
  const at = firstDifference(r.sa, want);
  expect(at, `hybrid on ${what} (n = ${text.length}): first difference at ${at} (got ${r.sa[at]}, want ${want[at]})`).toBe(-1);
  expect(r.overlap, "a hybrid build reports its overlap").toBeDefined();
  return r.overlap!;
}

describe("engine auto with a device at hand", () => {
  gpuIt("never runs on the software adapter, even over its GPU threshold; takes a hardware one", async (gpu) => {
    const found = await selectEngine({ engine: "auto", n: AUTO_GPU_MIN_BYTES_OVER_RANGE, threads: 2, gpuContext: gpu });
    expect(found.plan.sorter.engine).toBe(gpu.software ? "cpu" : "gpu");
    found.release(); // not ours: the caller's device stays open
    expect(gpu.closed).toBe(false);
  });
});

describe("gpu-ls-hybrid", () => {
  gpuIt("lengths 0..3 and random texts of alphabet sizes 1, 2, 4, 26, 256", async (gpu) => {
    lowerThresholds(8, 50);
    for (let n = 0; n <= 3; n++) await expectLikeSais(gpu, randomText(n, 2, n + 1), "tiny random");
    for (const sigma of [1, 2, 4, 26, 256]) {
      for (const n of [9, 100, 3000]) await expectLikeSais(gpu, randomText(n, sigma, n * 7 + sigma), `random sigma ${sigma}`);
    }
  });

  gpuIt("hard families, with the CPU taking groups of at most 2, 16 or 64 members", async (gpu) => {
    for (const [small, percent] of [[2, 100], [16, 30], [64, 100]]) {
      lowerThresholds(small, percent);
      let cpuSuffixes = 0;
      for (const n of [17, 3000]) {
        for (const [name, text] of hardFamilies(n, n)) {
          cpuSuffixes += (await expectLikeSais(gpu, text, `${name}, small ${small}, ${percent} %`)).cpuSuffixes;
        }
      }
      expect(cpuSuffixes, `small ${small}, ${percent} %: the CPU sorted nothing`).toBeGreaterThan(0);
    }
  });

  gpuIt("a repetitive text splits its rounds (CPU work reported), on worker threads", async (gpu) => {
    lowerThresholds(64, 50);
    const text = randomText(20000, 4, 3);
    for (let at = 2000; at < 20000; at += 3000) text.copyWithin(at, 500, 1500); // many equal 1000-byte blocks
    const o = await expectLikeSais(gpu, text, "DNA with repeats", 2);
    expect(o.rounds).toBeGreaterThan(0);
    expect(o.cpuSuffixes).toBeGreaterThan(0);
    expect(o.gpuSuffixes).toBeGreaterThan(0);
    expect(o.wallMs).toBeGreaterThanOrEqual(0);
  });

  gpuIt("with gpu-ls's large groups radix-sorted apart at the same time (threshold lowered to 8)", async (gpu) => {
    process.env.SUFSORT_GPU_TUNE = "hybrid.minActive=1,hybrid.small=4,hybrid.cpuPercent=50,ls.largeGroup=8";
    let cpuSuffixes = 0;
    for (const [name, text] of hardFamilies(3000, 4)) cpuSuffixes += (await expectLikeSais(gpu, text, `${name}, large groups`)).cpuSuffixes;
    expect(cpuSuffixes).toBeGreaterThan(0);
  });

  gpuIt("lengths around the segmented sort's tile, and the default thresholds (no split on small inputs)", async (gpu) => {
    lowerThresholds(8, 25);
    for (const n of [SEGSORT_TILE - 1, SEGSORT_TILE, SEGSORT_TILE + 1]) {
      await expectLikeSais(gpu, randomText(n, 2, n), "random sigma 2");
      await expectLikeSais(gpu, hardFamilies(n, n)[4][1], "periodic (abc)^k");
    }
    delete process.env.SUFSORT_GPU_TUNE;
    const o = await expectLikeSais(gpu, hardFamilies(3000, 1)[0][1], "one repeated byte, default thresholds");
    expect(o.rounds).toBe(0); // 3000 active suffixes are below MIN_ACTIVE: the GPU alone
  });

  gpuIt(
    "1 MiB of random DNA with long repeats",
    async (gpu) => {
      lowerThresholds(64, 25);
      const text = randomText(1 << 20, 4, 7);
      text.copyWithin(600_000, 100_000, 110_000); // a 10 KB repeat: a dozen doubling rounds
      const o = await expectLikeSais(gpu, text, "1 MiB DNA", 2);
      expect(o.cpuSuffixes).toBeGreaterThan(0);
    },
    180_000,
  );
});
