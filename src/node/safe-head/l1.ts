/**
 * The L1 side of the derived safe head (docs/node/l1.md "Safe and finalized heads"): the L1's head, safe and
 * finalized blocks, and derivation's providers with the caching a node that derives again on every new L1 head
 * wants. Content addressed by block hash or versioned hash, so a cached answer can never be stale.
 */
import { type BlockHeader, type Receipt, fromHex, headerHash, toHex } from "../../chain/index.js";
import { BeaconBlobProvider, JsonRpcClient, RpcL1Provider } from "../../chain-rpc/index.js";
import {
  type BlobProvider,
  type Kzg,
  type L1BlockRef,
  type L1Provider,
  loadKzg,
} from "../../derive/index.js";
import { SafeHeadInconsistencyError } from "./errors.js";
import { sharedBlobVerifier } from "./kzg-verifier.js";

const workerBlobVerifier: BlobVerifier = (blob, versionedHash) =>
  sharedBlobVerifier().verify(blob, versionedHash);

/** The L1 blocks the tracker follows. `safe` and `finalized` are absent until the L1 has them. */
export interface L1Heads {
  readonly head: L1BlockRef;
  readonly safe: L1BlockRef | undefined;
  readonly finalized: L1BlockRef | undefined;
}

/** Where the tracker learns the L1's head and finalized block. */
export interface L1HeadSource {
  read(): Promise<L1Heads>;
  /** The hash of the canonical L1 block at `number`; undefined when there is none. */
  canonicalHash(number: bigint): Promise<Uint8Array | undefined>;
}

function refOf(hash: Uint8Array, header: BlockHeader): L1BlockRef {
  return { number: header.number, hash, parentHash: header.parentHash, timestamp: header.timestamp };
}

/**
 * L1 heads over JSON-RPC: `eth_getBlockByNumber("latest" | "safe" | "finalized")` names a hash, and the header
 * is then read and checked by hash through the L1 provider (its header cache makes that free for known blocks).
 */
export class RpcL1Heads implements L1HeadSource {
  private readonly client: JsonRpcClient;

  constructor(
    url: string,
    private readonly l1: L1Provider,
  ) {
    this.client = new JsonRpcClient(url);
  }

  private async byTag(tag: "latest" | "safe" | "finalized"): Promise<L1BlockRef | undefined> {
    const json = await this.client.call("eth_getBlockByNumber", [tag, false]);
    if (json === null) return undefined;
    const hashText =
      typeof json === "object" && json !== null ? (json as { hash?: unknown }).hash : undefined;
    if (typeof hashText !== "string" || !/^0x[0-9a-fA-F]{64}$/.test(hashText)) {
      throw new SafeHeadInconsistencyError(
        `the L1 answered eth_getBlockByNumber(${tag}) without a block hash`,
        {
          tag,
        },
      );
    }
    const hash = fromHex(hashText);
    const header = await this.l1.headerByHash(hash);
    // Pruned or reorged between the two calls: the next poll asks again.
    if (header === undefined) return undefined;
    return refOf(hash, header);
  }

  async read(): Promise<L1Heads> {
    const [head, safe, finalized] = await Promise.all([
      this.byTag("latest"),
      this.byTag("safe"),
      this.byTag("finalized"),
    ]);
    if (head === undefined) {
      throw new SafeHeadInconsistencyError("the L1 has no latest block", {});
    }
    return { head, safe, finalized };
  }

  async canonicalHash(number: bigint): Promise<Uint8Array | undefined> {
    const header = await this.l1.headerByNumber(number);
    return header === undefined ? undefined : headerHash(header);
  }
}

/**
 * An L1Provider that keeps the transactions and receipts of the last `capacity` blocks it served, by block hash.
 * Each derivation round re-reads the L1 from the safe head's origin minus the channel timeout; without this it
 * would fetch the same blocks again on every new L1 head.
 */
export class CachingL1Provider implements L1Provider {
  private readonly transactions = new Map<string, readonly Uint8Array[]>();
  private readonly receipts = new Map<string, readonly Receipt[]>();

  constructor(
    private readonly inner: L1Provider,
    private readonly capacity = 512,
  ) {}

  headerByHash(hash: Uint8Array): Promise<BlockHeader | undefined> {
    return this.inner.headerByHash(hash);
  }

  headerByNumber(number: bigint): Promise<BlockHeader | undefined> {
    return this.inner.headerByNumber(number);
  }

