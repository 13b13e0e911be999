/**
 * Transaction pool: signed user transactions waiting for the sequencer, by sender and nonce.
 * The sequencer takes them in fee order (highest effective tip first), keeping each sender's nonce
 * order. Admission checks (nonce, balance, fees) are done by the caller against the pending state.
 *
 * With a journal, every added transaction is recorded durably (`durable()` says when) and forgotten only when
 * it leaves for good (replaced or discarded). A transaction the sequencer takes into the block being built stays
 * journaled until its block is sealed, so a crash before the seal loses no accepted transaction.
 */
import { type DecodedTransaction, toHexRaw } from "../chain/index.js";

export interface PooledTransaction {
  decoded: DecodedTransaction;
  hashHex: string;
  sender: Uint8Array;
  senderHex: string;
  nonce: bigint;
  gasLimit: bigint;
  feeCap: bigint;
  tipCap: bigint;
  /** Order of arrival, to break fee ties first come first served. */
  seq: number;
}

/** Durable record of the pool (the node's store): what is recorded is offered again after a restart. */
export interface PoolJournal {
  /** Records a transaction; it is durable once `journalDurable()` resolves. */
  journalTransaction(hash: Uint8Array, raw: Uint8Array): void;
  forgetTransaction(hash: Uint8Array): void;
  /** Resolves when every transaction recorded so far is durable. */
  journalDurable(): Promise<void>;
}

export const MAX_POOL_SIZE = 10_000;
export const MAX_PER_SENDER = 64;

export class TxPool {
  private readonly byHash = new Map<string, PooledTransaction>();
  private readonly bySender = new Map<string, Map<bigint, PooledTransaction>>();
  private seq = 0;
  private readonly addedListeners = new Set<(tx: PooledTransaction) => void>();
  /** Executed into the block being built, not yet in a published snapshot (see reserve). */
  private readonly reserved = new Set<string>();

  constructor(private readonly journal?: PoolJournal) {}

  get size(): number {
    return this.byHash.size;
  }

  get(hashHex: string): PooledTransaction | undefined {
    return this.byHash.get(hashHex);
  }

  bySenderNonce(senderHex: string, nonce: bigint): PooledTransaction | undefined {
    return this.bySender.get(senderHex)?.get(nonce);
  }

  countFor(senderHex: string): number {
    return this.bySender.get(senderHex)?.size ?? 0;
  }

  /** Calls `listener` with every transaction added to the pool (a replacement too); returns the unsubscribe. */
  onAdded(listener: (tx: PooledTransaction) => void): () => void {
    this.addedListeners.add(listener);
    return () => this.addedListeners.delete(listener);
  }

  /** Adds (or replaces the same sender and nonce), journaling it first. */
  add(tx: Omit<PooledTransaction, "seq">): PooledTransaction {
    const pooled = { ...tx, seq: this.seq++ };
    const existing = this.bySenderNonce(tx.senderHex, tx.nonce);
    this.journal?.journalTransaction(tx.decoded.hash, tx.decoded.raw);
    if (existing !== undefined) this.discard(existing.hashHex);
    this.byHash.set(tx.hashHex, pooled);
    let m = this.bySender.get(tx.senderHex);
    if (m === undefined) {
      m = new Map();
      this.bySender.set(tx.senderHex, m);
    }
    m.set(tx.nonce, pooled);
    for (const listener of this.addedListeners) listener(pooled);
    return pooled;
  }

  /**
   * Resolves when every transaction added so far is in the journal: a sender is told its transaction was
   * accepted only after this (the journal writes a turn's transactions together).
   */
  durable(): Promise<void> {
    return this.journal?.journalDurable() ?? Promise.resolve();
  }

  /**
   * Marks a transaction the block being built has executed but no snapshot has published yet: it stays in
   * the pool (found by hash, counted in the sender's pending nonce) until `take` when its snapshot is
   * published, so no read sees it in neither place, and it cannot be replaced meanwhile.
   */
  reserve(hashHex: string): void {
    if (this.byHash.has(hashHex)) this.reserved.add(hashHex);
  }

