/**
 * The work a server is doing for its clients (HTTP exchanges, websocket messages): counted against a limit,
 * waited for by a graceful close and cut off at the end of it.
 */

/** One unit of work: an HTTP exchange or a websocket message. */
export interface InFlightWork {
  /** Cuts the work off (the drain period ended while it was still running). */
  cutOff(): void;
}

export class InFlight {
  private readonly work = new Set<InFlightWork>();
  private idle: (() => void) | undefined;

  /**
   * @param limit units of work allowed at once (`full` beyond)
   * @param onCount told of every change of the count (a metrics gauge)
   */
  constructor(
    readonly limit: number,
    private readonly onCount: (delta: number) => void = () => {},
  ) {}

  get size(): number {
    return this.work.size;
  }

  /** `limit` units are already running: new work is refused. */
  get full(): boolean {
    return this.work.size >= this.limit;
  }

  add(work: InFlightWork): void {
    if (this.work.has(work)) return;
    this.work.add(work);
    this.onCount(1);
  }

  /** The work finished (answered, or its client went away); unknown work is ignored. */
  settle(work: InFlightWork): void {
    if (!this.work.delete(work)) return;
    this.onCount(-1);
    if (this.work.size === 0) this.idle?.();
  }

  /** Resolves once nothing is in flight, or after `ms` milliseconds. */
  async drain(ms: number): Promise<void> {
    if (this.work.size === 0) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.idle = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    this.idle = undefined;
  }

  /** Cuts off every unit still in flight; returns how many there were. */
  cutOffAll(): number {
    const all = [...this.work];
    for (const work of all) {
      work.cutOff();
      this.settle(work);
    }
    return all.length;
  }
}
