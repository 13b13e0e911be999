/**
 * In-memory providers (tests and tools). They answer only what they were given; anything else is undefined,
 * which the stages turn into DataMissingError. `withhold*` makes a provider refuse data it holds, to test that
 * derivation fails closed.
 */
import { type BlockHeader, type Receipt, headerHash, toHex } from "../../chain/index.js";
import type { BlobProvider, L1Provider, L2Block, L2Provider } from "../providers.js";
import { type L1BlockRef } from "../types.js";

export interface MemoryL1Block {
  readonly header: BlockHeader;
  readonly transactions: readonly Uint8Array[];
  readonly receipts: readonly Receipt[];
}

export class MemoryL1Provider implements L1Provider {
  private readonly byHash = new Map<string, MemoryL1Block>();
  private readonly byNumber = new Map<bigint, MemoryL1Block>();
  private readonly withheldReceipts = new Set<string>();
  private readonly withheldTransactions = new Set<string>();

  constructor(blocks: readonly MemoryL1Block[] = []) {
    for (const b of blocks) this.add(b);
  }

  /** Adds a block; returns its hash. */
  add(block: MemoryL1Block): Uint8Array {
    const hash = headerHash(block.header);
    this.byHash.set(toHex(hash), block);
    this.byNumber.set(block.header.number, block);
    return hash;
  }

  withholdReceipts(blockHash: Uint8Array): void {
    this.withheldReceipts.add(toHex(blockHash));
  }

  withholdTransactions(blockHash: Uint8Array): void {
    this.withheldTransactions.add(toHex(blockHash));
  }

  async headerByHash(hash: Uint8Array): Promise<BlockHeader | undefined> {
    return this.byHash.get(toHex(hash))?.header;
  }

  async headerByNumber(number: bigint): Promise<BlockHeader | undefined> {
    return this.byNumber.get(number)?.header;
  }

  async transactionsByHash(blockHash: Uint8Array): Promise<readonly Uint8Array[] | undefined> {
    const key = toHex(blockHash);
    return this.withheldTransactions.has(key) ? undefined : this.byHash.get(key)?.transactions;
  }

  async receiptsByHash(blockHash: Uint8Array): Promise<readonly Receipt[] | undefined> {
    const key = toHex(blockHash);
    return this.withheldReceipts.has(key) ? undefined : this.byHash.get(key)?.receipts;
  }
}

export class MemoryBlobProvider implements BlobProvider {
  private readonly blobs = new Map<string, Uint8Array>();
  private readonly withheld = new Set<string>();

  /** `verified`: whether derivation may skip the KZG check of the blobs this provider returns. */
  constructor(readonly verified = false) {}

  add(versionedHash: Uint8Array, blob: Uint8Array): void {
    this.blobs.set(toHex(versionedHash), blob);
  }

  withhold(versionedHash: Uint8Array): void {
    this.withheld.add(toHex(versionedHash));
  }

  async blob(_block: L1BlockRef, _index: number, versionedHash: Uint8Array): Promise<Uint8Array | undefined> {
    const key = toHex(versionedHash);
    return this.withheld.has(key) ? undefined : this.blobs.get(key);
  }
}

export class MemoryL2Provider implements L2Provider {
  private readonly blocks = new Map<bigint, L2Block>();

  constructor(blocks: readonly L2Block[] = []) {
    for (const b of blocks) this.add(b);
  }

  add(block: L2Block): void {
    this.blocks.set(block.header.number, block);
  }

  async blockByNumber(number: bigint): Promise<L2Block | undefined> {
    return this.blocks.get(number);
  }
}
