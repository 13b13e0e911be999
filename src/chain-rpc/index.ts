/**
 * Chain RPC (library, rank 3; docs/chain-rpc.md): derivation data providers over JSON-RPC and the beacon API.
 *
 * Public surface: `JsonRpcClient` (bounded HTTP JSON-RPC with `HttpLimits`, `RequestStats`), `RpcL1Provider` and
 * `RpcL2Provider`, `BeaconBlobProvider`, the JSON codecs of transactions and receipts, the L2 witness reads, and
 * the errors (`ChainRpcError` root, `DataMismatchError`, `EndpointUnavailableError`, `MalformedResponseError`,
 * `RemoteCallError`).
 *
 * Concepts owned: reading chain data from a node that is not trusted: every value is checked against the hash
 * that names it before it is returned.
 */
export {
  BeaconBlobProvider,
  type BeaconBlobProviderOptions,
  type BeaconRoutes,
  type SlotClock,
  slotOfTimestamp,
} from "./beacon.js";
export {
  ChainRpcError,
  type ChainRpcErrorKind,
  type ChainRpcErrorOptions,
  DataMismatchError,
  EndpointUnavailableError,
  MalformedResponseError,
  type MismatchSubject,
  RemoteCallError,
} from "./errors.js";
export { DEFAULT_MAX_RESPONSE_BYTES, DEFAULT_TIMEOUT_MS, type HttpLimits, JsonRpcClient } from "./http.js";
export { RequestStats } from "./request-stats.js";
export { encodeTransactionJson, receiptFromJson } from "./json.js";
export { RpcL1Provider, type RpcProviderOptions } from "./l1.js";
export { RAW_L1_LIMITS, RAW_L1_METHODS, type RawL1Limits, type RawL1Method, RawL1Reads } from "./l1-raw.js";
export { RpcL2Provider, type RpcL2ProviderOptions } from "./l2.js";
export {
  MAX_WITNESS_ITEMS,
  parseExecutionWitness,
  type ParsedWitness,
  type WitnessForm,
  witnessValues,
} from "./witness.js";
