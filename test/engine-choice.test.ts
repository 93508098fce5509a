// The engine policy (src/engine/choice.ts): parsing, every choice and contradiction, the
// periodicity test that routes --engine gpu to gpu-skew, auto on a machine without a hardware GPU,
// and the errors and exit codes through the API and the CLI.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { writeFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { selectEngine } from "../src/engine/build.js";
import {
  AUTO_GPU_MIN_BYTES_HARD_FOR_DOUBLING,
  AUTO_GPU_MIN_BYTES_OVER_RANGE,
  AUTO_GPU_MIN_BYTES_OVER_SAIS,
  AUTO_RANGE_MIN_BYTES,
  AUTO_RANGE_MIN_THREADS,
  AUTO_RANGE_MIN_THREADS_RANDOM,
  cpuAlgorithm,
  parseEngine,
  planEngine,
  routeByText,
  traitsOf,
  wantsGpu,
  type EngineRequest,
} from "../src/engine/choice.js";
import { rangeMaxLength } from "../src/cpu/algorithms/range.js";
import { getSorter, heapBytesFor } from "../src/engine/registry.js";
import { acquireGpu, type GpuContext } from "../src/gpu/device.js";
import { SufsortError } from "../src/errors.js";
import { suffixArray } from "../src/index.js";
import { packagePath } from "../src/paths.js";
import { hardFamilies, naiveSuffixArray, randomText, repeatedByte, rng } from "./support/inputs.js";
import { generate } from "../src/bench/inputs.js";
import { tempDirs } from "./support/temp.js";

const MiB = 1 << 20;
const tempDir = tempDirs("sufsort-engine-");

// A hardware adapter, if this machine has one: opened once for the file (Dawn processes that
// opened several devices hung at exit on the H200).
let hardware: GpuContext | null = null;
beforeAll(async () => {
  hardware = await acquireGpu({ mode: "hardware" });
});
afterAll(() => {
  hardware?.release();
});

function plan(req: Partial<EngineRequest>): string {
  return planEngine({ engine: "auto", n: 1000, threads: 2, gpu: "none", ...req }).sorter.name;
}

function usageErrorOf(f: () => unknown): SufsortError {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(SufsortError);
    expect((e as SufsortError).exitCode).toBe(2);
    expect((e as Error).message).not.toMatch(/\n/);
    return e as SufsortError;
  }
  throw new Error("expected a usage error");
}


/** n bytes of lines of words drawn from a small vocabulary: text that repeats its short strings. */
function wordText(n: number): Uint8Array {
  const r = rng(0x7e47);
  const vocabulary = Array.from({ length: 300 }, (_, w) => {
    let word = "";
    for (let k = 0; k < 2 + (w % 9); k++) word += String.fromCharCode(97 + Math.floor(r() * 26));
    return word;
  });
  const out = new Uint8Array(n);
  let line = 0;
  for (let i = 0; i < n; ) {
    const word = line++ % 12 === 11 ? "\n" : vocabulary[Math.floor(r() * vocabulary.length)] + " ";
    for (let k = 0; k < word.length && i < n; k++) out[i++] = word.charCodeAt(k);
  }
  return out;
}

/** n bytes over ACGT, each the one before with probability p, else one of the other three. */
function markovDna(n: number, p: number): Uint8Array {
  const r = rng(0x5eed);
  const out = new Uint8Array(n);
  let previous = 0;
  for (let i = 0; i < n; i++) {
    let c = previous;
    if (r() >= p) {
      c = Math.floor(r() * 3);
      if (c >= previous) c++;
    }
    out[i] = "ACGT".charCodeAt(c);
    previous = c;
  }
  return out;
}
describe("parseEngine", () => {
  it("accepts auto, cpu, gpu, hybrid; undefined is auto; anything else is a one-line usage error", () => {
    for (const e of ["auto", "cpu", "gpu", "hybrid"]) expect(parseEngine(e)).toBe(e);
    expect(parseEngine(undefined)).toBe("auto");
    expect(usageErrorOf(() => parseEngine("GPU")).message).toBe("invalid engine 'GPU' (expected auto, cpu, gpu, hybrid)");
  });
});

