/**
 * The host's fetching oracle (docs/proof.md "Witness collection"): the proof program's oracle for a native run.
 * Reads are answered from a cache; a hint loads what the program is about to read; the L2 state a block's
 * execution reads comes from the chosen witness strategy (strategies.ts), fetched ahead for every block of the
 * range once the agreed head is known (prefetch.ts), and a miss waits for it or asks the strategy by hash.
 * Sources, standard JSON-RPC only on L1 (so any L1, anvil included):
 * - L1 execution RPC: eth_getBlockByHash (header re-encoded, its hash checked; full transactions checked against
 *   transactionsRoot, anvil's pooled blob leaves read with eth_getRawTransactionByHash), eth_getBlockReceipts
 *   (re-encoded, checked against receiptsRoot), via src/chain-rpc's RpcL1Provider;
 * - L1 beacon API: by slot (/eth/v1/beacon/blobs/{slot}, else blob_sidecars/{slot}), anvil's block-hash route as
 *   the fallback (src/chain-rpc's BeaconBlobProvider), each blob checked by KZG against its versioned hash;
 * - L2 node: debug_getRawHeader, debug_getRawBlock, eth_getProof (the message passer's storage root of a
 *   pre-Isthmus agreed head) and the strategy's methods.
 * Every value enters the cache only after it was checked against the hash that names it (keccak256 and sha256
 * keys by the store; blob elements by the blob's KZG commitment). Every value the program read is recorded: the
 * record plus the boot keys is the Prove frame's preimage list.
 */
import { RLP } from "@ethereumjs/rlp";
// By role: the trie built for a header's items, the preimage store, the byte and hash helpers.
import { EMPTY_TRIE_ROOT, FastTrie, type TrieNodeStore } from "../../chain/index.js";
import { MissingPreimageError, PreimageKeyType, PreimageStore } from "../../chain/index.js";
import {
  Bytes32Map,
  bytesEqual,
  fromHex,
  keccak256,
  keccak256Key,
  toHex,
  toHexRaw,
} from "../../chain/index.js";
import {
  BeaconBlobProvider,
  type BeaconRoutes,
  JsonRpcClient,
  RequestStats,
  RpcL1Provider,
} from "../../chain-rpc/index.js";
import type { Kzg } from "../../derive/index.js";
import type { Preimage } from "../../../generated/protocol/index.js";
import { type BootInfo, bootInfoPreimages, isPreimageKey } from "../../proof/preimages/index.js";
import { formatHint, type Hint, type ProgramOracle } from "../../proof/program/index.js";
import { MissingWitnessValueError, WitnessFetchError } from "./errors.js";
import { fetchHint, type HintContext } from "./fetchers.js";
import { WitnessBudget, type WitnessLimits } from "./limits.js";
import { missingValueOrigin } from "./missing-value.js";
import { BlockWitnessPrefetch } from "./prefetch.js";
import { withRetries } from "./requests.js";
import { dbGetSource, type L2StateSource } from "./strategies.js";

export interface FetchingOracleOptions {
  readonly boot: BootInfo;
  /** The agreed L2 head's hash (the proof request's agreed_l2_head_hash): the agreed output root opens to it. */
  readonly agreedL2HeadHash: Uint8Array;
  readonly l1RpcUrl: string;
  /** Defaults to the L1 RPC URL (anvil serves its beacon routes on the same port). */
  readonly l1BeaconUrl?: string;
  readonly l2RpcUrl: string;
  /**
   * Where the L2 state comes from (default: debug_dbGet by bare hash, this project's node); asked for once, when
   * the agreed L2 head is known (so a host may probe its endpoint only then), with the oracle's L2 client (whose
   * requests count in `requestStats`).
   */
  readonly l2State?: (client: JsonRpcClient) => Promise<L2StateSource>;
  /** Counts every request to the L1, beacon and L2 endpoints (default: a fresh one, in `stats.requests`). */
  readonly requestStats?: RequestStats;
  /** Block witnesses fetched at once (default 3, Base's node's limit for the witness methods). */
  readonly witnessConcurrency?: number;
  /** The beacon routes (default `auto`: by slot, anvil's block-hash route when the node has no slot clock). */
  readonly beaconRoutes?: BeaconRoutes;
  /** SECONDS_PER_SLOT for a beacon node without /eth/v1/config/spec. */
  readonly secondsPerSlot?: number;
  /** anvil up to 1.7.1 roots blob transactions by their pooled encoding (docs/chain-rpc.md "anvil"); default true. */
  readonly pooledBlobTransactionsRoot?: boolean;
  /** Per-request timeout, ms. */
  readonly timeoutMs?: number;
  /** Aborts every later fetch (the proof timeout). */
  readonly signal?: AbortSignal;
  readonly kzg?: () => Promise<Kzg>;
  /** What the Prove frame and the fetched cache may hold (default: the enclave's caps, ENCLAVE_WITNESS_LIMITS). */
  readonly witnessLimits?: WitnessLimits;
  /** L1 headers the walk back from the L1 head may reach (default DEFAULT_MAX_L1_DISTANCE). */
  readonly maxL1Distance?: number;
  /**
   * Fetch the range's block witnesses ahead only once execution here first misses a value (the host's parallel
   * run executes the blocks on workers with their own oracles; this one then only executes after a fallback).
   */
  readonly deferPrefetch?: boolean;
}

