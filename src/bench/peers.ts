// Peers timed in the same run as sufsort. libdivsufsort 2.0.1 comes from Debian's libdivsufsort-dev;
// our C driver (bench/peers/divsufsort.c) is compiled on first use.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, statSync, writeFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { failure } from "../errors.js";
import { packagePath } from "../paths.js";
import type { BenchInput } from "./inputs.js";

export interface PeerTiming {
  peer: string;
  seconds: number[];
}

/** The compiled peer driver (bench/peers/divsufsort.c), compiled first when missing or older than its source. */
export function divsufsortDriver(): string {
  const src = packagePath("bench", "peers", "divsufsort.c");
  if (!existsSync(src)) throw failure(`peer driver source missing: ${src}`);
  for (const dir of [packagePath("bench", "peers", "build"), join(tmpdir(), "sufsort-peers")]) {
    const bin = join(dir, "divsufsort-driver");
    if (existsSync(bin) && statSync(bin).mtimeMs >= statSync(src).mtimeMs) return bin;
    try {
      mkdirSync(dir, { recursive: true });
    } catch {
      continue;
    }
    const cc = spawnSync("cc", ["-O3", "-o", bin, src, "-ldivsufsort"], { encoding: "utf8" });
    if (cc.status === 0) return bin;
    if (/divsufsort\.h|ldivsufsort/.test(cc.stderr ?? "")) {
      throw failure("libdivsufsort is not installed (Debian: apt-get install libdivsufsort-dev)");
    }
    if (cc.error) throw failure(`cannot compile the divsufsort driver: ${cc.error.message} (is a C compiler installed?)`);
  }
  throw failure("cannot compile the divsufsort driver (see bench/peers/divsufsort.c)");
}

/** libdivsufsort ready to time on one input: the input goes to a temporary file once (when it
 * has no file of its own) for all the timings, until close(). */
export interface DivsufsortPeer {
  /** Times libdivsufsort on the input `runs` times in a child process (construction only). */
  time(runs: number): PeerTiming;
  close(): void;
}

export function openDivsufsort(input: BenchInput): DivsufsortPeer {
  const bin = divsufsortDriver();
  let tmp: string | undefined;
  if (input.path === undefined) {
    tmp = join(tmpdir(), `sufsort-bench-${process.pid}-${input.name}`);
    writeFileSync(tmp, input.bytes);
  }
  const path = input.path ?? tmp!;
  return {
    time(runs: number): PeerTiming {
      const r = spawnSync(bin, [path, String(runs)], { encoding: "utf8", maxBuffer: 1 << 20 });
      if (r.status !== 0) throw failure(`divsufsort driver failed on ${input.name}: ${(r.stderr || "").trim().split("\n")[0]}`);
      const parsed = JSON.parse(r.stdout) as { n: number; seconds: number[] };
      return { peer: "divsufsort", seconds: parsed.seconds };
    },
    close(): void {
      if (tmp) rmSync(tmp, { force: true });
    },
  };
}
