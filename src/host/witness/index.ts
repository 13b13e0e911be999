/** Witness collection: the proof program over an oracle that fetches, checks and records (docs/proof.md). */
export {
  type CollectWitnessOptions,
  type HostExecutionReport,
  RpcWitness,
  rpcWitnessSource,
  type RpcWitnessSourceOptions,
  type SourcedWitness,
  type WitnessSource,
  WITNESS_RUNS,
  type WitnessRun,
  collectWitness,
  type WitnessCollection,
  type WitnessMetrics,
} from "./collect.js";
export {
  L1DistanceError,
  MissingWitnessValueError,
  WitnessFetchError,
  WitnessTooLargeError,
} from "./errors.js";
export { type MissingValueKind, type MissingValueOrigin, missingValueOrigin } from "./missing-value.js";
export {
  DEFAULT_L1_BLOCK_SECONDS,
  DEFAULT_MAX_L1_DISTANCE,
  defaultMaxL1Distance,
  L1_HEAD_LAG_SECONDS,
  type L1DistanceInputs,
  ENCLAVE_WITNESS_LIMITS,
  encodedPreimageBytes,
  WitnessBudget,
  type WitnessLimits,
} from "./limits.js";
export { type FetchingOracleOptions, type FetchStats, FetchingOracle } from "./oracle.js";
export { type L2Output, l2OutputAt } from "./l2-output.js";
export {
  type ChosenStrategy,
  chooseWitnessStrategy,
  type L2StateSource,
  NoWitnessStrategyError,
  stateSource,
  STRATEGY_METHODS,
  WITNESS_STRATEGIES,
  WITNESS_STRATEGY_CHOICES,
  type WitnessStrategyChoice,
  type WitnessStrategyName,
} from "./strategies.js";
