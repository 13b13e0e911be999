/**
 * Persistent chain store on better-sqlite3 (WAL, synchronous=NORMAL): trie nodes, contract code and
 * header preimages by hash, sealed blocks by number (header, transactions, receipts, receipt
 * details), a transaction index, chain metadata, and the pool journal: every accepted transaction not yet
 * in a sealed block (pooled or pre-confirmed in the block being built). Each sealed block is committed in
 * one transaction that also takes its transactions out of the journal, so after a crash (kill -9) the
 * store holds exactly the blocks sealed before it and every accepted transaction they do not contain. A block's
 * trie nodes and code may be written ahead of it in smaller transactions (`writeNodes`, so the event loop runs
 * between them): they are addressed by their hash, so a crash between leaves only nodes no block refers to yet.
 *
 * It is also the PreimageSource the execution engine reads state from.
 */
import Database from "better-sqlite3";
import { RLP } from "@ethereumjs/rlp";
import { keccak_256 } from "@noble/hashes/sha3.js";
import {
  bigIntToBytes,
  type BlockHeader,
  bytesToBigInt,
  decodeHeader,
  encodeHeader,
  type Receipt,
  type ReceiptDetails,
} from "../../chain/index.js";
import { NodeError, type NodeErrorOptions } from "../errors.js";
import { NodeTable } from "./node-table.js";
import { decodeStoredReceipt, encodeStoredReceiptRlp } from "./receipt-codec.js";
import {
  type StoredWitnessRecord,
  type WitnessRecord,
  type WitnessRecordSource,
  WITNESS_RECORDS_SCHEMA,
  WitnessRecordReader,
  encodeRecordKeys,
} from "./witness-records.js";

/** A sealed block as stored and served. */
export interface StoredBlock {
  header: BlockHeader;
  hash: Uint8Array;
  /** EIP-2718 encodings. */
  transactions: Uint8Array[];
  transactionHashes: Uint8Array[];
  receipts: Receipt[];
  details: ReceiptDetails[];
  /** Encoded size of the block (header, transactions, empty uncles and withdrawals). */
  size: bigint;
}

