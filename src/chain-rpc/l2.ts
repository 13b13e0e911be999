/**
 * The agreed L2 chain over standard JSON-RPC (our node, op-geth, op-reth): eth_getBlockByNumber with full
 * transactions, the header rebuilt and hashed, the transactions rebuilt and checked against transactionsRoot.
 *
 * With an `anchor` (the agreed L2 head: number and hash), the provider also vouches that every block it returns
 * is the anchor or one of its ancestors: blocks above the anchor are `undefined`, the anchor must hash to the
 * anchor's hash, and a block below it must hash to the parent hash of the checked block above it (the provider
 * walks down by parent hash, once, with header-only requests). Without an anchor, a block is only checked
 * against itself and the caller anchors it.
 */
import { bytesEqual, toHex } from "../chain/index.js";
import type { BlockId, L2Block, L2Provider } from "../derive/index.js";
import { checkedHeader, checkedTransactions, quantity } from "./blocks.js";
import { DataMismatchError } from "./errors.js";
import { type HttpLimits, JsonRpcClient } from "./http.js";

export interface RpcL2ProviderOptions extends HttpLimits {
  /** The agreed head: only it and its ancestors are served. */
  readonly anchor?: BlockId;
}

interface Link {
  readonly hash: Uint8Array;
  /** Known once the block at this height has been fetched and checked. */
  parentHash?: Uint8Array;
}

export class RpcL2Provider implements L2Provider {
  readonly client: JsonRpcClient;
  readonly anchor: BlockId | undefined;
  /** Hashes of the anchor and its checked ancestors, by number, contiguous from `lowest` to the anchor. */
  private readonly chain = new Map<bigint, Link>();
  private lowest: bigint;
  /** Walks down the chain one at a time. */
  private walking: Promise<unknown> = Promise.resolve();

  constructor(url: string, options: RpcL2ProviderOptions = {}) {
    this.client = new JsonRpcClient(url, options);
    this.anchor = options.anchor;
    this.lowest = options.anchor?.number ?? 0n;
    if (options.anchor !== undefined) this.chain.set(options.anchor.number, { hash: options.anchor.hash });
  }

  async blockByNumber(number: bigint): Promise<L2Block | undefined> {
    if (this.anchor !== undefined && number > this.anchor.number) return undefined;
    const json = await this.client.call("eth_getBlockByNumber", [quantity(number), true]);
    if (json === null) return undefined;
    const { hash, header } = checkedHeader(json, { number }, "eth_getBlockByNumber");
    if (this.anchor !== undefined) {
      const expected = await this.ancestorHash(number);
      if (expected === undefined) return undefined;
      this.checkAncestor(number, expected, hash);
      this.chain.get(number)!.parentHash ??= header.parentHash;
    }
    return { hash, header, transactions: await checkedTransactions(json, header, "eth_getBlockByNumber") };
  }

  private checkAncestor(number: bigint, expected: Uint8Array, actual: Uint8Array): void {
    if (!bytesEqual(expected, actual)) {
      throw new DataMismatchError("ancestry", "the L2 block is not on the anchored chain", {
        number,
        expected: toHex(expected),
        actual: toHex(actual),
        anchor: this.anchor!.number,
      });
    }
  }

  /** The hash the anchored chain has at `number` (≤ anchor); undefined when the node lacks a block on the way. */
  private ancestorHash(number: bigint): Promise<Uint8Array | undefined> {
    const known = this.chain.get(number);
    if (known !== undefined) return Promise.resolve(known.hash);
    const walk = this.walking.then(() => this.walkDown(number));
    this.walking = walk.catch(() => undefined);
    return walk;
  }

  private async walkDown(target: bigint): Promise<Uint8Array | undefined> {
    while (this.lowest > target) {
      const link = this.chain.get(this.lowest)!;
      if (link.parentHash === undefined) {
        const json = await this.client.call("eth_getBlockByNumber", [quantity(this.lowest), false]);
        if (json === null) return undefined;
        const { hash, header } = checkedHeader(json, { number: this.lowest }, "eth_getBlockByNumber");
        this.checkAncestor(this.lowest, link.hash, hash);
        link.parentHash = header.parentHash;
      }
      this.lowest -= 1n;
      this.chain.set(this.lowest, { hash: link.parentHash });
    }
    return this.chain.get(target)?.hash;
  }
}