describe("planEngine", () => {
  it("--algo alone runs that algorithm; with an agreeing --engine too", () => {
    expect(plan({ algo: "skew" })).toBe("skew");
    expect(plan({ algo: "gpu-osipov", gpu: "none" })).toBe("gpu-osipov"); // the build then asks for a device
    expect(plan({ engine: "cpu", algo: "range" })).toBe("range");
    expect(plan({ engine: "gpu", algo: "gpu-skew" })).toBe("gpu-skew");
    expect(plan({ engine: "hybrid", algo: "gpu-ls" })).toBe("gpu-ls-hybrid");
    expect(plan({ engine: "hybrid", algo: "gpu-ls-hybrid" })).toBe("gpu-ls-hybrid");
  });

  it("contradictory --engine and --algo are usage errors naming both", () => {
    expect(usageErrorOf(() => plan({ engine: "cpu", algo: "gpu-ls" })).message).toMatch(/--engine cpu contradicts --algo gpu-ls, which runs on the gpu engine/);
    expect(usageErrorOf(() => plan({ engine: "gpu", algo: "sais" })).message).toMatch(/--engine gpu contradicts --algo sais/);
    expect(usageErrorOf(() => plan({ engine: "hybrid", algo: "gpu-skew" })).message).toMatch(/--engine hybrid contradicts --algo gpu-skew/);
    expect(usageErrorOf(() => plan({ engine: "cpu", algo: "gpu-ls-hybrid" })).message).toMatch(/runs on the hybrid engine/);
    expect(usageErrorOf(() => plan({ algo: "nope" })).message).toMatch(/unknown algorithm 'nope'/);
  });

  it("--engine cpu: range on many threads and large enough inputs that fit it, SA-IS otherwise", () => {
    const many = AUTO_RANGE_MIN_THREADS;
    expect(plan({ engine: "cpu", threads: 2, n: 16 * MiB })).toBe("sais");
    expect(plan({ engine: "cpu", threads: many, n: 16 * MiB })).toBe("range");
    expect(plan({ engine: "cpu", threads: many, n: AUTO_RANGE_MIN_BYTES - 1 })).toBe("sais");
    expect(plan({ engine: "cpu", threads: many, n: rangeMaxLength + 1 })).toBe("sais");
    expect(plan({ engine: "cpu", threads: many, n: 1 << 30, gpu: "hardware" })).toBe("sais");
  });

  it("range is passed over for SA-IS when its memory (about 25n) exceeds what the process may still use", () => {
    const n = 64 * MiB;
    const many = AUTO_RANGE_MIN_THREADS;
    const range = getSorter("range")!;
    const need = heapBytesFor(n, range);
    expect(need).toBeGreaterThan(20 * n); // range's scratch: two 8n regions and the rank array
    expect(heapBytesFor(n, getSorter("sais")!)).toBeLessThan(7 * n);
    for (const engine of ["auto", "cpu"] as const) {
      expect(plan({ engine, n, threads: many })).toBe("range");
      expect(plan({ engine, n, threads: many, memory: need })).toBe("range");
      const short = planEngine({ engine: engine, n, threads: many, gpu: "none", memory: need - 1 });
      expect(short.sorter.name).toBe("sais");
      expect(short.reason).toContain(`range would take ${need} bytes of memory; ${need - 1} are available`);
    }
    expect(cpuAlgorithm(n, many, undefined, 7 * n)).toBe("sais");
    expect(cpuAlgorithm(n, many, undefined, undefined)).toBe("range");
    // with range out of reach, auto's GPU threshold is SA-IS's
    expect(wantsGpu("auto", undefined, AUTO_GPU_MIN_BYTES_OVER_SAIS, many, undefined, 7 * AUTO_GPU_MIN_BYTES_OVER_SAIS)).toBe(true);
    expect(wantsGpu("auto", undefined, AUTO_GPU_MIN_BYTES_OVER_SAIS, many, undefined, undefined)).toBe(false);
  });

  it("on 1 to 7 threads range takes texts that look random, SA-IS the rest", () => {
    const dna = { periodic: false, random: true, hardForDoubling: false };
    const text = { periodic: false, random: false, hardForDoubling: false };
    const randomBytes = { periodic: false, random: true, hardForDoubling: false };
    expect(AUTO_RANGE_MIN_THREADS_RANDOM).toBe(1);
    expect(plan({ engine: "cpu", threads: 2, n: 16 * MiB, traits: randomBytes })).toBe("range");
    expect(plan({ engine: "cpu", threads: 2, n: 16 * MiB, traits: dna })).toBe("range");
    expect(plan({ engine: "cpu", threads: 2, n: 16 * MiB, traits: text })).toBe("sais");
    expect(plan({ engine: "cpu", threads: 1, n: 16 * MiB, traits: dna })).toBe("range");
    expect(plan({ engine: "cpu", threads: 1, n: 16 * MiB, traits: text })).toBe("sais");
    expect(plan({ engine: "cpu", threads: 2, n: AUTO_RANGE_MIN_BYTES - 1, traits: dna })).toBe("sais");
    expect(plan({ engine: "cpu", threads: 2, n: rangeMaxLength + 1, traits: dna })).toBe("sais");
    expect(plan({ n: AUTO_GPU_MIN_BYTES_OVER_SAIS - 1, threads: 2, gpu: "hardware", traits: dna })).toBe("range");
    expect(plan({ n: 64 * MiB, threads: 2, gpu: "none", traits: dna })).toBe("range");
    expect(cpuAlgorithm(16 * MiB, 2, traitsOf(randomText(16 * MiB, 4, 9)))).toBe("range");
    for (const sigma of [5, 26, 256]) expect(cpuAlgorithm(16 * MiB, 2, traitsOf(randomText(4 * MiB, sigma, sigma))), `sigma ${sigma}`).toBe("range");
  });

  it("--engine gpu: gpu-spd (routable to gpu-skew); --engine hybrid: gpu-ls-hybrid", () => {
    const gpu = planEngine({ engine: "gpu", n: 1000, threads: 2, gpu: "hardware" });
    expect(gpu.sorter.name).toBe("gpu-spd");
    expect(gpu.periodicAlgo).toBe("gpu-skew");
    expect(plan({ engine: "hybrid", gpu: "software" })).toBe("gpu-ls-hybrid");
  });

  it("auto: the CPU below its threshold, without a GPU or with only the software one; the GPU at or over it", () => {
    const low = AUTO_GPU_MIN_BYTES_OVER_SAIS;
    expect(plan({ n: low - 1, gpu: "hardware" })).toBe("sais");
    expect(plan({ n: low, gpu: "hardware" })).toBe("gpu-spd");
    expect(plan({ n: low, gpu: "software" })).toBe("sais");
    expect(plan({ n: low, gpu: "none" })).toBe("sais");
    expect(plan({ n: low, gpu: "hardware", gpuMaxLength: low - 1 })).toBe("sais");
    // over gpu-skew's binding limit: gpu-spd's compact layout up to its limit, gpu-dc7 up to its own, then the CPU
    const limits = { gpuMaxLength: low, gpuDefaultMaxLength: low + 1, gpuLargeMaxLength: low + 2 };
    expect(plan({ n: low, gpu: "hardware", ...limits })).toBe("gpu-spd");
    const compact = planEngine({ engine: "auto", n: low + 1, threads: 2, gpu: "hardware", ...limits });
    expect(compact.sorter.name).toBe("gpu-spd");
    expect(compact.periodicAlgo).toBe("gpu-dc7"); // gpu-skew could not take a periodic text
    expect(compact.reason).toMatch(/compact layout/);
    expect(plan({ n: low + 2, gpu: "hardware", ...limits })).toBe("gpu-dc7");
    expect(plan({ n: low + 3, gpu: "hardware", ...limits })).toBe("sais");
    expect(plan({ engine: "gpu", n: low + 1, gpu: "hardware", ...limits })).toBe("gpu-spd");
    expect(plan({ engine: "gpu", n: low + 2, gpu: "hardware", ...limits })).toBe("gpu-dc7");
    expect(plan({ n: low, gpu: "hardware", gpuMaxLength: low - 1, gpuLargeMaxLength: low })).toBe("gpu-dc7");
    expect(plan({ n: low + 1, gpu: "hardware", gpuMaxLength: low - 1, gpuLargeMaxLength: low })).toBe("sais");
    expect(plan({ engine: "gpu", n: low, gpu: "hardware", gpuMaxLength: low - 1, gpuLargeMaxLength: low })).toBe("gpu-dc7");
    expect(plan({ engine: "gpu", n: low - 1, gpu: "hardware", gpuMaxLength: low - 1, gpuLargeMaxLength: low })).toBe("gpu-spd");
    // on many threads the CPU runs range, which the GPU must beat by more
    const many = AUTO_RANGE_MIN_THREADS;
    expect(plan({ n: AUTO_GPU_MIN_BYTES_OVER_RANGE - 1, threads: many, gpu: "hardware" })).toBe("range");
    expect(plan({ n: AUTO_GPU_MIN_BYTES_OVER_RANGE, threads: many, gpu: "hardware" })).toBe("gpu-spd");
  });

  it("over range, texts that look random stay on the CPU up to range's limit", () => {
    const many = AUTO_RANGE_MIN_THREADS;
    const dna = { periodic: false, random: true, hardForDoubling: false };
    const text = { periodic: false, random: false, hardForDoubling: false };
    expect(plan({ n: AUTO_GPU_MIN_BYTES_OVER_RANGE, threads: many, gpu: "hardware", traits: dna })).toBe("range");
    expect(plan({ n: rangeMaxLength, threads: many, gpu: "hardware", traits: dna })).toBe("range");
    expect(plan({ n: rangeMaxLength + 1, threads: many, gpu: "hardware", traits: dna })).toBe("gpu-spd");
    expect(plan({ n: AUTO_GPU_MIN_BYTES_OVER_RANGE, threads: many, gpu: "hardware", traits: text })).toBe("gpu-spd");
    // on few threads the GPU's threshold stays the one over SA-IS, whatever the alphabet
    expect(plan({ n: AUTO_GPU_MIN_BYTES_OVER_SAIS, threads: 2, gpu: "hardware", traits: dna })).toBe("gpu-spd");
    expect(wantsGpu("auto", undefined, AUTO_GPU_MIN_BYTES_OVER_RANGE, many, dna)).toBe(false);
    expect(wantsGpu("auto", undefined, AUTO_GPU_MIN_BYTES_OVER_RANGE, many, text)).toBe(true);
    // whatever the alphabet
    const bytes = traitsOf(randomText(1 << 20, 256, 11));
    expect(plan({ n: rangeMaxLength, threads: many, gpu: "hardware", traits: bytes })).toBe("range");
  });

  it("text traits: random for texts of few repeated strings, hard for doubling where most 64-byte strings repeat", () => {
    for (const sigma of [2, 4, 5, 26, 256]) {
      expect(traitsOf(randomText(1 << 20, sigma, sigma)), `sigma ${sigma}`).toEqual({ periodic: false, random: true, hardForDoubling: false });
    }
    const families = new Map(hardFamilies(1 << 20, 3));
    for (const name of ["one repeated byte", "all NUL", "periodic (abc)^k"]) {
      expect(traitsOf(families.get(name)!), name).toEqual({ periodic: true, random: false, hardForDoubling: true });
    }
    // runs, Thue-Morse, Fibonacci and a repeated block repeat their strings
    for (const name of ["long runs", "Thue-Morse", "Fibonacci"]) {
      expect(traitsOf(families.get(name)!), name).toEqual({ periodic: false, random: false, hardForDoubling: true });
    }
    for (const name of ["long runs", "Thue-Morse", "Fibonacci", "long repeats"]) {
      expect(traitsOf(families.get(name)!).random, name).toBe(false);
      expect(cpuAlgorithm(1 << 20, 2, traitsOf(families.get(name)!)), name).toBe("sais");
    }
    // text of words and lines repeats its short strings: SA-IS on few threads, range on many
    const words = wordText(1 << 20);
    expect(traitsOf(words)).toEqual({ periodic: false, random: false, hardForDoubling: false });
    expect(cpuAlgorithm(1 << 20, 2, traitsOf(words))).toBe("sais");
    expect(cpuAlgorithm(1 << 20, AUTO_RANGE_MIN_THREADS, traitsOf(words))).toBe("range");
    // ACGT where each byte repeats the one before with probability p: range's lead at 2 threads ends near p = 0.7
    expect(traitsOf(markovDna(1 << 20, 0.6)).random, "p = 0.6").toBe(true);
    expect(traitsOf(markovDna(1 << 20, 0.75)).random, "p = 0.75").toBe(false);
    expect(traitsOf(new Uint8Array(1000))).toEqual({ periodic: false, random: false, hardForDoubling: false }); // too short to sample
    // texts under AUTO_RANGE_MIN_BYTES are judged periodic or not, nothing more (SA-IS runs them)
    expect(traitsOf(randomText(AUTO_RANGE_MIN_BYTES - 1, 4, 7))).toEqual({ periodic: false, random: false, hardForDoubling: false });
    expect(traitsOf(repeatedByte(AUTO_RANGE_MIN_BYTES - 1)).hardForDoubling).toBe(true);
    // DNA in runs of 1-40 neither looks random (SA-IS on 2 threads) nor is hard for doubling (range on many)
    const dnaRuns = generate("dnaruns:1MiB").bytes;
    expect(traitsOf(dnaRuns)).toEqual({ periodic: false, random: false, hardForDoubling: false });
    expect(cpuAlgorithm(1 << 20, 2, traitsOf(dnaRuns))).toBe("sais");
    expect(cpuAlgorithm(1 << 20, AUTO_RANGE_MIN_THREADS, traitsOf(dnaRuns))).toBe("range");
    expect(traitsOf(generate("runs:1MiB").bytes).hardForDoubling).toBe(true);
  });

  it("texts hard for doubling go to SA-IS on any number of threads, and to the GPU from their own threshold", () => {
    const many = AUTO_RANGE_MIN_THREADS;
    const hard = { periodic: false, random: false, hardForDoubling: true };
    expect(plan({ engine: "cpu", threads: many, n: 16 * MiB, traits: hard })).toBe("sais");
    expect(plan({ n: 16 * MiB, threads: many, gpu: "none", traits: hard })).toBe("sais");
    for (const threads of [2, many]) {
      expect(plan({ n: AUTO_GPU_MIN_BYTES_HARD_FOR_DOUBLING - 1, threads, gpu: "hardware", traits: hard })).toBe("sais");
      expect(plan({ n: AUTO_GPU_MIN_BYTES_HARD_FOR_DOUBLING, threads, gpu: "hardware", traits: hard })).toBe("gpu-spd");
    }
    const periodicText = traitsOf(hardFamilies(1 << 20)[0]![1]);
    expect(periodicText.hardForDoubling).toBe(true);
    const routed = routeByText(planEngine({ engine: "auto", n: AUTO_GPU_MIN_BYTES_HARD_FOR_DOUBLING, threads: many, gpu: "hardware", traits: periodicText }), periodicText);
    expect(routed.sorter.name).toBe("gpu-skew");
    // text of a larger alphabet is not judged: range on many threads
    expect(traitsOf(randomText(1 << 20, 26, 6)).hardForDoubling).toBe(false);
    expect(cpuAlgorithm(16 * MiB, many, traitsOf(randomText(1 << 20, 26, 6)))).toBe("range");
  });

  it("wantsGpu: auto looks for a device only where the GPU could be chosen", () => {
    expect(wantsGpu("auto", undefined, AUTO_GPU_MIN_BYTES_OVER_SAIS - 1, 2)).toBe(false);
    expect(wantsGpu("auto", undefined, AUTO_GPU_MIN_BYTES_OVER_SAIS, 2)).toBe(true);
    expect(wantsGpu("cpu", undefined, 1 << 30, 2)).toBe(false);
    expect(wantsGpu("auto", "gpu-ls", 10, 2)).toBe(true);
    expect(wantsGpu("hybrid", undefined, 10, 2)).toBe(true);
  });
});

