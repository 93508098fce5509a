// Every GPU suffix sorter against SA-IS (the WASM kernel) on the software adapter: lengths 0..3,
// random texts of alphabet sizes 1, 2, 4, 26 and 256, the hard families, lengths around the tile
// sizes of the primitives, and one 1 MiB input per algorithm. Run on a real GPU with
// SUFSORT_GPU=hardware.
import { describe, expect, it } from "vitest";
import { SharedHeap } from "../../src/cpu/memory.js";
import { PiscinaExecutor, SequentialExecutor } from "../../src/cpu/executor.js";
import type { SuffixSorter } from "../../src/engine/registry.js";
import type { GpuContext } from "../../src/gpu/device.js";
import { gpuLsSorter } from "../../src/gpu/algorithms/ls.js";
import { gpuOsipovSorter } from "../../src/gpu/algorithms/osipov.js";
import { gpuSkewSorter } from "../../src/gpu/algorithms/skew.js";
import { buildByPositions, gpuSpdSorter } from "../../src/gpu/algorithms/spd.js";
import { runsLookCommon } from "../../src/gpu/algorithms/pairs.js";
import { buildWithCover, DC3, gpuDc7Sorter } from "../../src/gpu/algorithms/difference-cover.js";
import { buildLarge } from "../../src/engine/build.js";
import { SEGSORT_TILE } from "../../src/gpu/primitives/segmented-sort.js";
import { WORKGROUP_SIZE } from "../../src/gpu/kernels.js";
import { firstDifference, hardFamilies, naiveSuffixArray, randomText, rng } from "../support/inputs.js";
import { saisWasm } from "../support/sais-runner.js";
import { gpuIt, withTune } from "./support.js";

/** gpu-spd in the compact layout it takes over gpu-skew's limit (forced at every length). */
const gpuSpdCompact: SuffixSorter = { ...gpuSpdSorter, name: "gpu-spd (compact layout)", build: (ctx) => buildWithCover(ctx, DC3, "gpu-spd") };

/** gpu-spd in the position-indexed layout, with its run round (which it takes where runs are common). */
const gpuSpdPositions: SuffixSorter = { ...gpuSpdSorter, name: "gpu-spd (position-indexed layout)", build: buildByPositions };

const SORTERS: SuffixSorter[] = [gpuOsipovSorter, gpuLsSorter, gpuSkewSorter, gpuSpdSorter, gpuSpdCompact, gpuSpdPositions, gpuDc7Sorter];

/** Runs `sorter` the way the engine does: text and SA in one shared heap, the device in ctx.gpu. */
async function gpuSuffixArray(gpu: GpuContext | undefined, sorter: SuffixSorter, text: Uint8Array): Promise<Uint32Array> {
  const n = text.length;
  const heap = new SharedHeap(5 * n + (1 << 16));
  const textPtr = heap.alloc(Math.max(1, n));
  heap.u8(textPtr, n).set(text);
  const saPtr = heap.alloc(Math.max(4, 4 * n), 4);
  heap.u32(saPtr, n).fill(0xdeadbeef);
  const executor = new SequentialExecutor(heap);
  await sorter.build({ heap, kernels: executor.kernels, executor, textPtr, n, saPtr, threads: 1, gpu });
  return heap.u32(saPtr, n).slice();
}

async function expectLikeSais(gpu: GpuContext, sorter: SuffixSorter, text: Uint8Array, what: string): Promise<void> {
  const got = await gpuSuffixArray(gpu, sorter, text);
  const want = text.length < 2000 ? naiveSuffixArray(text) : saisWasm(text).sa;
  const at = firstDifference(got, want);
  expect(at, `${sorter.name} on ${what} (n = ${text.length}): first difference at ${at} (got ${got[at]}, want ${want[at]})`).toBe(-1);
}

/** Runs `body` with a shared heap of `bytes` (fixed: no growth while the workers run) and two
 * workers on it, closed afterwards. */
async function withWorkers(bytes: number, body: (heap: SharedHeap, executor: PiscinaExecutor) => Promise<void>): Promise<void> {
  const heap = new SharedHeap(bytes);
  const executor = new PiscinaExecutor(heap, 2);
  try {
    await body(heap, executor);
  } finally {
    await executor.close();
  }
}

