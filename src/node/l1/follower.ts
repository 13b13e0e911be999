/**
 * The sequencer's view of L1 (docs/node/l1.md "L1 mode"): polls the L1 head and keeps the checked headers and
 * receipts of the blocks the sequencer may adopt as its next L1 origin, fetched ahead in the background, so that
 * the block loop reads them synchronously and never waits on L1 JSON-RPC in the common case.
 *
 * The sequencer says which L1 block it wants next (`next(origin)`: the origin's successor); the follower keeps
 * that block and a few after it (headers by number, each linked to its parent by hash; receipts, checked against
 * the receipts root by RpcL1Provider, once a block has the confirmation depth). A header that no longer hashes
 * as before, or no longer links to its parent, is an L1 reorg: the follower drops the blocks from there and
 * fetches them again.
 */
import {
  type BlockHeader,
  type L1ChainConfig,
  type Receipt,
  type RollupConfig,
  bytesEqual,
  headerHash,
  toHex,
} from "../../chain/index.js";
import type { RpcL1Provider } from "../../chain-rpc/index.js";
import { type L1OriginInfo, l1OriginFromHeader } from "../../derive/index.js";
import type { Logger } from "../../log/index.js";
import { PollLoop } from "../../service-kit/index.js";

/** An L1 block the follower holds: its header, the origin facts attributes need, its receipts once confirmed. */
export interface FollowedL1Block {
  readonly number: bigint;
  readonly hash: Uint8Array;
  readonly header: BlockHeader;
  readonly origin: L1OriginInfo;
  receipts: readonly Receipt[] | undefined;
}

/** What the follower can say of the successor of an L1 origin. */
export type NextOrigin =
  /** The successor, confirmed, linked to the origin by hash, with its receipts. */
  | { readonly kind: "ready"; readonly block: FollowedL1Block & { readonly receipts: readonly Receipt[] } }
  /** It is confirmed on L1 but the follower has not fetched it (or its receipts) yet. */
  | { readonly kind: "fetching" }
  /** L1 has no confirmed successor (or not one that extends the origin: an L1 reorg). */
  | { readonly kind: "unavailable"; readonly reorged: boolean };

export interface L1FollowerOptions {
  readonly provider: RpcL1Provider;
  readonly rollupConfig: RollupConfig;
  readonly l1Chain: L1ChainConfig;
  /** L1 blocks a block must be behind the head before it is offered. */
  readonly confirmations: number;
  readonly pollIntervalMs: number;
  readonly logger: Logger;
}

/** Blocks past the wanted one kept fetched. */
const LOOKAHEAD = 8n;
/** Blocks below the head re-read on every poll to notice a reorg. */
const RECHECK = 3n;

export class L1Follower {
  private readonly blocks = new Map<bigint, FollowedL1Block>();
  private head: bigint | undefined;
  private wanted: bigint | undefined;
  private readonly polling: PollLoop;
  private waiters: (() => void)[] = [];
  private failing = false;

  constructor(private readonly opts: L1FollowerOptions) {
    this.polling = new PollLoop(() => this.round(), opts.pollIntervalMs);
  }

  /** The newest L1 block number seen (undefined before the first poll). */
  get headNumber(): bigint | undefined {
    return this.head;
  }

  start(): void {
    this.polling.start();
  }

  async stop(): Promise<void> {
    await this.polling.stop();
    this.notify();
  }

