/** Counting for the load report: percentiles, per-second series, counts by name. */

/** The nearest-rank percentile `p` (0-100) of `values` (sorted here); undefined when there are none. */
export function percentile(values: readonly number[], p: number): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

/** Counts by name, printed as a plain object. */
export class Tally {
  private readonly counts = new Map<string, number>();

  add(name: string, n = 1): void {
    this.counts.set(name, (this.counts.get(name) ?? 0) + n);
  }

  get total(): number {
    let sum = 0;
    for (const n of this.counts.values()) sum += n;
    return sum;
  }

  toJSON(): Record<string, number> {
    return Object.fromEntries([...this.counts].sort(([a], [b]) => (a < b ? -1 : 1)));
  }
}

export interface SecondFigures {
  sentGas: number;
  sentTransactions: number;
  includedGas: number;
  includedTransactions: number;
}

/** Figures per whole second since `startMs`. */
export class PerSecond {
  readonly seconds: SecondFigures[] = [];

  constructor(private readonly startMs: number) {}

  at(nowMs: number): SecondFigures {
    const index = Math.max(0, Math.floor((nowMs - this.startMs) / 1000));
    while (this.seconds.length <= index)
      this.seconds.push({ sentGas: 0, sentTransactions: 0, includedGas: 0, includedTransactions: 0 });
    return this.seconds[index]!;
  }
}