/** What one collection cost, by source. */
export interface FetchStats {
  /** Fetches per hint type, plus `state` for execution misses and `l2-block-witness` for blocks fetched ahead. */
  readonly fetches: Record<string, number>;
  /** Milliseconds spent waiting on the sources. */
  fetchMs: number;
  /** Bytes that entered the cache. */
  cachedBytes: number;
  /** Milliseconds the block witnesses fetched ahead took (summed; they overlap the program's work). */
  prefetchMs: number;
  /** Bytes of the block witnesses fetched ahead. */
  prefetchBytes: number;
  /** The requests to the endpoints: count, bytes, time in flight. */
  readonly requests: RequestStats;
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

/** Synchronous work between two turns of the event loop while a block executes (`yieldPoint`). */
const YIELD_AFTER_MS = 20;

export class FetchingOracle implements ProgramOracle {
  private readonly store = new PreimageStore();
  /**
   * Served values by preimage key (insertion order = first read), looked up by the key's bytes: a hex key built per
   * read was 7 % of the host's CPU on Base-like blocks.
   */
  private readonly served = new Bytes32Map<Uint8Array>();
  /**
   * Full keccak256 hashes by their last 31 bytes: a typed key lacks the first byte, debug_dbGet needs it. The trie's
   * misses enter it as they happen; the hashes the stored values refer to (trie nodes' children) are indexed only
   * once a miss needs them (`fullHashOf`), and from then on with every value stored: a collection whose block
   * witnesses answer every read never decodes its values for it.
   */
  private readonly fullHashes = new Map<string, Uint8Array>();
  private referencesIndexed = false;
  private lastYield = performance.now();
  private readonly l1: RpcL1Provider;
  private readonly l2: JsonRpcClient;
  private readonly beacon: BeaconBlobProvider;
  private readonly done = new Set<string>();
  private l2StateChosen: Promise<L2StateSource> | undefined;
  private prefetch: BlockWitnessPrefetch | undefined;
  /** With `deferPrefetch`, until the first miss: the range to fetch ahead then. */
  private deferring: boolean;
  private deferred: { readonly first: bigint; readonly last: bigint } | undefined;
  private readonly budget: WitnessBudget;
  /** What the per-hint fetchers (fetchers.ts) read from and write to. */
  private readonly context: HintContext;
  readonly stats: FetchStats;

  constructor(private readonly options: FetchingOracleOptions) {
    this.budget = new WitnessBudget(options.witnessLimits, options.maxL1Distance);
    this.deferring = options.deferPrefetch === true;
    const requests = options.requestStats ?? new RequestStats();
    this.stats = { fetches: {}, fetchMs: 0, cachedBytes: 0, prefetchMs: 0, prefetchBytes: 0, requests };
    const limits = {
      stats: requests,
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    };
    this.l1 = new RpcL1Provider(options.l1RpcUrl, {
      ...limits,
      pooledBlobTransactionsRoot: options.pooledBlobTransactionsRoot ?? true,
    });
    this.l2 = new JsonRpcClient(options.l2RpcUrl, limits);
    this.beacon = new BeaconBlobProvider(options.l1BeaconUrl ?? options.l1RpcUrl, {
      ...limits,
      routes: options.beaconRoutes ?? "auto",
      ...(options.secondsPerSlot === undefined ? {} : { secondsPerSlot: options.secondsPerSlot }),
    });

    this.context = {
      l1: this.l1,
      l2: this.l2,
      beacon: this.beacon,
      ...(options.kzg === undefined ? {} : { kzg: options.kzg }),
      agreedL2HeadHash: options.agreedL2HeadHash,
      claimedL2BlockNumber: options.boot.claimedL2BlockNumber,
      cached: (key) => this.store.tryGet(key),
      cache: (key, value) => this.cache(key, value),
      put: (key, value) => this.put(key, value),
      putKeccak: (value) => this.putKeccak(value),
      putTrie: (leaves, root, text) => this.putTrie(leaves, root, text),
      startPrefetch: (first, last) => this.startPrefetch(first, last),
      fail: (text, message, extra, cause) => this.fail(text, message, extra, cause),
    };
    for (const [key, value] of bootInfoPreimages(options.boot)) {
      this.store.put(key, value);
      this.budget.addPreimage(value.length);
    }
  }