/**
 * `text` placed in `heap` as the engine places it for a build with workers: the text, then the SA
 * region (filled with 0xdeadbeef) with the packed readback's scratch after it, then a 64-byte
 * canary. `intact()` says whether the canary and the text are as placed; `release()` frees them.
 */
async function placeForWorkers(heap: SharedHeap, executor: PiscinaExecutor, gpu: GpuContext, text: Uint8Array) {
  const { readbackScratchBytes } = await import("../../src/gpu/algorithms/io.js");
  const n = text.length;
  const mark = heap.used;
  const textPtr = heap.alloc(n + 16);
  heap.u8(textPtr, n).set(text);
  const scratch = readbackScratchBytes(n);
  const saPtr = heap.alloc(4 * n + scratch + 64, 64);
  const canary = () => heap.u8(saPtr + 4 * n + scratch, 64);
  canary().fill(0xa5);
  heap.u32(saPtr, n).fill(0xdeadbeef);
  return {
    ctx: { heap, kernels: executor.kernels, executor, textPtr, n, saPtr, threads: 2, gpu },
    scratch,
    sa: () => heap.u32(saPtr, n),
    resetSa: () => heap.u32(saPtr, n).fill(0xdeadbeef),
    /** The canary past the scratch, then the text: undefined when both are intact, else which is not. */
    damage: () => (!canary().every((b) => b === 0xa5) ? "the heap past the scratch" : !heap.u8(textPtr, n).every((b, i) => b === text[i]) ? "the text" : undefined),
    release: () => heap.release(mark),
  };
}

