/**
 * L1 traversal (docs/derive.md, "Traversal"): the L1 blocks from the derivation start up to the L1 head, in
 * order. The chain is anchored in the L1 head's hash: `open` walks back from the head by parent hash, checking
 * that each header hashes to the hash it was asked by, so every block derivation reads is an ancestor of the
 * head the caller trusts. `advance` moves to the next block and applies the ConfigUpdate logs of its successful
 * receipts from the SystemConfig address to the L1-side system config (the batcher address retrieval uses).
 */
import { type BlockHeader, type Receipt, headerHash, toHex, bytesEqual } from "../../chain/index.js";
import { CriticalDeriveError, DataMissingError, DeriveError } from "../errors.js";
import type { L1Provider } from "../providers.js";
import { type L1BlockRef } from "../types.js";

/** An L1 block: its reference and full header. */
export interface L1BlockData {
  readonly ref: L1BlockRef;
  readonly header: BlockHeader;
}

/** Applies one block's receipts to a system config (ConfigUpdate logs); returns the new config. */
export type ConfigUpdater<C> = (config: C, receipts: readonly Receipt[], block: L1BlockData) => C;

/** Headers kept by the walk back; a proof range spans at most a few sequencing windows. */
export const MAX_TRAVERSAL_BLOCKS = 1_000_000n;

export function l1BlockRef(header: BlockHeader, hash: Uint8Array): L1BlockRef {
  return { number: header.number, hash, parentHash: header.parentHash, timestamp: header.timestamp };
}

/** The header with hash `hash`, checked to hash to it. */
export async function verifiedHeader(l1: L1Provider, hash: Uint8Array): Promise<BlockHeader> {
  const header = await l1.headerByHash(hash);
  if (header === undefined)
    throw new DataMissingError("traversal", "L1 header not available", { hash: toHex(hash) });
  const actual = headerHash(header);
  if (!bytesEqual(actual, hash)) {
    throw new CriticalDeriveError("traversal", "L1 header does not hash to the hash it was asked by", {
      hash: toHex(hash),
      actual: toHex(actual),
    });
  }
  return header;
}

/** The block's receipts; a missing list is data missing, never "no receipts". */
export async function receiptsOf(l1: L1Provider, block: L1BlockRef): Promise<readonly Receipt[]> {
  const receipts = await l1.receiptsByHash(block.hash);
  if (receipts === undefined) {
    throw new DataMissingError("traversal", "L1 receipts not available", {
      number: block.number,
      hash: toHex(block.hash),
    });
  }
  return receipts;
}

export class L1Traversal<C> {
  private index = 0;

  private constructor(
    private readonly l1: L1Provider,
    private blocks: L1BlockData[],
    private config: C,
    private readonly update: ConfigUpdater<C>,
  ) {}

  /**
   * Opens the traversal at L1 block `start`, walking back from `l1Head`. `config` is the system config in force
   * at the start (the agreed L2 head's); the start block's own receipts are not applied (as op-node and kona do
   * at a pipeline reset).
   */
  static async open<C>(
    l1: L1Provider,
    l1Head: Uint8Array,
    start: bigint,
    config: C,
    update: ConfigUpdater<C>,
  ): Promise<L1Traversal<C>> {
    const head = await verifiedHeader(l1, l1Head);
    if (head.number < start) {
      throw new CriticalDeriveError("traversal", "the L1 head is older than the derivation start", {
        l1Head: head.number,
        start,
      });
    }
    if (head.number - start >= MAX_TRAVERSAL_BLOCKS) {
      throw new CriticalDeriveError("traversal", "the L1 range is too long", { l1Head: head.number, start });
    }
    const blocks = new Array<L1BlockData>(Number(head.number - start) + 1);
    let header = head;
    let hash = l1Head;
    for (let i = blocks.length - 1; ; i--) {
      blocks[i] = { ref: l1BlockRef(header, hash), header };
      if (i === 0) break;
      hash = header.parentHash;
      const parent = await verifiedHeader(l1, hash);
      if (parent.number !== header.number - 1n) {
        throw new CriticalDeriveError("traversal", "L1 parent header has the wrong number", {
          number: parent.number,
          child: header.number,
        });
      }
      header = parent;
    }
    return new L1Traversal(l1, blocks, config, update);
  }

  /**
   * Moves the L1 head to `l1Head` when it descends from the current head, walking back from it by parent hash (each
   * header checked against its hash) to the current head; the blocks below `keepFrom` that are also below the block
   * being read are forgotten. False, and nothing changed, when `l1Head` is not a descendant (an L1 reorg, or an older
   * head): the caller derives again from a fresh traversal.
   */
  async extend(l1Head: Uint8Array, keepFrom: bigint): Promise<boolean> {
    const current = this.head;
    if (bytesEqual(current.ref.hash, l1Head)) return true;
    const head = await verifiedHeader(this.l1, l1Head);
    if (head.number <= current.ref.number) return false;
    if (head.number - current.ref.number >= MAX_TRAVERSAL_BLOCKS) {
      throw new CriticalDeriveError("traversal", "the L1 range is too long", {
        l1Head: head.number,
        start: current.ref.number,
      });
    }
    const added = new Array<L1BlockData>(Number(head.number - current.ref.number));
    let header = head;
    let hash = l1Head;
    for (let i = added.length - 1; ; i--) {
      added[i] = { ref: l1BlockRef(header, hash), header };
      hash = header.parentHash;
      if (i === 0) break;
      const parent = await verifiedHeader(this.l1, hash);
      if (parent.number !== header.number - 1n) {
        throw new CriticalDeriveError("traversal", "L1 parent header has the wrong number", {
          number: parent.number,
          child: header.number,
        });
      }
      header = parent;
    }
    if (!bytesEqual(hash, current.ref.hash)) return false;
    const first = this.blocks[0]!.ref.number;
    const drop = Math.min(this.index, keepFrom > first ? Number(keepFrom - first) : 0);
    this.blocks = this.blocks.slice(drop).concat(added);
    this.index -= drop;
    return true;
  }

  /** The block being read. */
  get origin(): L1BlockData {
    return this.blocks[this.index]!;
  }

  /** The L1 head. */
  get head(): L1BlockData {
    return this.blocks[this.blocks.length - 1]!;
  }

  /** The L1-side system config after the current block's updates. */
  get systemConfig(): C {
    return this.config;
  }

  /** The block at `number` on the anchored chain, if traversal covers it. */
  block(number: bigint): L1BlockData | undefined {
    const first = this.blocks[0]!.ref.number;
    if (number < first) return undefined;
    return this.blocks[Number(number - first)];
  }

  /**
   * Moves to the next L1 block and applies its config updates. False when the current block is the L1 head.
   * A receipt list the provider cannot supply is data missing; an update the rules reject is critical (the
   * SystemConfig contract only emits well-formed updates, as op-node assumes).
   */
  async advance(): Promise<boolean> {
    if (this.index + 1 >= this.blocks.length) return false;
    const next = this.blocks[this.index + 1]!;
    const receipts = await receiptsOf(this.l1, next.ref);
    try {
      this.config = this.update(this.config, receipts, next);
    } catch (e) {
      if (e instanceof DeriveError && e.kind !== "data-missing") {
        throw new CriticalDeriveError(
          "traversal",
          "system config update rejected",
          { number: next.ref.number },
          { cause: e },
        );
      }
      throw e;
    }
    this.index++;
    return true;
  }
}
