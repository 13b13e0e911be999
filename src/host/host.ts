/**
 * The prover host: the generated prover method table bound to the host's handlers, served by the
 * shared JSON-RPC core (POST JSON-RPC, GET /healthz through the healthz method, GET /metrics).
 */
import { bindProverHandlers } from "../../generated/rpc/index.js";
import type { Logger } from "../log/index.js";
import type { MetricsRegistry } from "../metrics/index.js";
import { createRpcServer, type RpcServer } from "../rpc/index.js";
import { type HostConfig, scheduleRollupConfig } from "./config.js";
import { claimScheduleId } from "../proof/onchain/index.js";
import { formatEnclaveAddress } from "../proof/transport/index.js";
import { EnclaveClient } from "./enclave-client.js";
import { agreedHeadNumberLookup } from "./agreed-head.js";
import { createProverHandlers } from "./handlers.js";
import { HealthLatch } from "./health.js";
import { HostMetrics } from "./metrics.js";
import { ProofService } from "./proof-service.js";
import { EnclaveRouter } from "./router.js";
import { type SignerRegistry, ViemSignerRegistry } from "./signer-registry.js";
import { ensureVsockAvailable } from "./transport/vsock.js";
import { packageVersion } from "./version.js";
import { EndpointUnavailableError } from "../chain-rpc/index.js";
import { RpcWitness, type WitnessMetrics, type WitnessRun } from "./witness/index.js";

export interface ProverHostDeps {
  readonly logger: Logger;
  readonly metrics: MetricsRegistry;
}

export interface ProverHost {
  readonly server: RpcServer;
  readonly health: HealthLatch;
  readonly router: EnclaveRouter;
  /** The proving behind prover_prove (validation, witness, routing, registry checks), for the queue worker. */
  readonly proofs: ProofService;
  /** Binds the listener; resolves to the bound port. */
  listen(): Promise<number>;
  /** Stops accepting, drains in-flight requests for up to `drainMs`, closes. */
  close(drainMs: number): Promise<void>;
}

/**
 * Probes the L2 endpoint for the witness strategy and logs it in one line; an endpoint that answers but serves no
 * strategy stops the start (NoWitnessStrategyError), one that cannot be reached is probed again at the first proof.
 */
async function chooseStrategy(
  witness: RpcWitness,
  l2RpcUrl: string,
  run: WitnessRun,
  logger: Logger,
): Promise<void> {
  try {
    const chosen = await witness.strategy();
    logger.info(
      { strategy: chosen.source.name, forced: chosen.forced, probed: chosen.probed, run, l2RpcUrl },
      "witness strategy",
    );
  } catch (error) {
    if (!(error instanceof EndpointUnavailableError)) throw error;
    logger.warn(
      { l2RpcUrl, reason: error.message },
      "witness strategy not chosen: the L2 endpoint is unreachable; probed again at the first proof",
    );
  }
}

/** With schedule-id journals, each result's signatures are recovered over the claim's schedule id. */
function scheduleIdOption(config: HostConfig): { scheduleIdFor?: (claimedBlock: bigint) => Uint8Array } {
  const rollupConfig = config.journalVersion === "schedule-id" ? scheduleRollupConfig(config) : undefined;
  return rollupConfig === undefined
    ? {}
    : { scheduleIdFor: (claimedBlock) => claimScheduleId(rollupConfig, claimedBlock) };
}

