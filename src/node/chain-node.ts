/**
 * The chain node: opens (or initialises) the store under the data directory, runs the sequencer,
 * and answers the questions the JSON-RPC handlers ask (which block a tag means, which state).
 *
 * The node runs in one of three modes (`ChainNodeMode`, chosen once from the options):
 * - standalone (no `l1`): the fixed dev genesis, a sequencer on synthetic L1 origins, and `safe` = `finalized` =
 *   `latest` (no L1 can reorg the chain);
 * - L1 sequencer (`l1`, docs/node/l1.md): the genesis the rollup config describes (built here and checked against
 *   its hash), a sequencer on real L1 origins read ahead by the L1 follower (src/node/l1), and `safe` /
 *   `finalized` from the `DerivedHeads` the derivation of the chain back from L1 provides (genesis until one is
 *   set);
 * - read replica (`follow`, docs/node/replicas.md): no sequencer, its leader's blocks re-executed; its chain is
 *   the dev chain or (with `l1`) the rollup config's, and its finality follows from that.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { keccak_256 } from "@noble/hashes/sha3.js";
import type { Common } from "@ethereumjs/common";
import {
  activeFork,
  buildGenesis,
  buildRollupGenesis,
  bytesEqual,
  devL1ChainConfig,
  findL1ChainConfig,
  calcOpBaseFee,
  commonFor,
  DEV_GENESIS_TIME,
  type DevAccount,
  devAccounts,
  devRollupConfig,
  genesisAccounts,
  OpFork,
  type RollupConfig,
  toHex,
  toHexRaw,
} from "../chain/index.js";
import { RpcL1Provider } from "../chain-rpc/index.js";
import type { Logger } from "../log/index.js";
import { GenesisMismatchError } from "./l1/errors.js";
import { L1Follower } from "./l1/follower.js";
import { L1BlockPlanner } from "./l1/planner.js";
import type { BlockContent } from "./block-content.js";
import { admitTransaction } from "./admission.js";
import type { BlockProducer } from "./block-producer.js";
import { Replica } from "./replica/replica.js";
import type { PendingSnapshot } from "./block-in-progress.js";
import { Sequencer, type SequencerOrigins } from "./sequencer.js";
import { CallPool } from "./calls/call-pool.js";
import { type CallContext, type CallExecutor, InThreadCalls } from "./calls/executor.js";
import { StateView } from "./state/state-view.js";
import { BlockStore, StoreMismatchError, type StoredBlock } from "./store/block-store.js";
import { DEFAULT_WITNESS_WINDOW } from "./witness-record.js";

export interface ChainNodeOptions {
  dataDir: string;
  chainId: bigint;
  blockTimeMs: number;
  flashblockIntervalMs: number;
  devAccountCount: number;
  /** Serve receipts (and placed transactions) of pre-confirmed transactions; false: only once sealed. */
  preconfirmedReceipts: boolean;
  /** L1 mode; absent: standalone. `chainId` and `blockTimeMs` must then be the rollup config's. */
  l1?: ChainNodeL1Options;
  /** Worker threads for eth_call / eth_estimateGas; 0 runs them on the event loop. */
  callWorkers: number;
  /** Deadline of one EVM execution of a call on a worker, milliseconds. */
  callTimeoutMs: number;
  logger: Logger;
  /** Block production failed (or a replica cannot follow its leader); default: log only. */
  onFatal?: (err: unknown) => void;
  /**
   * A read replica: follow the node at this JSON-RPC websocket URL (its sealed blocks and flashblocks,
   * re-executed and checked) instead of sequencing; transactions sent to it are forwarded there.
   */
  follow?: { leaderUrl: string };
  /**
   * How many of the latest blocks the node (sequencer or replica) keeps a witness record for (src/node/witness-record.ts), which
   * debug_executionWitness answers from; 0: none (every witness is an execution). Default DEFAULT_WITNESS_WINDOW.
   */
  witnessWindow?: number;
}

/** The L1 mode's inputs. */
export interface ChainNodeL1Options {
  /** The chain's rollup config (op-node's rollup.json, parsed): genesis, addresses, forks, block time. */
  rollupConfig: RollupConfig;
  l1RpcUrl: string;
  l1BeaconUrl: string;
  /** L1 blocks an L1 origin must be behind the L1 head. */
  confirmations: number;
  /** How often the L1 head is polled, milliseconds. */
  pollIntervalMs: number;
}

