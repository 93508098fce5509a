// The shared WebAssembly memory and its layout. The host owns the layout: a bump allocator hands out
// aligned regions; kernels receive pointers and lengths and never allocate (see ../shared NOTES).
import { SufsortError, ExitCode } from "../errors.js";

export const PAGE_BYTES = 65536;
/** WebAssembly (32-bit) memories stop at 4 GiB: 65536 pages. */
export const MAX_PAGES = 65536;
export const MAX_HEAP_BYTES = MAX_PAGES * PAGE_BYTES;

/** A shared WebAssembly.Memory with a bump allocator over it. */
export class SharedHeap {
  readonly memory: WebAssembly.Memory;
  private top: number;

  /** Creates a shared memory of at least `bytes` bytes (it grows on demand up to 4 GiB). */
  constructor(bytes = PAGE_BYTES) {
    const pages = Math.max(1, Math.ceil(bytes / PAGE_BYTES));
    if (pages > MAX_PAGES) throw heapLimitError(bytes);
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
    const ptr = Math.ceil(this.top / align) * align;
    const end = ptr + bytes;
    if (!this.fits(bytes, align)) throw heapLimitError(end);
    const have = this.memory.buffer.byteLength;
    if (end > have) {
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
