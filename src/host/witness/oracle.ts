/**
 * The host's fetching oracle (docs/proof.md "Witness collection"): the proof program's oracle for a native run.
 * Reads are answered from a cache; a hint loads what the program is about to read, a miss during execution is
 * fetched by hash. Sources, standard JSON-RPC only on L1 (so any L1, anvil included):
 * - L1 execution RPC: eth_getBlockByHash (header re-encoded, its hash checked; full transactions checked against
 *   transactionsRoot, anvil's pooled blob leaves read with eth_getRawTransactionByHash), eth_getBlockReceipts
 *   (re-encoded, checked against receiptsRoot), via src/chain-rpc's RpcL1Provider;
 * - L1 beacon API: anvil's /eth/v1/beacon/blobs/{block} (src/chain-rpc's BeaconBlobProvider), each blob checked
 *   by KZG against its versioned hash;
 * - L2 node: debug_getRawHeader, debug_getRawBlock, eth_getProof (the message passer's storage root of a
 *   pre-Isthmus agreed head) and debug_dbGet (trie nodes, code and headers by hash).
 * Every value enters the cache only after it was checked against the hash that names it (keccak256 and sha256
 * keys by the store; blob elements by the blob's KZG commitment). Every value the program read is recorded: the
 * record plus the boot keys is the Prove frame's preimage list.
 */
import { RLP } from "@ethereumjs/rlp";
import {
  type BlockHeader,
  FastTrie,
  MissingPreimageError,
  PreimageKeyType,
  PreimageStore,
  type TrieNodeStore,
  bytesEqual,
  decodeHeader,
  EMPTY_TRIE_ROOT,
  encodeHeader,
  encodeReceipt,
  fromHex,
  keccak256,
  keccak256Key,
  L2_TO_L1_MESSAGE_PASSER,
  orderedTrieRoot,
  toHex,
  toHexRaw,
} from "../../chain/index.js";
import {
  BeaconBlobProvider,
  EndpointUnavailableError,
  JsonRpcClient,
  RemoteCallError,
  RpcL1Provider,
} from "../../chain-rpc/index.js";
import { type Kzg, loadKzg } from "../../derive/index.js";
import type { Preimage } from "../../../generated/protocol/index.js";
import {
  type BootInfo,
  bootInfoPreimages,
  preimageKeyBytes,
  preimageKeyFromBytes,
} from "../../proof/preimages/index.js";
import {
  blobPreimages,
  formatHint,
  type Hint,
  OUTPUT_ROOT_PREIMAGE_BYTES,
  type ProgramOracle,
} from "../../proof/program/index.js";
import { HostError } from "../errors.js";

/** A source answered something that does not check, or could not answer what a hint named. */
export class WitnessFetchError extends HostError<"witness-fetch"> {
  override readonly name = "WitnessFetchError";
  constructor(
    message: string,
    details: { readonly hint: string } & Record<string, unknown>,
    options: { readonly cause?: unknown } = {},
  ) {
    super(message, { kind: "witness-fetch", details, cause: options.cause });
  }
}

/** Tries of one fetch that fails on the network (not on a timeout or an answer that does not check). */
export const FETCH_ATTEMPTS = 3;

export interface FetchingOracleOptions {
  readonly boot: BootInfo;
  /** The agreed L2 head's hash (the proof request's agreed_l2_head_hash): the agreed output root opens to it. */
  readonly agreedL2HeadHash: Uint8Array;
  readonly l1RpcUrl: string;
  /** Defaults to the L1 RPC URL (anvil serves its beacon routes on the same port). */
  readonly l1BeaconUrl?: string;
  readonly l2RpcUrl: string;
  /** anvil up to 1.7.1 roots blob transactions by their pooled encoding (docs/chain-rpc.md "anvil"); default true. */
  readonly pooledBlobTransactionsRoot?: boolean;
  /** Per-request timeout, ms. */
  readonly timeoutMs?: number;
  /** Aborts every later fetch (the proof timeout). */
  readonly signal?: AbortSignal;
  readonly kzg?: () => Promise<Kzg>;
}

/** What one collection cost, by source. */
export interface FetchStats {
  /** Fetches per hint type, plus `state` for execution misses. */
  readonly fetches: Record<string, number>;
  /** Milliseconds spent waiting on the sources. */
  fetchMs: number;
  /** Bytes that entered the cache. */
  cachedBytes: number;
}

