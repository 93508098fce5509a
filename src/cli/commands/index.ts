// Every CLI command, in the order `sufsort --help` lists them.
import type { Command } from "../command.js";
import { buildCommand } from "./build.js";
import { verifyCommand } from "./verify.js";
import { benchCommand } from "./bench.js";
import { algorithmsCommand } from "./algorithms.js";

export const commands: Command[] = [buildCommand, verifyCommand, benchCommand, algorithmsCommand];
