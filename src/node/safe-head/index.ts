/**
 * The node's derived safe and finalized heads (docs/node/l1.md "Safe and finalized heads"): the tracker, the
 * store-backed L2 provider derivation reads, and the L1 sources it polls.
 */
export {
  type DerivationRound,
  type DerivationStatus,
  type DerivedHeadNumbers,
  FINALIZED_META_KEY,
  type SafeHeadListener,
  SafeHeadTracker,
  type SafeHeadTrackerOptions,
  type TrackerError,
} from "./tracker.js";
export { StoreL2Provider } from "./store-l2.js";
export { type NodeTrackerOptions, nodeSafeHeadTracker } from "./node.js";
export { derivedSyncStatus } from "./sync-status.js";
export {
  type BlobVerifier,
  CachingL1Provider,
  inThreadBlobVerifier,
  type L1HeadSource,
  type L1Heads,
  RpcL1Heads,
  type RpcL1Sources,
  type RpcL1SourcesOptions,
  VerifyingBlobCache,
  rpcL1Sources,
} from "./l1.js";
export { type ComparableBlock, firstDifference } from "./compare.js";
export {
  type BlockDifference,
  BlobVerifierError,
  DerivedBlockMismatchError,
  SafeHeadInconsistencyError,
} from "./errors.js";
export { WorkerBlobVerifier, sharedBlobVerifier } from "./kzg-verifier.js";
export type { L2BlockRef } from "../../derive/index.js";
