/**
 * L1 execution data over JSON-RPC, from any L1 node (anvil included). Where the node serves them (geth, reth,
 * erigon with the debug namespace on), the consensus encodings come from `debug_getRawHeader`, `debug_getRawBlock`
 * and `debug_getRawReceipts` (l1-raw.ts: probed by their first use, checked by hash); otherwise, and for a block a
 * raw method gave no answer for, from the standard methods: headers rebuilt from eth_getBlockByHash /
 * eth_getBlockByNumber must hash to the block hash; transactions are rebuilt from the full block and checked against
 * transactionsRoot; receipts from eth_getBlockReceipts are re-encoded and checked against receiptsRoot. A block the
 * node does not know is `undefined`; anything that does not check is a DataMismatchError.
 */
import {
  type BlockHeader,
  type Receipt,
  bytesEqual,
  encodeReceipt,
  orderedTrieRoot,
  toHex,
} from "../chain/index.js";
import type { L1Provider } from "../derive/index.js";
import {
  type CheckedTransactions,
  type PooledTransactionSource,
  checkedHeader,
  checkedTransactionLeaves,
  quantity,
} from "./blocks.js";
import { DataMismatchError, MalformedResponseError } from "./errors.js";
import { type HttpLimits, JsonRpcClient } from "./http.js";
import { hexData, receiptFromJson } from "./json.js";
import { RawL1Reads } from "./l1-raw.js";

export interface RpcProviderOptions extends HttpLimits {
  /** Checked headers kept by hash (receipts need their header's root); default 1024. */
  readonly headerCacheSize?: number;
  /**
   * Accept a transactionsRoot computed over the POOLED encodings of blob transactions (with their sidecars), read
   * with eth_getRawTransactionByHash: anvil up to 1.7.1 builds its blocks so (foundry-rs/foundry#15132, fixed by
   * #15699, not yet released on npm). Still a full check: each canonical transaction must be the body of the pooled
   * bytes the root commits to. Default false (a real L1 commits to canonical encodings).
   */
  readonly pooledBlobTransactionsRoot?: boolean;
  /**
   * Read consensus encodings with debug_getRawHeader / debug_getRawBlock / debug_getRawReceipts where the node
   * serves them (each probed by its first use); default true. False: the standard methods only.
   */
  readonly rawMethods?: boolean;
}

/** A small insertion-ordered cache of checked headers. */
export class HeaderCache {
  private readonly entries = new Map<string, BlockHeader>();

  constructor(private readonly capacity: number) {}

  get(hash: Uint8Array): BlockHeader | undefined {
    return this.entries.get(toHex(hash));
  }

  set(hash: Uint8Array, header: BlockHeader): void {
    if (this.capacity <= 0) return;
    const key = toHex(hash);
    this.entries.delete(key);
    this.entries.set(key, header);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
  }
}

export class RpcL1Provider implements L1Provider {
  readonly client: JsonRpcClient;
  private readonly headers: HeaderCache;
  private readonly pooled: PooledTransactionSource | undefined;
  /** The raw debug methods (undefined when turned off). */
  readonly raw: RawL1Reads | undefined;

  constructor(url: string, options: RpcProviderOptions = {}) {
    this.client = new JsonRpcClient(url, options);
    this.raw = options.rawMethods === false ? undefined : new RawL1Reads(this.client);
    this.headers = new HeaderCache(options.headerCacheSize ?? 1024);
    this.pooled =
      options.pooledBlobTransactionsRoot === true ? (hash) => this.rawTransaction(hash) : undefined;
  }

  private async rawTransaction(hash: Uint8Array): Promise<Uint8Array | undefined> {
    const raw = await this.client.call("eth_getRawTransactionByHash", [toHex(hash)]);
    return raw === null ? undefined : hexData(raw, "eth_getRawTransactionByHash");
  }

