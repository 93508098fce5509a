// The command line, run as a user would (the built dist/ CLI in a child process): results, every
// error case with its exit code and message, and that failures leave no output behind.
import { describe, expect, it, beforeAll } from "vitest";
import { spawn, spawnSync } from "node:child_process";
import { readFileSync, writeFileSync, existsSync, readdirSync, chmodSync, mkdirSync, symlinkSync, statSync, lstatSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createHash } from "node:crypto";
import { packagePath } from "../src/paths.js";
import { generate } from "../src/bench/inputs.js";
import { divsufsortDriver } from "../src/bench/peers.js";
import { doublingSuffixArray, naiveSuffixArray, randomText } from "./support/inputs.js";
import { placedThreads, resolveSorter } from "../src/engine/build.js";
import { tempDirs } from "./support/temp.js";
import { writeFileAtomic } from "../src/cli/files.js";

const CLI = packagePath("dist", "cli.js");

function sufsort(...args: string[]) {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: "utf8" });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const tmp = tempDirs("sufsort-cli-");

function readSA(path: string): Uint32Array {
  const b = readFileSync(path);
  return new Uint32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
}

/** One line on stderr, no stack trace. */
function expectOneLineError(stderr: string, pattern: RegExp): void {
  const lines = stderr.trimEnd().split("\n");
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^sufsort: /);
  expect(lines[0]).toMatch(pattern);
  expect(stderr).not.toMatch(/\n\s+at /);
}

beforeAll(() => {
  expect(existsSync(CLI)).toBe(true);
});

describe("writeFileAtomic", () => {
  // it writes each part a view of at most 256 MiB at a time (a byte view of a whole SA of 2^31 - 1
  // entries is over V8's typed-array length limit): views of a part away from its buffer's start
  it("writes parts that view their buffers from any offset", () => {
    const path = join(tmp(), "parts.bin");
    const words = Uint32Array.from({ length: 1000 }, (_, i) => i * 2654435761);
    const bytes = Uint8Array.from({ length: 77 }, (_, i) => 255 - i);
    writeFileAtomic(path, [words.subarray(3, 900), bytes.subarray(5), new Uint16Array(words.buffer, 10, 7)]);
    const want = Buffer.concat([
      Buffer.from(words.buffer, 12, 4 * 897), Buffer.from(bytes.buffer, 5, 72), Buffer.from(words.buffer, 10, 14),
    ]);
    expect(readFileSync(path).equals(want)).toBe(true);
  });
});

