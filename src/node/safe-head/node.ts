/**
 * The tracker of an L1-backed ChainNode (docs/node/l1.md "Safe and finalized heads"): built over the node's store,
 * rollup config and sealed head, and installed as the node's derived heads (its `safe` and `finalized` tags).
 */
import { devL1ChainConfig, findL1ChainConfig } from "../../chain/index.js";
import type { Logger } from "../../log/index.js";
import type { ChainNode } from "../chain-node.js";
import { SafeHeadInconsistencyError } from "./errors.js";
import { rpcL1Sources } from "./l1.js";
import { SafeHeadTracker } from "./tracker.js";

export interface NodeTrackerOptions {
  readonly l1RpcUrl: string;
  /** Default: the RPC URL (anvil serves its beacon routes on the same port). */
  readonly l1BeaconUrl?: string;
  /** How often the L1 head is polled; default 1000 ms. */
  readonly pollIntervalMs?: number;
  readonly logger: Logger;
}

/**
 * A tracker for `node` (which must run in L1 mode), set as the node's derived heads. Not started: call
 * `start()` once the node runs, and `stop()` before closing the node.
 */
export function nodeSafeHeadTracker(node: ChainNode, options: NodeTrackerOptions): SafeHeadTracker {
  const config = node.config;
  if (node.finality.kind !== "derived" || config.l1ChainId === undefined) {
    throw new SafeHeadInconsistencyError("the safe head is derived only on an L1-backed node", {});
  }
  const sources = rpcL1Sources({
    l1RpcUrl: options.l1RpcUrl,
    ...(options.l1BeaconUrl === undefined ? {} : { l1BeaconUrl: options.l1BeaconUrl }),
  });
  const tracker = new SafeHeadTracker({
    rollupConfig: config,
    // The node's L1 origins carry the blob base fee of this schedule (src/node/l1 uses the same choice).
    l1ChainConfig: findL1ChainConfig(config.l1ChainId) ?? devL1ChainConfig(config.l1ChainId),
    store: node.store,
    l1: sources.l1,
    l1Heads: sources.heads,
    blobs: sources.blobs,
    sealedHead: () => node.head.header.number,
    logger: options.logger,
    ...(options.pollIntervalMs === undefined ? {} : { pollIntervalMs: options.pollIntervalMs }),
  });
  node.setDerivedHeads(tracker.numbers());
  return tracker;
}