  // ---- reads (synchronous, the program's side) ----

  private record(key: Uint8Array, value: Uint8Array): Uint8Array {
    if (isPreimageKey(key) && !this.served.has(key)) {
      // The boot keys are in the frame already (counted by the constructor).
      if (key[0] !== PreimageKeyType.Local) this.budget.addPreimage(value.length);
      this.served.set(key, value);
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

  /**
   * Between transactions: once `YIELD_AFTER_MS` of synchronous work passed, a turn of the event loop, so the block
   * witnesses fetched ahead keep arriving and the next ones are asked for while the program executes (without it
   * the endpoint idles until the program misses a value).
   */
  yieldPoint(): Promise<void> | undefined {
    if (this.prefetch === undefined || performance.now() - this.lastYield < YIELD_AFTER_MS) return undefined;
    return new Promise<void>((resolve) =>
      setImmediate(() => {
        this.lastYield = performance.now();
        resolve();
      }),
    );
  }

  /** Throws the first WitnessTooLargeError of this collection, if there was one (a reader may have swallowed it). */
  checkWithinBounds(): void {
    this.budget.checkNotRefused();
  }

  /**
   * The Prove frame's preimages: the boot keys, then every other value the program read, in reading order. After
   * a WitnessTooLargeError (even one a reader swallowed) it throws that error: there is no frame to send.
   */
  witness(): Preimage[] {
    this.checkWithinBounds();
    const boot = bootInfoPreimages(this.options.boot);
    const bootKeys = new Bytes32Map<true>();
    for (const [key] of boot) bootKeys.set(key, true);
    const read: Preimage[] = [];
    for (const [key, value] of this.served.entryViews()) if (!bootKeys.has(key)) read.push([key, value]);
    return [...boot, ...read];
  }

  // ---- fetching (asynchronous) ----

  /** Stores a checked value; a value new to the cache is charged to the budget first. */
  private cache(key: Uint8Array, value: Uint8Array): void {
    if (this.store.tryGet(key) === undefined) this.chargeCached(value);
    this.store.put(key, value);
  }

  /** Charges a value new to the cache to the budget (WitnessTooLargeError past it) and the figures. */
  private chargeCached(value: Uint8Array): void {
    this.budget.addCached(value.length);
    this.stats.cachedBytes += value.length;
  }

  private put(key: Uint8Array, value: Uint8Array): void {
    this.cache(key, value);
    if (this.referencesIndexed && key[0] === PreimageKeyType.Keccak256) fullHashesIn(value, this.fullHashes);
  }

  /** Stores a value under its keccak256, hashed once here (the store does not hash it again). */
  private putKeccak(value: Uint8Array): Uint8Array {
    const hash = keccak256(value);
    if (this.store.tryGetByKeccak256(hash) === undefined) this.chargeCached(value);
    this.store.putKeccak256Trusted(hash, value);
    if (this.referencesIndexed) fullHashesIn(value, this.fullHashes);
    return hash;
  }

  /** The full hash of a missing keccak256 key, from the trie's misses or the values that refer to it. */
  private fullHashOf(key: Uint8Array): Uint8Array | undefined {
    const id = toHexRaw(key.subarray(1));
    const known = this.fullHashes.get(id);
    if (known !== undefined || this.referencesIndexed) return known;
    this.referencesIndexed = true;
    for (const value of this.keccakValues()) fullHashesIn(value, this.fullHashes);
    return this.fullHashes.get(id);
  }

  /** Runs one fetch (retried on transient network failures), timing it. */
  private async timed<T>(what: string, fn: () => Promise<T>): Promise<T> {
    const t = performance.now();
    try {
      return await withRetries(fn, this.options.signal);
    } finally {
      this.stats.fetchMs += performance.now() - t;
      this.stats.fetches[what] = (this.stats.fetches[what] ?? 0) + 1;
    }
  }

  private l2State(): Promise<L2StateSource> {
    this.l2StateChosen ??= this.options.l2State?.(this.l2) ?? Promise.resolve(dbGetSource(this.l2));
    return this.l2StateChosen;
  }

  /** Starts fetching the witnesses of L2 blocks `first` … `last` ahead (strategies that fetch by block). */
  private async startPrefetch(first: bigint, last: bigint): Promise<void> {
    if (this.deferring) {
      this.deferred ??= { first, last };
      return;
    }
    const source = await this.l2State();
    if (!source.prefetches || this.prefetch !== undefined || last < first) return;
    this.prefetch = new BlockWitnessPrefetch({
      source,
      endpoint: this.options.l2RpcUrl,
      first,
      last,
      concurrency: this.options.witnessConcurrency ?? 3,
      put: (values) => {
        for (const value of values) this.putKeccak(value);
      },
      ...(this.options.signal === undefined ? {} : { signal: this.options.signal }),
      onFetched: (_count, bytes, ms) => {
        this.stats.fetches["l2-block-witness"] = (this.stats.fetches["l2-block-witness"] ?? 0) + 1;
        this.stats.prefetchMs += ms;
        this.stats.prefetchBytes += bytes;
      },
    });
  }

  /** Fetches the witnesses of L2 blocks `first` … `last` ahead (a worker's blocks of a range run in parallel). */
  prefetchBlocks(first: bigint, last: bigint): Promise<void> {
    return this.startPrefetch(first, last);
  }

  /** Caches values known by their keccak256 (headers a block may read); only those read enter the witness. */
  preload(values: readonly Uint8Array[]): void {
    for (const value of values) this.putKeccak(value);
  }

  /** Every keccak256-keyed value held (fetched or recorded). */
  private *keccakValues(): Generator<Uint8Array> {
    for (const [key, value] of this.store.entries()) if (key[0] === PreimageKeyType.Keccak256) yield value;
  }

  /** Stops fetching ahead (the run is over). */
  close(): void {
    this.prefetch?.stop();
  }

  async hint(hint: Hint): Promise<void> {
    const text = formatHint(hint);
    if (this.done.has(text)) return;
    if (hint.type === "l1-block-header") this.budget.addL1Header(toHex(hint.hash));
    await this.timed(hint.type, () => fetchHint(this.context, hint, text));
    this.done.add(text);
  }

  /** Throws the WitnessFetchError of hint `text`. */
  fail(text: string, message: string, extra: Record<string, unknown> = {}, cause?: unknown): never {
    throw new WitnessFetchError(`${text}: ${message}`, { hint: text, ...extra }, { cause });
  }

  /** Caches every node of the index-keyed trie over `leaves`, which must have `root`. */
  putTrie(leaves: readonly Uint8Array[], root: Uint8Array, text: string): void {
    const built = orderedTrieNodes(leaves);
    if (!bytesEqual(built.root, root)) this.fail(text, "the items do not have the header's trie root");
    for (const node of built.nodes) this.putKeccak(node);
    // A root node shorter than 32 bytes is still read by its hash.
    if (leaves.length > 0 && this.store.tryGet(keccak256Key(root)) === undefined)
      this.fail(text, "the trie's root node was not produced");
  }

  /**
   * A read the program missed: wait for the block witnesses fetched ahead (a block witness that failed is thrown:
   * its endpoint lied or could not answer), then ask the strategy by hash. A strategy that fetches ahead and still
   * lacks the value names the endpoint (WitnessFetchError); db-get answers false and the program refuses.
   */
  async fetchMissing(key: Uint8Array): Promise<boolean> {
    if (key[0] !== PreimageKeyType.Keccak256) return false;
    const has = () => this.store.tryGet(key) !== undefined;
    return this.timed("state", async () => {
      if (this.deferring) {
        this.deferring = false;
        if (this.deferred !== undefined) await this.startPrefetch(this.deferred.first, this.deferred.last);
      }
      if (this.prefetch !== undefined && (await this.prefetch.waitFor(has))) return true;
      const source = await this.l2State();
      const full = this.fullHashOf(key);
      const value = full === undefined ? undefined : await source.valueByHash(full);
      const endpoint = this.options.l2RpcUrl;
      if (value !== undefined) {
        if (!bytesEqual(keccak256(value), full!))
          throw new WitnessFetchError(
            `${source.name} from ${endpoint}: the value for ${toHex(full!)} does not hash to it`,
            { hint: "state", endpoint },
          );
        this.putKeccak(value);
        return true;
      }
      if (this.prefetch !== undefined) {
        const origin = missingValueOrigin(key, this.keccakValues());
        throw new MissingWitnessValueError({
          kind: origin.kind,
          hash: toHex(origin.hash ?? full ?? key),
          block: origin.block,
          endpoint,
          strategy: source.name,
        });
      }
      return false;
    });
  }
}