for (const sorter of SORTERS) {
  describe(sorter.name, () => {
    gpuIt("rejects a build without a GPU device", async () => {
      await expect(gpuSuffixArray(undefined, sorter, new Uint8Array([1, 2, 3]))).rejects.toThrow(/no GPU device/);
    });

    gpuIt("lengths 0, 1, 2, 3 over small alphabets", async (gpu) => {
      for (let n = 0; n <= 3; n++) {
        for (const sigma of [1, 2, 256]) await expectLikeSais(gpu, sorter, randomText(n, sigma, 10 * n + sigma), `random sigma ${sigma}`);
      }
      await expectLikeSais(gpu, sorter, new Uint8Array([0, 0, 0]), "NUL NUL NUL");
      await expectLikeSais(gpu, sorter, new Uint8Array([255, 0]), "255 0");
    });

    gpuIt("random texts of alphabet sizes 1, 2, 4, 26, 256", async (gpu) => {
      for (const sigma of [1, 2, 4, 26, 256]) {
        for (const n of [5, 8, 9, 100, 5000]) await expectLikeSais(gpu, sorter, randomText(n, sigma, n * 31 + sigma), `random sigma ${sigma}`);
      }
    });

    gpuIt("hard families", async (gpu) => {
      for (const n of [17, 3000]) {
        for (const [name, text] of hardFamilies(n, n)) await expectLikeSais(gpu, sorter, text, name);
      }
    });

    gpuIt("lengths around the workgroup and tile sizes", async (gpu) => {
      for (const base of [WORKGROUP_SIZE, SEGSORT_TILE, 16 * WORKGROUP_SIZE]) {
        for (const n of [base - 1, base, base + 1]) {
          await expectLikeSais(gpu, sorter, randomText(n, 2, n), "random sigma 2");
          await expectLikeSais(gpu, sorter, hardFamilies(n, n)[0][1], "one repeated byte");
        }
      }
    });

    if (sorter.name === "gpu-ls" || sorter.name.startsWith("gpu-spd") || sorter.name === "gpu-dc7") {
      gpuIt("large groups radix-sorted apart (threshold lowered to 8, no live rounds)", async (gpu) => {
        await withTune("ls.largeGroup=8,doubling.liveMax=0", async () => {
          for (const [name, text] of hardFamilies(3000, 4)) await expectLikeSais(gpu, sorter, text, name);
          await expectLikeSais(gpu, sorter, randomText(20000, 2, 6), "random sigma 2");
        });
      });

      gpuIt("long batches submitted in parts from the first dispatch on (batch.startAfter=1), and whole (0)", async (gpu) => {
        for (const tune of ["batch.startAfter=1", "batch.startAfter=1,doubling.liveMax=0", "batch.startAfter=0"]) {
          await withTune(tune, async () => {
            for (const [name, text] of hardFamilies(3000, 5)) await expectLikeSais(gpu, sorter, text, `${name} (${tune})`);
            await expectLikeSais(gpu, sorter, randomText(20000, 4, 7), `random sigma 4 (${tune})`);
          });
        }
      });

      if (sorter === gpuSpdPositions) {
        /** Runs of random lengths (1 .. maxRun) of random symbols from `symbols`, the last one reaching the end. */
        const runText = (n: number, symbols: number[], maxRun: number, seed: number) => {
          const next = rng(seed);
          const text = new Uint8Array(n);
          for (let i = 0; i < n; ) {
            const c = symbols[Math.floor(next() * symbols.length)];
            for (let left = 1 + Math.floor(next() * maxRun); left > 0 && i < n; left--) text[i++] = c;
          }
          return text;
        };

        gpuIt("the run round on every text (spd.runRound=1), live or not, large groups or not", async (gpu) => {
          for (const tune of ["spd.runRound=1", "spd.runRound=1,doubling.liveMax=0", "spd.runRound=1,ls.largeGroup=8,doubling.liveMax=0"]) {
            await withTune(tune, async () => {
              for (const sigma of [1, 2, 3, 26]) {
                for (const n of [2, 3, 8, 9, 100, 5000]) await expectLikeSais(gpu, sorter, randomText(n, sigma, n * 7 + sigma), `random sigma ${sigma} (${tune})`);
              }
              for (const [name, text] of hardFamilies(3000, 8)) await expectLikeSais(gpu, sorter, text, `${name} (${tune})`);
              // runs before smaller and larger symbols, of equal and unequal lengths, one to the end
              await expectLikeSais(gpu, sorter, runText(20000, [0, 1, 2, 255], 300, 11), `runs of 0, 1, 2, 255 (${tune})`);
              await expectLikeSais(gpu, sorter, runText(7000, [5, 9], 20, 12), `short runs of 5 and 9 (${tune})`);
            });
          }
        });

        gpuIt("the run census comes back with the first counts, exact, and decides the run round", async (gpu) => {
          const block = randomText(500, 26, 15); // repeats but no runs: rounds without the run round
          const cases: [string, Uint8Array][] = [["runs of 0, 1, 2, 255", runText(20000, [0, 1, 2, 255], 300, 14)], ["a random block of 500 repeated", Uint8Array.from({ length: 20000 }, (_, i) => block[i % 500])]];
          for (const [name, text] of cases) {
            let sites = 0; // positions i = 0 mod 64 that start 64 equal symbols
            for (let i = 0; i + 64 <= text.length; i += 64) sites += text.subarray(i, i + 64).every((c) => c === text[i]) ? 1 : 0;
            const lines: string[] = [];
            const write = process.stderr.write;
            process.env.SUFSORT_GPU_PROFILE = "1";
            process.stderr.write = ((chunk: string) => lines.push(String(chunk)) > 0) as typeof process.stderr.write;
            try {
              await expectLikeSais(gpu, sorter, text, name);
            } finally {
              process.stderr.write = write;
              delete process.env.SUFSORT_GPU_PROFILE;
            }
            const line = lines.find((l) => l.startsWith("gpu-spd run census:"));
            const round = sites * 64 * 32 >= text.length ? ": run round" : "";
            expect(line, name).toBe(`gpu-spd run census: ${sites} of ${Math.ceil(text.length / 64)} sites start 64 equal symbols${round}\n`);
          }
        });

        gpuIt("no run round (spd.runRound=2) on texts of long runs", async (gpu) => {
          await withTune("spd.runRound=2", async () => {
            for (const [name, text] of hardFamilies(3000, 9)) await expectLikeSais(gpu, sorter, text, name);
            await expectLikeSais(gpu, sorter, runText(20000, [0, 1, 2, 255], 300, 13), "runs of 0, 1, 2, 255");
          });
        });

        gpuIt("every round gpu-ls's (one key, h doubled: spd.pairKeys=0)", async (gpu) => {
          await withTune("spd.pairKeys=0", async () => {
            for (const [name, text] of hardFamilies(3000, 6)) await expectLikeSais(gpu, sorter, text, name);
            await expectLikeSais(gpu, sorter, randomText(20000, 4, 7), "random sigma 4");
          });
        });
      }

      gpuIt("rounds turn live when few suffixes are left (bound lowered to 300)", async (gpu) => {
        // the first rounds wait for their counts, later ones run ahead over a stale upper bound
        await withTune("doubling.liveMax=300", async () => {
          for (const [name, text] of hardFamilies(3000, 5)) await expectLikeSais(gpu, sorter, text, name);
          const text = randomText(30000, 4, 8);
          text.copyWithin(20000, 1000, 3000); // a 2000-byte repeat: live rounds until h = 2048
          await expectLikeSais(gpu, sorter, text, "random sigma 4 with a repeat");
        });
      });
    }

    if (sorter === gpuDc7Sorter || sorter === gpuSpdCompact) {
      // a run may span at most two windows: gpu-spd's compact sample holds 2n/3 entries
      const window = sorter === gpuDc7Sorter ? 1024 : 1216;
      gpuIt(`runs longer than a window: merges read and write two windows (window lowered to ${window}), spent buffers destroyed between phases`, async (gpu) => {
        // runs of 1500 entries or more (the SA, gpu-dc7's non-sample run) also in exact-size buffers, lean or not
        for (const tune of [`cover.window=${window},cover.lean=1`, `cover.window=${window},cover.lean=1,cover.exactFrom=1500`, `cover.window=${window},cover.exactFrom=1500`]) {
          await withTune(tune, async () => {
            // 3000 and 3500 bytes: gpu-dc7's non-sample run (~1714 entries) and gpu-spd's sample (2000,
            // 2334) span two windows, the SA three
            for (const [name, text] of hardFamilies(3000, 9)) await expectLikeSais(gpu, sorter, text, `${name} (${tune})`);
            for (const sigma of [2, 4, 256]) await expectLikeSais(gpu, sorter, randomText(3500, sigma, 11), `random sigma ${sigma} (${tune})`);
          });
        }
      });

      gpuIt("texts outside the heap (buildLarge: ctx.text and ctx.sa), verified; the text in an ArrayBuffer or, as the large path reads it, a SharedArrayBuffer", async (gpu) => {
        const inShared = (t: Uint8Array) => {
          const copy = new Uint8Array(new SharedArrayBuffer(t.length));
          copy.set(t);
          return copy;
        };
        const texts = [new Uint8Array(0), Uint8Array.of(7), randomText(5000, 4, 12), ...hardFamilies(2000, 10).map(([, t]) => t)];
        for (const text of [...texts, ...texts.slice(1, 4).map(inShared)]) {
          const result = await buildLarge(text, { verify: true, gpuContext: gpu }, sorter);
          expect(result.sa.buffer).toBeInstanceOf(SharedArrayBuffer);
          expect(result.algo).toBe(sorter.name);
          expect(result.verdict).toEqual({ ok: true });
          expect(firstDifference(result.sa, text.length < 2000 ? naiveSuffixArray(text) : saisWasm(text).sa)).toBe(-1);
        }
      });
    }

    if (sorter.name === "gpu-skew") {
      gpuIt("wide symbols: triples sorted in two passes", async (gpu) => {
        await withTune("skew.tripleBits=8", async () => {
          for (const [name, text] of hardFamilies(2000, 3)) await expectLikeSais(gpu, sorter, text, name);
          await expectLikeSais(gpu, sorter, randomText(5000, 256, 5), "random sigma 256");
        });
      });
    }

    gpuIt(
      "1 MiB of random DNA with long repeats",
      async (gpu) => {
        const text = randomText(1 << 20, 4, 7);
        text.copyWithin(600_000, 100_000, 110_000); // a 10 KB repeat: a dozen doubling rounds
        await expectLikeSais(gpu, sorter, text, "1 MiB DNA");
      },
      120_000,
    );
  });
}