describe("routing --engine gpu by the text", () => {
  it("periodic texts look periodic; random texts and the aperiodic hard families do not", () => {
    const families = new Map(hardFamilies(1 << 16, 3));
    for (const name of ["one repeated byte", "all NUL", "periodic (abc)^k", "periodic (abcab)^k"]) expect(traitsOf(families.get(name)!).periodic, name).toBe(true);
    for (const name of ["Fibonacci", "Thue-Morse", "long runs", "long repeats"]) expect(traitsOf(families.get(name)!).periodic, name).toBe(false);
    for (const sigma of [2, 4, 26, 256]) expect(traitsOf(randomText(1 << 16, sigma, sigma)).periodic).toBe(false);
    expect(traitsOf(new Uint8Array(1000)).periodic).toBe(false); // too short to sample: doubling is cheap anyway
  });

  it("a GPU plan goes to gpu-skew (over its limit gpu-dc7) on a periodic text; an explicit --algo is never rerouted", () => {
    const periodic = hardFamilies(1 << 16, 1)[0][1];
    const gpu = planEngine({ engine: "gpu", n: periodic.length, threads: 2, gpu: "hardware" });
    expect(routeByText(gpu, traitsOf(periodic)).sorter.name).toBe("gpu-skew");
    expect(routeByText(gpu, traitsOf(randomText(1 << 16, 4, 1))).sorter.name).toBe("gpu-spd");
    const named = planEngine({ engine: "gpu", algo: "gpu-ls", n: periodic.length, threads: 2, gpu: "hardware" });
    expect(routeByText(named, traitsOf(periodic)).sorter.name).toBe("gpu-ls");
    // over gpu-skew's limit a periodic text goes from gpu-spd's compact layout to gpu-dc7 (auto and --engine gpu)
    const n = AUTO_GPU_MIN_BYTES_OVER_SAIS + 1; // the traits come from the small texts
    const limits = { gpuMaxLength: n - 1, gpuDefaultMaxLength: n, gpuLargeMaxLength: n };
    for (const engine of ["gpu", "auto"] as const) {
      const over = planEngine({ engine, n, threads: 2, gpu: "hardware", ...limits });
      expect(over.sorter.name, engine).toBe("gpu-spd");
      const routed = routeByText(over, traitsOf(periodic));
      expect(routed.sorter.name, engine).toBe("gpu-dc7");
      expect(routed.reason, engine).toMatch(/compact layout.*periodic/);
      expect(routeByText(over, traitsOf(randomText(1 << 16, 4, 1))).sorter.name, engine).toBe("gpu-spd");
    }
    // ... unless gpu-dc7 cannot take it either
    const stuck = planEngine({ engine: "gpu", n, threads: 2, gpu: "hardware", gpuMaxLength: n - 1, gpuDefaultMaxLength: n, gpuLargeMaxLength: n - 1 });
    expect(routeByText(stuck, traitsOf(periodic)).sorter.name).toBe("gpu-spd");
  });
});

