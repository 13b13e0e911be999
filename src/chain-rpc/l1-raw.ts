/**
 * L1 execution data in its consensus encodings, from the debug methods geth, reth and erigon serve
 * (`debug_getRawHeader`, `debug_getRawBlock`, `debug_getRawReceipts`, each by block hash), every answer checked
 * against the hash that names it: the header's RLP must hash to the block hash, the block's transactions must have
 * the header's transactionsRoot, the receipts the header's receiptsRoot.
 *
 * Each method is probed by its first use: a node that does not serve it (-32601, as geth, reth and erigon answer an
 * unknown or disabled method, and as anvil 1.7 answers all three) is not asked again, and the caller reads the
 * standard `eth_*` methods instead. The clients' answers for a block they do not have differ, so any other error,
 * reth's empty header (`0x`), and reth's empty receipt list are "no answer here" (the caller falls back once); only
 * an answer that does not check is a DataMismatchError. The answer shapes, from the clients' source:
 * - geth (internal/ethapi/api.go, DebugAPI): GetRawHeader → RLP bytes, an error when the header is unknown;
 *   GetRawBlock → RLP bytes; GetRawReceipts → a list of `receipt.MarshalBinary()` (EIP-2718: `type ‖ rlp` or
 *   legacy RLP);
 * - reth (crates/rpc/rpc/src/debug.rs): raw_header → RLP, empty bytes when unknown; raw_block → RLP, an error when
 *   unknown; raw_receipts → EIP-2718 encodings (`encoded_2718`), an empty list when unknown.
 */
import { RLP } from "@ethereumjs/rlp";
import {
  type BlockHeader,
  EMPTY_TRIE_ROOT,
  bytesEqual,
  decodeHeader,
  keccak256,
  orderedTrieRoot,
  toHex,
} from "../chain/index.js";
import { DataMismatchError, MalformedResponseError, RemoteCallError } from "./errors.js";
import type { JsonRpcClient } from "./http.js";
import { hexData } from "./json.js";

export const RAW_L1_METHODS = ["debug_getRawHeader", "debug_getRawBlock", "debug_getRawReceipts"] as const;
export type RawL1Method = (typeof RAW_L1_METHODS)[number];

/**
 * The largest answers decoded, in bytes (the hex is measured before it is decoded; the HTTP body cap bounds the
 * JSON before that). A header is some 600 bytes (its extra data at most 32); a block is capped by consensus at
 * 10 MiB (EIP-7934's MAX_RLP_BLOCK_SIZE); a block's receipts, whose logs cost 8 gas a byte, stay under 10 MiB at
 * any gas limit in use. Each bound leaves room.
 */
export interface RawL1Limits {
  readonly maxHeaderBytes: number;
  readonly maxBlockBytes: number;
  /** The receipts of one block together. */
  readonly maxReceiptsBytes: number;
}

export const RAW_L1_LIMITS: RawL1Limits = {
  maxHeaderBytes: 8 * 1024,
  maxBlockBytes: 16 * 1024 * 1024,
  maxReceiptsBytes: 16 * 1024 * 1024,
};

/** JSON-RPC's "method not found": the node does not serve the method (or its namespace is off). */
const METHOD_NOT_FOUND = -32601;

/** The raw debug methods of one L1 endpoint, each probed by its first use. */
export class RawL1Reads {
  /** Methods the endpoint answered -32601 to. */
  private readonly absent = new Set<RawL1Method>();
  /** Methods the endpoint answered (for a block or not). */
  private readonly answered = new Set<RawL1Method>();

  constructor(
    private readonly client: JsonRpcClient,
    private readonly limits: RawL1Limits = RAW_L1_LIMITS,
  ) {}

  /** Whether the endpoint serves `method`: true once it answered, false once it refused it, undefined before. */
  served(method: RawL1Method): boolean | undefined {
    return this.absent.has(method) ? false : this.answered.has(method) ? true : undefined;
  }

  /** The answer to `method(hash)`, or undefined when the node does not serve it or gave no answer for the block. */
  private async ask(method: RawL1Method, hash: Uint8Array): Promise<unknown> {
    if (this.absent.has(method)) return undefined;
    try {
      const answer = await this.client.call(method, [toHex(hash)]);
      this.answered.add(method);
      return answer ?? undefined;
    } catch (error) {
      if (!(error instanceof RemoteCallError)) throw error;
      if (error.code === METHOD_NOT_FOUND) this.absent.add(method);
      return undefined;
    }
  }

  /** The non-empty bytes `method(hash)` answered, or undefined; over `max` bytes refused before decoding. */
  private async bytes(method: RawL1Method, hash: Uint8Array, max: number): Promise<Uint8Array | undefined> {
    const raw = await this.ask(method, hash);
    if (raw === undefined) return undefined;
    if (typeof raw === "string") capHexDigits(raw.length - 2, max, method);
    const bytes = hexData(raw, method);
    return bytes.length === 0 ? undefined : bytes;
  }