describe("GPU sorters' readback", () => {

  gpuIt("the SA comes back right in many small chunks through the rotating staging buffers", async (gpu) => {
    // 250 u32 per chunk, not a divisor of n
    await withTune("io.readChunk=1000", async () => {
      await expectLikeSais(gpu, gpuLsSorter, randomText(12345, 4, 9), "random sigma 4");
      // skew and spd merge each chunk's entries right before its copy (pieces not multiples of the
      // merge's outputs per invocation); skew recurses on this text
      for (const sorter of [gpuSkewSorter, gpuSpdSorter]) {
        await expectLikeSais(gpu, sorter, randomText(12345, 4, 9), "random sigma 4");
        await expectLikeSais(gpu, sorter, randomText(9999, 255, 3), "random sigma 255");
      }
    });
  });

  gpuIt("the text goes up right in chunks through the kept staging buffers (and buffers of one use)", async (gpu) => {
    // chunks of 1000 bytes (4097 rounds down to 4096): 7,777 bytes make 8 (or 2) of them, the last
    // one short and zero-padded; the kept ring is made anew when the chunk size changes; texts of
    // at most one chunk take the single staging buffer
    for (const tune of ["io.uploadChunk=1000", "io.uploadChunk=4097", "io.uploadChunk=1000"]) {
      await withTune(tune, async () => {
        for (const sorter of [gpuSpdSorter, gpuDc7Sorter, gpuLsSorter]) {
          await expectLikeSais(gpu, sorter, randomText(7777, 4, 3), `random sigma 4 (${tune})`);
          await expectLikeSais(gpu, sorter, randomText(999, 255, 4), `random sigma 255, one chunk (${tune})`);
        }
      });
    }
    // two builds at once: the second finds the ring busy and uploads through buffers of one use
    await withTune("io.uploadChunk=1000", async () => {
      const texts = [randomText(9001, 3, 5), randomText(8003, 26, 6)];
      const results = await Promise.all(texts.map((text) => gpuSuffixArray(gpu, gpuSpdSorter, text)));
      results.forEach((sa, i) => expect(firstDifference(sa, saisWasm(texts[i]).sa), `text ${i}`).toBe(-1));
    });
  });

  gpuIt("the SA comes back bit-packed and is unpacked by the workers (every GPU sorter): every width, chunk and ring edge, the heap past the ring untouched", async (gpu) => {
    const { readbackScratchBytes } = await import("../../src/gpu/algorithms/io.js");
    await withWorkers(8 << 20, async (heap, executor) => {
      // chunks of 64 entries through a ring of 4 slots (tens of chunks per text), items of 64
      // a chunk longer than an unpacking item is a whole number of items (100,000 -> 65,536)
      await withTune("io.packMin=0,io.packedChunk=100000", async () => {
        const text = randomText(300_001, 4, 5);
        const saPtr = heap.alloc(4 * text.length + readbackScratchBytes(text.length), 64);
        const textPtr = heap.alloc(text.length + 16);
        heap.u8(textPtr, text.length).set(text);
        await gpuSpdSorter.build({ heap, kernels: executor.kernels, executor, textPtr, n: text.length, saPtr, threads: 2, gpu });
        expect(firstDifference(heap.u32(saPtr, text.length), saisWasm(text).sa)).toBe(-1);
        heap.release(saPtr);
      });
      // 3 chunks in flight, packed 3 per submit; then 5 in flight, 2 per submit (groups cut by the ring)
      const tunings: [string, [number, number][]][] = [
        ["io.readBuffers=3", [[2, 2], [3, 256], [64, 4], [65, 2], [129, 26], [1000, 256], [4097, 4], [70001, 26]]],
        ["io.readBuffers=5,io.submitChunks=2", [[129, 26], [4097, 4], [70001, 26]]],
      ];
      for (const [tuning, cases] of tunings) await withTune(`io.packMin=0,io.packedChunk=64,${tuning}`, async () => {
        for (const [n, sigma] of cases) {
          for (const sorter of [gpuLsSorter, gpuSpdSorter, gpuSkewSorter, gpuOsipovSorter, gpuDc7Sorter]) {
            const text = randomText(n, sigma, n + sigma);
            const placed = await placeForWorkers(heap, executor, gpu, text);
            expect(placed.scratch).toBeGreaterThan(0);
            await sorter.build(placed.ctx);
            const at = firstDifference(placed.sa().slice(), n < 2000 ? naiveSuffixArray(text) : saisWasm(text).sa);
            expect(at, `${sorter.name}, n = ${n}, sigma ${sigma}: first difference at ${at}`).toBe(-1);
            expect(placed.damage(), `${sorter.name}, n = ${n}`).toBeUndefined();
            placed.release();
          }
        }
      });
    });
  }, 120_000);

  gpuIt("the text goes up packed at 2 or 4 bits per byte when its alphabet is small (every GPU sorter)", async (gpu) => {
    const { packTextForUpload } = await import("../../src/gpu/algorithms/io.js");
    /** A text of n bytes from `sigma` symbols (spread over the byte range), with `rare` at position `at`. */
    const textOf = (n: number, sigma: number, seed: number, rare?: { at: number; byte: number }) => {
      const text = randomText(n, sigma, seed).map((b) => (b * 37 + 11) & 255);
      if (rare) text[rare.at] = rare.byte;
      return text;
    };
    await withWorkers(16 << 20, async (heap, executor) => {
      await withTune("io.packTextMin=0", async () => {
        const cases: [number, number, number | undefined, boolean][] = [
          // n, sigma, the bits expected (undefined: sent unpacked), a byte the samples miss
          [255, 4, undefined, false], // too short to pack
          [256, 1, 2, false],
          [257, 2, 2, false],
          [1000, 4, 2, false],
          [4097, 5, 4, false],
          [70_001, 16, 4, false],
          [70_001, 17, undefined, false],
          [300_001, 4, undefined, true], // a fifth byte found by the packing, not by the samples
          [300_001, 16, undefined, true],
          [300_003, 3, 2, false],
        ];
        for (const [n, sigma, bits, rare] of cases) {
          // a position the 64 samples of 1 KiB leave out: just past the first sample
          const text = textOf(n, sigma, n + sigma, rare ? { at: 1500, byte: 255 } : undefined);
          const placed = await placeForWorkers(heap, executor, gpu, text);
          const packed = await packTextForUpload(placed.ctx, heap.u8(placed.ctx.textPtr, n));
          expect(packed?.bits, `n = ${n}, sigma ${sigma}: bits`).toBe(bits);
          for (const sorter of [gpuLsSorter, gpuSpdSorter, gpuSkewSorter, gpuOsipovSorter, gpuDc7Sorter]) {
            placed.resetSa();
            await sorter.build(placed.ctx);
            const at = firstDifference(placed.sa().slice(), n < 2000 ? naiveSuffixArray(text) : saisWasm(text).sa);
            expect(at, `${sorter.name}, n = ${n}, sigma ${sigma}: first difference at ${at}`).toBe(-1);
            expect(placed.damage(), `${sorter.name}, n = ${n}`).toBeUndefined();
          }
          placed.release();
        }
      });
    });
  }, 120_000);
});

