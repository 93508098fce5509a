// The parallel CPU sorters (skew, range) against SA-IS, at 1, 2 and 3 threads (3 threads on a
// 2-core CI machine must still be right), on everything the shared inputs cover.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { createEngine, type Engine } from "../../src/engine/engine.js";
import { SufsortError } from "../../src/errors.js";
import { rangeMaxLength, rangeTuning } from "../../src/cpu/algorithms/range.js";
import { packagePath } from "../../src/paths.js";
import { firstDifference, hardFamilies, randomText, repeatedByte } from "../support/inputs.js";
import { saisWasm } from "../support/sais-runner.js";

/** The oracle: SA-IS (itself checked against the naive and doubling oracles and the verifier). */
const oracle = (t: Uint8Array): Uint32Array => saisWasm(t).sa.slice();

const ALGORITHMS = ["skew", "range"];
const THREADS = [1, 2, 3];
const LENGTHS = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 16, 31, 64, 65, 100, 257, 1000, 2999, 3000];
const SIGMAS = [1, 2, 4, 26, 256];
const FAMILY_LENGTHS = [1000, 70_000, 1 << 20];

const encode = (s: string): Uint8Array => new TextEncoder().encode(s);

// Oracle results are computed once per input and shared by every algorithm and thread count.
const expected = new Map<string, Uint32Array>();
function want(key: string, t: Uint8Array): Uint32Array {
  let sa = expected.get(key);
  if (sa === undefined) {
    sa = oracle(t);
    expected.set(key, sa);
  }
  return sa;
}

function expectSA(got: Uint32Array, wanted: Uint32Array, what: string): void {
  const at = firstDifference(got, wanted);
  expect(at, `${what}: first difference at ${at}`).toBe(-1);
}

const engines = new Map<number, Engine>();
beforeAll(async () => {
  for (const threads of THREADS) engines.set(threads, await createEngine({ threads }));
});
afterAll(async () => {
  for (const engine of engines.values()) await engine.close();
});

describe.each(ALGORITHMS)("--algo %s", (algorithm) => {
  describe.each(THREADS)("%i thread(s)", (threads) => {
    const build = async (t: Uint8Array) => (await engines.get(threads)!.suffixArray(t, { algo: algorithm })).sa;

    it("banana, mississippi and the empty text", async () => {
      for (const s of ["banana", "mississippi", "", "a", "ab", "ba", "abracadabra"]) {
        expectSA(await build(encode(s)), want(s, encode(s)), s);
      }
    });

    it("random strings: alphabet sizes 1, 2, 4, 26, 256; lengths 0..3000", async () => {
      for (const sigma of SIGMAS) {
        for (const n of LENGTHS) {
          const t = randomText(n, sigma, 1000 * sigma + n);
          expectSA(await build(t), want(`random ${sigma} ${n}`, t), `sigma ${sigma}, n ${n}`);
        }
      }
    });

    it("texts ending in a run of their smallest byte (range pads keys with it)", async () => {
      for (const sigma of [2, 4, 256]) {
        for (const tail of [1, 2, 3, 7, 8, 9, 17, 40, 300]) {
          for (const n of [tail, tail + 1, 100, 5000]) {
            if (n < tail) continue;
            const t = randomText(n, sigma, 31 * sigma + 7 * tail + n);
            let least = 255;
            for (const b of t) least = Math.min(least, b);
            t.fill(least, n - tail);
            // runs of that byte inside the text too, which padded suffixes tie with
            for (let at = 0; at + 2 * tail < n - tail; at += 3 * tail + 5) t.fill(least, at, at + tail);
            expectSA(await build(t), want(`tail ${sigma} ${tail} ${n}`, t), `sigma ${sigma}, tail ${tail}, n ${n}`);
          }
        }
      }
    });

    it.each(FAMILY_LENGTHS)("hard families at n = %i", async (n) => {
      for (const [name, t] of hardFamilies(n)) {
        expectSA(await build(t), want(`${name} ${n}`, t), `${name}, n ${n}`);
      }
    });
  });

  it("is deterministic: the same SA on every run", async () => {
    const t = randomText(200_000, 4, 42);
    const first = (await engines.get(3)!.suffixArray(t, { algo: algorithm })).sa;
    for (let run = 0; run < 3; run++) {
      expect(firstDifference((await engines.get(3)!.suffixArray(t, { algo: algorithm })).sa, first)).toBe(-1);
    }
  });
});