export function createProverHost(config: HostConfig, deps: ProverHostDeps): ProverHost {
  const vsock = config.enclaves.find((address) => address.kind === "vsock");
  if (vsock !== undefined) ensureVsockAvailable(formatEnclaveAddress(vsock));

  const metrics = new HostMetrics(deps.metrics);
  const logger = deps.logger.child({ component: "prover-host" });
  const enclaves = config.enclaves.map(
    (address) =>
      new EnclaveClient(address, {
        metrics,
        frameLengthPrefix: config.frameLengthPrefix,
        messageForm: config.messageForm,
      }),
  );
  const registry: SignerRegistry | undefined =
    config.registryAddress === undefined
      ? undefined
      : new ViemSignerRegistry({ l1RpcUrl: config.l1RpcUrl, registryAddress: config.registryAddress });
  const health = new HealthLatch(registry !== undefined, metrics);
  const router = new EnclaveRouter(enclaves, registry, health, logger);
  // With a rollup config the host runs the program natively over the endpoints to collect each witness.
  const witness =
    config.rollupConfig === undefined
      ? undefined
      : new RpcWitness({
          l1RpcUrl: config.l1RpcUrl,
          l1BeaconUrl: config.l1BeaconUrl,
          l2RpcUrl: config.l2RpcUrl,
          rollupConfig: config.rollupConfig,
          witnessStrategy: config.witnessStrategy,
          run: config.witnessRun,
          witnessConcurrency: config.witnessConcurrency,
          chainWitness: config.workers > 1,
          workers: config.witnessWorkers,
          maxL1Distance: config.maxL1Distance,
          ...(config.beaconSecondsPerSlot === undefined
            ? {}
            : { secondsPerSlot: config.beaconSecondsPerSlot }),
          onCollected: (collected: WitnessMetrics) =>
            logger.info(
              {
                preimages: collected.preimageCount,
                witnessBytes: collected.witnessBytes,
                fetchMs: Math.round(collected.fetchMs),
                requests: collected.requests,
                responseBytes: collected.responseBytes,
                blockWitnesses: collected.fetches["l2-block-witness"] ?? 0,
                blockWitnessBytes: collected.prefetchBytes,
                execution: collected.execution.mode,
                ...(collected.execution.fallback === undefined
                  ? {}
                  : { fallback: collected.execution.fallback }),
                ...(collected.execution.peakWorkerHeapBytes === undefined
                  ? {}
                  : { peakWorkerHeapBytes: collected.execution.peakWorkerHeapBytes }),
                peakRssBytes: collected.execution.peakRssBytes,
                totalMs: Math.round(collected.totalMs),
              },
              "witness collected",
            ),
        });
  const proofs = new ProofService({
    router,
    l2ChainId: config.l2ChainId,
    // With a witness source the L2 endpoint is in use: the range is bounded before anything is collected.
    ...(witness === undefined
      ? {}
      : {
          witness: witness.source,
          agreedHeadNumber: agreedHeadNumberLookup(config.l2RpcUrl),
          l2OutputAt: witness.outputAt,
          ...(config.maxBlocksPerFrame === undefined ? {} : { maxBlocksPerFrame: config.maxBlocksPerFrame }),
        }),
    maxBlocksPerProof: config.maxBlocksPerProof,
    ...scheduleIdOption(config),
    proofTimeoutMs: config.proofTimeoutMs,
    logger,
    metrics,
  });
  const handlers = createProverHandlers({
    enclaves,
    router,
    health,
    proofs,
    version: packageVersion(),
    logger,
  });
  const server = createRpcServer({
    methods: bindProverHandlers(handlers),
    host: config.listen.host,
    port: config.listen.port,
    healthMethod: "healthz",
    methodLimits: {
      prover_prove: {
        maxConcurrent: config.maxConcurrentProofs,
        allowInBatch: false,
        limitName: "--max-concurrent-proofs",
      },
    },
    websocket: false,
    metrics: deps.metrics,
    logger: deps.logger,
  });

  return {
    server,
    health,
    router,
    proofs,
    async listen() {
      if (witness !== undefined) await chooseStrategy(witness, config.l2RpcUrl, config.witnessRun, logger);
      const port = await server.listen();
      logger.info(
        {
          host: config.listen.host,
          port,
          l2ChainId: config.l2ChainId.toString(),
          witness:
            witness === undefined ? "boot keys only" : "collected from the L1, beacon and L2 endpoints",
          ...(witness === undefined ? {} : { maxL1Distance: config.maxL1Distance }),
          enclaves: enclaves.map((enclave) => enclave.name),
          registry: registry?.description ?? null,
          proofTimeoutSeconds: config.proofTimeoutMs / 1000,
          maxConcurrentProofs: config.maxConcurrentProofs,
        },
        "prover host listening",
      );
      if (registry !== undefined) {
        // A first confirmation attempt, so a host with valid signers turns healthy without waiting for
        // traffic; healthz retries while unhealthy.
        void router.confirmHealth().then((healthy) => logger.info({ healthy }, "initial signer check"));
      }
      return port;
    },
    close(drainMs) {
      return server.close({ drainMs });
    },
  };
}
