// sufsort algorithms: the registry, as a table.
import type { Command } from "../command.js";
import { listSorters } from "../../engine/registry.js";
import "../../cpu/algorithms/index.js";

export const algorithmsCommand: Command = {
  name: "algorithms",
  summary: "list the suffix-array algorithms",
  help: `Usage: sufsort algorithms

Lists every algorithm --algo accepts, with its engine and input limit.`,
  options: {},
  positionals: { min: 0, max: 0, names: "" },
  async run() {
    for (const s of listSorters()) {
      process.stdout.write(`${s.name.padEnd(13)} ${s.engine.padEnd(6)} max ${s.maxLength} bytes  ${s.description}\n`);
    }
    return 0;
  },
};