  isReserved(hashHex: string): boolean {
    return this.reserved.has(hashHex);
  }

  /**
   * Takes a transaction out of the pool into the block being built; it stays journaled until the
   * block's seal removes it from the journal.
   */
  take(hashHex: string): void {
    this.removeFromMemory(hashHex);
  }

  /** Removes a transaction for good (replaced or not includable), from the journal too. */
  discard(hashHex: string): void {
    const tx = this.removeFromMemory(hashHex);
    if (tx !== undefined) this.journal?.forgetTransaction(tx.decoded.hash);
  }

  private removeFromMemory(hashHex: string): PooledTransaction | undefined {
    const tx = this.byHash.get(hashHex);
    if (tx === undefined) return undefined;
    this.byHash.delete(hashHex);
    this.reserved.delete(hashHex);
    const m = this.bySender.get(tx.senderHex);
    m?.delete(tx.nonce);
    if (m !== undefined && m.size === 0) this.bySender.delete(tx.senderHex);
    return tx;
  }

  /** Next nonce of `senderHex` counting pooled transactions consecutive from `stateNonce`. */
  pendingNonce(senderHex: string, stateNonce: bigint): bigint {
    const m = this.bySender.get(senderHex);
    let n = stateNonce;
    while (m?.has(n)) n++;
    return n;
  }

  /**
   * The best executable transaction: among each sender's transaction at `nonceOf(sender)`, the one
   * with the highest effective tip at `baseFee` (fee cap at least the base fee), or undefined.
   */
  best(
    baseFee: bigint,
    nonceOf: (senderHex: string, sender: Uint8Array) => bigint,
    skip: ReadonlySet<string>,
  ): PooledTransaction | undefined {
    let best: PooledTransaction | undefined;
    let bestTip = -1n;
    for (const [senderHex, m] of this.bySender) {
      if (skip.has(senderHex)) continue;
      const first = m.values().next().value;
      if (first === undefined) continue;
      const tx = m.get(nonceOf(senderHex, first.sender));
      if (tx === undefined || tx.feeCap < baseFee) continue;
      const tip = tx.tipCap < tx.feeCap - baseFee ? tx.tipCap : tx.feeCap - baseFee;
      if (tip > bestTip || (tip === bestTip && best !== undefined && tx.seq < best.seq)) {
        best = tx;
        bestTip = tip;
      }
    }
    return best;
  }

  /**
   * Executable transactions (`pending`: consecutive from the sender's next nonce, `nonceOf`) and those
   * waiting behind a nonce gap (`queued`), as txpool_status reports them.
   */
  status(nonceOf: (sender: Uint8Array) => bigint): { pending: number; queued: number } {
    const { pending, queued } = this.classify(nonceOf);
    return { pending: pending.length, queued: queued.length };
  }

  /** The transactions of `status`, each sender's in nonce order (txpool_content, txpool_inspect). */
  classify(nonceOf: (sender: Uint8Array) => bigint): {
    pending: PooledTransaction[];
    queued: PooledTransaction[];
  } {
    const pending: PooledTransaction[] = [];
    const queued: PooledTransaction[] = [];
    for (const m of this.bySender.values()) {
      const first = m.values().next().value;
      if (first === undefined) continue;
      let next = nonceOf(first.sender);
      const sorted = [...m.values()].sort((a, b) => (a.nonce < b.nonce ? -1 : 1));
      for (const tx of sorted) {
        if (tx.nonce === next) {
          pending.push(tx);
          next++;
        } else queued.push(tx);
      }
    }
    return { pending, queued };
  }

  all(): IterableIterator<PooledTransaction> {
    return this.byHash.values();
  }
}

export function hexKey(bytes: Uint8Array): string {
  return toHexRaw(bytes);
}
