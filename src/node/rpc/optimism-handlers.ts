/**
 * The rollup-node methods as op-node serves them (docs/node/l1.md "Rollup-node methods"): output roots with what
 * they commit to, the sync status, the rollup config in rollup.json form and the version. What a proposer and
 * a challenger read to build a ProofRequest.
 */
import type { NodeHandlers } from "../../../generated/rpc/index.js";
import { BlockNotFoundError, RollupConfigCodec } from "../../../generated/rpc/index.js";
import type * as T from "../../../generated/rpc/index.js";
import { EMPTY_TRIE_ROOT, fromHex, outputRootV0, rollupConfigToJson } from "../../chain/index.js";
import type { L1BlockRef, L2BlockRef } from "../../derive/index.js";
import type { ChainNode } from "../chain-node.js";
import { describeSelector, tagSnapshot } from "./shared.js";
import { type SyncStatusRefs, type SyncStatusSource, l2BlockFacts } from "./sync-status.js";

/** optimism_version: the node's name and version (as web3_clientVersion states them). */
export const ROLLUP_NODE_VERSION = "op-enclave-suite-node/0.1.0";

/** The L2ToL1MessagePasser predeploy, whose storage root the output root commits to. */
export const MESSAGE_PASSER_ADDRESS = fromHex("0x4200000000000000000000000000000000000016");

/** Output root version 0. */
const OUTPUT_VERSION_V0 = new Uint8Array(32);

export type OptimismHandlers = Pick<
  NodeHandlers,
  "optimism_outputAtBlock" | "optimism_syncStatus" | "optimism_rollupConfig" | "optimism_version"
>;

const l1Json = (r: L1BlockRef): T.L1BlockRef => ({
  hash: r.hash,
  number: r.number,
  parentHash: r.parentHash,
  timestamp: r.timestamp,
});

const l2Json = (r: L2BlockRef): T.L2BlockRef => ({
  hash: r.hash,
  number: r.number,
  parentHash: r.parentHash,
  timestamp: r.timestamp,
  l1origin: { hash: r.l1Origin.hash, number: r.l1Origin.number },
  sequenceNumber: r.sequenceNumber,
});

/** op-node's SyncStatus of `refs`: the deprecated current_l1_finalized is finalized_l1; without interop the cross-unsafe and local-safe heads are unsafe and safe. */
export function syncStatusJson(refs: SyncStatusRefs): T.SyncStatus {
  return {
    current_l1: l1Json(refs.currentL1),
    current_l1_finalized: l1Json(refs.finalizedL1),
    head_l1: l1Json(refs.headL1),
    safe_l1: l1Json(refs.safeL1),
    finalized_l1: l1Json(refs.finalizedL1),
    unsafe_l2: l2Json(refs.unsafeL2),
    safe_l2: l2Json(refs.safeL2),
    finalized_l2: l2Json(refs.finalizedL2),
    pending_safe_l2: l2Json(refs.pendingSafeL2 ?? refs.safeL2),
    cross_unsafe_l2: l2Json(refs.unsafeL2),
    local_safe_l2: l2Json(refs.safeL2),
  };
}

export function createOptimismHandlers(node: ChainNode, source: SyncStatusSource): OptimismHandlers {
  // The config never changes while the node runs: encode it once (rollup.json form, then the wire types).
  let rollupConfig: T.RollupConfig | undefined;
  return {
    async optimism_outputAtBlock({ blockNumber }, ctx) {
      const r = node.resolveTag(blockNumber);
      if (r === undefined) throw new BlockNotFoundError(`block not found: ${describeSelector(blockNumber)}`);
      tagSnapshot(ctx, r);
      const content = node.content(r);
      const { ref } = l2BlockFacts(node.config, content);
      // One account read: a few trie nodes on the path to the message passer.
      const account = node.stateOf(r).account(MESSAGE_PASSER_ADDRESS);
      const withdrawalStorageRoot = account?.storageRoot ?? EMPTY_TRIE_ROOT;
      const stateRoot = content.header.stateRoot;
      return {
        version: OUTPUT_VERSION_V0,
        outputRoot: outputRootV0(stateRoot, withdrawalStorageRoot, content.hash),
        blockRef: l2Json(ref),
        withdrawalStorageRoot,
        stateRoot,
        syncStatus: syncStatusJson(await source.syncStatus()),
      };
    },
    optimism_syncStatus: async () => syncStatusJson(await source.syncStatus()),
    optimism_rollupConfig() {
      rollupConfig ??= RollupConfigCodec.decode(rollupConfigToJson(node.config), "rollupConfig");
      return rollupConfig;
    },
    optimism_version: () => ROLLUP_NODE_VERSION,
  };
}
