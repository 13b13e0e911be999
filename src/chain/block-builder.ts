/**
 * BlockBuilder: builds one OP Stack L2 block on top of a parent header, reading state from a
 * preimage source. Used by the sequencer (transactions one at a time, snapshots every 200 ms,
 * seal at the end) and by re-execution (executeBlock).
 */
import { createEVM, type EVM } from "@ethereumjs/evm";
import type { Common } from "@ethereumjs/common";
import { Address, setLengthLeft } from "@ethereumjs/util";
import { sha256 } from "@noble/hashes/sha2.js";
import { calcOpBaseFee, encodeOpExtraData, resolveEip1559Params } from "./base-fee.js";
import { fastEipLookup } from "./evm-fast-paths.js";
import { installEngineFastPaths } from "./evm-install.js";
import { CREATE2_DEPLOYER_ADDRESS, create2DeployerCode } from "./create2-deployer.js";
import { commonFor, opPrecompiles } from "./evm-setup.js";
import { type BlockHeader, EMPTY_OMMERS_HASH, EMPTY_TRIE_ROOT, headerHash } from "./header.js";
import { PreimageHeaderChain } from "./header-chain.js";
import { fromHex } from "./hex.js";
import { collectNewNodes } from "./new-nodes.js";
import { AppendOnlyOrderedTrie } from "./ordered-trie.js";
import { headerMessagePasserRoot, outputRootV0 } from "./output-root.js";
import { MissingPreimageError, type PreimageSource } from "./preimage-store.js";
import { type Receipt, type ReceiptDetails, bloomOr, encodeReceipt } from "./receipts.js";
import { OpFork, type RollupConfig, activeFork, isForkActive } from "./rollup-config.js";
import { PreimageTrieDB } from "./trie-db.js";
import { BlockStateManager } from "./state.js";
import { type DecodedTransaction, decodeTransaction } from "./transactions.js";
import { TransactionProcessor, TransactionRejectedError } from "./tx-processor.js";
import { InvalidTransactionEncodingError } from "./deposit-tx.js";
import { ChainError } from "./errors.js";

export const SYSTEM_ADDRESS = new Address(fromHex("0xfffffffffffffffffffffffffffffffffffffffe"));
export const BEACON_ROOTS_ADDRESS = new Address(fromHex("0x000f3df6d732807ef1319fb7b8bb8522d0beac02"));
export const HISTORY_STORAGE_ADDRESS = new Address(fromHex("0x0000f90827f1c53a10cb7a02335b175320002935"));
export const L2_TO_L1_MESSAGE_PASSER = new Address(fromHex("0x4200000000000000000000000000000000000016"));
/** sha256 of nothing: the requests hash of a block with no EIP-7685 requests (OP Isthmus). */
export const EMPTY_REQUESTS_HASH = sha256(new Uint8Array(0));
const SYSTEM_CALL_GAS = 30_000_000n;

/** Engine API payload attributes as OP uses them (bytes and bigints; hex only at the edges). */
export interface PayloadAttributes {
  timestamp: bigint;
  prevRandao: Uint8Array;
  suggestedFeeRecipient: Uint8Array;
  /** Ecotone+ (Cancun). */
  parentBeaconBlockRoot?: Uint8Array;
  gasLimit: bigint;
  /** Holocene+: 8 bytes, denominator ‖ elasticity; all zero = chain defaults. */
  eip1559Params?: Uint8Array;
  /** Jovian+. */
  minBaseFee?: bigint;
}

export interface BlockBuilderOptions {
  config: RollupConfig;
  parent: BlockHeader;
  attributes: PayloadAttributes;
  source: PreimageSource;
  /** PreimageTrieDBOptions.keepEveryWrite: for a store-backed execution (the node's), not the proof program's. */
  keepEveryWrite?: boolean;
}

export type AddTransactionResult =
  | { ok: true; index: number; transactionHash: Uint8Array; receipt: Receipt; details: ReceiptDetails }
  | {
      ok: false;
      transactionHash: Uint8Array | undefined;
      error: TransactionRejectedError | InvalidTransactionEncodingError;
    };