describe("sufsort build", () => {
  it("writes the suffix array as little-endian uint32 to IN.sa and leaves the input untouched", () => {
    const dir = tmp();
    const input = join(dir, "text.bin");
    const t = randomText(5000, 4, 1);
    writeFileSync(input, t);
    const before = createHash("sha256").update(readFileSync(input)).digest("hex");
    const r = sufsort("build", input);
    expect(r.code).toBe(0);
    expect(readSA(join(dir, "text.bin.sa"))).toEqual(naiveSuffixArray(t));
    expect(createHash("sha256").update(readFileSync(input)).digest("hex")).toBe(before);
    expect(readdirSync(dir).sort()).toEqual(["text.bin", "text.bin.sa"]);
  });

  it("runs its workers under node options that workers may not take themselves (V8 flags)", () => {
    const dir = tmp();
    const input = join(dir, "text.bin");
    writeFileSync(input, randomText(300_000, 4, 2)); // large enough for range to split its phases over the workers
    for (const flag of ["--max-old-space-size=3000", "--stack-size=2000"]) {
      const r = spawnSync(process.execPath, [flag, CLI, "build", input, "--algo", "range", "--threads", "2", "--verify", "--json", "-o", join(dir, "t.sa")], { encoding: "utf8" });
      expect(r.stderr, flag).toBe("");
      expect(r.status, flag).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ algo: "range", verified: true });
    }
  });

  it("--json prints one line with the required fields; --verify runs the verifier", () => {
    const dir = tmp();
    const input = join(dir, "t");
    writeFileSync(input, "mississippi");
    const r = sufsort("build", input, "-o", join(dir, "out.sa"), "--verify", "--json");
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split("\n");
    expect(lines).toHaveLength(1);
    const j = JSON.parse(lines[0]);
    for (const key of ["n", "algo", "engine", "seconds", "mbPerSec", "peakRssBytes", "verified"]) expect(j).toHaveProperty(key);
    expect(j.n).toBe(11);
    expect(j.algo).toBe("sais");
    expect(j.verified).toBe(true);
    expect(j.peakRssBytes).toBeGreaterThan(0);
    expect(Array.from(readSA(join(dir, "out.sa")))).toEqual([10, 7, 4, 1, 0, 9, 8, 6, 3, 5, 2]);
  });

  it("accepts an empty input and writes an empty SA", () => {
    const dir = tmp();
    writeFileSync(join(dir, "empty"), "");
    expect(sufsort("build", join(dir, "empty")).code).toBe(0);
    expect(readFileSync(join(dir, "empty.sa")).length).toBe(0);
  });

  it("reads a pipe or device to its end (- or /dev/stdin, a FIFO, /proc) and then needs -o", () => {
    const dir = tmp();
    const t = randomText(70_000, 16, 5); // over the 64 KiB first read of a stream
    const piped = (input: Uint8Array, ...args: string[]) => {
      const r = spawnSync(process.execPath, [CLI, ...args], { input, encoding: "utf8" });
      return { code: r.status, stdout: r.stdout, stderr: r.stderr };
    };
    for (const name of ["-", "/dev/stdin"]) {
      const r = piped(t, "build", name, "-o", join(dir, "stdin.sa"), "--verify");
      expect(r.code).toBe(0);
      expect(readSA(join(dir, "stdin.sa"))).toEqual(naiveSuffixArray(t));
    }
    // a shell's pipe (this test's stdin is a socket)
    const shell = spawnSync("sh", ["-c", `cat "$1" | "$2" "$3" build /dev/stdin -o "$4"`, "sh", join(dir, "stdin.sa"), process.execPath, CLI, join(dir, "sa.sa")], { timeout: 60_000 });
    expect(shell.status).toBe(0);
    expect(readSA(join(dir, "sa.sa"))).toEqual(naiveSuffixArray(readFileSync(join(dir, "stdin.sa"))));
    // verify and unbwt read their inputs from a pipe too
    writeFileSync(join(dir, "t"), t);
    expect(piped(readFileSync(join(dir, "stdin.sa")), "verify", join(dir, "t"), "/dev/stdin").stdout).toBe("OK\n");
    expect(sufsort("bwt", join(dir, "t"), "-o", join(dir, "t.bwt")).code).toBe(0);
    expect(piped(readFileSync(join(dir, "t.bwt")), "unbwt", "/dev/stdin", "-o", join(dir, "back")).code).toBe(0);
    expect(readFileSync(join(dir, "back")).equals(Buffer.from(t))).toBe(true);
    // a file on the standard input is read from where it stands
    writeFileSync(join(dir, "skip"), Buffer.concat([Buffer.from("SKIP"), Buffer.from(t)]));
    const skipped = spawnSync("sh", ["-c", `(head -c 4 > /dev/null; "$1" "$2" build - -o "$3") < "$4"`, "sh", process.execPath, CLI, join(dir, "skip.sa"), join(dir, "skip")], { timeout: 60_000 });
    expect(skipped.status).toBe(0);
    expect(readSA(join(dir, "skip.sa"))).toEqual(naiveSuffixArray(t));
    // a FIFO: the writer runs beside the build (a build that never opened it would leave the writer
    // blocked: the timeout ends the shell instead of the test run)
    const fifo = join(dir, "fifo");
    expect(spawnSync("mkfifo", [fifo]).status).toBe(0);
    const fromFifo = spawnSync("sh", ["-c", `cat "$1" > "$2" & "$3" "$4" build "$2" -o "$5"; s=$?; wait; exit $s`, "sh", join(dir, "t"), fifo, process.execPath, CLI, join(dir, "fifo.sa")], { timeout: 60_000 });
    expect(fromFifo.status).toBe(0);
    expect(readSA(join(dir, "fifo.sa"))).toEqual(naiveSuffixArray(t));
    // a file that reports no size
    expect(sufsort("build", "/proc/self/status", "-o", join(dir, "proc.sa"), "--verify").code).toBe(0);
    expect(readFileSync(join(dir, "proc.sa")).length % 4).toBe(0);
    expect(readFileSync(join(dir, "proc.sa")).length).toBeGreaterThan(0);
    // no name to add .sa to
    for (const name of ["-", "/dev/stdin"]) {
      const noOut = piped(t, "build", name);
      expect(noOut.code).toBe(2);
      expectOneLineError(noOut.stderr, /is not a regular file: name the output with -o/);
    }
    expect(existsSync("/dev/stdin.sa")).toBe(false);
  });

  it("writes to the standard output with -o -, to a device or FIFO in place, and through a link to its file", () => {
    const dir = tmp();
    const t = randomText(3000, 4, 6);
    const input = join(dir, "t");
    writeFileSync(input, t);
    const out = spawnSync(process.execPath, [CLI, "build", input, "-o", "-"]);
    expect(out.status).toBe(0);
    expect(new Uint32Array(out.stdout.buffer.slice(out.stdout.byteOffset, out.stdout.byteOffset + out.stdout.byteLength))).toEqual(naiveSuffixArray(t));
    const both = sufsort("build", input, "-o", "-", "--json");
    expect(both.code).toBe(2);
    expectOneLineError(both.stderr, /--json and -o - would both write to the standard output/);
    // /dev/null stays a device (a rename over it would have replaced it, as root)
    expect(sufsort("build", input, "-o", "/dev/null").code).toBe(0);
    expect(statSync("/dev/null").isCharacterDevice()).toBe(true);
    const fifo = join(dir, "fifo");
    expect(spawnSync("mkfifo", [fifo]).status).toBe(0);
    const viaFifo = spawnSync("sh", ["-c", `cat "$1" > "$2" & "$3" "$4" build "$5" -o "$1"; s=$?; wait; exit $s`, "sh", fifo, join(dir, "from-fifo.sa"), process.execPath, CLI, input], { timeout: 60_000 });
    expect(viaFifo.status).toBe(0);
    expect(readSA(join(dir, "from-fifo.sa"))).toEqual(naiveSuffixArray(t));
    expect(statSync(fifo).isFIFO()).toBe(true);
    // a link to a file: the file gets the SA, the link stays a link
    mkdirSync(join(dir, "real"));
    writeFileSync(join(dir, "real", "t.sa"), "old");
    symlinkSync(join(dir, "real", "t.sa"), join(dir, "link.sa"));
    expect(sufsort("build", input, "-o", join(dir, "link.sa")).code).toBe(0);
    expect(lstatSync(join(dir, "link.sa")).isSymbolicLink()).toBe(true);
    expect(readSA(join(dir, "real", "t.sa"))).toEqual(naiveSuffixArray(t));
    expect(readdirSync(join(dir, "real"))).toEqual(["t.sa"]);
  });

  it("fails with exit 1 on a missing input", () => {
    const dir = tmp();
    const r = sufsort("build", join(dir, "nope"));
    expect(r.code).toBe(1);
    expectOneLineError(r.stderr, /cannot read .*nope.*no such file/);
    expect(readdirSync(dir)).toEqual([]);
  });

  it("fails with exit 1 on an unreadable input", () => {
    const dir = tmp();
    chmodSync(dir, 0o755);
    const input = join(dir, "secret");
    writeFileSync(input, "abc");
    chmodSync(input, 0);
    // root reads everything: run the CLI as an unprivileged user then
    const asUser = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};
    const r = spawnSync(process.execPath, [CLI, "build", input, "-o", join(tmpdir(), `unreadable-${process.pid}.sa`)], {
      encoding: "utf8",
      ...asUser,
    });
    expect(r.status).toBe(1);
    expectOneLineError(r.stderr, /cannot read .*secret.*permission denied/);
  });

  it("names the folder when no temporary file can be created beside the output (/proc)", () => {
    const input = join(tmp(), "in.txt");
    writeFileSync(input, "banana");
    const r = sufsort("build", input, "-o", "/proc/version");
    expect(r.code).toBe(1);
    expectOneLineError(r.stderr, /^sufsort: cannot write '\/proc\/version': cannot create a temporary file in '\/proc' \(.+\)$/);
  });

  it("fails with exit 1 when the input is a directory", () => {
    const dir = tmp();
    const r = sufsort("build", dir, "-o", join(dir, "x.sa"));
    expect(r.code).toBe(1);
    expectOneLineError(r.stderr, /is a directory/);
    expect(existsSync(join(dir, "x.sa"))).toBe(false);
    // without -o too: the message names the directory, not the missing output name
    for (const command of ["build", "bwt", "unbwt", "lcp", "index"]) {
      const plain = sufsort(command, dir);
      expect(plain.code).toBe(1);
      expectOneLineError(plain.stderr, /is a directory, not a file/);
    }
  });

  it("fails with exit 1 when the output directory is missing", () => {
    const dir = tmp();
    writeFileSync(join(dir, "t"), "abc");
    const r = sufsort("build", join(dir, "t"), "-o", join(dir, "no", "such", "dir", "t.sa"));
    expect(r.code).toBe(1);
    expectOneLineError(r.stderr, /output directory .* does not exist/);
    expect(readdirSync(dir)).toEqual(["t"]);
  });

  it("refuses to write over its own input (also through a link)", () => {
    const dir = tmp();
    const input = join(dir, "t");
    writeFileSync(input, "banana");
    symlinkSync(input, join(dir, "alias"));
    for (const out of [input, join(dir, "alias")]) {
      const r = sufsort("build", input, "-o", out);
      expect(r.code).toBe(1);
      expectOneLineError(r.stderr, /is the input/);
      expect(readFileSync(input, "utf8")).toBe("banana");
    }
  });

  it("fails with exit 1 when the output is a directory", () => {
    const dir = tmp();
    writeFileSync(join(dir, "t"), "abc");
    mkdirSync(join(dir, "out"));
    const r = sufsort("build", join(dir, "t"), "-o", join(dir, "out"));
    expect(r.code).toBe(1);
    expectOneLineError(r.stderr, /is a directory/);
  });

  it("fails with exit 1 and one line when the system refuses the memory (ulimit -v), leaving no output", () => {
    const dir = tmp();
    const input = join(dir, "t");
    writeFileSync(input, randomText(1 << 16, 26, 5));
    // 3 GB of address space: enough for node, not for a shared WebAssembly memory's reservation and workers
    const script = `ulimit -v 3000000 && exec "$0" "$@"`;
    const r = spawnSync("bash", ["-c", script, process.execPath, CLI, "build", input, "--threads", "2"], { encoding: "utf8" });
    expect(r.status).toBe(1);
    // the heap's reservation fails (Node 20, 22), or, where it is smaller (Node 24), the workers'
    expectOneLineError(r.stderr, /^sufsort: (out of memory: could not reserve \d+ bytes of shared WebAssembly memory .*ulimit -v|the address-space limit \(ulimit -v\) leaves .*)$/);
    expect(existsSync(`${input}.sa`)).toBe(false);
  });

  it("under a ulimit -v that leaves room for the heap but not for the workers: fewer threads by default, one line for too many", () => {
    const dir = tmp();
    const input = join(dir, "t");
    // long enough for range's workers (shorter one-shot builds run on the calling thread); of 16
    // asked, it takes one per bytesPerWorker
    const n = resolveSorter("range").workersFrom!;
    const placed = placedThreads(n, resolveSorter("range"), 16);
    expect(placed).toBeGreaterThan(2);
    writeFileSync(input, randomText(n, 26, 6));
    // 12.4 GiB: the heap's reservation fits (about 11 GiB with Node 20 and 22, 6 with 24), that
    // many workers do not; before, a worker that could not reserve its code range aborted the process
    const limited = (...args: string[]) =>
      spawnSync("bash", ["-c", `ulimit -v 13000000 && exec "$0" "$@"`, process.execPath, CLI, ...args], { encoding: "utf8" });
    const many = limited("build", input, "--threads", "16", "--algo", "range", "-o", join(dir, "many.sa"));
    expect(many.status).toBe(1);
    expectOneLineError(many.stderr, new RegExp(String.raw`the address-space limit \(ulimit -v\) leaves [\d.]+ GiB, room for \d+ worker threads? .*not ${placed}: use --threads \d+ or raise the limit$`));
    expect(existsSync(join(dir, "many.sa"))).toBe(false);
    const fewer = limited("build", input, "--algo", "range", "--json", "-o", join(dir, "fewer.sa"));
    expect(fewer.stderr).toBe("");
    expect(fewer.status).toBe(0);
    expect(JSON.parse(fewer.stdout).threads).toBeGreaterThanOrEqual(1);
    expect(readSA(join(dir, "fewer.sa"))).toEqual(doublingSuffixArray(readFileSync(input)));
  });

  it("refuses in one line, exit 1, what needs more memory than the process may still use", () => {
    const dir = tmp();
    const input = join(dir, "t");
    const text = randomText(300_000, 4, 12);
    writeFileSync(input, text);
    expect(sufsort("build", input, "-o", join(dir, "t.sa")).code).toBe(0);
    expect(sufsort("bwt", input, "-o", join(dir, "t.bwt")).code).toBe(0);
    // the child sees 1 MB available and no cgroup limit
    const preload = "data:text/javascript,process.availableMemory=()=>1e6;process.constrainedMemory=()=>0;";
    const limited = (...args: string[]) => spawnSync(process.execPath, ["--import", preload, CLI, ...args], { encoding: "utf8" });
    const cases: Array<[string[], RegExp, string]> = [
      [["build", input, "-o", join(dir, "b.sa")], /^sufsort: input is 300000 bytes; sais needs about \d+ MB of memory and 1 MB are available$/, "b.sa"],
      [["lcp", input, "-o", join(dir, "b.lcp")], /needs about \d+ MB of memory and 1 MB are available$/, "b.lcp"],
      [["verify", input, join(dir, "t.sa")], /out of memory: a shared WebAssembly memory needs \d+ MB more and 1 MB are available$/, ""],
      [["unbwt", join(dir, "t.bwt"), "-o", join(dir, "b.un")], /out of memory: a shared WebAssembly memory needs \d+ MB more and 1 MB are available$/, "b.un"],
    ];
    for (const [args, pattern, output] of cases) {
      const r = limited(...args);
      expect(r.status, args.join(" ")).toBe(1);
      expectOneLineError(r.stderr, pattern);
      if (output !== "") expect(existsSync(join(dir, output))).toBe(false);
    }
    // SUFSORT_MEMORY_CHECK=0: the user takes the risk
    const unchecked = spawnSync(process.execPath, ["--import", preload, CLI, "build", input, "-o", join(dir, "u.sa")], {
      encoding: "utf8", env: { ...process.env, SUFSORT_MEMORY_CHECK: "0" },
    });
    expect(unchecked.status, unchecked.stderr).toBe(0);
    expect(readFileSync(join(dir, "u.sa")).equals(readFileSync(join(dir, "t.sa")))).toBe(true);
  });

  it("fails with exit 1 on an input over the size limit, naming the limit", () => {
    const dir = tmp();
    const input = join(dir, "huge");
    // a sparse file: 2^31 bytes on disk cost nothing
    writeFileSync(input, "");
    spawnSync("truncate", ["-s", String(2 ** 31), input]);
    const r = sufsort("build", input);
    expect(r.code).toBe(1);
    expectOneLineError(r.stderr, /limit is 2147483647 bytes/);
    expect(existsSync(`${input}.sa`)).toBe(false);
  });

  it("fails with exit 2 on usage errors: unknown flag, missing argument, bad value, unknown algorithm, unknown command", () => {
    const dir = tmp();
    writeFileSync(join(dir, "t"), "abc");
    const cases: Array<[string[], RegExp]> = [
      [["build", join(dir, "t"), "--bogus"], /Unknown option '--bogus'/],
      [["build"], /missing input file/],
      [["build", join(dir, "t"), "extra"], /unexpected argument 'extra'/],
      [["build", join(dir, "t"), "--threads", "zero"], /--threads must be an integer from 1 to 64 \(got 'zero'\)/],
      [["lcp", join(dir, "t"), "--threads", "65"], /--threads must be an integer from 1 to 64 \(got '65'\)/],
      [["build", join(dir, "t"), "--algo", "nope"], /unknown algorithm 'nope'/],
      [["frobnicate"], /unknown command 'frobnicate'/],
      [["verify", join(dir, "t")], /missing input file IN and suffix array file SA/],
      [["bench", "--runs", "1"], /--runs must be an integer >= 3/],
      [["bench", "--paired"], /--paired needs --peer divsufsort/],
      [["build", join(dir, "t"), "--threads", "-2"], /option '--threads' needs a value; one that starts with a dash is given as '--threads=-VALUE'/],
      [["build", "-x"], /Unknown option '-x' \(an argument that starts with '-' goes after '--'\)/],
    ];
    for (const [args, pattern] of cases) {
      const r = sufsort(...args);
      expect(r.code, args.join(" ")).toBe(2);
      expectOneLineError(r.stderr, pattern);
    }
    expect(readdirSync(dir)).toEqual(["t"]);
  });

  it("prints --help for every command and exits 0", () => {
    for (const cmd of ["build", "verify", "bench", "crosscheck", "algorithms"]) {
      const r = sufsort(cmd, "--help");
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(new RegExp(`^Usage: sufsort ${cmd}`));
    }
    expect(sufsort("--help").stdout).toMatch(/Commands:/);
  });

  it("leaves no output and no temporary file when interrupted", async () => {
    const dir = tmp();
    const input = join(dir, "big");
    writeFileSync(input, randomText(24 << 20, 4, 77));
    const child = spawn(process.execPath, [CLI, "build", input, "--verify"], { stdio: "ignore" });
    await new Promise((r) => setTimeout(r, 400));
    child.kill("SIGINT");
    const code = await new Promise<number | null>((r) => child.on("exit", (c, s) => r(c ?? (s ? 130 : null))));
    expect(code).not.toBe(0);
    expect(readdirSync(dir)).toEqual(["big"]);
  });

  it("stops quietly with 141 when the reader of its standard output quits (| head), as SIGPIPE would", async () => {
    const dir = tmp();
    writeFileSync(join(dir, "t"), randomText(200_000, 4, 78));
    expect(sufsort("index", join(dir, "t"), "-o", join(dir, "t.fmi")).code).toBe(0);
    writeFileSync(join(dir, "patterns"), Array.from({ length: 50_000 }, (_, i) => "ACGT"[i % 4] + "ACGT"[(i >> 2) % 4]).join("\n"));
    // more than a pipe holds, through process.stdout (search) and through -o - (build)
    for (const args of [["search", join(dir, "t.fmi"), "--patterns-file", join(dir, "patterns"), "--count"], ["build", join(dir, "t"), "-o", "-"]]) {
      const child = spawn(process.execPath, [CLI, ...args], { stdio: ["ignore", "pipe", "pipe"] });
      let stderr = "";
      child.stderr.on("data", (d) => (stderr += d));
      child.stdout.destroy();
      const code = await new Promise<number | null>((r) => child.on("close", (c) => r(c)));
      expect(code, args[0]).toBe(141);
      expect(stderr).toBe("");
    }
  });

  it("keeps an existing output intact when a build fails", () => {
    const dir = tmp();
    writeFileSync(join(dir, "t.sa"), "old");
    const r = sufsort("build", join(dir, "t"), "-o", join(dir, "t.sa"));
    expect(r.code).toBe(1);
    expect(readFileSync(join(dir, "t.sa"), "utf8")).toBe("old");
  });
});

