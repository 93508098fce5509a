// Every error a user can see is a SufsortError: a one-line message and the exit code the CLI uses.

export const enum ExitCode {
  Ok = 0,
  /** The build or check failed (bad SA, unreadable input, I/O error, limit exceeded). */
  Failure = 1,
  /** The command line was wrong (unknown flag, missing argument, bad value). */
  Usage = 2,
}

/** An error with a one-line, user-facing message and a CLI exit code. */
export class SufsortError extends Error {
  readonly exitCode: number;
  constructor(message: string, exitCode: number = ExitCode.Failure) {
    super(message);
    this.name = "SufsortError";
    this.exitCode = exitCode;
  }
}

export function usageError(message: string): SufsortError {
  return new SufsortError(message, ExitCode.Usage);
}

export function failure(message: string): SufsortError {
  return new SufsortError(message, ExitCode.Failure);
}