  async transactionsByHash(blockHash: Uint8Array): Promise<readonly Uint8Array[] | undefined> {
    return this.cached(this.transactions, blockHash, () => this.inner.transactionsByHash(blockHash));
  }

  async receiptsByHash(blockHash: Uint8Array): Promise<readonly Receipt[] | undefined> {
    return this.cached(this.receipts, blockHash, () => this.inner.receiptsByHash(blockHash));
  }

  private async cached<T>(
    map: Map<string, T>,
    hash: Uint8Array,
    load: () => Promise<T | undefined>,
  ): Promise<T | undefined> {
    const key = toHex(hash);
    const hit = map.get(key);
    if (hit !== undefined) {
      map.delete(key);
      map.set(key, hit);
      return hit;
    }
    const value = await load();
    // Missing data is never cached: it may arrive later.
    if (value === undefined) return undefined;
    map.set(key, value);
    if (map.size > this.capacity) map.delete(map.keys().next().value!);
    return value;
  }
}

/** Checks a blob against its versioned hash: resolves, or rejects with BlobMismatchError. */
export type BlobVerifier = (blob: Uint8Array, versionedHash: Uint8Array) => Promise<void>;

/** A BlobVerifier on this thread over src/derive's process-wide Kzg (loaded on the first call). */
export function inThreadBlobVerifier(kzg: () => Promise<Kzg> = loadKzg): BlobVerifier {
  return async (blob, versionedHash) => {
    (await kzg()).verifyBlob(blob, versionedHash);
  };
}

/**
 * A BlobProvider that checks every blob against its versioned hash itself (so it says `verified`) and keeps the
 * last `capacity` checked blobs. The KZG setup loads on the first blob only (once per process): a node whose
 * batcher posts calldata never pays it. The node passes the KZG worker's verifier
 * (kzg-verifier.ts) so that neither the load nor the checks run on its event loop.
 */
export class VerifyingBlobCache implements BlobProvider {
  readonly verified = true;
  private readonly blobs = new Map<string, Uint8Array>();

  constructor(
    private readonly inner: BlobProvider,
    private readonly verify: BlobVerifier = inThreadBlobVerifier(),
    private readonly capacity = 64,
  ) {}

  async blob(block: L1BlockRef, index: number, versionedHash: Uint8Array): Promise<Uint8Array | undefined> {
    const key = toHex(versionedHash);
    const hit = this.blobs.get(key);
    if (hit !== undefined) return hit;
    const blob = await this.inner.blob(block, index, versionedHash);
    if (blob === undefined) return undefined;
    if (!this.inner.verified) await this.verify(blob, versionedHash);
    this.blobs.set(key, blob);
    if (this.blobs.size > this.capacity) this.blobs.delete(this.blobs.keys().next().value!);
    return blob;
  }
}

/** Everything the tracker reads from an L1 over JSON-RPC and its beacon API. */
export interface RpcL1Sources {
  readonly l1: L1Provider;
  readonly heads: L1HeadSource;
  readonly blobs: BlobProvider;
}

export interface RpcL1SourcesOptions {
  readonly l1RpcUrl: string;
  /** Defaults to the RPC URL (anvil serves its beacon routes on the same port). */
  readonly l1BeaconUrl?: string;
  /**
   * anvil up to 1.7.1 roots blob transactions by their pooled encoding (docs/chain-rpc.md "anvil"); default true,
   * since the devnet's L1 is that anvil.
   */
  readonly pooledBlobTransactionsRoot?: boolean;
  /** How blobs are checked; default the process's KZG worker thread. */
  readonly verifyBlob?: BlobVerifier;
}

/** The L1 provider (checked, cached), head source and blob provider (lazy KZG, cached) over one L1 endpoint. */
export function rpcL1Sources(options: RpcL1SourcesOptions): RpcL1Sources {
  const rpc = new RpcL1Provider(options.l1RpcUrl, {
    pooledBlobTransactionsRoot: options.pooledBlobTransactionsRoot ?? true,
  });
  return {
    l1: new CachingL1Provider(rpc),
    heads: new RpcL1Heads(options.l1RpcUrl, rpc),
    blobs: new VerifyingBlobCache(
      new BeaconBlobProvider(options.l1BeaconUrl ?? options.l1RpcUrl),
      options.verifyBlob ?? workerBlobVerifier,
    ),
  };
}
