// The build path: which inputs take the TypeScript path beyond the WebAssembly memory, and that
// path's results (forced here on small inputs).
import { describe, expect, it, vi } from "vitest";
import {
  buildLarge, buildPlaced, closePlaced, placeBytes, placedThreads, resolveSorter, usesLargePath, fitsHeap, MAX_INPUT_BYTES,
} from "../src/engine/build.js";
import { heapBytesFor } from "../src/engine/registry.js";
import { availableMemory, SharedHeap, zeroFill } from "../src/cpu/memory.js";
import { PlainSteps } from "../src/cpu/executor.js";
import { packViews, unpackViews } from "../src/cpu/shared-views.js";
import { naiveSuffixArray, randomText, hardFamilies } from "./support/inputs.js";
import { SufsortError } from "../src/errors.js";
import { withTune } from "./support/tune.js";

describe("build path", () => {
  it("sends only inputs beyond the 4 GiB WebAssembly memory to the TypeScript SA-IS", () => {
    const sais = resolveSorter("sais");
    expect(usesLargePath(0, sais)).toBe(false);
    expect(usesLargePath(100_000_000, sais)).toBe(false);
    expect(fitsHeap(MAX_INPUT_BYTES, sais)).toBe(false);
    expect(usesLargePath(MAX_INPUT_BYTES, sais)).toBe(true);
  });

  it("the large path builds and verifies correct suffix arrays", async () => {
    for (const t of [new Uint8Array(0), Uint8Array.of(7), randomText(3000, 4, 1), randomText(3000, 256, 2), ...hardFamilies(2000).map(([, t]) => t)]) {
      const r = await buildLarge(t, { verify: true });
      expect(r.verdict).toEqual({ ok: true });
      expect(r.sa).toEqual(naiveSuffixArray(t));
    }
  });

  it("runs one-shot CPU builds shorter than the sorter's workersFrom on the calling thread, with the same result", async () => {
    const threadsOf = async (n: number, algo: string, reuse: boolean) => {
      const placed = placeBytes(new Uint8Array(n), resolveSorter(algo), 2, { reuse });
      await closePlaced(placed);
      return placed.executor.threads;
    };
    for (const algo of ["sais", "range", "skew"]) {
      const from = resolveSorter(algo).workersFrom!;
      expect(from).toBeGreaterThan(0);
      expect(await threadsOf(from - 1, algo, false)).toBe(1);
      expect(await threadsOf(from - 1, algo, true)).toBe(2); // the bench's heap, reused
      expect(await threadsOf(from, algo, false)).toBe(2);
    }
    // a GPU sorter keeps its threads (its readback's unpackers, the hybrid's workers)
    expect(await threadsOf(1000, "gpu-ls-hybrid", false)).toBe(2);
    const small = randomText(resolveSorter("skew").workersFrom! - 1, 4, 3);
    const sas: Uint32Array[] = [];
    for (const reuse of [false, true]) {
      const placed = placeBytes(small, resolveSorter("skew"), 2, { reuse });
      try {
        const { sa, verdict } = await buildPlaced(placed, { verify: true });
        expect(verdict).toEqual({ ok: true });
        sas.push(sa.slice());
      } finally {
        await closePlaced(placed);
      }
    }
    expect(sas[0]).toEqual(sas[1]);
  });

  it("gives a one-shot range build at most one thread per bytesPerWorker above workersFrom, at least two", () => {
    const range = resolveSorter("range");
    const per = range.bytesPerWorker!;
    const from = range.workersFrom!;
    expect(placedThreads(from - 1, range, 16)).toBe(1);
    expect(placedThreads(from, range, 64)).toBe(Math.max(2, Math.ceil(from / per)));
    expect(placedThreads(8 * per, range, 64)).toBe(8);
    expect(placedThreads(8 * per + 1, range, 64)).toBe(9);
    expect(placedThreads(8 * per, range, 3)).toBe(3);
    expect(placedThreads(from, range, 64, true)).toBe(64); // the bench's reused heap keeps them all
    // sorters without a per-worker size keep every thread
    expect(placedThreads(64 << 20, resolveSorter("sais"), 64)).toBe(64);
    expect(placedThreads(64 << 20, resolveSorter("skew"), 64)).toBe(64);
  });

  it("starts the workers a build keeps busy, and the others when a phase wants them", async () => {
    // 300 KB: sais runs its kernel and helper on two workers from 256 KiB (reuse: below workersFrom)
    const text = randomText(300_000, 26, 7);
    const placedWith = (algo: string, allWorkers = false) => placeBytes(text, resolveSorter(algo), 4, { reuse: true, allWorkers });
    const sais = placedWith("sais");
    try {
      expect(sais.executor.startedWorkers).toBe(2);
      const { sa, verdict } = await buildPlaced(sais, { verify: true });
      expect(verdict).toEqual({ ok: true });
      expect(sais.executor.startedWorkers).toBe(2);
      // a phase of four blocks (the apps' steps after the SA) starts the other two
      const sums = await sais.executor.map("byteHistogram", [0, 1, 2, 3].map((b) => [sais.textPtr, b * 75_000, (b + 1) * 75_000, sais.heap.alloc(1024, 64)]));
      expect(sums).toHaveLength(4);
      expect(sais.executor.startedWorkers).toBe(4);
      const range = placedWith("range");
      try {
        expect(range.executor.startedWorkers).toBe(4);
        expect((await buildPlaced(range)).sa).toEqual(sa);
      } finally {
        await closePlaced(range);
      }
    } finally {
      await closePlaced(sais);
    }
    for (const [algo, allWorkers, started] of [["sais", true, 4], ["gpu-spd", false, 0]] as const) {
      const placed = placedWith(algo, allWorkers);
      expect(placed.executor.startedWorkers, algo).toBe(started);
      await closePlaced(placed);
    }
  });

  it("a GPU build whose SA comes back packed starts its unpackers, and every worker where the workers may pack its text first", async () => {
    const text = randomText(1 << 20, 4, 8); // the SA comes back packed from 1 MiB
    for (const [tune, started] of [["", 8], [`io.packTextMin=${1 << 20}`, 10]] as const) {
      await withTune(tune, async () => {
        const placed = placeBytes(text, resolveSorter("gpu-spd"), 10, { reuse: true });
        try {
          expect(placed.executor.startedWorkers, `tune "${tune}"`).toBe(started);
        } finally {
          await closePlaced(placed);
        }
      });
    }
  });

  it("refuses, in one line, a build that needs more memory than the process may still use", async () => {
    const text = randomText(100_000, 4, 5);
    const sais = resolveSorter("sais");
    const spy = vi.spyOn(process, "availableMemory");
    const limit = vi.spyOn(process, "constrainedMemory").mockReturnValue(0); // no cgroup limit: no file cache added
    try {
      spy.mockReturnValue(heapBytesFor(text.length, sais) - 1);
      const error = (() => {
        try {
          placeBytes(text, sais, 1);
        } catch (e) {
          return e;
        }
      })();
      expect(error).toBeInstanceOf(SufsortError);
      expect((error as SufsortError).exitCode).toBe(1);
      expect((error as SufsortError).message).toMatch(/^input is 100000 bytes; sais needs about \d+ MB of memory and 0 MB are available$/);
      // the TypeScript path needs its SA and workspace beside the text
      spy.mockReturnValue(4 * text.length);
      await expect(buildLarge(text)).rejects.toThrow(/needs about \d+ MB of memory/);
      // enough: both build
      spy.mockReturnValue(heapBytesFor(text.length, sais) + (1 << 20)); // the heap is whole pages
      const placed = placeBytes(text, sais, 1);
      await closePlaced(placed);
      spy.mockReturnValue(8 * text.length);
      expect((await buildLarge(text)).sa.length).toBe(text.length);
    } finally {
      spy.mockRestore();
      limit.mockRestore();
    }
  });

  // V8's message serializer keeps a view's byte length modulo 2^32: the 2^31-entry psi of a
  // 2^31 - 1 byte BWT reached the walk's workers empty. The steps' views go as buffer, offset and
  // length (the 4 GiB buffer here is only reserved: two pages are written).
  it("gives the plain steps' workers whole views of shared arrays of 4 GiB and more", async () => {
    const array = new Uint32Array(new SharedArrayBuffer(2 ** 32 + 8192));
    const n = array.length;
    array[n - 5] = 7;
    array[n - 2000] = 9;
    const steps = new PlainSteps(2);
    try {
      await steps.map("zeroFill", zeroFill, [{ array, from: n - 10, to: n }, { array, from: n - 2010, to: n - 1990 }]);
    } finally {
      await steps.close();
    }
    expect([array[n - 5], array[n - 2000]]).toEqual([0, 0]);
    const packed = packViews({ array, from: 3, small: Uint8Array.of(1, 2) });
    expect(packed.array).not.toBeInstanceOf(Uint32Array);
    expect(packed.small).toEqual(Uint8Array.of(1, 2)); // not shared: cloned as it is
    const back = unpackViews(packed);
    expect(back.array.length).toBe(n);
    expect(back.array.buffer).toBe(array.buffer);
    expect(back.from).toBe(3);
  });

  // (n + 7) >> 3 for the verifier's bits wrapped negative at n = 2^31 - 1: the allocation after
  // the bits then overlapped them, and verifying such an SA read out of bounds
  it("refuses a heap allocation of a negative or fractional size", () => {
    const heap = new SharedHeap(1 << 16);
    expect(() => heap.alloc(((2 ** 31 - 1 + 7) >> 3))).toThrow(/^sufsort: a heap allocation of -\d+ bytes$/);
    expect(() => heap.alloc(0.5)).toThrow(RangeError);
    expect(heap.alloc(0)).toBeGreaterThan(0);
  });

  it("refuses to grow a heap past the memory the process may still use", () => {
    const spy = vi.spyOn(process, "availableMemory").mockReturnValue(10e6);
    const limit = vi.spyOn(process, "constrainedMemory").mockReturnValue(0);
    try {
      const heap = new SharedHeap(1e6);
      expect(heap.alloc(5e6)).toBeGreaterThan(0);
      expect(() => heap.alloc(20e6)).toThrow(/^out of memory: growing the shared WebAssembly memory to \d+ bytes needs \d+ MB more and 10 MB are available$/);
      expect(() => new SharedHeap(11e6)).toThrow(/^out of memory: a shared WebAssembly memory needs \d+ MB more and 10 MB are available$/);
    } finally {
      spy.mockRestore();
      limit.mockRestore();
    }
    // without a cgroup limit it is the system's own figure; under one, the cgroup's file cache is
    // added. The system's figure is held still: other processes move it between two reads.
    const system = process.availableMemory();
    const still = vi.spyOn(process, "availableMemory").mockReturnValue(system);
    try {
      expect(availableMemory()).toBeGreaterThanOrEqual(system);
    } finally {
      still.mockRestore();
    }
  });
});