/**
 * The `safe` and `finalized` heads (block numbers) of an L1-backed chain, from deriving it back from L1
 * (src/node/safe-head's SafeHeadTracker). The node clamps them to its head.
 */
export interface DerivedHeads {
  safe(): bigint;
  finalized(): bigint;
}

/** No L1 can reorg the chain: every sealed block is final (`safe` = `finalized` = `latest`). */
export interface LatestFinality {
  readonly kind: "latest";
}

/** The chain is derived back from L1: `safe` and `finalized` are the derived heads, genesis until they are set. */
export interface DerivedFinality {
  readonly kind: "derived";
  heads: DerivedHeads | undefined;
}

/** Where `safe` and `finalized` come from. */
export type Finality = LatestFinality | DerivedFinality;

/** What the node runs as: one component per mode, holding exactly what that mode has. */
export type ChainNodeMode =
  | {
      readonly kind: "standalone";
      readonly sequencer: Sequencer;
      readonly finality: LatestFinality;
    }
  | {
      readonly kind: "l1-sequencer";
      readonly sequencer: Sequencer;
      /** Reads the L1 the sequencer takes its origins from. */
      readonly follower: L1Follower;
      readonly planner: L1BlockPlanner;
      readonly finality: DerivedFinality;
    }
  | { readonly kind: "replica"; readonly replica: Replica; readonly finality: Finality };

/** What a block selector resolved to. */
export type ResolvedBlock =
  { kind: "sealed"; block: StoredBlock } | { kind: "pending"; pending: PendingSnapshot };

/** The node's block store in its data directory; a pool-journal write no sender waited on is logged, not lost silently. */
function openBlockStore(options: Pick<ChainNodeOptions, "dataDir" | "logger">): BlockStore {
  return new BlockStore(join(options.dataDir, "chain.sqlite"), (err) =>
    options.logger.error({ err }, "pool journal write failed: this turn's transactions are not journaled"),
  );
}

export class ChainNode {
  readonly store: BlockStore;
  readonly config: RollupConfig;
  /** The mode and what belongs to it (ChainNodeMode). */
  readonly mode: ChainNodeMode;
  readonly devAccounts: DevAccount[];
  readonly common: Common;
  /** Where eth_call and eth_estimateGas run. */
  readonly calls: CallExecutor;
  private readonly viewCache = new Map<string, StateView>();

  private constructor(
    readonly options: ChainNodeOptions,
    store: BlockStore,
    config: RollupConfig,
    accounts: DevAccount[],
  ) {
    this.store = store;
    this.config = config;
    this.devAccounts = accounts;
    this.common = commonFor(config.l2ChainId, OpFork.Isthmus);
    this.calls =
      options.callWorkers > 0
        ? new CallPool({
            dbPath: store.path,
            chainId: config.l2ChainId,
            workers: options.callWorkers,
            timeoutMs: options.callTimeoutMs,
            logger: options.logger.child({ component: "calls" }),
          })
        : new InThreadCalls();
    this.mode = ChainNode.modeOf(options, config, store);
  }

  /** The mode the options ask for, with its components built (none started). */
  private static modeOf(options: ChainNodeOptions, config: RollupConfig, store: BlockStore): ChainNodeMode {
    const { l1, follow, logger, onFatal } = options;
    const fatal = onFatal === undefined ? {} : { onFatal };
    if (follow !== undefined) {
      // A replica re-executes its leader's blocks: it plans nothing and needs no L1 origins.
      const replica = new Replica({
        config,
        store,
        leaderUrl: follow.leaderUrl,
        logger: logger.child({ component: "replica" }),
        witnessWindow: options.witnessWindow ?? DEFAULT_WITNESS_WINDOW,
        ...fatal,
      });
      return {
        kind: "replica",
        replica,
        finality: l1 === undefined ? { kind: "latest" } : { kind: "derived", heads: undefined },
      };
    }
    const sequencer = (origins: SequencerOrigins): Sequencer =>
      new Sequencer({
        config,
        store,
        blockTimeMs: options.blockTimeMs,
        flashblockIntervalMs: options.flashblockIntervalMs,
        logger,
        origins,
        witnessWindow: options.witnessWindow ?? DEFAULT_WITNESS_WINDOW,
        ...fatal,
      });
    if (l1 === undefined)
      return {
        kind: "standalone",
        sequencer: sequencer({ kind: "synthetic" }),
        finality: { kind: "latest" },
      };
    const l1ChainId = config.l1ChainId ?? 0n;
    const follower = new L1Follower({
      provider: new RpcL1Provider(l1.l1RpcUrl),
      rollupConfig: config,
      l1Chain: findL1ChainConfig(l1ChainId) ?? devL1ChainConfig(l1ChainId),
      confirmations: l1.confirmations,
      pollIntervalMs: l1.pollIntervalMs,
      logger: logger.child({ component: "l1" }),
    });
    const planner = new L1BlockPlanner({
      rollupConfig: config,
      follower,
      logger: logger.child({ component: "sequencer" }),
    });
    return {
      kind: "l1-sequencer",
      sequencer: sequencer({ kind: "l1", planner }),
      follower,
      planner,
      finality: { kind: "derived", heads: undefined },
    };
  }

