// A progress line on stderr, shown only when stderr is a terminal and the work takes a while.
const SHOW_AFTER_MS = 500;
const WIDTH = 30;

export class Progress {
  private readonly enabled: boolean;
  private readonly start = performance.now();
  private drawn = false;

  constructor(private readonly label: string, enabled = process.stderr.isTTY === true) {
    this.enabled = enabled;
  }

  update(phase: string, fraction: number): void {
    if (!this.enabled) return;
    const elapsed = performance.now() - this.start;
    if (elapsed < SHOW_AFTER_MS && fraction < 1) return;
    const done = Math.round(Math.max(0, Math.min(1, fraction)) * WIDTH);
    const bar = "#".repeat(done) + "-".repeat(WIDTH - done);
    process.stderr.write(`\r${this.label} [${bar}] ${phase.padEnd(10)} ${(elapsed / 1000).toFixed(1)}s`);
    this.drawn = true;
  }

  done(): void {
    if (this.drawn) process.stderr.write("\r\x1b[K");
    this.drawn = false;
  }
}
