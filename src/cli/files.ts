// File handling for the CLI: inputs are checked before any work and never modified (pipes and
// devices are read to their end first); outputs are written to a temporary file beside the target
// and renamed into place, so a failed or interrupted run never leaves a partial output (the standard
// output, devices and FIFOs are written in place).
import { accessSync, closeSync, constants, fstatSync, openSync, readSync, realpathSync, renameSync, rmSync, statSync, writeSync, fsyncSync, type Stats } from "node:fs";
import { basename, dirname, join } from "node:path";
import { randomBytes } from "node:crypto";
import { ExitCode, failure, usageError, type SufsortError } from "../errors.js";

/** The most bytes read from a pipe or device: one buffer's worth (an SA file of a 1 GiB text). */
const STREAM_MOST = 2 ** 32 - 1;
/** For sleeps of a millisecond while a pipe is not ready (Atomics.wait on a word nobody writes). */
const pause = new Int32Array(new SharedArrayBuffer(4));

/**
 * An input opened for reading. A regular file is read in place, at any offset; a pipe, a device or
 * a file that reports no size (/proc) is read to its end when opened, since every command needs
 * the size before it reads.
 */
export interface InputFile {
  readonly size: number;
  /** Fills `into` with the bytes from offset `at`. */
  read(into: Uint8Array, at?: number): void;
  close(): void;
}

/** Names of the standard input: "-", and /dev/stdin, which cannot be opened where it is a socket
 * (a Node parent's pipe). */
const isStdin = (path: string) => path === "-" || path === "/dev/stdin";

/** The path's status, or undefined where it cannot be had (missing, unreadable folder...). */
function statIfAny(path: string): Stats | undefined {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}

/** The error for a directory named where a file is read. */
function directoryFailure(path: string): SufsortError {
  return failure(`'${path}' is a directory, not a file`);
}

/** Opens an input for reading, with clear errors; a stream longer than `most` bytes is refused. */
export function openInput(path: string, most = STREAM_MOST): InputFile {
  let fd: number;
  try {
    fd = isStdin(path) ? 0 : openSync(path, "r");
  } catch (e) {
    throw failure(`cannot read '${path}': ${reason(e)}`);
  }
  const release = (fd: number) => {
    if (fd !== 0) closeSync(fd);
  };
  try {
    const st = fstatSync(fd);
    if (st.isDirectory()) throw directoryFailure(path);
    // the standard input is read from where it stands (a shell may have read part of it already)
    if (st.isFile() && st.size > 0 && fd !== 0) {
      return { size: st.size, read: (into, at = 0) => readInto(fd, into, path, at), close: () => release(fd) };
    }
    const bytes = readToEnd(fd, path, most);
    release(fd);
    return {
      size: bytes.length,
      read(into, at = 0) {
        if (at + into.length > bytes.length) throw failure(`'${path}': read past its end (internal error)`);
        into.set(bytes.subarray(at, at + into.length));
      },
      close() {},
    };
  } catch (e) {
    release(fd);
    throw e;
  }
}

/** Reads a stream to its end into one buffer, doubling it as it fills. */
function readToEnd(fd: number, path: string, most: number): Uint8Array {
  let buf = new Uint8Array(1 << 16);
  let length = 0;
  for (;;) {
    if (length === buf.length) {
      if (length > most) throw failure(`'${path}' is a stream of more than ${most} bytes, the most sufsort reads from a pipe or device`);
      const grown = new Uint8Array(Math.min(2 * buf.length, most + 1));
      grown.set(buf);
      buf = grown;
    }
    let got: number;
    try {
      got = readSync(fd, buf, length, Math.min(buf.length - length, 1 << 30), null);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "EAGAIN") {
        Atomics.wait(pause, 0, 0, 1); // a non-blocking descriptor with nothing yet
        continue;
      }
      throw failure(`cannot read '${path}': ${reason(e)}`);
    }
    if (got === 0) return buf.subarray(0, length);
    length += got;
  }
}

/** The checks of openInput without opening: a command that reads its inputs later (bench) fails
 * before it starts on one that cannot be read. */
export function checkInput(path: string): void {
  if (isStdin(path)) return;
  try {
    accessSync(path, constants.R_OK);
  } catch (e) {
    throw failure(`cannot read '${path}': ${reason(e)}`);
  }
  if (statSync(path).isDirectory()) throw directoryFailure(path);
}

/** Reads exactly `into.length` bytes from fd at file offset `at` (in chunks: reads are capped at 2 GiB). */
function readInto(fd: number, into: Uint8Array, path: string, at = 0): void {
  const CHUNK = 1 << 30;
  let off = 0;
  while (off < into.length) {
    const got = readSync(fd, into, off, Math.min(CHUNK, into.length - off), at + off);
    if (got === 0) throw failure(`'${path}' shrank while being read`);
    off += got;
  }
}

/** Reads a whole input into a new buffer. */
export function readInput(path: string, most?: number): Uint8Array {
  const input = openInput(path, most);
  try {
    const buf = new Uint8Array(input.size);
    input.read(buf);
    return buf;
  } finally {
    input.close();
  }
}

/**
 * The default output of a command: the input's name with `suffix` (replacing `replaced` where the
 * name ends with it). A pipe or device has no name to add to (/dev/stdin.sa would be a file in
 * /dev): the output must be named with -o.
 */