  static async open(options: ChainNodeOptions): Promise<ChainNode> {
    if (options.l1 !== undefined) return ChainNode.openL1(options, options.l1);
    mkdirSync(options.dataDir, { recursive: true });
    const store = openBlockStore(options);
    try {
      const accounts = devAccounts(options.devAccountCount);
      let genesisTime: bigint;
      const storedChainId = store.getMeta("chainId");
      if (storedChainId === undefined) {
        genesisTime = DEV_GENESIS_TIME;
        const config = devRollupConfig(options.chainId, genesisTime);
        const genesis = await buildGenesis(config, genesisAccounts(accounts));
        ChainNode.commitGenesis(store, genesis, options);
        store.setMeta("genesisTime", genesisTime.toString());
      } else {
        if (BigInt(storedChainId) !== options.chainId) {
          throw new StoreMismatchError(
            `the data directory ${options.dataDir} holds chain ${storedChainId}, not ${options.chainId}: use another --data-dir`,
          );
        }
        if (store.getMeta("mode") === "l1")
          throw new StoreMismatchError(
            `the data directory ${options.dataDir} holds an L1-backed chain: start it with --l1-rpc and --rollup-config, or use another --data-dir`,
          );
        genesisTime = BigInt(store.getMeta("genesisTime") ?? "0");
      }
      const storedCount = Number(store.getMeta("devAccountCount") ?? options.devAccountCount);
      const config = devRollupConfig(options.chainId, genesisTime);
      return new ChainNode(
        options,
        store,
        config,
        storedCount === accounts.length ? accounts : devAccounts(storedCount),
      );
    } catch (e) {
      store.close();
      throw e;
    }
  }

  private static commitGenesis(
    store: BlockStore,
    genesis: Awaited<ReturnType<typeof buildGenesis>>,
    options: ChainNodeOptions,
  ): void {
    store.commitBlock(
      {
        header: genesis.header,
        hash: genesis.hash,
        transactions: [],
        transactionHashes: [],
        receipts: [],
        details: [],
      },
      genesis.nodes,
    );
    store.setMeta("chainId", options.chainId.toString());
    store.setMeta("genesisHash", toHex(genesis.hash));
    store.setMeta("devAccountCount", String(options.devAccountCount));
    options.logger.info({ genesisHash: toHex(genesis.hash), dataDir: options.dataDir }, "created genesis");
  }