  /** The header's RLP, checked to hash to `hash`; undefined when the method gave no answer. */
  async header(hash: Uint8Array): Promise<{ rlp: Uint8Array; header: BlockHeader } | undefined> {
    const rlp = await this.bytes("debug_getRawHeader", hash, this.limits.maxHeaderBytes);
    if (rlp === undefined) return undefined;
    checkHeaderHash(rlp, hash, "debug_getRawHeader: the header");
    return { rlp, header: decoded(() => decodeHeader(rlp), "debug_getRawHeader") };
  }

  /**
   * The block's transactions (EIP-2718 bytes) from debug_getRawBlock, checked against `header`'s transactionsRoot
   * (and the block's header against the hash); undefined when the method gave no answer.
   */
  async transactions(hash: Uint8Array, header: BlockHeader): Promise<Uint8Array[] | undefined> {
    const rlp = await this.bytes("debug_getRawBlock", hash, this.limits.maxBlockBytes);
    if (rlp === undefined) return undefined;
    const block = decoded(() => RLP.decode(rlp), "debug_getRawBlock");
    if (!Array.isArray(block) || block.length < 3 || !Array.isArray(block[0]) || !Array.isArray(block[1]))
      throw new MalformedResponseError("debug_getRawBlock: the answer is not a block");
    checkHeaderHash(
      RLP.encode(block[0] as Parameters<typeof RLP.encode>[0]),
      hash,
      "debug_getRawBlock: the block's header",
    );
    // A typed transaction is a byte string (`type ‖ rlp`), a legacy one a list.
    const txs = (block[1] as unknown[]).map((tx) =>
      tx instanceof Uint8Array ? tx : RLP.encode(tx as Parameters<typeof RLP.encode>[0]),
    );
    checkRoot(txs, header, "transactions-root", "debug_getRawBlock: the transactions");
    return txs;
  }

  /**
   * The block's receipts (EIP-2718 bytes), checked against `header`'s receiptsRoot; undefined when the method gave
   * no answer (an empty list for a block with transactions is reth's answer for a block it does not have).
   */
  async receipts(hash: Uint8Array, header: BlockHeader): Promise<Uint8Array[] | undefined> {
    const raw = await this.ask("debug_getRawReceipts", hash);
    if (raw === undefined) return undefined;
    if (!Array.isArray(raw))
      throw new MalformedResponseError("debug_getRawReceipts: the answer is not a list");
    if (raw.length === 0 && !bytesEqual(header.receiptsRoot, EMPTY_TRIE_ROOT)) return undefined;
    let digits = 0;
    for (const r of raw) digits += typeof r === "string" ? r.length - 2 : 0;
    capHexDigits(digits, this.limits.maxReceiptsBytes, "debug_getRawReceipts");
    const receipts = raw.map((r, i) => hexData(r, `debug_getRawReceipts[${i}]`));
    checkRoot(receipts, header, "receipts-root", "debug_getRawReceipts: the receipts");
    return receipts;
  }
}

/** Refuses `digits` hex digits (after `0x`) that would decode to more than `max` bytes, before decoding. */
function capHexDigits(digits: number, max: number, what: string): void {
  if (digits > 2 * max)
    throw new MalformedResponseError(`${what}: the answer of ${Math.ceil(digits / 2)} bytes exceeds ${max}`, {
      details: { limit: max },
    });
}

/** `run`'s decoding, its failure a MalformedResponseError naming the method. */
function decoded<T>(run: () => T, what: string): T {
  try {
    return run();
  } catch (cause) {
    throw new MalformedResponseError(`${what}: the answer does not decode`, { cause });
  }
}

function checkHeaderHash(rlp: Uint8Array, hash: Uint8Array, what: string): void {
  const actual = keccak256(rlp);
  if (!bytesEqual(actual, hash))
    throw new DataMismatchError("header-hash", `${what} does not hash to the asked hash`, {
      expected: toHex(hash),
      actual: toHex(actual),
    });
}

function checkRoot(
  leaves: readonly Uint8Array[],
  header: BlockHeader,
  subject: "transactions-root" | "receipts-root",
  what: string,
): void {
  const expected = subject === "transactions-root" ? header.transactionsRoot : header.receiptsRoot;
  const actual = orderedTrieRoot(leaves);
  if (!bytesEqual(actual, expected))
    throw new DataMismatchError(subject, `${what} do not have the header's root`, {
      expected: toHex(expected),
      actual: toHex(actual),
      number: header.number,
      count: leaves.length,
    });
}
