// Every CLI command, in the order `sufsort --help` lists them.
import type { Command } from "../command.js";
import { buildCommand } from "./build.js";
import { verifyCommand } from "./verify.js";
import { bwtCommand } from "./bwt.js";
import { unbwtCommand } from "./unbwt.js";
import { lcpCommand } from "./lcp.js";
import { indexCommand } from "./fmindex.js";
import { searchCommand } from "./search.js";
import { benchCommand } from "./bench.js";
import { crosscheckCommand } from "./crosscheck.js";
import { benchGpuCommand } from "./bench-gpu.js";
import { algorithmsCommand } from "./algorithms.js";

export const commands: Command[] = [
  buildCommand,
  verifyCommand,
  bwtCommand,
  unbwtCommand,
  lcpCommand,
  indexCommand,
  searchCommand,
  benchCommand,
  benchGpuCommand,
  crosscheckCommand,
  algorithmsCommand,
];
