/**
 * A poll loop: one round, a wait of the poll interval, the next round, until stopped. `wake()` ends the current
 * wait early (a caller that wants fresh data now); `stop()` ends the wait at once and resolves after the round in
 * progress. The round handles its own errors: the loop never backs off (that is the step loop, step-loop.ts).
 */
export class PollLoop {
  private state: "new" | "running" | "stopped" = "new";
  private done: Promise<void> | undefined;
  private endWait: (() => void) | undefined;

  constructor(
    private readonly round: () => Promise<void>,
    private readonly intervalMs: number,
  ) {}

  /** True between start() and stop(). */
  get active(): boolean {
    return this.state === "running";
  }

  /** True once stop() was called (until the next start()): a long round checks it to end early. */
  get stopping(): boolean {
    return this.state === "stopped";
  }

  /** Starts the rounds (the first at once); does nothing while already started. */
  start(): void {
    if (this.done !== undefined) return;
    this.state = "running";
    this.done = this.loop();
  }

  /** Ends the loop; resolves once the round in progress (if any) has ended. */
  async stop(): Promise<void> {
    this.state = "stopped";
    this.wake();
    await this.done;
    this.done = undefined;
  }

  /** Ends the current wait, so the next round starts now (no effect during a round). */
  wake(): void {
    this.endWait?.();
  }

  private async loop(): Promise<void> {
    while (this.active) {
      await this.round();
      if (!this.active) break;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          this.endWait = undefined;
          resolve();
        }, this.intervalMs);
        this.endWait = () => {
          clearTimeout(timer);
          this.endWait = undefined;
          resolve();
        };
      });
    }
  }
}