describe("selectEngine on this machine", () => {
  it("auto over the GPU threshold: the GPU only with a hardware adapter; never the software one", async () => {
    const n = AUTO_GPU_MIN_BYTES_OVER_RANGE;
    // without hardware, selectEngine looks for an adapter itself (and finds none)
    const found = await selectEngine({ engine: "auto", n, threads: 2, gpu: "hardware", ...(hardware ? { gpuContext: hardware } : {}) });
    try {
      expect(found.plan.sorter.name).toBe(hardware ? "gpu-spd" : "sais");
      expect(found.gpu).toBe(hardware ?? undefined);
      if (!hardware) expect(found.plan.reason).toMatch(/no hardware GPU/);
    } finally {
      found.release();
    }
    const software = await selectEngine({ engine: "auto", n, threads: 2, gpu: "software" });
    expect(software.plan.sorter.engine).toBe("cpu");
    expect(software.gpu).toBeUndefined();
  });
});

describe("the engine option of the API", () => {
  it("builds with engine cpu; rejects a bad engine and a contradiction with a usage error", async () => {
    const text = "mississippi";
    expect(await suffixArray(text, { engine: "cpu" })).toEqual(naiveSuffixArray(new TextEncoder().encode(text)));
    expect(await suffixArray(text, { engine: "auto", threads: 1 })).toEqual(naiveSuffixArray(new TextEncoder().encode(text)));
    await expect(suffixArray(text, { engine: "quantum" as never })).rejects.toThrow(/engine must be "auto", "cpu", "gpu", "hybrid"/);
    await expect(suffixArray(text, { engine: "cpu", algo: "gpu-ls" })).rejects.toMatchObject({ exitCode: 2 });
  });
});