/** One account of the builder's current state, with the storage slots asked for (hex key → 32-byte value). */
export interface AccountState {
  nonce: bigint;
  balance: bigint;
  code: Uint8Array;
  storage: Map<string, Uint8Array>;
}

/** A header with real roots for the transactions added so far. */
export interface BlockSnapshot {
  header: BlockHeader;
  blockHash: Uint8Array;
  transactions: Uint8Array[];
  transactionHashes: Uint8Array[];
  receipts: Receipt[];
  receiptDetails: ReceiptDetails[];
}

export interface SealedBlock extends BlockSnapshot {
  stateRoot: Uint8Array;
  /** Undefined only when re-executing a pre-Isthmus block whose witness lacks the message passer account. */
  messagePasserStorageRoot: Uint8Array | undefined;
  /** v0 output root; undefined exactly when messagePasserStorageRoot is. */
  outputRoot: Uint8Array | undefined;
  /** Trie nodes and contract code this block created, keyed by keccak256 (reachable from the new roots). */
  newNodes: Map<string, Uint8Array>;
}

/** An earlier call failed with an error that was not a rejection; the builder's state is unusable. */
export class BlockBuilderFailedError extends ChainError {
  constructor(cause: unknown) {
    super(
      `block builder unusable after an earlier failure: ${cause instanceof Error ? cause.message : String(cause)}`,
      "block-builder-failed",
      { cause },
    );
  }
}

export class BlockSealedError extends ChainError {
  constructor() {
    super("block is already sealed", "block-sealed");
  }
}

export class BlockBuilder {
  readonly config: RollupConfig;
  readonly fork: OpFork;
  readonly parentHash: Uint8Array;
  readonly baseFee: bigint;
  readonly extraData: Uint8Array;
  private readonly attributes: PayloadAttributes;
  private readonly parent: BlockHeader;
  private readonly db: PreimageTrieDB;
  private readonly state: BlockStateManager;
  private readonly evm: EVM;
  private readonly processor: TransactionProcessor;
  private readonly txs: Uint8Array[] = [];
  private readonly txHashes: Uint8Array[] = [];
  private readonly receipts: Receipt[] = [];
  private readonly details: ReceiptDetails[] = [];
  /** The two roots and the bloom grow with the block: a snapshot adds only what came since the last one. */
  private readonly transactionsTrie = new AppendOnlyOrderedTrie<Uint8Array>((raw) => raw);
  private readonly receiptsTrie = new AppendOnlyOrderedTrie<Receipt>(encodeReceipt);
  private readonly bloom = new Uint8Array(256);
  private bloomedReceipts = 0;
  private gasUsed = 0n;
  private daFootprint = 0n;
  private sealed = false;
  private failure: unknown;
  private lock: Promise<unknown> = Promise.resolve();

  private constructor(init: {
    opts: BlockBuilderOptions;
    fork: OpFork;
    parentHash: Uint8Array;
    baseFee: bigint;
    extraData: Uint8Array;
    db: PreimageTrieDB;
    state: BlockStateManager;
    evm: EVM;
    processor: TransactionProcessor;
  }) {
    this.config = init.opts.config;
    this.attributes = init.opts.attributes;
    this.parent = init.opts.parent;
    this.fork = init.fork;
    this.parentHash = init.parentHash;
    this.baseFee = init.baseFee;
    this.extraData = init.extraData;
    this.db = init.db;
    this.state = init.state;
    this.evm = init.evm;
    this.processor = init.processor;
  }

