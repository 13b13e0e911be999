/** A counting semaphore: at most `slots` calls of `run` execute at once; the others wait in arrival order. */
export class ConcurrencyLimit {
  private free: number;
  private readonly waiting: (() => void)[] = [];

  constructor(slots: number) {
    this.free = slots;
  }

  /** Calls waiting for a slot. */
  get queued(): number {
    return this.waiting.length;
  }

  async run<R>(fn: () => Promise<R>): Promise<R> {
    if (this.free > 0) this.free--;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await fn();
    } finally {
      const next = this.waiting.shift();
      if (next !== undefined) next();
      else this.free++;
    }
  }
}