  /** Resolves after the next poll (or at stop). */
  changed(): Promise<void> {
    if (!this.polling.active) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** The hash the follower last saw at `number`, when it holds that block. */
  canonicalHash(number: bigint): Uint8Array | undefined {
    return this.blocks.get(number)?.hash;
  }

  /** The successor of `origin` as far as the follower knows it now (never waits; see NextOrigin). */
  next(origin: { readonly number: bigint; readonly hash: Uint8Array }): NextOrigin {
    const n = origin.number + 1n;
    if (this.wanted !== n) {
      this.wanted = n;
      this.polling.wake();
    }
    if (this.head === undefined) return { kind: "fetching" };
    if (n + BigInt(this.opts.confirmations) > this.head) return { kind: "unavailable", reorged: false };
    const block = this.blocks.get(n);
    if (block === undefined || block.receipts === undefined) return { kind: "fetching" };
    if (!bytesEqual(block.header.parentHash, origin.hash)) {
      const seen = this.blocks.get(origin.number);
      if (seen !== undefined && !bytesEqual(seen.hash, origin.hash))
        return { kind: "unavailable", reorged: true };
      return { kind: "fetching" };
    }
    return { kind: "ready", block: block as FollowedL1Block & { receipts: readonly Receipt[] } };
  }

  /** A checked L1 header by hash (for the L2 genesis' L1 origin), straight from the provider. */
  async headerByHash(hash: Uint8Array): Promise<BlockHeader | undefined> {
    return this.opts.provider.headerByHash(hash);
  }

  /** The origin facts of an L1 header under this chain's rules. */
  originOf(header: BlockHeader): L1OriginInfo {
    return l1OriginFromHeader(header, this.opts.rollupConfig, this.opts.l1Chain);
  }

  private notify(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }

  /** One poll; a failure is logged when L1 becomes unreachable and when it is back, not at every retry. */
  private async round(): Promise<void> {
    try {
      await this.poll();
      if (this.failing) this.opts.logger.info("L1 reachable again");
      this.failing = false;
    } catch (err) {
      if (!this.failing) this.opts.logger.warn({ err }, "L1 poll failed (retrying)");
      this.failing = true;
    }
    this.notify();
  }

  /** Drops every held block from `number` on. */
  private dropFrom(number: bigint): void {
    for (const n of [...this.blocks.keys()]) if (n >= number) this.blocks.delete(n);
  }

  private async poll(): Promise<void> {
    const { provider, logger } = this.opts;
    const headHex = await provider.client.call("eth_blockNumber", []);
    if (typeof headHex !== "string" || !/^0x[0-9a-f]+$/i.test(headHex))
      throw new TypeError(`eth_blockNumber returned ${JSON.stringify(headHex)}`);
    const head = BigInt(headHex);
    const wanted = this.wanted;
    if (wanted === undefined) {
      this.head = head;
      return;
    }
    for (const n of [...this.blocks.keys()]) if (n < wanted - 2n) this.blocks.delete(n);
    const from = wanted > 0n ? wanted - 1n : 0n;
    const to = head < wanted + LOOKAHEAD ? head : wanted + LOOKAHEAD;
    const confirmedTo = head - BigInt(this.opts.confirmations);
    for (let n = from; n <= to && this.polling.active; n++) {
      let block = this.blocks.get(n);
      if (block === undefined || n + RECHECK >= head) {
        const header = await provider.headerByNumber(n);
        if (header === undefined) break; // the head moved back (a reorg to a shorter chain): next poll
        const hash = headerHash(header);
        if (block !== undefined && !bytesEqual(block.hash, hash)) {
          logger.warn({ number: n, was: toHex(block.hash), now: toHex(hash) }, "L1 reorg seen");
          this.dropFrom(n);
        }
        const parent = this.blocks.get(n - 1n);
        if (parent !== undefined && !bytesEqual(parent.hash, header.parentHash)) {
          logger.warn({ number: n - 1n }, "L1 reorg seen below a fetched block");
          this.dropFrom(n - 1n);
          break;
        }
        block = this.blocks.get(n);
        if (block === undefined) {
          block = { number: n, hash, header, origin: this.originOf(header), receipts: undefined };
          this.blocks.set(n, block);
        }
      }
      if (block.receipts === undefined && n >= wanted && n <= confirmedTo) {
        const receipts = await provider.receiptsByHash(block.hash);
        if (receipts !== undefined && this.blocks.get(n) === block) block.receipts = receipts;
      }
    }
    this.head = head;
  }
}
