/**
 * Derivation's L2Provider over the node's own BlockStore: the agreed head and the blocks below it are the blocks
 * the node sealed (derivation reads the head's header, L1 info deposit and system config from them, and checks
 * each block's hash against its header).
 */
import type { L2Block, L2Provider } from "../../derive/index.js";
import type { BlockStore } from "../store/block-store.js";

export class StoreL2Provider implements L2Provider {
  /**
   * @param limit the highest block number served (derivation never asks past its agreed head; this keeps a
   *   provider from serving a block the caller has not agreed on). Undefined: every sealed block.
   */
  constructor(
    private readonly store: BlockStore,
    private readonly limit?: () => bigint,
  ) {}

  blockByNumber(number: bigint): Promise<L2Block | undefined> {
    if (this.limit !== undefined && number > this.limit()) return Promise.resolve(undefined);
    const block = this.store.blockByNumber(number);
    if (block === undefined) return Promise.resolve(undefined);
    return Promise.resolve({ hash: block.hash, header: block.header, transactions: block.transactions });
  }
}
