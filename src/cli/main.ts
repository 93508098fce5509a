#!/usr/bin/env node
// sufsort command line: dispatches to src/cli/commands; every failure is one line on stderr and an
// exit code (2: usage, 1: failure), never a stack trace (set SUFSORT_DEBUG=1 to see one).
import { readFileSync } from "node:fs";
import { packagePath } from "../paths.js";
import { commands } from "./commands/index.js";
import { parseCommandArgs } from "./command.js";
import { ExitCode, SufsortError } from "../errors.js";

const USAGE = `Usage: sufsort COMMAND [ARGS...]

Commands:
${commands.map((c) => `  ${c.name.padEnd(12)} ${c.summary}`).join("\n")}

'sufsort COMMAND --help' describes a command.`;

// Writes to a closed pipe fail with EPIPE (Node ignores SIGPIPE): stop quietly, as a program ended
// by SIGPIPE would, instead of an unhandled stream error and its stack trace.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (e: NodeJS.ErrnoException) => {
    if (e.code !== "EPIPE" && stream === process.stdout) process.stderr.write(`sufsort: cannot write the standard output: ${e.code ?? e.message}\n`);
    process.exit(e.code === "EPIPE" ? ExitCode.ClosedOutput : ExitCode.Failure);
  });
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === "--help" || name === "-h" || name === "help") {
    process.stdout.write(USAGE + "\n");
    return name === undefined ? ExitCode.Usage : ExitCode.Ok;
  }
  if (name === "--version" || name === "-V") {
    const pkg = JSON.parse(readFileSync(packagePath("package.json"), "utf8")) as { version: string };
    process.stdout.write(pkg.version + "\n");
    return ExitCode.Ok;
  }
  const command = commands.find((c) => c.name === name);
  if (command === undefined) throw new SufsortError(`unknown command '${name}' (see 'sufsort --help')`, ExitCode.Usage);
  const args = parseCommandArgs(command, rest);
  if (args.values.help) {
    process.stdout.write(command.help + "\n");
    return ExitCode.Ok;
  }
  return command.run(args);
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    if (e instanceof SufsortError) {
      process.stderr.write(`sufsort: ${e.message}\n`);
      process.exitCode = e.exitCode;
    } else {
      const err = e as Error;
      process.stderr.write(`sufsort: internal error: ${err?.message ?? String(e)}\n`);
      if (process.env.SUFSORT_DEBUG) process.stderr.write(`${err?.stack}\n`);
      process.exitCode = ExitCode.Failure;
    }
  },
);
