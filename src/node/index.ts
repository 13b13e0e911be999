/**
 * The OP Stack dev chain node (a service): the chain (sequencer, store, pool, flashblock snapshots), its
 * JSON-RPC server and its command line. Applications start it as a process (`npm run node`, src/devnet);
 * this is its public surface.
 */
export { type ChainNodeOptions, ChainNode, type ResolvedBlock } from "./chain-node.js";
export type { BlockContent } from "./block-content.js";
export { type AdmissionContext, admitTransaction } from "./admission.js";
export { ConfigError, type NodeConfig, parseConfig, usage } from "./config.js";
export {
  type AdmissionRefusal,
  NodeError,
  type NodeErrorKind,
  type NodeErrorOptions,
  TransactionNotAdmittedError,
} from "./errors.js";
export { main } from "./main.js";
export { FLASHBLOCKS_PATH, createNodeServer } from "./server.js";
export { StoreMismatchError } from "./store/block-store.js";
export { CallFailedError, CallWorkerExitedError } from "./calls/call-pool.js";
export { IntrinsicGasError } from "./state/call.js";