export function defaultOutput(input: string, suffix: string, replaced = ""): string {
  let regular = !isStdin(input);
  // A missing input (no status) fails with its own message when it is opened.
  const st = regular ? statIfAny(input) : undefined;
  if (st?.isDirectory()) throw directoryFailure(input);
  if (st) regular = st.isFile();
  if (!regular) throw usageError(`'${input}' is not a regular file: name the output with -o`);
  const stem = replaced !== "" && input.endsWith(replaced) ? input.slice(0, -replaced.length) : input;
  return `${stem}${suffix}`;
}

/**
 * Fails early (before a long build) when the output's folder does not exist or is not a folder, when
 * the output is a folder, or when it is one of the inputs (the rename would replace that input).
 */
export function checkOutputPath(path: string, inputs: string[] = []): void {
  if (path === "-") return;
  const dir = dirname(path);
  const st = statIfAny(dir);
  if (!st) throw failure(`output directory '${dir}' does not exist`);
  if (!st.isDirectory()) throw failure(`output directory '${dir}' is not a directory`);
  const out = statIfAny(path);
  if (!out) return; // a new file
  if (out.isDirectory()) throw failure(`output '${path}' is a directory`);
  for (const input of inputs) {
    const inp = statIfAny(input);
    if (inp && inp.dev === out.dev && inp.ino === out.ino) throw failure(`output '${path}' is the input '${input}': choose another -o`);
  }
}

const pending = new Set<string>();
let handlersInstalled = false;

/** Removes unfinished temporary outputs when the process is interrupted. */
function installSignalCleanup(): void {
  if (handlersInstalled) return;
  handlersInstalled = true;
  for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    process.once(sig, () => {
      for (const p of pending) rmSync(p, { force: true });
      process.exit(128 + (sig === "SIGINT" ? 2 : sig === "SIGTERM" ? 15 : 1));
    });
  }
}

/** Writes all of `parts` to fd (a pipe may take less per call, or be non-blocking). */
function writeAll(fd: number, parts: Iterable<ArrayBufferView>): void {
  const CHUNK = 1 << 28;
  for (const part of parts) {
    // a view per chunk: a byte view of a whole SA of 2^31 - 1 entries (8 GiB) is over V8's
    // typed-array length limit (2^32)
    for (let off = 0; off < part.byteLength; ) {
      const bytes = new Uint8Array(part.buffer, part.byteOffset + off, Math.min(CHUNK, part.byteLength - off));
      try {
        off += writeSync(fd, bytes);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== "EAGAIN") throw e;
        Atomics.wait(pause, 0, 0, 1); // a full non-blocking pipe: let the reader catch up
      }
    }
  }
}

/**
 * Writes `parts` to `path` atomically: a temporary file beside the file that `path` names (through
 * links), fsync, rename; on any error the temporary file is removed and the target is left as it
 * was. "-" is the standard output, and an existing device or pipe (/dev/null, a FIFO) is written in
 * place: there is nothing to rename over, and a rename would replace the device's name.
 */
export function writeFileAtomic(path: string, parts: Iterable<ArrayBufferView>): void {
  if (path === "-") return writeInPlace(1, path, parts);
  checkOutputPath(path);
  let target = path;
  try {
    if (!statSync(path).isFile()) return writeInPlace(undefined, path, parts);
    target = realpathSync(path);
  } catch (e) {
    if (e instanceof Error && e.name === "SufsortError") throw e;
    // a new file
  }
  installSignalCleanup();
  const tmp = join(dirname(target), `.${basename(target)}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`);
  pending.add(tmp);
  let fd: number | undefined;
  try {
    try {
      fd = openSync(tmp, "wx");
    } catch (e) {
      // e.g. /proc, where a file exists but none can be created: name the step that failed
      throw failure(`cannot write '${path}': cannot create a temporary file in '${dirname(target)}' (${reason(e)})`);
    }
    writeAll(fd, parts);
    fsyncSync(fd);
    closeSync(fd);
    fd = undefined;
    renameSync(tmp, target);
  } catch (e) {
    if (fd !== undefined) closeSync(fd);
    rmSync(tmp, { force: true });
    if (e instanceof Error && e.name === "SufsortError") throw e;
    throw failure(`cannot write '${path}': ${reason(e)}`);
  } finally {
    pending.delete(tmp);
  }
}

/** Writes to the standard output (fd 1) or to an existing device or pipe opened at `path`. */
function writeInPlace(fd: number | undefined, path: string, parts: Iterable<ArrayBufferView>): void {
  const name = path === "-" ? "the standard output" : `'${path}'`;
  let opened: number | undefined;
  try {
    if (fd === undefined) fd = opened = openSync(path, "w");
    writeAll(fd, parts);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "EPIPE") {
      if (fd === 1) process.exit(ExitCode.ClosedOutput); // as main.ts does for process.stdout
      throw failure(`cannot write ${name}: its reader closed it`);
    }
    throw failure(`cannot write ${name}: ${reason(e)}`);
  } finally {
    if (opened !== undefined) closeSync(opened);
  }
}

function reason(e: unknown): string {
  const err = e as NodeJS.ErrnoException;
  switch (err.code) {
    case "ENOENT":
      return "no such file";
    case "EACCES":
    case "EPERM":
      return "permission denied";
    case "EISDIR":
      return "is a directory";
    case "ENOSPC":
      return "no space left on device";
    default:
      return err.code ?? String(err.message ?? e);
  }
}
