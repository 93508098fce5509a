// A progress line on stderr, shown only when stderr is a terminal and the work takes a while. It
// redraws itself a few times a second while the main thread is free (SA-IS's kernel and the GPU's
// waits leave it free; range and skew run their phases on it too, so their line moves at each
// reported fraction): phases that report no fraction show a moving marker and the elapsed time.
const SHOW_AFTER_MS = 500;
const REDRAW_MS = 200;
const WIDTH = 30;

export class Progress {
  private readonly enabled: boolean;
  private readonly start = performance.now();
  private drawn = false;
  private phase = "";
  private fraction = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly label: string, enabled = process.stderr.isTTY === true) {
    this.enabled = enabled;
  }

  /** Enters `phase` with `fraction` done (0 at its start: the bar then shows motion, not a fraction). */
  update(phase: string, fraction: number): void {
    if (!this.enabled) return;
    this.phase = phase;
    this.fraction = Math.max(0, Math.min(1, fraction));
    if (this.timer === undefined) {
      this.timer = setInterval(() => this.draw(), REDRAW_MS);
      this.timer.unref();
    }
    this.draw();
  }

  done(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    if (this.drawn) process.stderr.write("\r\x1b[K");
    this.drawn = false;
  }

  private draw(): void {
    const elapsed = performance.now() - this.start;
    if (elapsed < SHOW_AFTER_MS && this.fraction < 1) return;
    let bar: string;
    if (this.fraction > 0) {
      const done = Math.round(this.fraction * WIDTH);
      bar = "#".repeat(done) + "-".repeat(WIDTH - done);
    } else {
      const at = Math.floor(elapsed / REDRAW_MS) % (2 * WIDTH - 6);
      const pos = at < WIDTH - 3 ? at : 2 * WIDTH - 6 - at;
      bar = "-".repeat(pos) + "###" + "-".repeat(WIDTH - 3 - pos);
    }
    process.stderr.write(`\r${this.label} [${bar}] ${this.phase.padEnd(10)} ${(elapsed / 1000).toFixed(1)}s`);
    this.drawn = true;
  }
}
