/**
 * Metrics (foundation): Prometheus metrics.
 *
 * Public surface: `MetricsRegistry` (its text exposition), `Counter`, `Gauge`, `Histogram` with their definitions,
 * and `DURATION_BUCKETS_SECONDS`.
 *
 * Concepts owned: the metric series every service exposes on GET /metrics.
 */
export {
  Counter,
  DURATION_BUCKETS_SECONDS,
  Gauge,
  Histogram,
  type HistogramDefinition,
  type MetricDefinition,
  MetricsRegistry,
  type MetricsRegistryOptions,
} from "./registry.js";
