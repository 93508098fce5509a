// Buffer pool keyed by (size class, usage). A released buffer waits until the submit that used it
// has been queued; after that any later submit may reuse it (the queue runs submits in order).
// Sizes are rounded up to a size class so that slightly different lengths share buffers.

/** Usage of every storage buffer the primitives allocate: bind, copy both ways, clear. */
export const STORAGE_USAGE = 0x80 /* STORAGE */ | 0x4 /* COPY_SRC */ | 0x8; /* COPY_DST */
export const UNIFORM_USAGE = 0x40 /* UNIFORM */ | 0x8; /* COPY_DST */

const MIN_BYTES = 256;

/**
 * Rounds to a size class: powers of two up to 1 MiB, then multiples of 1/8 of the power of two,
 * and of 1/64 above 1 GiB, so that the largest class within a 2 GiB - 4 binding holds 504 MiB of
 * u32 (with 1/8 steps it held 448 MiB).
 */
export function sizeClass(bytes: number): number {
  const b = Math.max(MIN_BYTES, bytes);
  const pow = 2 ** Math.ceil(Math.log2(b));
  if (pow <= 1 << 20) return pow;
  const step = pow / (pow > 2 ** 30 ? 64 : 8);
  return Math.ceil(b / step) * step;
}

export class BufferPool {
  private readonly free = new Map<string, GPUBuffer[]>();
  /** Released since the last submit: reusable once that submit is queued. */
  private pending: GPUBuffer[] = [];
  /** Every buffer the pool created, with its lane. */
  private readonly owned = new Map<GPUBuffer, string>();
  /** Creation order of the pool's buffers (see canonicalize). */
  private readonly serials = new Map<GPUBuffer, number>();
  private created = 0;
  /** Bytes of all buffers the pool has created and not destroyed (tests assert on it). */
  allocatedBytes = 0;
  /** Bytes currently handed out (acquired and not released). */
  inUseBytes = 0;

  constructor(private readonly device: GPUDevice) {}

  /**
   * A buffer of at least `bytes`. Buffers acquired with a `lane` are recycled only within it: a
   * primitive that takes many small buffers per batch (scan tile states) then gets the same ones
   * in the same order each time, whatever else takes buffers of that size in between.
   */
  acquire(bytes: number, usage: number = STORAGE_USAGE, label = "pooled", lane = ""): GPUBuffer {
    return this.take(sizeClass(bytes), usage, label, lane);
  }

  /**
   * A storage buffer of `bytes` rounded up to 256 only, in a lane of its own: for arrays larger than
   * one binding (bound in windows), which a size class would round up by as much as 64 MiB. Pooled
   * like the rest: at 512 MiB of text a new 2 GiB SA buffer per build cost gpu-spd ~12%.
   */
  acquireExact(bytes: number, label = "pooled (exact)"): GPUBuffer {
    return this.take(Math.ceil(Math.max(MIN_BYTES, bytes) / 256) * 256, STORAGE_USAGE, label, "exact");
  }

  private take(size: number, usage: number, label: string, lane: string): GPUBuffer {
    const list = this.free.get(key(size, usage, lane));
    let buffer = list?.pop();
    if (!buffer) {
      buffer = this.device.createBuffer({ size, usage, label });
      this.owned.set(buffer, lane);
      this.serials.set(buffer, this.created++);
      this.allocatedBytes += size;
    }
    this.inUseBytes += size;
    return buffer;
  }

  /** Gives a buffer back; it is recycled after the next submit (see afterSubmit). */
  release(buffer: GPUBuffer): void {
    if (!this.owned.has(buffer)) throw new Error("sufsort: released a buffer the pool does not own");
    this.inUseBytes -= buffer.size;
    this.pending.push(buffer);
  }

  /**
   * Called by the submitter once the command buffers that used pending buffers are queued. They go
   * back in reverse, so that a batch that repeats an earlier one's acquisitions gets the same
   * buffers in the same order, and finds the bind groups kept for them (kernels.ts).
   */
  afterSubmit(): void {
    for (const buffer of this.pending.reverse()) {
      const k = key(buffer.size, buffer.usage, this.owned.get(buffer) ?? "");
      let list = this.free.get(k);
      if (!list) this.free.set(k, (list = []));
      list.push(buffer);
    }
    this.pending = [];
  }

  /**
   * Puts the idle buffers back in creation order, so that the next build that repeats the last
   * one's acquisitions gets the same buffer in each role, and with them the bind groups kept for
   * them (kernels.ts). Without it, the buffers a build holds to its end come back in another order
   * than they were taken, and builds cycled through four assignments: the second to fifth builds
   * of an input each created 31-127 bind groups (1.2-6.8 ms on the H100 host), the sixth none.
   * Called between builds (buildPlaced).
   */
  canonicalize(): void {
    const serial = (buffer: GPUBuffer) => this.serials.get(buffer) ?? 0;
    for (const list of this.free.values()) list.sort((a, b) => serial(b) - serial(a)); // pop() takes the oldest
  }

  /** Destroys the idle buffers (keeps those in use). */
  trim(): void {
    for (const list of this.free.values()) {
      for (const buffer of list) this.destroyOne(buffer);
    }
    this.free.clear();
  }

  destroyAll(): void {
    for (const buffer of [...this.owned.keys()]) this.destroyOne(buffer);
    this.free.clear();
    this.pending = [];
    this.inUseBytes = 0;
  }

  private destroyOne(buffer: GPUBuffer): void {
    if (!this.owned.delete(buffer)) return;
    this.serials.delete(buffer);
    this.allocatedBytes -= buffer.size;
    buffer.destroy();
  }
}

function key(size: number, usage: number, lane: string): string {
  return `${size}:${usage}:${lane}`;
}