describe("gpu-dc7's class merges, made piece by piece as the SA's pieces are read back", () => {
  gpuIt("a text whose smallest suffixes all start in the classes: each piece reads its runs up to its end", async (gpu) => {
    await withWorkers(8 << 20, async (heap, executor) => {
      // positions = 0, 3, 5, 6 mod 7 (the classes) hold bytes below those at 1, 2, 4 (the sample),
      // so the SA's first 4/7 come from the merged classes alone: piece [from, to) of the last
      // merge reads the classes' run up to entry to - 1, the most a piece may need
      await withTune("io.packMin=0,io.packedChunk=64", async () => {
        for (const [n, seed] of [[20_000, 1], [20_000, 2], [33_333, 3]] as const) {
          const next = rng(seed);
          const text = Uint8Array.from({ length: n }, (_, i) => ([1, 2, 4].includes(i % 7) ? 110 : 97) + Math.floor(next() * 13));
          const placed = await placeForWorkers(heap, executor, gpu, text);
          await gpuDc7Sorter.build(placed.ctx);
          const at = firstDifference(placed.sa().slice(), saisWasm(text).sa);
          expect(at, `n = ${n}, seed ${seed}: first difference at ${at}`).toBe(-1);
          expect(placed.damage(), `n = ${n}`).toBeUndefined();
          placed.release();
        }
      });
    });
  }, 60_000);
});