/** The data directory holds another chain than the one asked for. */
export class StoreMismatchError extends NodeError {
  constructor(message: string, options?: NodeErrorOptions) {
    super(message, "store-mismatch", options);
  }
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS nodes (key BLOB PRIMARY KEY, value BLOB NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS blocks (number INTEGER PRIMARY KEY, hash BLOB NOT NULL UNIQUE, header BLOB NOT NULL, body BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS txs (hash BLOB PRIMARY KEY, number INTEGER NOT NULL, idx INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS pool_journal (seq INTEGER PRIMARY KEY AUTOINCREMENT, hash BLOB NOT NULL UNIQUE, raw BLOB NOT NULL);
${WITNESS_RECORDS_SCHEMA}
`;

type Rlp = Uint8Array | Rlp[];

function opt(b: Uint8Array | undefined): Uint8Array {
  return b ?? new Uint8Array(0);
}

function encodeDetails(d: ReceiptDetails): Rlp {
  return [
    opt(d.transactionHash),
    bigIntToBytes(BigInt(d.transactionIndex)),
    d.from,
    opt(d.to),
    opt(d.contractAddress),
    bigIntToBytes(d.gasUsed),
    bigIntToBytes(d.effectiveGasPrice),
    bigIntToBytes(d.l1Fee),
    bigIntToBytes(d.operatorFee),
  ];
}

function decodeDetails(f: Uint8Array[]): ReceiptDetails {
  const orUndef = (b: Uint8Array): Uint8Array | undefined => (b.length === 0 ? undefined : b);
  return {
    transactionHash: f[0]!,
    transactionIndex: Number(bytesToBigInt(f[1]!)),
    from: f[2]!,
    to: orUndef(f[3]!),
    contractAddress: orUndef(f[4]!),
    gasUsed: bytesToBigInt(f[5]!),
    effectiveGasPrice: bytesToBigInt(f[6]!),
    l1Fee: bytesToBigInt(f[7]!),
    operatorFee: bytesToBigInt(f[8]!),
  };
}

/** Length of an RLP list header for a payload of `n` bytes. */
function listHeaderLength(n: number): number {
  if (n < 56) return 1;
  let bytes = 0;
  for (let v = n; v > 0; v = Math.floor(v / 256)) bytes++;
  return 1 + bytes;
}

/** Size of rlp([header, transactions, [], []]) as eth_getBlockByNumber reports it. */
export function blockSize(headerRlp: Uint8Array, transactions: readonly Uint8Array[]): bigint {
  let txPayload = 0;
  for (const tx of transactions) {
    // Legacy transactions are RLP lists and appear as such; typed ones are byte strings.
    txPayload += tx[0]! >= 0xc0 ? tx.length : RLP.encode(tx).length;
  }
  const txList = listHeaderLength(txPayload) + txPayload;
  const payload = headerRlp.length + txList + 1 + 1;
  return BigInt(listHeaderLength(payload) + payload);
}

/** A row of the blocks table. */
type BlockRow = { hash: Uint8Array; header: Uint8Array; body: Uint8Array };

/** A row of the blocks table as a StoredBlock. */
function decodeBlockRow(row: BlockRow): StoredBlock {
  const [txs, receipts, details] = RLP.decode(row.body) as unknown as [
    Uint8Array[],
    Uint8Array[][],
    Uint8Array[][],
  ];
  return {
    header: decodeHeader(row.header),
    hash: new Uint8Array(row.hash),
    transactions: txs,
    transactionHashes: txs.map((t) => keccak_256(t)),
    receipts: receipts.map((r) => decodeStoredReceipt(r)),
    details: details.map(decodeDetails),
    size: blockSize(row.header, txs),
  };
}

/** The last 256 sealed blocks decoded (sealed blocks never change), oldest evicted first. */
class SealedBlockCache {
  private readonly blocks = new Map<number, StoredBlock>();
  private static readonly SIZE = 256;

  remember(number: number, block: StoredBlock): void {
    this.blocks.set(number, block);
    if (this.blocks.size > SealedBlockCache.SIZE) {
      const oldest = this.blocks.keys().next().value;
      if (oldest !== undefined) this.blocks.delete(oldest);
    }
  }

  /** Block `number` from the cache, else from `row` (decoded and kept); undefined when there is none. */
  read(number: bigint, row: (n: number) => BlockRow | undefined): StoredBlock | undefined {
    if (number < 0n || number > BigInt(Number.MAX_SAFE_INTEGER)) return undefined;
    const n = Number(number);
    const cached = this.blocks.get(n);
    if (cached !== undefined) return cached;
    const found = row(n);
    if (found === undefined) return undefined;
    const block = decodeBlockRow(found);
    this.remember(n, block);
    return block;
  }
}

/** Where sealed blocks are read by number: the node's store, or a read-only connection to it. */
export interface BlockSource {
  blockByNumber(number: bigint): StoredBlock | undefined;
}

/** Opens (creating if needed) the store's database: WAL, synchronous NORMAL, the schema. */
function openStore(path: string): Database.Database {
  const db = new Database(path);
  db.pragma("journal_mode = WAL");
  // WAL + NORMAL: a committed block survives a process crash (kill -9); only an OS crash or power
  // loss may drop the last blocks. FULL would fsync on every block inside the event loop.
  db.pragma("synchronous = NORMAL");
  db.exec(SCHEMA);
  return db;
}

/** A block's witness record and how many of the latest blocks keep theirs (older ones are deleted). */
export interface WitnessRecordToKeep {
  record: WitnessRecord;
  window: number;
}

export class BlockStore extends NodeTable implements BlockSource, WitnessRecordSource {
  private readonly putNodeStmt: Database.Statement<[Uint8Array, Uint8Array]>;
  private readonly getBlockStmt: Database.Statement<[number], BlockRow>;
  private readonly getNumberByHashStmt: Database.Statement<[Uint8Array], { number: number }>;
  private readonly putBlockStmt: Database.Statement<[number, Uint8Array, Uint8Array, Uint8Array]>;
  private readonly getTxStmt: Database.Statement<[Uint8Array], { number: number; idx: number }>;
  private readonly putTxStmt: Database.Statement<[Uint8Array, number, number]>;
  private readonly headStmt: Database.Statement<[], { number: number } | undefined>;
  private readonly journalTxStmt: Database.Statement<[Uint8Array, Uint8Array]>;
  private readonly forgetTxStmt: Database.Statement<[Uint8Array]>;
  private readonly putWitnessStmt: Database.Statement<[number, Uint8Array, Uint8Array, Uint8Array]>;
  private readonly pruneWitnessesStmt: Database.Statement<[number]>;
  private readonly witnessRecords: WitnessRecordReader;
  private readonly cache = new SealedBlockCache();

  /**
   * `onUnheardJournalError` hears a pool-journal write that failed when no sender was waiting on it (the
   * transactions of that turn stay in the pool but not in the journal): the node logs it.
   */
  constructor(
    readonly path: string,
    private readonly onUnheardJournalError: (error: unknown) => void = () => undefined,
  ) {
    super(openStore(path));
    this.putNodeStmt = this.db.prepare("INSERT OR IGNORE INTO nodes (key, value) VALUES (?, ?)");
    this.getBlockStmt = this.db.prepare("SELECT hash, header, body FROM blocks WHERE number = ?");
    this.getNumberByHashStmt = this.db.prepare("SELECT number FROM blocks WHERE hash = ?");
    this.putBlockStmt = this.db.prepare(
      "INSERT INTO blocks (number, hash, header, body) VALUES (?, ?, ?, ?)",
    );
    this.getTxStmt = this.db.prepare("SELECT number, idx FROM txs WHERE hash = ?");
    this.putTxStmt = this.db.prepare("INSERT OR REPLACE INTO txs (hash, number, idx) VALUES (?, ?, ?)");
    this.headStmt = this.db.prepare("SELECT max(number) AS number FROM blocks") as typeof this.headStmt;
    this.journalTxStmt = this.db.prepare("INSERT OR IGNORE INTO pool_journal (hash, raw) VALUES (?, ?)");
    this.forgetTxStmt = this.db.prepare("DELETE FROM pool_journal WHERE hash = ?");
    this.putWitnessStmt = this.db.prepare(
      "INSERT OR REPLACE INTO witness_records (number, hash, reads, keys) VALUES (?, ?, ?, ?)",
    );
    this.pruneWitnessesStmt = this.db.prepare("DELETE FROM witness_records WHERE number <= ?");
    this.witnessRecords = new WitnessRecordReader(this.db);
  }

  /** Writes what the pool journal still holds in memory, then closes the database. */
  override close(): void {
    try {
      if (this.db.open) this.flushJournal();
    } finally {
      super.close();
    }
  }

  getMeta(key: string): string | undefined {
    const row = this.db.prepare("SELECT value FROM meta WHERE key = ?").get(key) as
      { value: string } | undefined;
    return row?.value;
  }

  setMeta(key: string, value: string): void {
    this.db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)").run(key, value);
  }

  // --- pool journal ---
  //
  // Group commit: the transactions accepted in one turn of the event loop are written in one SQLite transaction
  // (at the turn's check phase, or sooner when the journal is written otherwise), instead of a commit each: one
  // commit per transaction was 2 % of the node's CPU under bench:load. An accepted transaction is answered only
  // once `journalDurable()` resolves, so whatever a sender was told was accepted survives kill -9.

  /** Accepted transactions not yet written, in the order accepted. */
  private journalBuffer: [Uint8Array, Uint8Array][] = [];
  /** Settled when the buffer is written (or its write failed). */
  private journalWaiters: { resolve: () => void; reject: (e: unknown) => void }[] = [];
  private journalFlushScheduled = false;

  /**
   * Records an accepted transaction (a no-op when its hash is already journaled: it keeps its place). It is
   * durable once `journalDurable()` resolves (at the latest at the end of this turn of the event loop).
   */
  journalTransaction(hash: Uint8Array, raw: Uint8Array): void {
    this.journalBuffer.push([hash, raw]);
    if (!this.journalFlushScheduled) {
      this.journalFlushScheduled = true;
      setImmediate(() => {
        this.journalFlushScheduled = false;
        const heard = this.journalWaiters.length > 0;
        try {
          this.flushJournal();
        } catch (e) {
          // Waiters were rejected with the error (their senders are answered with it); else only the node hears it.
          if (!heard) this.onUnheardJournalError(e);
        }
      });
    }
  }

  /** Resolves when every transaction recorded so far is written; rejects with the write's error. */
  journalDurable(): Promise<void> {
    if (this.journalBuffer.length === 0) return Promise.resolve();
    return new Promise((resolve, reject) => this.journalWaiters.push({ resolve, reject }));
  }

  /** Writes the buffered transactions (inside the caller's SQLite transaction when there is one). */
  private writeJournalBuffer(): void {
    for (const [hash, raw] of this.journalBuffer) this.journalTxStmt.run(hash, raw);
  }

  /** Settles the waiters of the buffer just written (or whose write failed) and empties it. */
  private settleJournal(error?: unknown): void {
    const waiters = this.journalWaiters;
    this.journalBuffer = [];
    this.journalWaiters = [];
    for (const w of waiters) {
      if (error === undefined) w.resolve();
      else w.reject(error);
    }
  }

  /** Writes the buffered transactions now, in one SQLite transaction. */
  flushJournal(): void {
    if (this.journalBuffer.length === 0) return;
    try {
      this.db.transaction(() => this.writeJournalBuffer())();
    } catch (e) {
      this.settleJournal(e);
      throw e;
    }
    this.settleJournal();
  }

  /** Removes a transaction that left the pool for good (replaced or dropped). */
  forgetTransaction(hash: Uint8Array): void {
    this.flushJournal();
    this.forgetTxStmt.run(hash);
  }

  /** The journaled transactions' encodings, in the order they were accepted. */
  journaledTransactions(): Uint8Array[] {
    this.flushJournal();
    const rows = this.db.prepare("SELECT raw FROM pool_journal ORDER BY seq").all() as { raw: Uint8Array }[];
    return rows.map((row) => new Uint8Array(row.raw));
  }

  // --- blocks ---

  headNumber(): bigint | undefined {
    const row = this.headStmt.get();
    return row?.number === null || row?.number === undefined ? undefined : BigInt(row.number);
  }

  /**
   * Writes trie nodes and code (`[unprefixed hex keccak256, value]`, INSERT OR IGNORE) from `nodes` in one transaction
   * until they run out or `deadline` (performance.now()) passes; true when they ran out. Writing a block's nodes so
   * before its `commitBlock` keeps that commit short (nodes are addressed by hash: safe to write ahead of their block).
   */
  writeNodes(nodes: Iterator<[string, Uint8Array]>, deadline: number): boolean {
    return this.db.transaction(() => {
      for (let n = 0; ; n++) {
        if ((n & 63) === 63 && performance.now() >= deadline) return false;
        const next = nodes.next();
        if (next.done === true) return true;
        const [hex, value] = next.value;
        this.putNodeStmt.run(Buffer.from(hex.slice(2), "hex"), value);
      }
    })();
  }

  /**
   * Commits one sealed block with the trie nodes and code it created, in one transaction, and with them its witness
   * record when given (deleting the records that fall out of the window). `nodes` keys are unprefixed hex keccak256
   * hashes.
   */
  commitBlock(
    block: Omit<StoredBlock, "size">,
    nodes: Map<string, Uint8Array>,
    witness?: WitnessRecordToKeep,
  ): StoredBlock {
    const headerRlp = encodeHeader(block.header);
    const body = RLP.encode([
      block.transactions,
      block.receipts.map((r) => encodeStoredReceiptRlp(r)),
      block.details.map(encodeDetails),
    ] as Rlp[]);
    const number = Number(block.header.number);
    const journaled = this.journalBuffer.length > 0;
    this.db.transaction(() => {
      // Transactions accepted this turn are written first: the block may contain some of them (deleted below).
      this.writeJournalBuffer();
      for (const [hex, value] of nodes) this.putNodeStmt.run(Buffer.from(hex.slice(2), "hex"), value);
      this.putNodeStmt.run(block.hash.subarray(1), headerRlp);
      this.putBlockStmt.run(number, block.hash, headerRlp, body);
      block.transactionHashes.forEach((h, i) => {
        this.putTxStmt.run(h, number, i);
        this.forgetTxStmt.run(h);
      });
      if (witness !== undefined && witness.window > 0) {
        const { reads, keys } = witness.record;
        this.putWitnessStmt.run(number, block.hash, reads, encodeRecordKeys(keys));
        this.pruneWitnessesStmt.run(number - witness.window);
      }
    })();
    if (journaled) this.settleJournal();
    const stored: StoredBlock = { ...block, size: blockSize(headerRlp, block.transactions) };
    this.cache.remember(number, stored);
    return stored;
  }

  blockByNumber(number: bigint): StoredBlock | undefined {
    return this.cache.read(number, (n) => this.getBlockStmt.get(n));
  }

  blockNumberByHash(hash: Uint8Array): bigint | undefined {
    const row = this.getNumberByHashStmt.get(hash);
    return row === undefined ? undefined : BigInt(row.number);
  }

  witnessRecord(number: bigint): StoredWitnessRecord | undefined {
    return this.witnessRecords.read(number);
  }

  transactionLocation(hash: Uint8Array): { number: bigint; index: number } | undefined {
    const row = this.getTxStmt.get(hash);
    return row === undefined ? undefined : { number: BigInt(row.number), index: row.idx };
  }
}

/**
 * A read-only connection to the store's nodes and sealed blocks, for threads other than the sequencer's
 * (the call workers): WAL mode, so a reader sees every block committed before its read and never blocks
 * the writer. Sealed blocks never change, so the last 256 decoded are kept, as the main store does (a
 * smaller cache is no cache for eth_getLogs scanning a chain longer than it: bench:abuse's log burst).
 */
export class ReadonlyBlockStore extends NodeTable implements BlockSource, WitnessRecordSource {
  private readonly getBlockStmt: Database.Statement<[number], BlockRow>;
  private readonly getNumberByHashStmt: Database.Statement<[Uint8Array], { number: number }>;
  private readonly witnessRecords: WitnessRecordReader;
  private readonly cache = new SealedBlockCache();

  constructor(path: string) {
    super(new Database(path, { readonly: true, fileMustExist: true }));
    this.getBlockStmt = this.db.prepare("SELECT hash, header, body FROM blocks WHERE number = ?");
    this.getNumberByHashStmt = this.db.prepare("SELECT number FROM blocks WHERE hash = ?");
    this.witnessRecords = new WitnessRecordReader(this.db);
  }

  witnessRecord(number: bigint): StoredWitnessRecord | undefined {
    return this.witnessRecords.read(number);
  }

  /** The number of the sealed block `hash` names (a witness execution's ancestor headers). */
  blockNumberByHash(hash: Uint8Array): bigint | undefined {
    const row = this.getNumberByHashStmt.get(hash);
    return row === undefined ? undefined : BigInt(row.number);
  }

  blockByNumber(number: bigint): StoredBlock | undefined {
    return this.cache.read(number, (n) => this.getBlockStmt.get(n));
  }
}
