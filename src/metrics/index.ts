/** Prometheus metrics: the metrics package's public surface. */
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