describe("gpu-transfer (the transfer floor of sufsort bench --floor)", () => {
  gpuIt("uploads the text and delivers the identity into the SA region, packed or not, the heap past its scratch untouched", async (gpu) => {
    const { transferFloor } = await import("../../src/gpu/algorithms/transfer.js");
    await withWorkers(8 << 20, async (heap, executor) => {
      // packed text (4 symbols) and packed readback through small chunks; then neither
      // (the identity written in windows of 64 entries too, as an array beyond one binding is)
      for (const tuning of ["io.packTextMin=0,io.packMin=0,io.packedChunk=64", "io.packTextMin=1000000000,io.packMin=1000000000,transfer.window=64"]) {
        await withTune(tuning, async () => {
          for (const [n, sigma] of [[0, 4], [1, 4], [2, 4], [4097, 4], [70_001, 26]] as const) {
            const text = randomText(n, sigma, n + 3);
            const placed = await placeForWorkers(heap, executor, gpu, text);
            await transferFloor.build(placed.ctx);
            const wrong = placed.sa().findIndex((v, i) => v !== (n === 1 ? 0 : i));
            expect(wrong, `${tuning}, n = ${n}: first entry not the identity`).toBe(-1);
            expect(placed.damage(), `n = ${n}`).toBeUndefined();
            placed.release();
          }
        });
      }
    });
  }, 60_000);
});

