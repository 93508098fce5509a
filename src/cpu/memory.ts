// The shared WebAssembly memory and its layout. The host owns the layout: a bump allocator hands out
// aligned regions; kernels receive pointers and lengths and never allocate (see ../shared NOTES).
import { readFileSync } from "node:fs";
import { totalmem } from "node:os";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { SufsortError, ExitCode } from "../errors.js";

export const PAGE_BYTES = 65536;
/** WebAssembly (32-bit) memories stop at 4 GiB: 65536 pages. */
export const MAX_PAGES = 65536;
export const MAX_HEAP_BYTES = MAX_PAGES * PAGE_BYTES;

let gc: (() => void) | undefined;

/**
 * Frees what the process dropped: two full garbage collections, each followed by a turn of the
 * event loop, in which V8 releases the memory of dropped SharedArrayBuffers. V8 does not count
 * SharedArrayBuffers (nor shared WebAssembly memories) as external memory when it decides to
 * collect, so a large path that allocated one after dropping another (the SA's build's kernel heap,
 * then Φ) held both: `lcp` of 900 MB peaked at 10.8 GB RSS against 8.0 with Φ in an ArrayBuffer.
 * The large paths call this before their big allocations; it took 185 ms to free 2 GB. (gc is
 * exposed at run time, as Jest does for its leak detection.)
 */
export async function collectGarbage(): Promise<void> {
  if (gc === undefined) {
    setFlagsFromString("--expose-gc");
    gc = runInNewContext("gc") as () => void;
  }
  for (let round = 0; round < 2; round++) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
}

/** Arrays in SharedArrayBuffers (zeroed), which workers can read: the large paths' text and SA. */
export function sharedU8(length: number): Uint8Array {
  return new Uint8Array(new SharedArrayBuffer(length));
}
export function sharedU32(length: number): Uint32Array {
  return new Uint32Array(new SharedArrayBuffer(4 * length));
}

/** array[from, to) = 0: a step of `prefault` (workers/plain.ts). */
export function zeroFill({ array, from, to }: { array: Int32Array; from: number; to: number }): void {
  array.fill(0, from, to);
}

/** array[i] = source[array[i]] for i in [from, to): a step of `gatherInPlace` (workers/plain.ts). */
export function gatherStep({ array, source, from, to }: { array: Int32Array; source: Int32Array; from: number; to: number }): void {
  for (let i = from; i < to; i++) array[i] = source[array[i]];
}

/** Bytes of a page as the kernel maps them (the unit a first touch pays for). */
const OS_PAGE_BYTES = 4096;

/**
 * Microseconds per 4 KiB page that touching `bytes` of the heap from `ptr` took: the first touch of
 * fresh memory, which the kernel maps then (a page fault each). It costs 15-17 µs a page on the
 * 2-core VM and 2.3-3.3 µs on an H200 machine's host, so a sorter that touches 25 bytes per input
 * byte pays for it on the VM as much as for its sorting. The region must be free (beyond heap.used);
 * zeros are written, which fresh memory holds already. SUFSORT_FIRST_TOUCH_MICROS, when set, is
 * returned instead (the user's word, and the tests'). 0 when the region holds too few pages to tell.
 */
export function firstTouchMicros(heap: SharedHeap, ptr: number, bytes: number): number {
  const setting = process.env.SUFSORT_FIRST_TOUCH_MICROS;
  const given = setting ? Number(setting) : NaN; // unset or empty: measure
  if (Number.isFinite(given) && given >= 0) return given;
  const start = Math.ceil(ptr / OS_PAGE_BYTES) * OS_PAGE_BYTES;
  const end = Math.min(ptr + bytes, heap.memory.buffer.byteLength);
  const pages = Math.floor((end - start) / OS_PAGE_BYTES);
  if (pages < 16) return 0;
  const view = new Uint8Array(heap.memory.buffer, start, pages * OS_PAGE_BYTES);
  const t0 = performance.now();
  for (let i = 0; i < view.length; i += OS_PAGE_BYTES) view[i] = 0;
  return ((performance.now() - t0) * 1000) / pages;
}

/** A copy of `bytes` in a SharedArrayBuffer, which workers can read. */
export function sharedCopy(bytes: Uint8Array): Uint8Array {
  const copy = sharedU8(bytes.length);
  copy.set(bytes);
  return copy;
}

/** A shared WebAssembly.Memory with a bump allocator over it. */
export class SharedHeap {
  readonly memory: WebAssembly.Memory;
  private top: number;

  /**
   * Creates a shared memory of at least `bytes` bytes (it grows on demand up to 4 GiB). refusal:
   * the message when the memory is not available (see checkAvailable), naming what it is for.
   */
  constructor(
    bytes = PAGE_BYTES,
    refusal = (need: string, left: string) => `out of memory: a shared WebAssembly memory needs ${need} more and ${left} are available`,
  ) {
    const pages = Math.max(1, Math.ceil(bytes / PAGE_BYTES));
    if (pages > MAX_PAGES) throw heapLimitError(bytes);
    checkAvailable(pages * PAGE_BYTES, refusal);
    try {
      this.memory = new WebAssembly.Memory({ initial: pages, maximum: MAX_PAGES, shared: true });
    } catch (error) {
      throw outOfMemory(`reserve ${pages * PAGE_BYTES} bytes of shared WebAssembly memory`, error);
    }
    this.top = 64; // keep address 0 unused so a null pointer never aliases data
  }

