/**
 * The host's per-hint fetchers (docs/proof.md "Witness collection"): one small function per hint kind the proof
 * program sends, each loading what the program is about to read for that hint, checked against the hash that names
 * it, into the fetching oracle's cache (through HintContext). The oracle dispatches on the hint's type
 * (HINT_FETCHERS); Base's and kona's hosts are built the same way, a handler per hint kind.
 *
 * | hint | sources |
 * | --- | --- |
 * | `l1-block-header` | L1: debug_getRawHeader, else eth_getBlockByHash (re-encoded) |
 * | `l1-transactions` | L1: debug_getRawBlock, else eth_getBlockByHash with full transactions |
 * | `l1-receipts` | L1: debug_getRawReceipts, else eth_getBlockReceipts (re-encoded) |
 * | `l1-blob` | beacon API by slot (blobs, else blob_sidecars), KZG-checked against the versioned hash |
 * | `starting-l2-output` | L2: debug_getRawHeader of the agreed head; eth_getProof of the message passer before Isthmus |
 * | `l2-block-header` | L2: debug_getRawHeader |
 * | `l2-transactions` | L2: debug_getRawBlock |
 */
import { RLP } from "@ethereumjs/rlp";
import {
  type BlockHeader,
  PreimageKeyType,
  bytesEqual,
  decodeHeader,
  encodeHeader,
  fromHex,
  headerMessagePasserRoot,
  keccak256,
  keccak256Key,
  L2_TO_L1_MESSAGE_PASSER,
  outputRootPreimageV0,
  toHex,
} from "../../chain/index.js";
import type { BeaconBlobProvider, JsonRpcClient, RpcL1Provider } from "../../chain-rpc/index.js";
import { type Kzg, loadKzg } from "../../derive/index.js";
import { blobPreimages, type Hint } from "../../proof/program/index.js";
import { checkedRawHeader } from "./l2-reads.js";

/** What a fetcher reads from and writes to: the endpoints, and the oracle's checked cache. */
export interface HintContext {
  readonly l1: RpcL1Provider;
  readonly l2: JsonRpcClient;
  readonly beacon: BeaconBlobProvider;
  readonly kzg?: () => Promise<Kzg>;
  /** The agreed L2 head's hash (the proof request's). */
  readonly agreedL2HeadHash: Uint8Array;
  /** The claimed L2 block's number (the last block fetched ahead). */
  readonly claimedL2BlockNumber: bigint;
  /** A cached value by its key (undefined when not fetched). */
  cached(key: Uint8Array): Uint8Array | undefined;
  /** Caches a value under a key the caller checked (blob field elements: by the blob's KZG commitment). */
  cache(key: Uint8Array, value: Uint8Array): void;
  /** Caches a value under a key the store checks (keccak256, sha256). */
  put(key: Uint8Array, value: Uint8Array): void;
  /** Caches a value under its keccak256; returns the hash. */
  putKeccak(value: Uint8Array): Uint8Array;
  /** Caches every node of the index-keyed trie over `leaves`, which must have `root`. */
  putTrie(leaves: readonly Uint8Array[], root: Uint8Array, text: string): void;
  /** Starts fetching the L2 block witnesses of `first` … `last` ahead. */
  startPrefetch(first: bigint, last: bigint): Promise<void>;
  /** Throws the WitnessFetchError of hint `text`. */
  fail(text: string, message: string, extra?: Record<string, unknown>, cause?: unknown): never;
}

type Fetcher<K extends Hint["type"]> = (
  context: HintContext,
  hint: Extract<Hint, { readonly type: K }>,
  text: string,
) => Promise<void>;

async function l1Header(context: HintContext, hash: Uint8Array, text: string): Promise<BlockHeader> {
  const header = await context.l1.headerByHash(hash);
  if (header === undefined) context.fail(text, "the L1 does not know the block");
  return header;
}

/** The L2 header of `hash` (from the cache, else debug_getRawHeader, checked by its hash); cached. */
async function l2Header(context: HintContext, hash: Uint8Array, text: string): Promise<BlockHeader> {
  const known = context.cached(keccak256Key(hash));
  if (known !== undefined) return decodeHeader(known);
  const rlp = await checkedRawHeader(context.l2, hash);
  if (rlp === "unknown") context.fail(text, "the L2 node does not know the block", { hash: toHex(hash) });
  if (rlp === "wrong-hash") context.fail(text, "debug_getRawHeader does not hash to the block hash");
  context.putKeccak(rlp);
  return decodeHeader(rlp);
}

/** The message passer's storage root at `blockHash` (pre-Isthmus output roots), with its account proof cached. */
async function passerStorageRoot(
  context: HintContext,
  blockHash: Uint8Array,
  text: string,
): Promise<Uint8Array> {
  const proof = (await context.l2.call("eth_getProof", [
    toHex(L2_TO_L1_MESSAGE_PASSER.bytes),
    [],
    { blockHash: toHex(blockHash) },
  ])) as { storageHash?: unknown; accountProof?: unknown };
  if (typeof proof?.storageHash !== "string" || !Array.isArray(proof.accountProof))
    context.fail(text, "eth_getProof answered without a storage hash");
  // The account proof's nodes let the program read the account itself; each is keyed by its own hash.
  for (const node of proof.accountProof as unknown[])
    if (typeof node === "string") context.putKeccak(fromHex(node));
  return fromHex(proof.storageHash as string);
}