describe("sufsort bench", () => {
  it("--paired times the peer before each run of a CPU row and takes that row's ratio against those runs", () => {
    const r = sufsort("bench", "--gen", "dna:64KiB", "--algos", "sais", "--threads", "1", "--runs", "3", "--peer", "divsufsort", "--paired", "--json");
    expect(r.code, r.stderr).toBe(0);
    const rows = r.stdout.trim().split("\n").map((line) => JSON.parse(line) as Record<string, number | string>);
    expect(rows.map((row) => row.algo)).toEqual(["divsufsort", "sais"]);
    const sais = rows[1]!;
    const paired = sais.pairedPeerSeconds as number;
    expect(paired).toBeGreaterThan(0);
    expect(sais.peerMbPerSec).toBeCloseTo(65536 / 1e6 / paired, 6);
    expect(sais.ratio).toBeCloseTo((sais.mbPerSec as number) / (sais.peerMbPerSec as number), 6);
  });

  it("the peer driver, with its SA touched first or --cold, writes the SA that build writes", () => {
    const dir = tmp();
    const input = join(dir, "t");
    writeFileSync(input, randomText(50_000, 4, 44));
    expect(sufsort("build", input, "-o", join(dir, "ours.sa")).code).toBe(0);
    const ours = readFileSync(join(dir, "ours.sa"));
    for (const extra of [[], ["--cold"]]) {
      const r = spawnSync(divsufsortDriver(), [input, "2", "--out", join(dir, "peer.sa"), ...extra], { encoding: "utf8" });
      expect(r.status, r.stderr).toBe(0);
      expect((JSON.parse(r.stdout) as { n: number; seconds: number[] }).seconds).toHaveLength(2);
      expect(readFileSync(join(dir, "peer.sa")).equals(ours), extra.join(" ")).toBe(true);
    }
    expect(spawnSync(divsufsortDriver(), [input, "1", "--warm"], { encoding: "utf8" }).status).toBe(1);
  });

  it("generates runs and dnaruns: seeded runs of the stated symbols and lengths", () => {
    for (const [spec, symbols, maxRun] of [["runs:1MiB", "ABC", 200], ["dnaruns:1MiB", "ACGT", 40]] as const) {
      const { bytes, name } = generate(spec);
      expect(name).toBe(spec.replace(":", "-"));
      expect(bytes.length).toBe(1 << 20);
      expect(generate(spec).bytes).toEqual(bytes); // seeded
      expect(new Set(bytes)).toEqual(new Set([...symbols].map((c) => c.charCodeAt(0))));
      // a run of equal bytes spans one or more generated runs; its length says little, but the
      // mean run of uniform 1..maxRun lengths is (maxRun + 1) / 2, and consecutive runs repeat
      // the symbol with probability 1 / symbols
      let changes = 0;
      for (let i = 1; i < bytes.length; i++) if (bytes[i] !== bytes[i - 1]) changes++;
      const meanRun = bytes.length / (changes + 1);
      const expected = ((maxRun + 1) / 2) * (symbols.length / (symbols.length - 1));
      expect(meanRun).toBeGreaterThan(0.9 * expected);
      expect(meanRun).toBeLessThan(1.1 * expected);
    }
  });

  it("rejects a bad input before it prints the table", () => {
    const dir = tmp();
    const cases: Array<[string[], number, RegExp]> = [
      [["--gen", "dna:64KiB", "--gen", "foo:1MiB"], 2, /unknown generated input kind 'foo'/],
      [["--gen", "dna:64KiB", "--gen", "dna:lots"], 2, /bad size 'lots'/],
      [["--gen", "dna:64KiB", join(dir, "missing")], 1, /cannot read .*missing/],
      [["--gen", "dna:64KiB", dir], 1, /is a directory/],
    ];
    for (const [args, code, pattern] of cases) {
      const r = sufsort("bench", ...args, "--algos", "sais", "--threads", "1");
      expect(r.code, args.join(" ")).toBe(code);
      expect(r.stdout, args.join(" ")).toBe("");
      expectOneLineError(r.stderr, pattern);
    }
  });

  it("build --json reports the threads that ran: one for a text too short for the sorter's workers", () => {
    const dir = tmp();
    const input = join(dir, "t");
    writeFileSync(input, randomText(5000, 4, 11));
    const r = sufsort("build", input, "--algo", "range", "--threads", "2", "--json");
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { threads: number; reason: string };
    expect(out.threads).toBe(1);
    expect(out.reason).toMatch(/; one thread: range starts workers from \d+ bytes$/);
    expect(readSA(`${input}.sa`)).toEqual(naiveSuffixArray(readFileSync(input)));
  });

  it("build --json reports the threads that ran: a range build uses one per 256 KiB above its threshold", () => {
    const dir = tmp();
    const input = join(dir, "t");
    writeFileSync(input, randomText(2 << 20, 4, 12));
    const r = sufsort("build", input, "--algo", "range", "--threads", "12", "--verify", "--json");
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { threads: number; reason: string; verified: boolean };
    expect(out).toMatchObject({ threads: 8, verified: true });
    expect(out.reason).toMatch(/; 8 threads: range takes one per 262144 bytes$/);
  });

  it("build --json's reason names the sorter the threads were placed for when a routing switches it", () => {
    const dir = tmp();
    const input = join(dir, "t");
    // a random-looking text repeated: auto places range, the long-repeat scan then routes it to sais
    const half = randomText(1_600_000, 4, 13);
    writeFileSync(input, Buffer.concat([half, half]));
    const r = sufsort("build", input, "--threads", "16", "--verify", "--json");
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { algo: string; threads: number; reason: string; verified: boolean };
    expect(out).toMatchObject({ algo: "sais", threads: 13, verified: true });
    expect(out.reason).toMatch(/: sais; 13 threads: range takes one per 262144 bytes$/);
  });

  it("--engines rows are placed as sufsort build places them: a short text on one thread", () => {
    const r = sufsort("bench", "--gen", "dna:64KiB", "--algos", "range", "--engines", "cpu", "--threads", "2", "--runs", "3", "--json");
    expect(r.code, r.stderr).toBe(0);
    const rows = r.stdout.trim().split("\n").map((line) => JSON.parse(line) as Record<string, number | string>);
    expect(rows.length).toBe(2);
    const [algoRow, engineRow] = [rows.find((x) => x.engineChoice === undefined)!, rows.find((x) => x.engineChoice === "cpu")!];
    expect(algoRow.threads).toBe(2); // the bench's own rows keep their threads
    expect(engineRow.threads).toBe(1);
    expect(engineRow.reason).toMatch(/; one thread: sais starts workers from \d+ bytes$/);
    expect(engineRow.oneShotSeconds as number).toBeGreaterThanOrEqual(engineRow.firstSeconds as number);
  });

  it("--speedup times each multi-thread CPU row on one thread too and prints the ratio", () => {
    const r = sufsort("bench", "--gen", "dna:64KiB", "--algos", "range", "--threads", "2", "--runs", "3", "--speedup", "--json");
    expect(r.code, r.stderr).toBe(0);
    const [row, ...rest] = r.stdout.trim().split("\n").map((line) => JSON.parse(line) as Record<string, number | string>);
    expect(rest).toEqual([]);
    expect(row!.threads).toBe(2);
    const single = row!.oneThreadSeconds as number;
    expect(single).toBeGreaterThan(0);
    expect(row!.speedup).toBeCloseTo(single / (row!.seconds as number), 6);
    expect(row!.firstSeconds as number).toBeGreaterThan(0);
    // one thread: nothing to compare, no column
    const one = sufsort("bench", "--gen", "dna:64KiB", "--algos", "range", "--threads", "1", "--runs", "3", "--speedup");
    expect(one.code, one.stderr).toBe(0);
    expect(one.stdout).not.toMatch(/vs 1 thread/);
  });
});

