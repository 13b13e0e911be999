/**
 * The L1-backed node's sync status (docs/node/l1.md "Rollup-node methods", "Safe and finalized heads"): the L2 heads
 * are the sealed head and the tracker's derived safe and finalized heads, the L1 refs the L1 blocks the tracker
 * saw at its last poll and the L1 block its last round ended on.
 */
import type { L1BlockRef } from "../../derive/index.js";
import type { ChainNode } from "../chain-node.js";
import { type SyncStatusSource, l2BlockRefOf } from "../rpc/sync-status.js";
import type { SafeHeadTracker } from "./tracker.js";

/**
 * The sync status of `node` with `tracker`. Before the tracker's first poll the L1 refs are the rollup config's
 * genesis L1 block (number, hash, and the L2 genesis time, which is that block's timestamp; parent unknown).
 */
export function derivedSyncStatus(node: ChainNode, tracker: SafeHeadTracker): SyncStatusSource {
  const genesis = node.config.genesis;
  const anchor: L1BlockRef = {
    number: genesis?.l1.number ?? 0n,
    hash: genesis?.l1.hash ?? new Uint8Array(32),
    parentHash: new Uint8Array(32),
    timestamp: node.config.genesisL2Time,
  };
  return {
    syncStatus() {
      const s = tracker.status;
      const head = s.l1Head ?? anchor;
      return {
        currentL1: s.currentL1 ?? anchor,
        headL1: head,
        safeL1: s.l1Safe ?? anchor,
        finalizedL1: s.l1Finalized ?? anchor,
        unsafeL2: l2BlockRefOf(node, { kind: "sealed", block: node.head }),
        safeL2: s.safe,
        finalizedL2: s.finalized,
      };
    },
  };
}