describe("--algo range with the paths for long texts forced on short ones", () => {
  const saved = { ...rangeTuning };
  beforeAll(() => {
    rangeTuning.directRankMax = 0; // first ranks in SA order, moved by buckets
    rangeTuning.largeMin = 64; // groups of more than 64 (and a share of the unsorted) sorted by all workers
    rangeTuning.minGroupsPerBlock = 1; // every round's group list cut into as many blocks as allowed
    rangeTuning.minSuffixesPerBlock = 1;
    rangeTuning.radixGroupMin = 2; // every group sorted inside a worker by radix, none by introsort
  });
  afterAll(() => {
    Object.assign(rangeTuning, saved);
  });
  it.each([1, 2, 3])("%i thread(s): random strings of every alphabet size and the hard families", async (threads) => {
    const build = async (t: Uint8Array) => (await engines.get(threads)!.suffixArray(t, { algo: "range" })).sa;
    for (const sigma of SIGMAS) {
      for (const n of [0, 1, 2, 9, 100, 3000, 70_000]) {
        const t = randomText(n, sigma, 7000 * sigma + n);
        expectSA(await build(t), want(`random ${sigma} ${n} b`, t), `sigma ${sigma}, n ${n}`);
      }
    }
    for (const [name, t] of hardFamilies(70_000)) expectSA(await build(t), want(`${name} 70000`, t), name);
  });
});

describe("engine", () => {
  it.each([1, 2])("range hands one repeated byte over to sais and says so (%i thread(s))", async (threads) => {
    // 2^19 bytes: at 2 threads SA-IS runs with its helper, whose mailbox follows the released scratch
    const t = repeatedByte(1 << 19);
    const result = await engines.get(threads)!.suffixArray(t, { algo: "range" });
    expect(result.algo).toBe("sais");
    expect(result.handOver).toMatch(/range handed over to sais/);
    expectSA(result.sa, want("one repeated byte 2^19", t), "repeated byte");
  });

  it("rejects unknown algorithms, bad thread counts and inputs over the limit", async () => {
    const engine = engines.get(1)!;
    await expect(engine.suffixArray(encode("x"), { algo: "nope" })).rejects.toThrow(/--algo/);
    await expect(createEngine({ threads: 0 })).rejects.toThrow(/threads must be an integer from 1 to 64 \(got 0\)/);
    const tooLong = new Uint8Array(rangeMaxLength + 1);
    await expect(engine.suffixArray(tooLong, { algo: "range" })).rejects.toBeInstanceOf(SufsortError);
  });

  it("a closed engine refuses builds", async () => {
    const engine = await createEngine({ threads: 2 });
    await engine.close();
    await expect(engine.suffixArray(encode("abc"))).rejects.toThrow(/closed/);
  });

  it("a remote engine (comlink) builds in its own thread: the caller's event loop keeps running", async () => {
    const { createRemoteEngine } = await import("../../src/engine/remote.js");
    const remote = await createRemoteEngine({ threads: 1 });
    try {
      const t = randomText(1 << 20, 26, 11);
      let ticks = 0;
      let progressCalls = 0;
      const timer = setInterval(() => ticks++, 5);
      const result = await remote.suffixArray(t, { algo: "range", onProgress: () => progressCalls++ });
      clearInterval(timer);
      expectSA(result.sa, oracle(t), "remote engine");
      expect(result.algo).toBe("range");
      expect(progressCalls).toBeGreaterThan(0);
      expect(ticks).toBeGreaterThan(0);
      // its errors arrive as the local engine's would: a SufsortError with its exit code
      const error = await remote.suffixArray(t, { algo: "nope" }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(SufsortError);
      expect((error as SufsortError).exitCode).toBe(2);
      expect((error as SufsortError).message).toMatch(/--algo must be one of/);
    } finally {
      await remote.close();
    }
  });

  it("the one-shot build does not keep the process alive", () => {
    const script = `
      import { suffixArray } from ${JSON.stringify(packagePath("dist", "src", "index.js"))};
      const sa = await suffixArray("mississippi".repeat(5000), { algo: "range", threads: 2 });
      console.log(sa.length);`;
    const child = spawnSync(process.execPath, ["--input-type=module", "-e", script], { timeout: 30_000, encoding: "utf8" });
    expect(child.status, child.stderr).toBe(0);
    expect(child.stdout.trim()).toBe("55000");
  });
});

describe("memory", () => {
  it.each(ALGORITHMS)("--algo %s stays within its scratchBytes (the basis of its maxLength)", async (algorithm) => {
    const { getSorter } = await import("../../src/engine/registry.js");
    const { SharedHeap } = await import("../../src/cpu/memory.js");
    const { createExecutor } = await import("../../src/cpu/executor.js");
    const sorter = getSorter(algorithm)!;
    for (const [name, t] of [["random", randomText(1 << 20, 26, 3)], ...hardFamilies(1 << 20).slice(0, 3)] as const) {
      const n = t.length;
      const heap = new SharedHeap();
      const executor = createExecutor(heap, 2);
      const textPtr = heap.alloc(n + 16);
      const saPtr = heap.alloc(4 * n);
      heap.u8(textPtr, n).set(t);
      const limit = heap.used + sorter.scratchBytes(n);
      await sorter.build({ heap, kernels: executor.kernels, executor, textPtr, n, saPtr, threads: 2 });
      await executor.close();
      expect(heap.memory.buffer.byteLength, `${name}: bytes of memory after the build`).toBeLessThanOrEqual(
        Math.ceil(limit / 65536) * 65536,
      );
    }
  });
});
