/**
 * Where a node's blocks come from, as the RPC side sees it: the sealed head, the pending snapshot and the
 * pool. A sequencing node's Sequencer builds them; a read replica's Replica (src/node/replica) re-executes
 * the blocks and flashblocks another node publishes. The handlers read only this interface.
 */
import type { PendingSnapshot } from "./block-in-progress.js";
import type { TxPool } from "./pool.js";
import { StateView } from "./state/state-view.js";
import type { BlockStore, StoredBlock } from "./store/block-store.js";

export interface BlockProducer {
  /** The newest sealed block. */
  readonly head: StoredBlock;
  /** The head's state. */
  readonly headView: StateView;
  /** The latest snapshot of the block being built, or undefined between a seal and the next snapshot 0. */
  readonly pending: PendingSnapshot | undefined;
  /** Transactions waiting for a block (always empty on a replica: it forwards them to its leader). */
  readonly pool: TxPool;
  /** Transactions dropped from the pool by the block builder, hash hex → reason (recent ones). */
  readonly dropped: ReadonlyMap<string, string>;
  onSnapshot(listener: (p: PendingSnapshot) => void): () => void;
  onSealed(listener: (b: StoredBlock) => void): () => void;
  start(): void;
  /** Stops producing; what was sealed stays sealed. */
  stop(): Promise<void>;
}

/**
 * What both producers share: the head, its state view and the pending snapshot, with their listeners. A
 * subclass publishes a snapshot (`publishPending`), forgets it (`clearPending`) and moves the head
 * (`publishSealed`, which also ends the pending view of the block just sealed).
 */
export abstract class HeadHolder implements BlockProducer {
  abstract readonly pool: TxPool;
  abstract readonly dropped: ReadonlyMap<string, string>;
  private headBlock: StoredBlock;
  private headStateView: StateView;
  private pendingSnapshot: PendingSnapshot | undefined;
  private readonly snapshotListeners = new Set<(p: PendingSnapshot) => void>();
  private readonly sealedListeners = new Set<(b: StoredBlock) => void>();

  protected constructor(private readonly headStore: BlockStore) {
    const headNumber = headStore.headNumber();
    if (headNumber === undefined) throw new Error("store has no genesis");
    this.headBlock = headStore.blockByNumber(headNumber)!;
    this.headStateView = new StateView(headStore, this.headBlock.header.stateRoot);
  }

  get head(): StoredBlock {
    return this.headBlock;
  }

  get headView(): StateView {
    return this.headStateView;
  }

  get pending(): PendingSnapshot | undefined {
    return this.pendingSnapshot;
  }

  onSnapshot(listener: (p: PendingSnapshot) => void): () => void {
    this.snapshotListeners.add(listener);
    return () => this.snapshotListeners.delete(listener);
  }

  onSealed(listener: (b: StoredBlock) => void): () => void {
    this.sealedListeners.add(listener);
    return () => this.sealedListeners.delete(listener);
  }

  abstract start(): void;
  abstract stop(): Promise<void>;

  protected publishPending(pending: PendingSnapshot): void {
    this.pendingSnapshot = pending;
    for (const l of this.snapshotListeners) l(pending);
  }

  protected clearPending(): void {
    this.pendingSnapshot = undefined;
  }

  protected publishSealed(stored: StoredBlock): void {
    this.headBlock = stored;
    this.headStateView = new StateView(this.headStore, stored.header.stateRoot);
    this.pendingSnapshot = undefined;
    for (const l of this.sealedListeners) l(stored);
  }
}
