import { describe, expect, it } from "vitest";
import { MetricsRegistry } from "./registry.js";

describe("metrics registry", () => {
  it("exposes counters, gauges and histograms with labels in the Prometheus text format", async () => {
    const metrics = new MetricsRegistry({ defaultLabels: { service: "host" } });
    const requests = metrics.counter({
      name: "demo_requests_total",
      help: "demo requests",
      labelNames: ["method"],
    });
    const inFlight = metrics.gauge({ name: "demo_in_flight", help: "demo in flight" });
    const durations = metrics.histogram({ name: "demo_seconds", help: "demo durations", buckets: [0.1, 1] });
    requests.inc({ method: "prover_prove" });
    requests.inc({ method: "prover_prove" }, 2);
    inFlight.set(3);
    durations.observe(0.5);
    durations.observe(5);
    const text = await metrics.exposition();
    expect(metrics.contentType).toContain("text/plain");
    expect(text).toContain("# HELP demo_requests_total demo requests\n# TYPE demo_requests_total counter");
    expect(text).toContain('demo_requests_total{method="prover_prove",service="host"} 3');
    expect(text).toContain('demo_in_flight{service="host"} 3');
    expect(text).toContain('demo_seconds_bucket{le="0.1",service="host"} 0');
    expect(text).toContain('demo_seconds_bucket{le="1",service="host"} 1');
    expect(text).toContain('demo_seconds_bucket{le="+Inf",service="host"} 2');
    expect(text).toContain('demo_seconds_sum{service="host"} 5.5');
  });

  it("keeps registries apart and refuses a duplicate name in one registry", async () => {
    const a = new MetricsRegistry();
    const b = new MetricsRegistry();
    a.counter({ name: "dup_total", help: "x" });
    b.counter({ name: "dup_total", help: "x" });
    expect(() => a.counter({ name: "dup_total", help: "x" })).toThrow(/already been registered/);
    expect(await b.exposition()).toContain("dup_total 0");
  });

  it("can export process metrics", async () => {
    const text = await new MetricsRegistry({ processMetrics: true }).exposition();
    expect(text).toContain("process_cpu_seconds_total");
  });
});