  async headerByHash(hash: Uint8Array): Promise<BlockHeader | undefined> {
    const cached = this.headers.get(hash);
    if (cached !== undefined) return cached;
    const raw = await this.raw?.header(hash);
    if (raw !== undefined) {
      this.headers.set(hash, raw.header);
      return raw.header;
    }
    const json = await this.client.call("eth_getBlockByHash", [toHex(hash), false]);
    if (json === null) return undefined;
    const checked = checkedHeader(json, { hash }, "eth_getBlockByHash");
    this.headers.set(checked.hash, checked.header);
    return checked.header;
  }

  /** The header the node calls canonical at `number`; it must hash to the hash the node gives it. */
  async headerByNumber(number: bigint): Promise<BlockHeader | undefined> {
    const json = await this.client.call("eth_getBlockByNumber", [quantity(number), false]);
    if (json === null) return undefined;
    const checked = checkedHeader(json, { number }, "eth_getBlockByNumber");
    this.headers.set(checked.hash, checked.header);
    return checked.header;
  }

  async transactionsByHash(blockHash: Uint8Array): Promise<readonly Uint8Array[] | undefined> {
    return (await this.transactionLeavesByHash(blockHash))?.transactions;
  }

  /**
   * The block's transactions and the leaves its transactionsRoot commits to, checked: from debug_getRawBlock where
   * served, else from the full block object (where anvil's pooled blob leaves are accepted when configured).
   */
  async transactionLeavesByHash(blockHash: Uint8Array): Promise<CheckedTransactions | undefined> {
    if (this.raw !== undefined && this.raw.served("debug_getRawBlock") !== false) {
      const header = await this.headerByHash(blockHash);
      if (header === undefined) return undefined;
      const transactions = await this.raw.transactions(blockHash, header).catch((error: unknown) => {
        // anvil's pooled blob roots are read from the full block (the raw block holds no pooled form).
        if (this.pooled !== undefined && error instanceof DataMismatchError) return undefined;
        throw error;
      });
      if (transactions !== undefined) return { transactions, leaves: transactions };
    }
    const json = await this.client.call("eth_getBlockByHash", [toHex(blockHash), true]);
    if (json === null) return undefined;
    const { hash, header } = checkedHeader(json, { hash: blockHash }, "eth_getBlockByHash");
    this.headers.set(hash, header);
    return checkedTransactionLeaves(json, header, "eth_getBlockByHash", this.pooled);
  }

  /**
   * The block's receipts in their consensus encodings (the receipts trie's leaves), checked against receiptsRoot:
   * from debug_getRawReceipts where served, else eth_getBlockReceipts re-encoded.
   */
  async encodedReceiptsByHash(blockHash: Uint8Array): Promise<Uint8Array[] | undefined> {
    if (this.raw !== undefined && this.raw.served("debug_getRawReceipts") !== false) {
      const header = await this.headerByHash(blockHash);
      if (header === undefined) return undefined;
      const encoded = await this.raw.receipts(blockHash, header);
      if (encoded !== undefined) return encoded;
    }
    return (await this.receiptsByHash(blockHash))?.map(encodeReceipt);
  }

  async receiptsByHash(blockHash: Uint8Array): Promise<readonly Receipt[] | undefined> {
    const [header, json] = await Promise.all([
      this.headerByHash(blockHash),
      this.client.call("eth_getBlockReceipts", [toHex(blockHash)]),
    ]);
    if (header === undefined || json === null) return undefined;
    if (!Array.isArray(json))
      throw new MalformedResponseError("eth_getBlockReceipts: the result is not a list");
    const receipts = json.map((r, i) => receiptFromJson(r, `eth_getBlockReceipts[${i}]`));
    const root = orderedTrieRoot(receipts.map(encodeReceipt));
    if (!bytesEqual(root, header.receiptsRoot)) {
      throw new DataMismatchError(
        "receipts-root",
        "eth_getBlockReceipts: the receipts do not have the header's root",
        {
          expected: toHex(header.receiptsRoot),
          actual: toHex(root),
          number: header.number,
          count: receipts.length,
        },
      );
    }
    return receipts;
  }
}