  /** Bytes currently reserved. */
  get used(): number {
    return this.top;
  }

  /** Reserves `bytes` bytes aligned to `align`, growing the memory if needed; returns the pointer. */
  alloc(bytes: number, align = 64): number {
    // (a size from 32-bit arithmetic that wrapped would overlap the next allocation)
    if (!(Number.isSafeInteger(bytes) && bytes >= 0)) throw new RangeError(`sufsort: a heap allocation of ${bytes} bytes`);
    const ptr = Math.ceil(this.top / align) * align;
    const end = ptr + bytes;
    if (!this.fits(bytes, align)) throw heapLimitError(end);
    const have = this.memory.buffer.byteLength;
    if (end > have) {
      checkAvailable(end - have, (need, left) => `out of memory: growing the shared WebAssembly memory to ${end} bytes needs ${need} more and ${left} are available`);
      try {
        this.memory.grow(Math.ceil((end - have) / PAGE_BYTES));
      } catch (error) {
        throw outOfMemory(`grow the shared WebAssembly memory to ${end} bytes`, error);
      }
    }
    this.top = end;
    return ptr;
  }

  /** Whether alloc(bytes, align) would stay within the 4 GiB limit. */
  fits(bytes: number, align = 64): boolean {
    return Math.ceil(this.top / align) * align + bytes <= MAX_HEAP_BYTES;
  }

  /** Releases everything reserved after `mark` (a value of `used`). */
  release(mark: number): void {
    this.top = mark;
  }

  u8(ptr: number, length: number): Uint8Array {
    return new Uint8Array(this.memory.buffer, ptr, length);
  }

  u32(ptr: number, length: number): Uint32Array {
    return new Uint32Array(this.memory.buffer, ptr, length);
  }

  i32(ptr: number, length: number): Int32Array {
    return new Int32Array(this.memory.buffer, ptr, length);
  }
}

/**
 * Bytes of memory this process may still use: process.availableMemory() (the machine's available
 * memory, which counts its file cache as free, or what a cgroup limit leaves), plus, under a cgroup
 * limit, the file cache charged to the cgroup, which the kernel reclaims before it kills anything
 * (libuv counts it as used: in a 700 MB cgroup that had read a 67 MB file and written a 268 MB one,
 * availableMemory() said 0 while 249 MB of it was file cache).
 */
export function availableMemory(): number {
  const available = process.availableMemory();
  const limit = process.constrainedMemory();
  if (!(limit > 0 && limit < totalmem())) return available;
  return available + cgroupFileCache();
}

/** File cache charged to this process's memory cgroup (v1 or v2); 0 when it cannot be read. */
function cgroupFileCache(): number {
  try {
    const lines = readFileSync("/proc/self/cgroup", "utf8").split("\n").map((l) => l.split(":"));
    // "4:memory:/a/b" (v1), else "0::/a/b" (v2)
    const v1 = lines.find((f) => f.length >= 3 && f[1]!.split(",").includes("memory"));
    const v2 = lines.find((f) => f.length >= 3 && f[0] === "0" && f[1] === "");
    const stat = v1 ? `/sys/fs/cgroup/memory${v1[2]}/memory.stat` : v2 ? `/sys/fs/cgroup${v2[2]}/memory.stat` : undefined;
    if (stat === undefined) return 0;
    const fields = new Map(readFileSync(stat, "utf8").split("\n").map((l) => l.split(" ") as [string, string]));
    const field = (name: string) => Number(fields.get(`total_${name}`) ?? fields.get(name) ?? 0) || 0;
    return field("inactive_file") + field("active_file");
  } catch {
    return 0;
  }
}

/**
 * Refuses memory this process may not have (availableMemory() above): the system would kill the
 * process once the pages are touched, with no message. The heap checks each growth; callers that
 * know a whole build's need check that first, with a message naming the build (engine/build.ts).
 */
export function checkAvailable(bytes: number, message: (need: string, available: string) => string): void {
  if (process.env.SUFSORT_MEMORY_CHECK === "0") return; // the user's word: swap, or memory soon freed
  const available = availableMemory();
  if (available > 0 && bytes > available) {
    throw new SufsortError(message(`${Math.ceil(bytes / 1e6)} MB`, `${Math.floor(available / 1e6)} MB`), ExitCode.Failure, true);
  }
}

/** The engine's RangeError when the system refuses memory (a memory limit, `ulimit -v`), on one line. */
function outOfMemory(what: string, error: unknown): SufsortError {
  const why = error instanceof Error ? error.message : String(error);
  return new SufsortError(`out of memory: could not ${what} (${why}); a shared memory reserves its whole 4 GiB range and guard regions in address space: check ulimit -v`, ExitCode.Failure);
}

function heapLimitError(bytes: number): SufsortError {
  return new SufsortError(
    `needs ${bytes} bytes of WebAssembly memory; the limit is 4 GiB`,
    ExitCode.Failure,
  );
}
