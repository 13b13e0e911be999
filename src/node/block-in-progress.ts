/**
 * The block being built, as both block producers hold it (the Sequencer that builds from the pool, the
 * Replica that re-executes another node's flashblocks): the builder, the overlay its snapshots are read
 * through, and the accounts whose balances a flashblock reports. `takeSnapshot` turns the builder's state
 * into the node's pending view and its flashblocks message; `commitSealedInSteps` stores a sealed block, letting the
 * event loop run while it does.
 */
import { keccak_256 } from "@noble/hashes/sha3.js";
import {
  bigIntToWord,
  type BlockBuilder,
  type BlockSnapshot,
  concatBytes,
  encodeHeader,
  fromHex,
  PREDEPLOY,
  type ReceiptDetails,
  type RollupConfig,
  type SealedBlock,
  toHex,
} from "../chain/index.js";
import { encodeFlashblock } from "./flashblocks.js";
import type { FlashblockMessage } from "./flashblocks.js";
import type { CallEnvironment } from "./state/call.js";
import { OverlaySource } from "./state/sources.js";
import { StateView } from "./state/state-view.js";
import {
  blockSize,
  type BlockStore,
  type StoredBlock,
  type WitnessRecordToKeep,
} from "./store/block-store.js";

/** The latest snapshot of the block being built: the node's `pending`. */
export interface PendingSnapshot {
  payloadId: Uint8Array;
  index: number;
  snapshot: BlockSnapshot;
  size: bigint;
  view: StateView;
  /** Every trie node and code the block being built has written so far (the builder's live map). */
  writtenNodes: ReadonlyMap<string, Uint8Array>;
  /** The keys of `writtenNodes` in the order written (append-only). */
  writtenNodeKeys: readonly string[];
  env: CallEnvironment;
  /** Wall-clock time (ms since the epoch, fractional) the snapshot became the pending view. */
  createdAt: number;
  message: FlashblockMessage;
}

export interface BlockInProgress {
  builder: BlockBuilder;
  parent: StoredBlock;
  /** State of the parent block. */
  parentView: StateView;
  payloadId: Uint8Array;
  /** The store overlaid with what the builder has written. */
  source: OverlaySource;
  /** Addresses whose balance may have changed in this block (lowercase 0x hex), in the order first touched. */
  touched: Set<string>;
  /** Transactions already carried by a flashblocks message. */
  published: number;
  /** State at the last snapshot. */
  view: StateView;
  lastSnapshot?: BlockSnapshot;
}

/** The flashblocks payload id of the child of `parentHash` at `timestamp`: 8 bytes of their hash. */
export function payloadIdOf(parentHash: Uint8Array, timestamp: bigint): Uint8Array {
  return keccak_256(concatBytes(parentHash, bigIntToWord(timestamp))).subarray(0, 8);
}

export function beginBlock(
  store: BlockStore,
  builder: BlockBuilder,
  parent: StoredBlock,
  parentView: StateView,
  timestamp: bigint,
): BlockInProgress {
  return {
    builder,
    parent,
    parentView,
    payloadId: payloadIdOf(parent.hash, timestamp),
    source: new OverlaySource(store, builder.writtenNodes),
    touched: new Set(
      [
        PREDEPLOY.SequencerFeeVault,
        PREDEPLOY.BaseFeeVault,
        PREDEPLOY.L1FeeVault,
        PREDEPLOY.OperatorFeeVault,
      ].map((a) => a.toLowerCase()),
    ),
    published: 0,
    view: parentView,
  };
}

/** Records the accounts an included transaction may have changed the balance of (sender, recipient, new contract). */
export function touch(block: BlockInProgress, details: ReceiptDetails): void {
  block.touched.add(toHex(details.from));
  if (details.to !== undefined) block.touched.add(toHex(details.to));
  if (details.contractAddress !== undefined) block.touched.add(toHex(details.contractAddress));
}

/**
 * The builder's current state as the pending view: header with real roots, a state view over it, the overlay
 * calls run on, and the flashblocks message (the transactions since the last message, their receipts, the
 * touched accounts' balances that differ from the parent's).
 */
export async function takeSnapshot(
  block: BlockInProgress,
  config: RollupConfig,
  index: number,
  now: number,
): Promise<PendingSnapshot> {
  const snapshot = await block.builder.snapshot();
  const h = snapshot.header;
  const view = new StateView(block.source, h.stateRoot);
  // Balances from the builder's state (its cache holds every touched account), not through the snapshot's new
  // state root: a trie walk per touched account per snapshot was 3 % of the node's CPU under bench:load.
  const balances = new Map<string, bigint>();
  for (const address of block.touched) {
    const bytes = fromHex(address);
    const after = block.builder.balanceOf(bytes);
    if (after !== block.parentView.balance(bytes)) balances.set(address, after);
  }
  const message = encodeFlashblock({
    payloadId: block.payloadId,
    index,
    snapshot,
    firstNew: block.published,
    balances,
  });
  block.published = snapshot.transactions.length;
  block.view = view;
  block.lastSnapshot = snapshot;
  return {
    payloadId: block.payloadId,
    index,
    snapshot,
    size: blockSize(encodeHeader(h), snapshot.transactions),
    view,
    writtenNodes: block.builder.writtenNodes,
    writtenNodeKeys: block.builder.writtenNodeKeys,
    env: {
      chainId: config.l2ChainId,
      fork: block.builder.fork,
      number: h.number,
      timestamp: h.timestamp,
      coinbase: h.beneficiary,
      prevRandao: h.mixHash,
      gasLimit: h.gasLimit,
      baseFee: block.builder.baseFee,
      parentHash: h.parentHash,
      grandparentHash: block.parent.header.parentHash,
      stateRoot: h.stateRoot,
    },
    createdAt: now,
    message,
  };
}

/** Resolves after the event loop's pending I/O (RPC requests, websocket messages, timers) has run. */
export function yieldToIo(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Milliseconds of node writes per SQLite transaction in commitSealedInSteps before the event loop runs again. */
const NODE_WRITE_STEP_MS = 10;

/**
 * Stores a sealed block with the trie nodes and code it created (and its witness record if given), letting the event
 * loop run while it writes: the nodes go first, in the node table's key order (neighbouring keys share B-tree pages),
 * in SQLite transactions of about `stepMs` with `between()` awaited after each; then the block, its transactions'
 * index and the journal's deletions in one transaction. Under Base's load a block's nodes were a hundred milliseconds
 * of inserts (5 700 nodes) during which no RPC request was answered. A crash before the last step leaves only nodes
 * no block refers to yet (the block and its transactions' journal entries are untouched).
 */
export async function commitSealedInSteps(
  store: BlockStore,
  sealed: SealedBlock,
  witness: WitnessRecordToKeep | undefined,
  between: () => Promise<void> = yieldToIo,
  stepMs = NODE_WRITE_STEP_MS,
): Promise<StoredBlock> {
  // The node table is keyed by the hash without its first byte: sorted by that key.
  const byKey = Array.from(sealed.newNodes, ([hex, value]) => ({ key: hex.slice(2), hex, value }));
  byKey.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const pending = byKey.map(({ hex, value }): [string, Uint8Array] => [hex, value])[Symbol.iterator]();
  while (!store.writeNodes(pending, performance.now() + stepMs)) await between();
  return store.commitBlock(
    {
      header: sealed.header,
      hash: sealed.blockHash,
      transactions: sealed.transactions,
      transactionHashes: sealed.transactionHashes,
      receipts: sealed.receipts,
      details: sealed.receiptDetails,
    },
    new Map(), // written above
    witness,
  );
}