function fullHashesIn(value: Uint8Array, into: Map<string, Uint8Array>): void {
  let decoded: unknown;
  try {
    decoded = RLP.decode(value);
  } catch {
    return;
  }
  const walk = (item: unknown): void => {
    if (item instanceof Uint8Array) {
      if (item.length === 32) into.set(toHexRaw(item.subarray(1)), item);
    } else if (Array.isArray(item)) for (const x of item) walk(x);
  };
  walk(decoded);
}

/** All nodes of an index-keyed trie over `leaves` (the root's included even when shorter than 32 bytes). */
function orderedTrieNodes(leaves: readonly Uint8Array[]): { root: Uint8Array; nodes: Uint8Array[] } {
  const nodes: Uint8Array[] = [];
  const store: TrieNodeStore = {
    getNode() {
      throw new Error("a trie built from scratch reads no node");
    },
    putNode(_hash, node) {
      nodes.push(node);
    },
  };
  const root = new FastTrie(store).update(
    EMPTY_TRIE_ROOT,
    leaves.map((leaf, i): [Uint8Array, Uint8Array] => [RLP.encode(i), leaf]),
  );
  return { root, nodes };
}

export class FetchingOracle implements ProgramOracle {
  private readonly store = new PreimageStore();
  /** Served values by key hex (insertion order = first read). */
  private readonly served = new Map<string, Preimage>();
  /** Full keccak256 hashes by their last 31 bytes: a typed key lacks the first byte, debug_dbGet needs it. */
  private readonly fullHashes = new Map<string, Uint8Array>();
  private readonly l1: RpcL1Provider;
  private readonly l2: JsonRpcClient;
  private readonly beacon: BeaconBlobProvider;
  private readonly done = new Set<string>();
  readonly stats: FetchStats = { fetches: {}, fetchMs: 0, cachedBytes: 0 };