describe("GPU length limits", () => {
  gpuIt("inputs beyond one pooled binding are refused with a clear error", async (gpu) => {
    const { maxPooledLength } = await import("../../src/gpu/algorithms/io.js");
    const { sizeClass } = await import("../../src/gpu/buffers.js");
    const most = maxPooledLength(gpu, 3);
    expect(sizeClass(4 * (most + 3))).toBeLessThanOrEqual(gpu.maxBindingBytes);
    expect(sizeClass(4 * (most + 4))).toBeGreaterThan(gpu.maxBindingBytes);
    // A fake heap view is enough: the length check runs before anything is read.
    const { maxDc7Length } = await import("../../src/gpu/algorithms/difference-cover.js");
    const { maxSpdLength } = await import("../../src/gpu/algorithms/spd.js");
    for (const sorter of SORTERS) {
      // over the limit of every sorter (skew's is 3 lower; gpu-dc7's sample is 3n/7, gpu-spd's compact one 2n/3)
      const n = sorter === gpuDc7Sorter ? maxDc7Length(gpu) + 1 : sorter.name.startsWith("gpu-spd") ? maxSpdLength(gpu) + 1 : maxPooledLength(gpu) + 1;
      const ctx = { heap: null as never, kernels: null as never, executor: null as never, textPtr: 0, n, saPtr: 0, threads: 1, gpu };
      await expect(sorter.build(ctx)).rejects.toThrow(/accepts at most/);
    }
  });
});

describe("gpu-spd's choice of layout", () => {
  it("finds runs common where runs of 64 cover 1/32 of the text or more, also when every 1024th byte breaks them", () => {
    const rows = (n: number, broken: number) => Uint8Array.from({ length: n }, (_, i) => (i % 1024 < broken ? (i * 7919) % 251 : 0));
    // image-like rows of 1024 bytes: 64 varied bytes, then zeros (15 of 16 census sites start runs)
    expect(runsLookCommon(rows(1 << 20, 64))).toBe(true);
    // runs over 1/16 of the text, and runs of 16 only
    expect(runsLookCommon(rows(1 << 20, 960))).toBe(true);
    expect(runsLookCommon(rows(1 << 20, 1008))).toBe(false);
    expect(runsLookCommon(randomText(1 << 20, 4, 3))).toBe(false);
    expect(runsLookCommon(new Uint8Array(1 << 20).fill(65))).toBe(true);
    expect(runsLookCommon(new Uint8Array(63))).toBe(false);
  });
});
