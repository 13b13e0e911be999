/** The metrics every JSON-RPC server exports, on the process's MetricsRegistry. */
import type { Counter, Gauge, Histogram, MetricsRegistry } from "../metrics/index.js";

export type CallOutcome = "ok" | "error";

export class RpcMetrics {
  /** Calls by method, transport and outcome; `code` is the JSON-RPC error code ("" on success). */
  readonly requests: Counter<"method" | "transport" | "outcome" | "code">;
  /** Call durations by method, from dispatch to encoded result. */
  readonly durations: Histogram<"method">;
  /** HTTP requests and websocket messages being processed. */
  readonly inFlight: Gauge;
  /** HTTP responses by status code. */
  readonly httpResponses: Counter<"status">;
  /** Open websocket connections by route. */
  readonly websocketConnections: Gauge<"route">;
  /** Open JSON-RPC subscriptions. */
  readonly subscriptions: Gauge;

  private readonly callSeries = new Map<string, { inc(): void }>();
  private readonly durationSeries = new Map<string, { observe(value: number): void }>();

  /** Counts one finished call and its duration (label children are cached: this is the hot path). */
  recordCall(method: string, transport: string, code: number | undefined, seconds: number): void {
    const key = `${method}\u0000${transport}\u0000${code ?? ""}`;
    let series = this.callSeries.get(key);
    if (series === undefined) {
      series = this.requests.labels({
        method,
        transport,
        outcome: code === undefined ? "ok" : "error",
        code: code === undefined ? "" : String(code),
      });
      this.callSeries.set(key, series);
    }
    series.inc();
    let durations = this.durationSeries.get(method);
    if (durations === undefined) {
      durations = this.durations.labels({ method });
      this.durationSeries.set(method, durations);
    }
    durations.observe(seconds);
  }

  constructor(registry: MetricsRegistry) {
    this.requests = registry.counter({
      name: "jsonrpc_requests_total",
      help: "JSON-RPC calls and notifications by method, transport and outcome",
      labelNames: ["method", "transport", "outcome", "code"],
    });
    this.durations = registry.histogram({
      name: "jsonrpc_request_duration_seconds",
      help: "Time to run one JSON-RPC call, by method",
      labelNames: ["method"],
    });
    this.inFlight = registry.gauge({
      name: "jsonrpc_in_flight_requests",
      help: "HTTP requests and websocket messages being processed",
    });
    this.httpResponses = registry.counter({
      name: "jsonrpc_http_responses_total",
      help: "HTTP responses by status code",
      labelNames: ["status"],
    });
    this.websocketConnections = registry.gauge({
      name: "jsonrpc_websocket_connections",
      help: "Open websocket connections by route",
      labelNames: ["route"],
    });
    this.subscriptions = registry.gauge({
      name: "jsonrpc_subscriptions",
      help: "Open JSON-RPC subscriptions",
    });
  }
}