  /** Prepares the block: fork, base fee, extraData, EVM over the parent state, system calls. */
  static async start(opts: BlockBuilderOptions): Promise<BlockBuilder> {
    const { config, parent, attributes } = opts;
    if (attributes.timestamp <= parent.timestamp) {
      throw new RangeError(`timestamp ${attributes.timestamp} is not after the parent's ${parent.timestamp}`);
    }
    const fork = activeFork(config, attributes.timestamp);
    const parentHash = headerHash(parent);
    if (parent.baseFeePerGas === undefined) throw new RangeError("parent header has no base fee");
    const baseFee = calcOpBaseFee(
      config,
      {
        timestamp: parent.timestamp,
        gasLimit: parent.gasLimit,
        gasUsed: parent.gasUsed,
        baseFeePerGas: parent.baseFeePerGas,
        extraData: parent.extraData,
        blobGasUsed: parent.blobGasUsed,
      },
      attributes.timestamp,
    );
    let extraData: Uint8Array = new Uint8Array(0);
    if (fork >= OpFork.Holocene) {
      const p = resolveEip1559Params(config, attributes.eip1559Params ?? new Uint8Array(8));
      if (fork >= OpFork.Jovian) p.minBaseFee = attributes.minBaseFee ?? 0n;
      extraData = encodeOpExtraData(p);
    }

    await installEngineFastPaths();
    const common = fastEipLookup(commonFor(config.l2ChainId, fork));
    const db = new PreimageTrieDB(opts.source, { keepEveryWrite: opts.keepEveryWrite === true });
    const state = BlockStateManager.create(db, parent.stateRoot, common);
    // One checkpoint for the whole block: writes stay in the caches until a root is computed.
    await state.checkpoint();
    const blockchain = new PreimageHeaderChain(opts.source, parent.number, parentHash, parent.parentHash);
    const evm = await createEVM({
      common,
      stateManager: state,
      blockchain,
      customPrecompiles: opPrecompiles(common, fork),
    });
    const coinbase = new Address(attributes.suggestedFeeRecipient);
    const number = parent.number + 1n;
    const evmBlock = {
      header: {
        number,
        coinbase,
        timestamp: attributes.timestamp,
        difficulty: 0n,
        prevRandao: attributes.prevRandao,
        gasLimit: attributes.gasLimit,
        baseFeePerGas: baseFee,
        getBlobGasPrice: () => 1n,
      },
    };
    const processor = new TransactionProcessor(evm, state, {
      fork,
      chainId: config.l2ChainId,
      coinbase,
      baseFee,
      evmBlock,
    });
    const builder = new BlockBuilder({
      opts,
      fork,
      parentHash,
      baseFee,
      extraData,
      db,
      state,
      evm,
      processor,
    });
    if (config.forkTimes[OpFork.Canyon] === attributes.timestamp) {
      await state.putCode(new Address(CREATE2_DEPLOYER_ADDRESS), create2DeployerCode());
    }
    await builder.systemCalls(evmBlock);
    return builder;
  }

  private async systemCall(
    to: Address,
    data: Uint8Array,
    block: Parameters<EVM["runCall"]>[0]["block"],
  ): Promise<void> {
    const code = await this.state.getCode(to);
    if (code.length === 0) return;
    await this.evm.runCall({
      block,
      caller: SYSTEM_ADDRESS,
      origin: SYSTEM_ADDRESS,
      to,
      data,
      gasLimit: SYSTEM_CALL_GAS,
      skipNonceIncrement: true,
    });
    await this.evm.journal.cleanup();
    this.state.originalStorageCache.clear();
  }

  /** EIP-4788 beacon root (Ecotone+) and EIP-2935 parent hash (Isthmus+) system calls. */
  private async systemCalls(block: Parameters<EVM["runCall"]>[0]["block"]): Promise<void> {
    if (this.fork >= OpFork.Ecotone && this.attributes.parentBeaconBlockRoot !== undefined) {
      await this.systemCall(BEACON_ROOTS_ADDRESS, this.attributes.parentBeaconBlockRoot, block);
    }
    if (this.fork >= OpFork.Isthmus) {
      await this.systemCall(HISTORY_STORAGE_ADDRESS, this.parentHash, block);
    }
  }

  /**
   * Every trie node and code the builder has written so far, keyed by unprefixed hex keccak256
   * (superseded nodes included). Together with the source it resolves the state root of every
   * snapshot taken so far, so a node can serve pending state before the block is sealed.
   */
  get writtenNodes(): ReadonlyMap<string, Uint8Array> {
    return this.db.written;
  }

