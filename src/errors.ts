// Every error a user can see is a SufsortError: a one-line message and the exit code the CLI uses.

export const enum ExitCode {
  Ok = 0,
  /** The build or check failed (bad SA, unreadable input, I/O error, limit exceeded). */
  Failure = 1,
  /** The command line was wrong (unknown flag, missing argument, bad value). */
  Usage = 2,
  /** The reader of the standard output closed it early (sufsort search ... | head): the status of a
   * program ended by SIGPIPE (128 + 13), given quietly. */
  ClosedOutput = 141,
}

/** An error with a one-line, user-facing message and a CLI exit code. */
export class SufsortError extends Error {
  readonly exitCode: number;
  /** The input is larger than an algorithm or device accepts (benchmarks skip such rows). */
  readonly overLimit: boolean;
  constructor(message: string, exitCode: number = ExitCode.Failure, overLimit = false) {
    super(message);
    this.name = "SufsortError";
    this.exitCode = exitCode;
    this.overLimit = overLimit;
  }
}

export function usageError(message: string): SufsortError {
  return new SufsortError(message, ExitCode.Usage);
}

export function failure(message: string): SufsortError {
  return new SufsortError(message, ExitCode.Failure);
}

/** The input is over an algorithm's or a device's size limit. */
export function limitError(message: string): SufsortError {
  return new SufsortError(message, ExitCode.Failure, true);
}
