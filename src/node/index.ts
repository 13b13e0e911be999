/**
 * The OP Stack dev chain node (service; docs/node.md): the chain (sequencer, store, pool, flashblock snapshots),
 * its JSON-RPC server and its command line. Applications start it as a process (`npm run node`, src/devnet).
 *
 * Public surface: `ChainNode` and its mode (`ChainNodeMode`: standalone, L1 sequencer, read replica; `Finality`),
 * its options, block resolution (`ResolvedBlock`, `BlockContent`), admission, the configuration (`parseConfig`,
 * `usage`), the L1 follower and block planner, `createNodeServer` and `FLASHBLOCKS_PATH`, `main`, and the errors
 * (`NodeError` root and the errors a caller branches on).
 *
 * Concepts owned: sequencing and its L1 origins, flashblocks and the pending view, the transaction pool, the
 * block store, the safe head derived back from L1, read replicas.
 */
export {
  type ChainNodeL1Options,
  type ChainNodeMode,
  type DerivedFinality,
  type Finality,
  type LatestFinality,
  type ChainNodeOptions,
  ChainNode,
  type DerivedHeads,
  type ResolvedBlock,
} from "./chain-node.js";
export type { BlockContent } from "./block-content.js";
export { type AdmissionContext, admitTransaction } from "./admission.js";
export { ConfigError, type L1ModeConfig, type NodeConfig, parseConfig, usage } from "./config.js";
export { DepositRejectedError, GenesisMismatchError, L1OriginUnavailableError } from "./l1/errors.js";
export { type FollowedL1Block, L1Follower, type L1FollowerOptions, type NextOrigin } from "./l1/follower.js";
export { type BlockPlan, L1BlockPlanner, type L1PlannerOptions } from "./l1/planner.js";
export {
  type AdmissionRefusal,
  NodeError,
  type NodeErrorKind,
  type NodeErrorOptions,
  TransactionNotAdmittedError,
} from "./errors.js";
export { applyRollupConfig, loadRollupConfig, main } from "./main.js";
export { FLASHBLOCKS_PATH, createNodeServer } from "./server.js";
export { BlockStore, ReadonlyBlockStore, StoreMismatchError } from "./store/block-store.js";
export { CallFailedError, CallWorkerExitedError } from "./calls/call-pool.js";
export { IntrinsicGasError } from "./state/call.js";