  /** The keys of `writtenNodes` in the order written (append-only). */
  get writtenNodeKeys(): readonly string[] {
    return this.db.writtenKeys;
  }

  /** The addresses and storage slots whose keccak256 the execution used as trie keys (a witness's `keys`). */
  get keyPreimages(): Uint8Array[] {
    return this.state.keyPreimages();
  }

  get number(): bigint {
    return this.parent.number + 1n;
  }

  /** The Common the builder decodes with: `decodeTransaction(raw, builder.common)` decodes ahead of `addTransaction`. */
  get common(): Common {
    return this.evm.common;
  }

  /**
   * The accounts (unprefixed hex address) and their storage slots (unprefixed hex key) read from the parent
   * state so far: the part of the pre-state the block touched (for tools that replay it on another engine).
   */
  get stateReads(): ReadonlyMap<string, ReadonlySet<string>> {
    return this.state.reads;
  }

  /** An account as the transactions added so far left it (undefined: it does not exist); call between transactions. */
  async readAccount(address: Uint8Array, slots: Iterable<string> = []): Promise<AccountState | undefined> {
    const a = new Address(address);
    const account = await this.state.getAccount(a);
    if (account === undefined) return undefined;
    const storage = new Map<string, Uint8Array>();
    for (const slot of slots)
      storage.set(slot, setLengthLeft(await this.state.getStorage(a, fromHex(slot)), 32));
    return { nonce: account.nonce, balance: account.balance, code: await this.state.getCode(a), storage };
  }

  /**
   * The balance of `address` as the transactions added so far left it (0 for an absent account); call between
   * transactions. Synchronous and cheap for an account the block already touched (the state's cache); an account
   * not yet read is read from the parent state and joins `stateReads`.
   */
  balanceOf(address: Uint8Array): bigint {
    return this.state.getAccountSync(new Address(address))?.balance ?? 0n;
  }

  get cumulativeGasUsed(): bigint {
    return this.gasUsed;
  }