  constructor(private readonly options: FetchingOracleOptions) {
    const limits = options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs };
    this.l1 = new RpcL1Provider(options.l1RpcUrl, {
      ...limits,
      pooledBlobTransactionsRoot: options.pooledBlobTransactionsRoot ?? true,
    });
    this.l2 = new JsonRpcClient(options.l2RpcUrl, limits);
    this.beacon = new BeaconBlobProvider(options.l1BeaconUrl ?? options.l1RpcUrl, limits);
    for (const [key, value] of bootInfoPreimages(options.boot)) this.store.put(preimageKeyBytes(key), value);
  }

  // ---- reads (synchronous, the program's side) ----

  private record(key: Uint8Array, value: Uint8Array): Uint8Array {
    const id = toHexRaw(key);
    if (!this.served.has(id)) {
      const protocolKey = preimageKeyFromBytes(key);
      if (protocolKey !== undefined) this.served.set(id, [protocolKey, value]);
    }
    return value;
  }

  get(key: Uint8Array): Uint8Array {
    const value = this.store.tryGet(key);
    if (value === undefined) throw new MissingPreimageError(key);
    return this.record(key, value);
  }

  tryGet(key: Uint8Array): Uint8Array | undefined {
    const value = this.store.tryGet(key);
    return value === undefined ? undefined : this.record(key, value);
  }

  /** The trie database's read path: the full hash is known here, so a miss remembers it for fetchMissing. */
  tryGetByKeccak256Hex(hashHex: string): Uint8Array | undefined {
    const key = keccak256Key(fromHex(hashHex));
    const value = this.store.tryGet(key);
    if (value === undefined) {
      this.fullHashes.set(hashHex.slice(2), fromHex(hashHex));
      return undefined;
    }
    return this.record(key, value);
  }

  /** The Prove frame's preimages: the boot keys, then every other value the program read, in reading order. */
  witness(): Preimage[] {
    const boot = bootInfoPreimages(this.options.boot);
    const bootIds = new Set(boot.map(([key]) => toHexRaw(preimageKeyBytes(key))));
    return [...boot, ...[...this.served].filter(([id]) => !bootIds.has(id)).map(([, p]) => p)];
  }

  // ---- fetching (asynchronous) ----

  private put(key: Uint8Array, value: Uint8Array): void {
    this.store.put(key, value);
    this.stats.cachedBytes += value.length;
    if (key[0] === PreimageKeyType.Keccak256) fullHashesIn(value, this.fullHashes);
  }

  private putKeccak(value: Uint8Array): Uint8Array {
    const hash = keccak256(value);
    this.put(keccak256Key(hash), value);
    this.fullHashes.set(toHexRaw(hash.subarray(1)), hash);
    return hash;
  }

  /**
   * Runs one fetch, timing it. Every fetch is a read, so a request that failed on the network (a keep-alive
   * connection the server closed, say) is tried again, at most FETCH_ATTEMPTS times in all.
   */
  private async timed<T>(what: string, fn: () => Promise<T>): Promise<T> {
    const t = performance.now();
    try {
      for (let attempt = 1; ; attempt++) {
        this.options.signal?.throwIfAborted();
        try {
          return await fn();
        } catch (error) {
          const retry =
            error instanceof EndpointUnavailableError &&
            error.details.timedOut !== true &&
            attempt < FETCH_ATTEMPTS;
          if (!retry) throw error;
          await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
        }
      }
    } finally {
      this.stats.fetchMs += performance.now() - t;
      this.stats.fetches[what] = (this.stats.fetches[what] ?? 0) + 1;
    }
  }

  async hint(hint: Hint): Promise<void> {
    const text = formatHint(hint);
    if (this.done.has(text)) return;
    await this.timed(hint.type, () => this.load(hint, text));
    this.done.add(text);
  }

  private fail(text: string, message: string, extra: Record<string, unknown> = {}, cause?: unknown): never {
    throw new WitnessFetchError(`${text}: ${message}`, { hint: text, ...extra }, { cause });
  }

  private async l1Header(hash: Uint8Array, text: string): Promise<BlockHeader> {
    const header = await this.l1.headerByHash(hash);
    if (header === undefined) this.fail(text, "the L1 does not know the block");
    return header;
  }

  private async load(hint: Hint, text: string): Promise<void> {
    switch (hint.type) {
      case "l1-block-header": {
        const header = await this.l1Header(hint.hash, text);
        const hash = this.putKeccak(encodeHeader(header));
        if (!bytesEqual(hash, hint.hash))
          this.fail(text, "the re-encoded header does not hash to the block hash");
        return;
      }
      case "l1-transactions": {
        const header = await this.l1Header(hint.hash, text);
        const txs = await this.l1.transactionsByHash(hint.hash);
        if (txs === undefined) this.fail(text, "the L1 does not know the block");
        let leaves: readonly Uint8Array[] = txs;
        if (!bytesEqual(orderedTrieRoot(leaves), header.transactionsRoot)) {
          // anvil ≤ 1.7.1: blob transactions entered the trie in their pooled form (RpcL1Provider checked it).
          leaves = await Promise.all(
            txs.map(async (tx) => {
              if (tx[0] !== 0x03) return tx;
              const raw = await this.l1.client.call("eth_getRawTransactionByHash", [toHex(keccak256(tx))]);
              if (typeof raw !== "string") this.fail(text, "no pooled form of a blob transaction");
              return fromHex(raw);
            }),
          );
        }
        this.putTrie(leaves, header.transactionsRoot, text);
        return;
      }
      case "l1-receipts": {
        const header = await this.l1Header(hint.hash, text);
        const receipts = await this.l1.receiptsByHash(hint.hash);
        if (receipts === undefined) this.fail(text, "the L1 has no receipts for the block");
        this.putTrie(receipts.map(encodeReceipt), header.receiptsRoot, text);
        return;
      }
      case "l1-blob": {
        const header = await this.l1Header(hint.blockHash, text);
        const ref = {
          number: header.number,
          hash: hint.blockHash,
          parentHash: header.parentHash,
          timestamp: header.timestamp,
        };
        const blob = await this.beacon.blob(ref, hint.index, hint.versionedHash);
        if (blob === undefined) this.fail(text, "the beacon API does not have the blob");
        const kzg = await (this.options.kzg ?? loadKzg)();
        let commitment: Uint8Array;
        try {
          commitment = kzg.verifyBlob(blob, hint.versionedHash);
        } catch (cause) {
          this.fail(text, "the beacon API's blob does not match its versioned hash", {}, cause);
        }
        for (const [key, value] of blobPreimages(hint.versionedHash, commitment, blob)) {
          if (key[0] === PreimageKeyType.Blob) {
            this.store.put(key, value);
            this.stats.cachedBytes += value.length;
          } else this.put(key, value);
        }
        return;
      }
      case "starting-l2-output": {
        const hash = this.options.agreedL2HeadHash;
        const header = await this.l2Header(hash, text);
        const passerRoot =
          header.requestsHash !== undefined && header.withdrawalsRoot !== undefined
            ? header.withdrawalsRoot
            : await this.passerStorageRoot(hash, text);
        const preimage = new Uint8Array(OUTPUT_ROOT_PREIMAGE_BYTES);
        preimage.set(header.stateRoot, 32);
        preimage.set(passerRoot, 64);
        preimage.set(hash, 96);
        if (!bytesEqual(keccak256(preimage), hint.outputRoot))
          this.fail(text, "the agreed output root is not the output root of the agreed L2 head", {
            agreedL2HeadHash: toHex(hash),
            number: header.number,
          });
        this.putKeccak(preimage);
        return;
      }
      case "l2-block-header":
        await this.l2Header(hint.hash, text);
        return;
      case "l2-transactions": {
        const header = await this.l2Header(hint.hash, text);
        const raw = await this.l2.call("debug_getRawBlock", [toHex(hint.hash)]);
        if (typeof raw !== "string") this.fail(text, "the L2 node does not have the block");
        let decoded: unknown;
        try {
          decoded = RLP.decode(fromHex(raw));
        } catch (cause) {
          this.fail(text, "debug_getRawBlock is not RLP", {}, cause);
        }
        if (!Array.isArray(decoded) || !Array.isArray(decoded[1]))
          this.fail(text, "debug_getRawBlock is not a block");
        const txs = (decoded[1] as unknown[]).map((tx) =>
          tx instanceof Uint8Array ? tx : RLP.encode(tx as Uint8Array[]),
        );
        this.putTrie(txs, header.transactionsRoot, text);
        return;
      }
    }
  }

  private async l2Header(hash: Uint8Array, text: string): Promise<BlockHeader> {
    const known = this.store.tryGet(keccak256Key(hash));
    if (known !== undefined) return decodeHeader(known);
    const raw = await this.l2.call("debug_getRawHeader", [toHex(hash)]);
    if (typeof raw !== "string")
      this.fail(text, "the L2 node does not know the block", { hash: toHex(hash) });
    const rlp = fromHex(raw);
    if (!bytesEqual(keccak256(rlp), hash))
      this.fail(text, "debug_getRawHeader does not hash to the block hash");
    this.putKeccak(rlp);
    return decodeHeader(rlp);
  }

  private async passerStorageRoot(blockHash: Uint8Array, text: string): Promise<Uint8Array> {
    const proof = (await this.l2.call("eth_getProof", [
      toHex(L2_TO_L1_MESSAGE_PASSER.bytes),
      [],
      { blockHash: toHex(blockHash) },
    ])) as { storageHash?: unknown; accountProof?: unknown };
    if (typeof proof?.storageHash !== "string" || !Array.isArray(proof.accountProof))
      this.fail(text, "eth_getProof answered without a storage hash");
    // The account proof's nodes let the program read the account itself; each is keyed by its own hash.
    for (const node of proof.accountProof as unknown[])
      if (typeof node === "string") this.putKeccak(fromHex(node));
    return fromHex(proof.storageHash as string);
  }

  private putTrie(leaves: readonly Uint8Array[], root: Uint8Array, text: string): void {
    const built = orderedTrieNodes(leaves);
    if (!bytesEqual(built.root, root)) this.fail(text, "the items do not have the header's trie root");
    for (const node of built.nodes) this.putKeccak(node);
    // A root node shorter than 32 bytes is still read by its hash.
    if (leaves.length > 0 && this.store.tryGet(keccak256Key(root)) === undefined)
      this.fail(text, "the trie's root node was not produced");
  }

  async fetchMissing(key: Uint8Array): Promise<boolean> {
    if (key[0] !== PreimageKeyType.Keccak256) return false;
    const full = this.fullHashes.get(toHexRaw(key.subarray(1)));
    if (full === undefined) return false;
    return this.timed("state", async () => {
      let raw: unknown;
      try {
        raw = await this.l2.call("debug_dbGet", [toHex(full)]);
      } catch (error) {
        if (error instanceof RemoteCallError) return false;
        throw error;
      }
      if (typeof raw !== "string") return false;
      const value = fromHex(raw);
      if (!bytesEqual(keccak256(value), full))
        throw new WitnessFetchError(`debug_dbGet ${toHex(full)}: the value does not hash to its key`, {
          hint: "state",
        });
      this.putKeccak(value);
      return true;
    });
  }
}
