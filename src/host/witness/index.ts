/** Witness collection: the proof program over an oracle that fetches, checks and records (docs/proof.md). */
export {
  type CollectWitnessOptions,
  rpcWitnessSource,
  type RpcWitnessSourceOptions,
  type WitnessSource,
  collectWitness,
  type WitnessCollection,
  type WitnessMetrics,
} from "./collect.js";
export { type FetchingOracleOptions, type FetchStats, FetchingOracle, WitnessFetchError } from "./oracle.js";
