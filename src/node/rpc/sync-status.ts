/**
 * What optimism_syncStatus (and optimism_outputAtBlock's `syncStatus`) report: the `SyncStatusSource` seam, the
 * L2 block refs a sealed or pending block states, and the standalone node's source (docs/node/l1.md "Rollup-node
 * methods"). With an L1 (`--l1-rpc`) the server passes a source built from the derived safe head and the L1
 * instead of the standalone one.
 */
import { type RollupConfig, bytesEqual, syntheticL1Origin } from "../../chain/index.js";
import { type BlockId, type L1BlockRef, type L2BlockRef, decodeL1InfoDeposit } from "../../derive/index.js";
import type { BlockContent } from "../block-content.js";
import type { ChainNode, ResolvedBlock } from "../chain-node.js";

/** The L1 and L2 heads a rollup node reports, in src/derive's ref types. */
export interface SyncStatusRefs {
  /** The L1 block derivation has read up to. */
  readonly currentL1: L1BlockRef;
  /** The L1 head the node sees. */
  readonly headL1: L1BlockRef;
  readonly safeL1: L1BlockRef;
  readonly finalizedL1: L1BlockRef;
  /** The newest sealed L2 block. */
  readonly unsafeL2: L2BlockRef;
  /** The newest L2 block derived from L1. */
  readonly safeL2: L2BlockRef;
  /** The newest L2 block derived from finalized L1 blocks. */
  readonly finalizedL2: L2BlockRef;
  /** Derived so far, possibly from an incomplete span batch; default `safeL2`. */
  readonly pendingSafeL2?: L2BlockRef;
}

/** Where the rollup-node methods read the sync status from (a plain interface: the node's mode chooses it). */
export interface SyncStatusSource {
  syncStatus(): SyncStatusRefs | Promise<SyncStatusRefs>;
}

/**
 * An L2 block's ref and the facts its L1 info deposit states about its L1 origin (for a genesis block anchored by
 * the rollup config, whose `genesis.l1` has no time, the origin's timestamp is 0: unknown).
 */
export interface L2BlockFacts {
  readonly ref: L2BlockRef;
  readonly l1Origin: BlockId & { readonly timestamp: bigint };
}

/**
 * The ref of a sealed or pending block: L1 origin and sequence number from its L1 info deposit (the first
 * transaction). A genesis block has none: its origin is the rollup config's genesis L1 block, or, on a
 * standalone node (no genesis anchors), the synthetic L1 origin at the genesis time.
 */
export function l2BlockFacts(config: RollupConfig, c: BlockContent): L2BlockFacts {
  const h = c.header;
  const base = { hash: c.hash, number: h.number, parentHash: h.parentHash, timestamp: h.timestamp };
  const first = c.transactions[0];
  if (h.number === 0n && first === undefined) {
    const anchor = config.genesis?.l1;
    const synthetic = syntheticL1Origin(config.genesisL2Time, h.timestamp);
    const l1Origin =
      anchor === undefined
        ? { number: synthetic.number, hash: synthetic.hash, timestamp: synthetic.timestamp }
        : { number: anchor.number, hash: anchor.hash, timestamp: 0n };
    return {
      ref: { ...base, l1Origin: { number: l1Origin.number, hash: l1Origin.hash }, sequenceNumber: 0n },
      l1Origin,
    };
  }
  // A block without an L1 info deposit is not an OP Stack block: decodeL1InfoDeposit refuses it.
  const info = decodeL1InfoDeposit(first ?? new Uint8Array(0));
  return {
    ref: {
      ...base,
      l1Origin: { number: info.number, hash: info.blockHash },
      sequenceNumber: info.sequenceNumber,
    },
    l1Origin: { number: info.number, hash: info.blockHash, timestamp: info.timestamp },
  };
}

/** The ref of a block the node resolved (sealed or pending). */
export function l2BlockRefOf(node: ChainNode, r: ResolvedBlock): L2BlockRef {
  return l2BlockFacts(node.config, node.content(r)).ref;
}

/**
 * A standalone node's L1 block ref for an origin its blocks state: the synthetic L1 (src/chain's dev-chain
 * l1-info) defines every block by its number, so the parent is the synthetic block one number lower. An
 * origin that is not the synthetic block of its number gets a zero parent hash (unknown).
 */
function syntheticL1Ref(config: RollupConfig, origin: L2BlockFacts["l1Origin"]): L1BlockRef {
  const g = config.genesisL2Time;
  const own = syntheticL1Origin(g, origin.timestamp);
  const parentHash =
    origin.number > 0n && own.number === origin.number && bytesEqual(own.hash, origin.hash)
      ? syntheticL1Origin(g, origin.timestamp - 1n).hash
      : new Uint8Array(32);
  return { number: origin.number, hash: origin.hash, parentHash, timestamp: origin.timestamp };
}

/**
 * The standalone node's sync status: no L1 can reorg its chain, so its L1 view is the synthetic origins its
 * blocks state (head and current L1: the latest block's; safe and finalized L1: the safe and finalized
 * blocks'), and its L2 heads are what the node's `latest`, `safe` and `finalized` tags resolve to.
 */
export function standaloneSyncStatus(node: ChainNode): SyncStatusSource {
  return {
    syncStatus() {
      const facts = (tag: "latest" | "safe" | "finalized"): L2BlockFacts =>
        l2BlockFacts(node.config, node.content(node.resolveTag(tag) ?? { kind: "sealed", block: node.head }));
      const unsafe = facts("latest");
      const safe = facts("safe");
      const finalized = facts("finalized");
      const head = syntheticL1Ref(node.config, unsafe.l1Origin);
      return {
        currentL1: head,
        headL1: head,
        safeL1: syntheticL1Ref(node.config, safe.l1Origin),
        finalizedL1: syntheticL1Ref(node.config, finalized.l1Origin),
        unsafeL2: unsafe.ref,
        safeL2: safe.ref,
        finalizedL2: finalized.ref,
      };
    },
  };
}