  get transactionCount(): number {
    return this.txs.length;
  }

  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const guarded = async (): Promise<T> => {
      if (this.failure !== undefined) throw new BlockBuilderFailedError(this.failure);
      try {
        return await fn();
      } catch (e) {
        // Rejections are returned, not thrown; anything thrown may have left state half-applied.
        if (!(e instanceof BlockSealedError)) this.failure = e;
        throw e;
      }
    };
    const run = this.lock.then(guarded, guarded);
    this.lock = run.catch(() => undefined);
    return run;
  }

  /**
   * Executes one transaction (EIP-2718 bytes, or already decoded). On success the receipt is
   * returned; a transaction that cannot be included is a rejection and leaves state untouched.
   * Calls are serialized. Errors other than rejections (e.g. MissingPreimageError) are thrown, and
   * the builder then refuses further calls (BlockBuilderFailedError): start a new one.
   */
  addTransaction(tx: Uint8Array | DecodedTransaction): Promise<AddTransactionResult> {
    return this.exclusive(async () => {
      if (this.sealed) throw new BlockSealedError();
      let decoded: DecodedTransaction;
      try {
        decoded = tx instanceof Uint8Array ? decodeTransaction(tx, this.evm.common) : tx;
      } catch (e) {
        if (e instanceof InvalidTransactionEncodingError)
          return { ok: false, transactionHash: undefined, error: e };
        throw e;
      }
      try {
        const index = this.txs.length;
        const gasPool = this.attributes.gasLimit - this.gasUsed;
        const daRoom = this.attributes.gasLimit - this.daFootprint;
        const outcome = await this.processor.apply(decoded, index, this.gasUsed, gasPool, daRoom);
        this.gasUsed += outcome.gasUsed;
        this.daFootprint += outcome.daFootprint;
        this.txs.push(decoded.raw);
        this.txHashes.push(decoded.hash);
        this.receipts.push(outcome.receipt);
        this.details.push(outcome.details);
        return {
          ok: true,
          index,
          transactionHash: decoded.hash,
          receipt: outcome.receipt,
          details: outcome.details,
        };
      } catch (e) {
        if (e instanceof TransactionRejectedError)
          return { ok: false, transactionHash: decoded.hash, error: e };
        throw e;
      }
    });
  }

  /** Storage root of the L2ToL1MessagePasser (call after the state root was computed). */
  private async messagePasserStorageRoot(): Promise<Uint8Array> {
    const messagePasser = await this.state.getAccount(L2_TO_L1_MESSAGE_PASSER);
    return messagePasser?.storageRoot ?? EMPTY_TRIE_ROOT;
  }

  private async buildHeader(): Promise<BlockHeader> {
    const stateRoot = await this.state.getStateRoot();
    for (; this.bloomedReceipts < this.receipts.length; this.bloomedReceipts++)
      bloomOr(this.bloom, this.receipts[this.bloomedReceipts]!.logsBloom);
    const header: BlockHeader = {
      parentHash: this.parentHash,
      ommersHash: EMPTY_OMMERS_HASH,
      beneficiary: this.attributes.suggestedFeeRecipient,
      stateRoot,
      transactionsRoot: this.transactionsTrie.rootOf(this.txs),
      receiptsRoot: this.receiptsTrie.rootOf(this.receipts),
      logsBloom: this.bloom.slice(),
      difficulty: 0n,
      number: this.number,
      gasLimit: this.attributes.gasLimit,
      gasUsed: this.gasUsed,
      timestamp: this.attributes.timestamp,
      extraData: this.extraData,
      mixHash: this.attributes.prevRandao,
      nonce: new Uint8Array(8),
      baseFeePerGas: this.baseFee,
    };
    if (isForkActive(this.config, OpFork.Canyon, this.attributes.timestamp)) {
      header.withdrawalsRoot =
        this.fork >= OpFork.Isthmus ? await this.messagePasserStorageRoot() : EMPTY_TRIE_ROOT;
    }
    if (this.fork >= OpFork.Ecotone) {
      // Jovian repurposes blobGasUsed for the block's DA footprint; before, OP blocks have no blobs.
      header.blobGasUsed = this.fork >= OpFork.Jovian ? this.daFootprint : 0n;
      header.excessBlobGas = 0n;
      header.parentBeaconBlockRoot = this.attributes.parentBeaconBlockRoot ?? new Uint8Array(32);
    }
    if (this.fork >= OpFork.Isthmus) header.requestsHash = EMPTY_REQUESTS_HASH;
    return header;
  }

  /** The block as it stands: real state root, transactions/receipts roots, bloom and gas used. */
  snapshot(): Promise<BlockSnapshot> {
    return this.exclusive(async () => {
      return this.snapshotOf(await this.buildHeader());
    });
  }

  private snapshotOf(header: BlockHeader): BlockSnapshot {
    return {
      header,
      blockHash: headerHash(header),
      transactions: [...this.txs],
      transactionHashes: [...this.txHashes],
      receipts: [...this.receipts],
      receiptDetails: [...this.details],
    };
  }

  /** Finishes the block. No transactions can be added afterwards. */
  seal(): Promise<SealedBlock> {
    return this.exclusive(async () => {
      if (this.sealed) throw new BlockSealedError();
      this.sealed = true;
      const header = await this.buildHeader();
      // Before Isthmus the message passer is not in the header; a witness for such a block may
      // lack its account, and then the output root cannot be computed (MissingPreimageError).
      let messagePasserStorageRoot: Uint8Array | undefined;
      try {
        messagePasserStorageRoot = headerMessagePasserRoot(header) ?? (await this.messagePasserStorageRoot());
      } catch (e) {
        if (!(e instanceof MissingPreimageError)) throw e;
      }
      // Close the block checkpoint: the account trie's nodes reach the database (and `written`).
      await this.state.commit();
      const snap = this.snapshotOf(header);
      return {
        ...snap,
        stateRoot: header.stateRoot,
        messagePasserStorageRoot,
        outputRoot:
          messagePasserStorageRoot === undefined
            ? undefined
            : outputRootV0(header.stateRoot, messagePasserStorageRoot, snap.blockHash),
        newNodes: collectNewNodes(this.db, header.stateRoot),
      };
    });
  }
}
