/**
 * A Prometheus metrics registry for one process: counters, gauges and histograms with labels,
 * exposed in the Prometheus text format. A thin layer over prom-client so every module creates
 * metrics the same way on the process's own registry (never prom-client's global one).
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";

export { Counter, Gauge, Histogram };

export interface MetricDefinition<L extends string> {
  /** Metric name, snake_case; counters end in `_total`, durations in `_seconds`. */
  readonly name: string;
  readonly help: string;
  readonly labelNames?: readonly L[];
}

export interface HistogramDefinition<L extends string> extends MetricDefinition<L> {
  /** Upper bounds of the buckets; defaults to DURATION_BUCKETS_SECONDS. */
  readonly buckets?: readonly number[];
}

/** Buckets for request durations, 100 µs to 30 min (proofs are long). */
export const DURATION_BUCKETS_SECONDS: readonly number[] = [
  0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60,
  300, 900, 1800,
];

export interface MetricsRegistryOptions {
  /** Also export the process metrics (CPU, memory, event-loop lag, GC) prom-client collects. */
  readonly processMetrics?: boolean;
  /** Labels added to every series (e.g. `{ service: "node" }`). */
  readonly defaultLabels?: Readonly<Record<string, string>>;
}

export class MetricsRegistry {
  readonly registry: Registry;

  constructor(options: MetricsRegistryOptions = {}) {
    this.registry = new Registry();
    if (options.defaultLabels !== undefined) this.registry.setDefaultLabels({ ...options.defaultLabels });
    if (options.processMetrics === true) collectDefaultMetrics({ register: this.registry });
  }

  /** The Content-Type header value for `exposition()`. */
  get contentType(): string {
    return this.registry.contentType;
  }

  counter<L extends string = never>(definition: MetricDefinition<L>): Counter<L> {
    return new Counter<L>({
      name: definition.name,
      help: definition.help,
      labelNames: definition.labelNames ?? [],
      registers: [this.registry],
    });
  }

  gauge<L extends string = never>(definition: MetricDefinition<L>): Gauge<L> {
    return new Gauge<L>({
      name: definition.name,
      help: definition.help,
      labelNames: definition.labelNames ?? [],
      registers: [this.registry],
    });
  }

  histogram<L extends string = never>(definition: HistogramDefinition<L>): Histogram<L> {
    return new Histogram<L>({
      name: definition.name,
      help: definition.help,
      labelNames: definition.labelNames ?? [],
      buckets: [...(definition.buckets ?? DURATION_BUCKETS_SECONDS)],
      registers: [this.registry],
    });
  }

  /** All metrics in the Prometheus text exposition format (version 0.0.4). */
  exposition(): Promise<string> {
    return this.registry.metrics();
  }
}