describe("sufsort build --engine", () => {
  const CLI = packagePath("dist", "cli.js");
  const sufsort = (...args: string[]) => {
    const env = { ...process.env };
    delete env.SUFSORT_GPU; // the default adapter mode
    const r = spawnSync(process.execPath, [CLI, ...args], { encoding: "utf8", env });
    return { code: r.status, stdout: r.stdout, stderr: r.stderr };
  };
  const input = () => {
    const dir = tempDir();
    writeFileSync(join(dir, "t"), randomText(3000, 4, 2));
    return dir;
  };

  it("auto (the default) builds a small input on the CPU and says why in --json", () => {
    const dir = input();
    const r = sufsort("build", join(dir, "t"), "--json");
    expect(r.code, r.stderr).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j).toMatchObject({ algo: "sais", engine: "cpu" });
    expect(j.reason).toMatch(/--engine auto: sais .* below the GPU threshold/);
  });

  it("a bad engine and a contradiction exit 2 with one line", () => {
    const dir = input();
    for (const [args, pattern] of [
      [["--engine", "fast"], /^sufsort: invalid engine 'fast' \(expected auto, cpu, gpu, hybrid\)$/],
      [["--engine", "cpu", "--algo", "gpu-ls"], /^sufsort: --engine cpu contradicts --algo gpu-ls/],
    ] as const) {
      const r = sufsort("build", join(dir, "t"), ...args);
      expect(r.code).toBe(2);
      expect(r.stderr.trimEnd().split("\n")).toHaveLength(1);
      expect(r.stderr.trimEnd()).toMatch(pattern);
      expect(existsSync(join(dir, "t.sa"))).toBe(false);
    }
  });

  it("--engine gpu and hybrid without a hardware adapter fail with one line and exit 1", async () => {
    if (hardware !== null) {
      // a machine with a GPU: the same command builds instead
      expect(sufsort("build", join(input(), "t"), "--engine", "gpu", "--gpu", "hardware").code).toBe(0);
      return;
    }
    for (const engine of ["gpu", "hybrid"]) {
      const dir = input();
      const r = sufsort("build", join(dir, "t"), "--engine", engine, "--gpu", "hardware");
      expect(r.code).toBe(1);
      const lines = r.stderr.trimEnd().split("\n");
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(new RegExp(`^sufsort: --engine ${engine}: no hardware GPU available: `));
      expect(existsSync(join(dir, "t.sa"))).toBe(false);
    }
  });
});
