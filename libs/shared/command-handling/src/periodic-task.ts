/**
 * A background job run every `intervalMs` (the sweepers): at most one run at a time per
 * process, a run asked for while one is in progress joins it, and `stop` waits for the run in
 * progress so a shutdown never cuts a transaction off. Hand-written rather than
 * `@nestjs/schedule`: its intervals neither skip overlapping runs nor wait for them on shutdown,
 * which is the whole point here, and the sweepers' tests drive runs without a Nest app.
 */
export class PeriodicTask<Result> {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<Result> | null = null;

  constructor(
    private readonly run: () => Promise<Result>,
    private readonly onError: (error: unknown) => void,
  ) {}

  start(intervalMs: number): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.runNow().catch(this.onError), intervalMs);
    // The app's servers and consumers keep the process alive, not this timer.
    this.timer.unref();
  }

  /** Runs now, or joins the run in progress. */
  runNow(): Promise<Result> {
    this.running ??= this.run().finally(() => (this.running = null));
    return this.running;
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running?.catch(() => undefined);
  }
}
