// The team: the calling thread and the pool's workers run a CPU build's phases together, handed
// out through a board in shared memory instead of one piscina message per block. A phase is
// published by storing its blocks and raising `end`; every member (the caller included) claims
// blocks with a compare-and-swap on `claim` until none is left; the caller waits until `done`
// reaches `end`. Workers wait for the next phase spinning briefly, then on Atomics.wait. On the
// 2-core machine a phase of two empty piscina tasks cost 0.16-0.45 ms (more after idle spells);
// range runs 100-150 phases on some inputs.
import type { KernelArgs } from "./executor.js";

/** Board words: counters first, then one slot per block, then the blocks' results. */
const CLAIM = 0;
const END = 1;
const DONE = 2;
const WAKE = 3;
const STOP = 4;
const FAILED = 5;
const SPIN_US = 6;
const HEADER = 16;
/** Most blocks on the board at once (a larger phase goes in pieces) and most arguments of a block. */
export const TEAM_SLOTS = 1024;
export const TEAM_MAX_ARGS = 22;
const SLOT_WORDS = 2 + TEAM_MAX_ARGS; // kernel id, argument count, arguments
const RESULTS = HEADER + TEAM_SLOTS * SLOT_WORDS;
const MESSAGE = RESULTS + TEAM_SLOTS;
const MESSAGE_BYTES = 512;
const BOARD_BYTES = 4 * MESSAGE + MESSAGE_BYTES;

/** The task that makes a worker a member of the team until the team stops (workers/cpu.ts). */
export const TEAM_TASK = "(team)";

type KernelFn = (...args: number[]) => number | undefined;

/** The kernels' names in one order on every thread (the same module everywhere). */
export function kernelTable(kernels: object): { names: string[]; fns: KernelFn[] } {
  const entries = Object.entries(kernels)
    .filter(([, f]) => typeof f === "function")
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return { names: entries.map(([k]) => k), fns: entries.map(([, f]) => f as KernelFn) };
}

export function newBoard(): SharedArrayBuffer {
  return new SharedArrayBuffer(BOARD_BYTES);
}

/** Claims and runs blocks of the current phase until none is left. */
function work(board: Int32Array, fns: KernelFn[], names: string[]): void {
  const args: number[] = [];
  for (;;) {
    const c = Atomics.load(board, CLAIM);
    if (c >= Atomics.load(board, END)) return;
    if (Atomics.compareExchange(board, CLAIM, c, c + 1) !== c) continue;
    const slot = HEADER + (c % TEAM_SLOTS) * SLOT_WORDS;
    const id = board[slot];
    args.length = board[slot + 1];
    for (let i = 0; i < args.length; i++) args[i] = board[slot + 2 + i] >>> 0;
    try {
      const r = fns[id](...args);
      board[RESULTS + (c % TEAM_SLOTS)] = r === undefined ? 0 : r;
    } catch (e) {
      if (Atomics.compareExchange(board, FAILED, 0, 1) === 0) {
        const text = `${names[id]}: ${e instanceof Error ? e.message : String(e)}`;
        new Uint8Array(board.buffer, 4 * MESSAGE, MESSAGE_BYTES).set(new TextEncoder().encode(text).subarray(0, MESSAGE_BYTES - 1));
      }
    }
    Atomics.add(board, DONE, 1);
    Atomics.notify(board, DONE);
  }
}

/** A worker's part: runs phases until the caller stops the team. */
export function serve(buffer: SharedArrayBuffer, kernels: object): number {
  const board = new Int32Array(buffer);
  const { names, fns } = kernelTable(kernels);
  for (;;) {
    const seen = Atomics.load(board, WAKE);
    if (Atomics.load(board, STOP) !== 0) return 0;
    work(board, fns, names);
    const until = performance.now() + Atomics.load(board, SPIN_US) / 1000;
    while (Atomics.load(board, WAKE) === seen && performance.now() < until);
    Atomics.wait(board, WAKE, seen);
  }
}

/** The caller's side of the board. */
export class TeamBoard {
  readonly board: Int32Array;
  private readonly ids = new Map<string, number>();
  private readonly names: string[];
  private readonly fns: KernelFn[];
  constructor(readonly buffer: SharedArrayBuffer, kernels: object) {
    this.board = new Int32Array(buffer);
    ({ names: this.names, fns: this.fns } = kernelTable(kernels));
    this.names.forEach((k, i) => this.ids.set(k, i));
  }

  /** Whether the board can take blocks of this phase (at most TEAM_SLOTS at a time). */
  fits(kernel: string, calls: readonly KernelArgs[]): boolean {
    return this.ids.has(kernel) && calls.every((a) => a.length <= TEAM_MAX_ARGS);
  }

  /** Opens the board for workers that spin `spinUs` microseconds before they sleep. */
  open(spinUs: number): void {
    const b = this.board;
    Atomics.store(b, CLAIM, 0);
    Atomics.store(b, END, 0);
    Atomics.store(b, DONE, 0);
    Atomics.store(b, FAILED, 0);
    Atomics.store(b, SPIN_US, spinUs);
    Atomics.store(b, STOP, 0);
  }

  /** Runs one phase of at most TEAM_SLOTS blocks with whoever of the team is there; returns the blocks' u32 results in order. */
  map(kernel: string, calls: readonly KernelArgs[]): number[] {
    const b = this.board;
    const id = this.ids.get(kernel)!;
    const base = Atomics.load(b, END);
    calls.forEach((args, k) => {
      const slot = HEADER + ((base + k) % TEAM_SLOTS) * SLOT_WORDS;
      b[slot] = id;
      b[slot + 1] = args.length;
      for (let i = 0; i < args.length; i++) b[slot + 2 + i] = args[i] | 0;
    });
    const end = base + calls.length;
    Atomics.store(b, END, end);
    Atomics.add(b, WAKE, 1);
    Atomics.notify(b, WAKE);
    work(b, this.fns, this.names);
    for (let d = Atomics.load(b, DONE); d < end; d = Atomics.load(b, DONE)) Atomics.wait(b, DONE, d);
    if (Atomics.load(b, FAILED) !== 0) {
      const bytes = new Uint8Array(b.buffer, 4 * MESSAGE, MESSAGE_BYTES);
      const text = new TextDecoder().decode(bytes.slice(0, bytes.indexOf(0)));
      Atomics.store(b, FAILED, 0);
      bytes.fill(0);
      throw new Error(`sufsort: kernel ${text}`);
    }
    const results = new Array<number>(calls.length);
    for (let k = 0; k < calls.length; k++) results[k] = b[RESULTS + ((base + k) % TEAM_SLOTS)] >>> 0;
    return results;
  }

  /** Tells every worker to leave once it has seen the stop. */
  stop(): void {
    Atomics.store(this.board, STOP, 1);
    Atomics.add(this.board, WAKE, 1);
    Atomics.notify(this.board, WAKE);
  }
}