describe("sufsort bench: rows that hand over", () => {
  it("name the algorithm that ran and say why", () => {
    const r = sufsort("bench", "--gen", "repeat:64KiB", "--algos", "range", "--threads", "2", "--runs", "3", "--json");
    expect(r.code, r.stderr).toBe(0);
    const row = JSON.parse(r.stdout.trim()) as Record<string, string>;
    expect(row.algo).toBe("range -> sais");
    expect(row.handOver).toMatch(/range handed over to sais/);
    const table = sufsort("bench", "--gen", "repeat:64KiB", "--algos", "range", "--threads", "2", "--runs", "3");
    expect(table.stdout).toMatch(/\| repeat-64KiB \| 65536 \| cpu \| range -> sais \| 2 \|/);
  });
});

describe("sufsort bench --floor", () => {
  it("times the GPU transfer floor beside the GPU sorters", () => {
    const r = sufsort("bench", "--gen", "text26:64KiB", "--algos", "gpu-spd", "--floor", "--gpu", "software", "--threads", "2", "--runs", "3", "--json");
    if (r.code !== 0 && process.env.CI !== "true" && /no software GPU available/.test(r.stderr)) return; // no software adapter here (CI must have one)
    expect(r.code, r.stderr).toBe(0);
    const rows = r.stdout.trim().split("\n").map((line) => JSON.parse(line) as Record<string, number | string>);
    expect(rows.map((row) => row.algo)).toEqual(["gpu-transfer", "gpu-spd"]);
    for (const row of rows) {
      expect(row.engine).toBe("gpu");
      expect(row.n).toBe(65536);
      expect(row.seconds as number).toBeGreaterThan(0);
    }
  });
});