const l1BlockHeader: Fetcher<"l1-block-header"> = async (context, hint, text) => {
  const header = await l1Header(context, hint.hash, text);
  const hash = context.putKeccak(encodeHeader(header));
  if (!bytesEqual(hash, hint.hash))
    return context.fail(text, "the re-encoded header does not hash to the block hash");
};

const l1Transactions: Fetcher<"l1-transactions"> = async (context, hint, text) => {
  const header = await l1Header(context, hint.hash, text);
  const checked = await context.l1.transactionLeavesByHash(hint.hash);
  if (checked === undefined) return context.fail(text, "the L1 does not know the block");
  context.putTrie(checked.leaves, header.transactionsRoot, text);
};

const l1Receipts: Fetcher<"l1-receipts"> = async (context, hint, text) => {
  const header = await l1Header(context, hint.hash, text);
  const receipts = await context.l1.encodedReceiptsByHash(hint.hash);
  if (receipts === undefined) return context.fail(text, "the L1 has no receipts for the block");
  context.putTrie(receipts, header.receiptsRoot, text);
};

const l1Blob: Fetcher<"l1-blob"> = async (context, hint, text) => {
  const header = await l1Header(context, hint.blockHash, text);
  const ref = {
    number: header.number,
    hash: hint.blockHash,
    parentHash: header.parentHash,
    timestamp: header.timestamp,
  };
  const blob = await context.beacon.blob(ref, hint.index, hint.versionedHash);
  if (blob === undefined) return context.fail(text, "the beacon API does not have the blob");
  const kzg = await (context.kzg ?? loadKzg)();
  let commitment: Uint8Array;
  try {
    commitment = kzg.verifyBlob(blob, hint.versionedHash);
  } catch (cause) {
    return context.fail(text, "the beacon API's blob does not match its versioned hash", {}, cause);
  }
  for (const [key, value] of blobPreimages(hint.versionedHash, commitment, blob)) {
    if (key[0] === PreimageKeyType.Blob) context.cache(key, value);
    else context.put(key, value);
  }
};

const startingL2Output: Fetcher<"starting-l2-output"> = async (context, hint, text) => {
  const hash = context.agreedL2HeadHash;
  const header = await l2Header(context, hash, text);
  const passerRoot = headerMessagePasserRoot(header) ?? (await passerStorageRoot(context, hash, text));
  const preimage = outputRootPreimageV0(header.stateRoot, passerRoot, hash);
  if (!bytesEqual(keccak256(preimage), hint.outputRoot))
    return context.fail(text, "the agreed output root is not the output root of the agreed L2 head", {
      agreedL2HeadHash: toHex(hash),
      number: header.number,
    });
  context.putKeccak(preimage);
  await context.startPrefetch(header.number + 1n, context.claimedL2BlockNumber);
};

const l2BlockHeader: Fetcher<"l2-block-header"> = async (context, hint, text) => {
  await l2Header(context, hint.hash, text);
};

const l2Transactions: Fetcher<"l2-transactions"> = async (context, hint, text) => {
  const header = await l2Header(context, hint.hash, text);
  const raw = await context.l2.call("debug_getRawBlock", [toHex(hint.hash)]);
  if (typeof raw !== "string") return context.fail(text, "the L2 node does not have the block");
  let decoded: unknown;
  try {
    decoded = RLP.decode(fromHex(raw));
  } catch (cause) {
    return context.fail(text, "debug_getRawBlock is not RLP", {}, cause);
  }
  if (!Array.isArray(decoded) || !Array.isArray(decoded[1]))
    return context.fail(text, "debug_getRawBlock is not a block");
  const txs = (decoded[1] as unknown[]).map((tx) =>
    tx instanceof Uint8Array ? tx : RLP.encode(tx as Uint8Array[]),
  );
  context.putTrie(txs, header.transactionsRoot, text);
};

/** One fetcher per hint kind. */
export const HINT_FETCHERS: { readonly [K in Hint["type"]]: Fetcher<K> } = {
  "l1-block-header": l1BlockHeader,
  "l1-transactions": l1Transactions,
  "l1-receipts": l1Receipts,
  "l1-blob": l1Blob,
  "starting-l2-output": startingL2Output,
  "l2-block-header": l2BlockHeader,
  "l2-transactions": l2Transactions,
};

/** Runs the fetcher of `hint`'s kind. */
export function fetchHint(context: HintContext, hint: Hint, text: string): Promise<void> {
  return (HINT_FETCHERS[hint.type] as Fetcher<Hint["type"]>)(context, hint as never, text);
}