  /**
   * L1 mode: the genesis is the one the rollup config describes, built here from the dev chain's genesis
   * builder and checked against `genesis.l2.hash` (GenesisMismatchError); a data directory must hold that chain.
   */
  private static async openL1(options: ChainNodeOptions, l1: ChainNodeL1Options): Promise<ChainNode> {
    const config = l1.rollupConfig;
    const g = config.genesis;
    if (
      g === undefined ||
      config.depositContractAddress === undefined ||
      config.l1SystemConfigAddress === undefined
    )
      throw new GenesisMismatchError(
        "the rollup config lacks its genesis, deposit contract or SystemConfig address",
        {},
      );
    if (config.l2ChainId !== options.chainId || config.blockTime * 1000n !== BigInt(options.blockTimeMs))
      throw new GenesisMismatchError("the chain id or block time differs from the rollup config's", {
        chainId: options.chainId,
        blockTimeMs: options.blockTimeMs,
      });
    if (g.l2.number !== 0n || g.l2Time !== config.genesisL2Time)
      throw new GenesisMismatchError("the rollup config's L2 genesis is not block 0 at genesis.l2_time", {
        number: g.l2.number,
      });
    const genesis = await buildRollupGenesis(config, options.devAccountCount);
    if (!bytesEqual(genesis.hash, g.l2.hash))
      throw new GenesisMismatchError(
        `the rollup config's L2 genesis ${toHex(g.l2.hash)} is not the dev chain's genesis ${toHex(genesis.hash)} for its time, system config and ${options.devAccountCount} dev accounts`,
        { expected: toHex(g.l2.hash), built: toHex(genesis.hash), devAccounts: options.devAccountCount },
      );
    mkdirSync(options.dataDir, { recursive: true });
    const store = openBlockStore(options);
    try {
      const storedHash = store.getMeta("genesisHash");
      if (storedHash === undefined) {
        ChainNode.commitGenesis(store, genesis, options);
        store.setMeta("genesisTime", config.genesisL2Time.toString());
        store.setMeta("mode", "l1");
      } else if (storedHash !== toHex(genesis.hash) || store.getMeta("mode") !== "l1") {
        throw new StoreMismatchError(
          `the data directory ${options.dataDir} holds another chain (genesis ${storedHash}) than the rollup config's (${toHex(genesis.hash)}): use another --data-dir`,
        );
      }
      const node = new ChainNode(options, store, config, devAccounts(options.devAccountCount));
      try {
        if (node.mode.kind === "l1-sequencer") await node.mode.planner.init();
      } catch (e) {
        await node.calls.close();
        throw e;
      }
      return node;
    } catch (e) {
      store.close();
      throw e;
    }
  }

  start(): void {
    // A replica's pool is its leader's: it has no journal of its own to restore.
    if (this.mode.kind !== "replica") this.restoreJournaledTransactions();
    if (this.mode.kind === "l1-sequencer") this.mode.follower.start();
    this.producer.start();
    if (this.calls instanceof CallPool) this.calls.warmUp();
  }

  /**
   * Offers every journaled transaction (accepted before a restart or crash, not in a sealed block) to
   * the pool again, in the order they were first accepted. One that no longer passes admission (its
   * nonce was used, the sender cannot pay any more) is forgotten, with the reason logged.
   */
  private restoreJournaledTransactions(): void {
    const journaled = this.store.journaledTransactions();
    if (journaled.length === 0) return;
    let restored = 0;
    for (const raw of journaled) {
      try {
        admitTransaction(this, raw);
        restored++;
      } catch (e) {
        const hash = keccak_256(raw);
        this.store.forgetTransaction(hash);
        this.options.logger.warn(
          { tx: toHex(hash), reason: (e as Error).message },
          "journaled transaction no longer admissible, forgotten",
        );
      }
    }
    this.options.logger.info(
      { restored, forgotten: journaled.length - restored },
      "restored the transaction pool from its journal",
    );
  }

  /** Where the head and the pending snapshot come from: the sequencer, or a replica's Replica. */
  get producer(): BlockProducer {
    return this.mode.kind === "replica" ? this.mode.replica : this.mode.sequencer;
  }

  /** Where `safe` and `finalized` come from (derived: an L1-backed chain, sequencer or replica). */
  get finality(): Finality {
    return this.mode.finality;
  }

  /** A chain derived back from L1: where `safe` and `finalized` come from; with latest finality, ignored. */
  setDerivedHeads(heads: DerivedHeads | undefined): void {
    const finality = this.mode.finality;
    if (finality.kind === "derived") finality.heads = heads;
  }

  async close(): Promise<void> {
    await this.producer.stop();
    if (this.mode.kind === "l1-sequencer") await this.mode.follower.stop();
    await this.calls.close();
    this.store.close();
  }

  get head(): StoredBlock {
    return this.producer.head;
  }

  get pending(): PendingSnapshot | undefined {
    return this.producer.pending;
  }