describe("sufsort verify", () => {
  it("prints OK and exits 0 for a correct SA", () => {
    const dir = tmp();
    writeFileSync(join(dir, "t"), "banana");
    writeFileSync(join(dir, "t.sa"), Buffer.from(Uint32Array.of(5, 3, 1, 0, 4, 2).buffer));
    const r = sufsort("verify", join(dir, "t"), join(dir, "t.sa"));
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("OK\n");
  });

  it("exits 1 naming the first violation for a wrong SA", () => {
    const dir = tmp();
    writeFileSync(join(dir, "t"), "banana");
    writeFileSync(join(dir, "t.sa"), Buffer.from(Uint32Array.of(5, 3, 0, 1, 4, 2).buffer));
    const r = sufsort("verify", join(dir, "t"), join(dir, "t.sa"));
    expect(r.code).toBe(1);
    expectOneLineError(r.stderr, /out of order at SA\[2\] = 0, SA\[3\] = 1/);
  });

  it("checks by blocks on workers with --threads, with the same verdicts", () => {
    const dir = tmp();
    writeFileSync(join(dir, "t"), randomText(3_000_000, 4, 38));
    expect(sufsort("build", join(dir, "t"), "-o", join(dir, "t.sa")).code).toBe(0);
    for (const threads of ["1", "2"]) expect(sufsort("verify", join(dir, "t"), join(dir, "t.sa"), "--threads", threads).stdout).toBe("OK\n");
    const sa = new Uint32Array(new Uint8Array(readFileSync(join(dir, "t.sa"))).buffer);
    [sa[2_000_000], sa[2_000_001]] = [sa[2_000_001], sa[2_000_000]];
    writeFileSync(join(dir, "bad.sa"), sa);
    const one = sufsort("verify", join(dir, "t"), join(dir, "bad.sa"), "--threads", "1");
    const two = sufsort("verify", join(dir, "t"), join(dir, "bad.sa"), "--threads", "2");
    expect([one.code, two.code]).toEqual([1, 1]);
    expectOneLineError(two.stderr, /out of order at SA\[2000000\]/);
    expect(two.stderr).toBe(one.stderr);
  });

  it("exits 1 on an SA file of the wrong size", () => {
    const dir = tmp();
    writeFileSync(join(dir, "t"), "banana");
    writeFileSync(join(dir, "odd"), "12345");
    writeFileSync(join(dir, "short"), Buffer.from(Uint32Array.of(5, 3).buffer));
    expectOneLineError(sufsort("verify", join(dir, "t"), join(dir, "odd")).stderr, /not a whole number of uint32/);
    const r = sufsort("verify", join(dir, "t"), join(dir, "short"));
    expect(r.code).toBe(1);
    expectOneLineError(r.stderr, /SA has 2 entries; the text has 6 bytes/);
  });
});

describe("sufsort crosscheck", () => {
  it("compares every algorithm with SA-IS and exits 0 when all agree", () => {
    const dir = tmp();
    writeFileSync(join(dir, "t"), randomText(20000, 26, 5));
    // GPU algorithms run on the software adapter (Mesa llvmpipe); without one they are skipped, except in CI
    const r = sufsort("crosscheck", join(dir, "t"), "--gpu", "software", "--json");
    expect(r.code, r.stderr).toBe(0);
    const rows = r.stdout.trim().split("\n").map((l) => JSON.parse(l));
    expect(rows[0]).toMatchObject({ algo: "sais", equal: true });
    expect(rows.map((row) => row.algo)).toEqual(expect.arrayContaining(["range", "skew", "gpu-ls", "gpu-skew", "gpu-spd", "gpu-osipov"]));
    for (const row of rows) {
      if (row.skipped && process.env.CI !== "true") continue;
      expect(row.equal, `${row.algo}: ${row.note}`).toBe(true);
    }
  });
});
