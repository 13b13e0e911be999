/**
 * The prover host (service; docs/host.md): JSON-RPC (prover_prove, enclave_*, healthz) in front of one or more
 * enclaves, routing by onchain signer validity. The process is src/host/main.ts; this is the surface for tests,
 * the devnet and tools that run a host in-process or talk to enclaves with the host's transport.
 *
 * Public surface: configuration (`parseHostCommandLine`, `HOST_FLAGS`), `createProverHost`, the enclave client and
 * call, the proof service (request validation, result checks, timeouts, ranges proved in frames), the router and signer registry, the
 * handlers, health and metrics, witness collection (strategies, the fetching oracle, limits), the queue worker,
 * and the errors (`HostError` root).
 *
 * Concepts owned: serving a proof request end to end on the host side: its witness, the enclave that proves it,
 * and the checks of its result.
 */
export { HostError, type HostErrorKind, type HostErrorOptions } from "./errors.js";
export {
  DEFAULT_LISTEN,
  HOST_FLAGS,
  type HostConfig,
  HostConfigError,
  type HostWorkerConfig,
  hostUsage,
  type ListenEndpoint,
  type ParsedCommandLine,
  parseHostCommandLine,
} from "./config.js";
export { createProverHost, type ProverHost, type ProverHostDeps } from "./host.js";
export {
  EnclaveClient,
  type EnclaveClientOptions,
  EnclaveRefusedError,
  UnexpectedEnclaveResponseError,
} from "./enclave-client.js";
export { callEnclave, type EnclaveCallOptions } from "./transport/enclave-call.js";
export { EnclaveCallAbortedError, EnclaveTransportError, VsockUnavailableError } from "./transport/errors.js";
export { bootInfoOf, bootPreimages } from "./boot-preimages.js";
export {
  DEFAULT_PROOF_TIMEOUT_MS,
  InvalidProofRequestError,
  InvalidProofResultError,
  ProofCancelledError,
  type L2OutputLookup,
  ProofService,
  type ProofServiceOptions,
  ProofTimeoutError,
  checkProofResult,
  validateProofRequest,
} from "./proof-service.js";
export { type FrameRange, frameRanges } from "./frames.js";
export { agreedHeadNumberLookup } from "./agreed-head.js";
export { EnclaveRouter, NoValidSignerError, type Route } from "./router.js";
export {
  createProverHandlers,
  MAX_ATTESTATION_INPUT_BYTES,
  proofRpcError,
  type ProverHandlerDeps,
} from "./handlers.js";
export { HealthLatch } from "./health.js";
export { type EnclaveCallOutcome, HostMetrics, type ProofOutcome } from "./metrics.js";
export {
  type SignerRegistry,
  ViemSignerRegistry,
  type ViemSignerRegistryOptions,
} from "./signer-registry.js";
export {
  type ChosenStrategy,
  chooseWitnessStrategy,
  type CollectWitnessOptions,
  collectWitness,
  NoWitnessStrategyError,
  RpcWitness,
  rpcWitnessSource,
  stateSource,
  WITNESS_STRATEGIES,
  type WitnessStrategyChoice,
  type WitnessStrategyName,
  type RpcWitnessSourceOptions,
  type WitnessSource,
  type SourcedWitness,
  WITNESS_RUNS,
  type WitnessRun,
  type HostExecutionReport,
  type FetchingOracleOptions,
  FetchingOracle,
  type FetchStats,
  WitnessFetchError,
  MissingWitnessValueError,
  WitnessTooLargeError,
  L1DistanceError,
  DEFAULT_L1_BLOCK_SECONDS,
  DEFAULT_MAX_L1_DISTANCE,
  defaultMaxL1Distance,
  L1_HEAD_LAG_SECONDS,
  type L1DistanceInputs,
  encodedPreimageBytes,
  ENCLAVE_WITNESS_LIMITS,
  WitnessBudget,
  type WitnessLimits,
  type WitnessCollection,
  type WitnessMetrics,
  type L2Output,
  l2OutputAt,
} from "./witness/index.js";
export { type HostWorker, type HostWorkerDeps, startHostWorker } from "./worker.js";