  /** A tag or number; undefined when there is no such block. */
  resolveTag(tag: string | bigint): ResolvedBlock | undefined {
    const head = this.head;
    const headNumber = head.header.number;
    const sealed = (n: bigint): ResolvedBlock | undefined => {
      if (n === headNumber) return { kind: "sealed", block: head };
      const block = this.store.blockByNumber(n);
      return block === undefined ? undefined : { kind: "sealed", block };
    };
    if (typeof tag === "bigint") return sealed(tag);
    switch (tag) {
      case "latest":
        return { kind: "sealed", block: head };
      case "pending": {
        const p = this.pending;
        return p === undefined ? { kind: "sealed", block: head } : { kind: "pending", pending: p };
      }
      case "safe":
      case "finalized": {
        const finality = this.mode.finality;
        if (finality.kind === "latest") return { kind: "sealed", block: head };
        const heads = finality.heads;
        const n = heads === undefined ? 0n : tag === "safe" ? heads.safe() : heads.finalized();
        return sealed(n < headNumber ? n : headNumber);
      }
      case "earliest":
        return sealed(0n);
      default:
        return undefined;
    }
  }

  blockByHash(hash: Uint8Array): ResolvedBlock | undefined {
    const n = this.store.blockNumberByHash(hash);
    if (n !== undefined) {
      const block = this.store.blockByNumber(n);
      if (block !== undefined) return { kind: "sealed", block };
    }
    const p = this.pending;
    if (p !== undefined && toHexRaw(p.snapshot.blockHash) === toHexRaw(hash))
      return { kind: "pending", pending: p };
    return undefined;
  }

  content(r: ResolvedBlock): BlockContent {
    if (r.kind === "sealed") {
      const b = r.block;
      return {
        header: b.header,
        hash: b.hash,
        size: b.size,
        transactions: b.transactions,
        transactionHashes: b.transactionHashes,
        receipts: b.receipts,
        details: b.details,
      };
    }
    const s = r.pending.snapshot;
    return {
      header: s.header,
      hash: s.blockHash,
      size: r.pending.size,
      transactions: s.transactions,
      transactionHashes: s.transactionHashes,
      receipts: s.receipts,
      details: s.receiptDetails,
    };
  }

  stateOf(r: ResolvedBlock): StateView {
    if (r.kind === "pending") return r.pending.view;
    if (r.block === this.head) return this.producer.headView;
    const key = toHexRaw(r.block.header.stateRoot);
    let view = this.viewCache.get(key);
    if (view === undefined) {
      if (this.viewCache.size > 16) this.viewCache.clear();
      view = new StateView(this.store, r.block.header.stateRoot);
      this.viewCache.set(key, view);
    }
    return view;
  }

  /** The environment and state a call at `r` runs in. */
  callContext(r: ResolvedBlock): CallContext {
    if (r.kind === "pending") {
      const p = r.pending;
      return {
        env: p.env,
        source: p.view.source,
        overlay: { blockId: toHexRaw(p.payloadId), nodes: p.writtenNodes, keys: p.writtenNodeKeys },
      };
    }
    const h = r.block.header;
    const parent = h.number === 0n ? undefined : this.store.blockByNumber(h.number - 1n);
    return {
      env: {
        chainId: this.config.l2ChainId,
        fork: activeFork(this.config, h.timestamp),
        number: h.number,
        timestamp: h.timestamp,
        coinbase: h.beneficiary,
        prevRandao: h.mixHash,
        gasLimit: h.gasLimit,
        baseFee: h.baseFeePerGas ?? 0n,
        parentHash: h.parentHash,
        grandparentHash: parent?.header.parentHash ?? new Uint8Array(32),
        stateRoot: h.stateRoot,
      },
      source: this.store,
      overlay: undefined,
    };
  }

  /** Base fee of the block being built (or of the next one when none is being built). */
  nextBaseFee(): bigint {
    const p = this.pending;
    if (p !== undefined) return p.env.baseFee;
    const h = this.head.header;
    return calcOpBaseFee(
      this.config,
      {
        timestamp: h.timestamp,
        gasLimit: h.gasLimit,
        gasUsed: h.gasUsed,
        baseFeePerGas: h.baseFeePerGas ?? 0n,
        extraData: h.extraData,
        blobGasUsed: h.blobGasUsed,
      },
      h.timestamp + 1n,
    );
  }

  /** State the pool admits against: the pending snapshot, else the head. */
  admissionState(): StateView {
    return this.pending?.view ?? this.producer.headView;
  }
}
