// File handling for the CLI: inputs are checked before any work and never modified; outputs are
// written to a temporary file beside the target and renamed into place, so a failed or interrupted
// run never leaves a partial output.
import { closeSync, fstatSync, openSync, readSync, renameSync, rmSync, statSync, writeSync, fsyncSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { randomBytes } from "node:crypto";
import { failure } from "../errors.js";
import { placeText, type PlacedText } from "../engine/build.js";
import type { SuffixSorter } from "../engine/registry.js";

/** Opens an input file for reading, with clear errors; returns its descriptor and size. */
export function openInput(path: string): { fd: number; size: number } {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch (e) {
    throw failure(`cannot read '${path}': ${reason(e)}`);
  }
  const st = fstatSync(fd);
  if (st.isDirectory()) {
    closeSync(fd);
    throw failure(`'${path}' is a directory, not a file`);
  }
  return { fd, size: st.size };
}

/** Reads exactly `into.length` bytes from fd at file offset `at` (in chunks: reads are capped at 2 GiB). */
export function readInto(fd: number, into: Uint8Array, path: string, at = 0): void {
  const CHUNK = 1 << 30;
  let off = 0;
  while (off < into.length) {
    const got = readSync(fd, into, off, Math.min(CHUNK, into.length - off), at + off);
    if (got === 0) throw failure(`'${path}' shrank while being read`);
    off += got;
  }
}

/** Reads a whole input file into a new buffer. */
export function readInput(path: string): Uint8Array {
  const { fd, size } = openInput(path);
  try {
    const buf = new Uint8Array(size);
    readInto(fd, buf, path);
    return buf;
  } finally {
    closeSync(fd);
  }
}

/**
 * Fails early (before a long build) when the output's folder does not exist or is not a folder, when
 * the output is a folder, or when it is one of the inputs (the rename would replace that input).
 */
export function checkOutputPath(path: string, inputs: string[] = []): void {
  const dir = dirname(path);
  let st;
  try {
    st = statSync(dir);
  } catch {
    throw failure(`output directory '${dir}' does not exist`);
  }
  if (!st.isDirectory()) throw failure(`output directory '${dir}' is not a directory`);
  let out;
  try {
    out = statSync(path);
  } catch {
    return; // a new file
  }
  if (out.isDirectory()) throw failure(`output '${path}' is a directory`);
  for (const input of inputs) {
    try {
      const st = statSync(input);
      if (st.dev === out.dev && st.ino === out.ino) throw failure(`output '${path}' is the input '${input}': choose another -o`);
    } catch (e) {
      if (e instanceof Error && e.name === "SufsortError") throw e;
    }
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

/**
 * Writes `parts` to `path` atomically: a temporary file in the same folder, fsync, rename.
 * On any error the temporary file is removed and the target is left as it was.
 */
export function writeFileAtomic(path: string, parts: Iterable<ArrayBufferView>): void {
  checkOutputPath(path);
  installSignalCleanup();
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`);
  pending.add(tmp);
  let fd: number | undefined;
  try {
    fd = openSync(tmp, "wx");
    for (const part of parts) {
      const bytes = new Uint8Array(part.buffer, part.byteOffset, part.byteLength);
      const CHUNK = 1 << 28;
      for (let off = 0; off < bytes.length; ) {
        off += writeSync(fd, bytes, off, Math.min(CHUNK, bytes.length - off));
      }
    }
    fsyncSync(fd);
    closeSync(fd);
    fd = undefined;
    renameSync(tmp, path);
  } catch (e) {
    if (fd !== undefined) closeSync(fd);
    rmSync(tmp, { force: true });
    if (e instanceof Error && e.name === "SufsortError") throw e;
    throw failure(`cannot write '${path}': ${reason(e)}`);
  } finally {
    pending.delete(tmp);
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

/**
 * Reads an input file straight into a fresh heap laid out for building its SA with `sorter` (so the
 * text is never copied); the caller closes the placed text's executor (closePlaced).
 */
export function placeInputFile(path: string, sorter: SuffixSorter, threads: number): PlacedText {
  const { fd, size } = openInput(path);
  try {
    const placed = placeText(size, sorter, threads);
    readInto(fd, placed.heap.u8(placed.textPtr, size), path);
    return placed;
  } finally {
    closeSync(fd);
  }
}
