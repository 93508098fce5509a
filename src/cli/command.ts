// The shape of a CLI command. Each command lives in src/cli/commands/<name>.ts and is listed once
// in src/cli/commands/index.ts.
import { parseArgs } from "node:util";
import { usageError } from "../errors.js";
import { defaultThreads, MAX_THREADS } from "../cpu/executor.js";

export interface OptionSpec {
  type: "string" | "boolean";
  short?: string;
  multiple?: boolean;
}

export interface Parsed {
  values: Record<string, string | boolean | string[] | undefined>;
  positionals: string[];
}

export interface Command {
  name: string;
  /** One line for the command list. */
  summary: string;
  /** The full --help text. */
  help: string;
  options: Record<string, OptionSpec>;
  /** Allowed number of positional arguments. */
  positionals: { min: number; max: number; names: string };
  run(args: Parsed): Promise<number>;
}

/** Parses argv for a command: unknown flags, missing values and wrong argument counts are usage errors. */
export function parseCommandArgs(command: Command, argv: string[]): Parsed {
  let parsed: Parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: { ...command.options, help: { type: "boolean", short: "h" } },
      allowPositionals: true,
      strict: true,
    }) as Parsed;
  } catch (e) {
    throw usageError(`${command.name}: ${firstLine((e as Error).message)} (see 'sufsort ${command.name} --help')`);
  }
  if (parsed.values.help) return parsed;
  const n = parsed.positionals.length;
  if (n < command.positionals.min) {
    throw usageError(`${command.name}: missing ${command.positionals.names} (see 'sufsort ${command.name} --help')`);
  }
  if (n > command.positionals.max) {
    throw usageError(`${command.name}: unexpected argument '${parsed.positionals[command.positionals.max]}' (see 'sufsort ${command.name} --help')`);
  }
  return parsed;
}

/** A string option's value, or undefined. */
export function stringOption(p: Parsed, name: string): string | undefined {
  const v = p.values[name];
  return typeof v === "string" ? v : undefined;
}

/** A positive integer option (e.g. --runs), or the fallback. */
export function intOption(p: Parsed, name: string, fallback: number, min = 1, max = Number.MAX_SAFE_INTEGER): number {
  const v = stringOption(p, name);
  if (v === undefined) return fallback;
  if (!/^\d+$/.test(v) || Number(v) < min || Number(v) > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `>= ${min}` : `from ${min} to ${max}`;
    throw usageError(`--${name} must be an integer ${range} (got '${v}')`);
  }
  return Number(v);
}

/** --threads: 1 to MAX_THREADS; by default every core, capped at MAX_THREADS (a machine of more
 * cores than that must still run without the option). */
export function threadsOption(p: Parsed): number {
  return intOption(p, "threads", defaultThreads(), 1, MAX_THREADS);
}

/** parseArgs' message on one line. A value starting with a dash is taken for an option: say how to
 * give one. */
function firstLine(s: string): string {
  const dashed = /use '(--[^=']+)=-XYZ'/.exec(s);
  if (dashed) return `option '${dashed[1]}' needs a value; one that starts with a dash is given as '${dashed[1]}=-VALUE'`;
  return s.split("\n")[0].replace(/\. To specify a positional argument.*$/, " (an argument that starts with '-' goes after '--')");
}
