/**
 * The host's Prometheus series, on the process's MetricsRegistry (next to the JSON-RPC core's
 * `jsonrpc_requests_total{method,transport,outcome,code}` and `jsonrpc_request_duration_seconds{method}`,
 * which already count every call by method and outcome).
 */
import type { Counter, Gauge, Histogram, MetricsRegistry } from "../metrics/index.js";

/** How one enclave exchange ended. */
export type EnclaveCallOutcome = "ok" | "enclave_error" | "transport_error" | "aborted";

/**
 * How one prover_prove call ended. `witness_error`: witness collection failed (the program refused the request,
 * or an endpoint's answer did not check or could not be fetched) before any enclave was contacted.
 */
export type ProofOutcome =
  | "ok"
  | "invalid_request"
  | "no_valid_signer"
  | "enclave_error"
  | "witness_error"
  | "transport_error"
  | "timeout"
  | "aborted";

export class HostMetrics {
  /** Exchanges with enclaves, by enclave address, request kind and outcome. */
  readonly enclaveCalls: Counter<"enclave" | "request" | "outcome">;
  /** Exchanges that failed on the wire (connect, timeout, early close, bad frame), by enclave. */
  readonly transportErrors: Counter<"enclave">;
  /** prover_prove calls being worked on. */
  readonly inFlightProofs: Gauge;
  /** prover_prove durations by outcome (the histogram's _count is the number of proofs per outcome). */
  readonly proofDurations: Histogram<"outcome">;
  /** 1 when the host reports healthy, 0 otherwise. */
  readonly healthy: Gauge;
  /** Results an enclave returned that do not answer the request (never returned), by enclave and failed check. */
  readonly enclaveFaults: Counter<"enclave" | "check">;

  constructor(registry: MetricsRegistry) {
    this.enclaveCalls = registry.counter({
      name: "prover_enclave_calls_total",
      help: "Host-enclave exchanges by enclave, request kind and outcome",
      labelNames: ["enclave", "request", "outcome"],
    });
    this.transportErrors = registry.counter({
      name: "prover_enclave_transport_errors_total",
      help: "Host-enclave exchanges that failed on the wire, by enclave",
      labelNames: ["enclave"],
    });
    this.inFlightProofs = registry.gauge({
      name: "prover_in_flight_proofs",
      help: "prover_prove calls being worked on",
    });
    this.proofDurations = registry.histogram({
      name: "prover_proof_duration_seconds",
      help: "prover_prove durations by outcome",
      labelNames: ["outcome"],
    });
    this.enclaveFaults = registry.counter({
      name: "prover_enclave_faults_total",
      help: "Enclave results that did not answer the request (signer, roots, blocks, L1 origin), by enclave and check",
      labelNames: ["enclave", "check"],
    });
    this.healthy = registry.gauge({
      name: "prover_host_healthy",
      help: "1 when the host reports healthy (GET /healthz 200), 0 otherwise",
    });
  }

  recordEnclaveFault(enclave: string, check: string): void {
    this.enclaveFaults.labels({ enclave, check }).inc();
  }

  recordEnclaveCall(enclave: string, request: string, outcome: EnclaveCallOutcome): void {
    this.enclaveCalls.labels({ enclave, request, outcome }).inc();
    if (outcome === "transport_error") this.transportErrors.labels({ enclave }).inc();
  }
}
