/**
 * src/derive's providers over the program's oracle (docs/proof.md "The oracle"): every read is announced with a
 * hint, then served from preimages. L1 headers by keccak256 of their hash, L1 transactions and receipts by walking
 * their tries from the header's roots, blobs by their commitment and field-element keys with a KZG check of the
 * whole blob, L2 headers and transactions the same way from the agreed head down by parent hash. A preimage the
 * oracle cannot supply is a MissingWitnessError; nothing answers "unknown" as if it were "empty".
 */
import { type BlockHeader, type Receipt, toHex, toHexRaw } from "../../chain/index.js";
import {
  type BlobProvider,
  type Kzg,
  type L1BlockRef,
  type L1Provider,
  type L2Block,
  type L2Provider,
  loadKzg,
} from "../../derive/index.js";
import { InvalidWitnessError } from "./errors.js";
import { type ProgramOracle, readWithFetch } from "./oracle.js";
import { readBlob } from "./blob.js";
import { canonicalTransaction, decodeReceipt, readHeader, readOrderedTrie } from "./reads.js";

/** L1 execution data from preimages. */
export class OracleL1Provider implements L1Provider {
  private readonly headers = new Map<string, BlockHeader>();
  private readonly transactions = new Map<string, readonly Uint8Array[]>();
  private readonly receipts = new Map<string, readonly Receipt[]>();

  constructor(private readonly oracle: ProgramOracle) {}

  async headerByHash(hash: Uint8Array): Promise<BlockHeader> {
    const id = toHexRaw(hash);
    const known = this.headers.get(id);
    if (known !== undefined) return known;
    await this.oracle.hint({ type: "l1-block-header", hash });
    const header = await readWithFetch(this.oracle, `L1 header ${toHex(hash)}`, () =>
      readHeader(this.oracle, hash, "L1 header"),
    );
    this.headers.set(id, header);
    return header;
  }

  /** Derivation walks L1 by parent hash from the L1 head; a number names no preimage. */
  async headerByNumber(): Promise<BlockHeader | undefined> {
    return undefined;
  }

  async transactionsByHash(blockHash: Uint8Array): Promise<readonly Uint8Array[]> {
    return this.blockItems(
      this.transactions,
      blockHash,
      "l1-transactions",
      (header) => header.transactionsRoot,
      canonicalTransaction,
    );
  }

  async receiptsByHash(blockHash: Uint8Array): Promise<readonly Receipt[]> {
    return this.blockItems(
      this.receipts,
      blockHash,
      "l1-receipts",
      (header) => header.receiptsRoot,
      decodeReceipt,
    );
  }

  /** The items of one of a block's index-keyed tries, announced, read, decoded and kept. */
  private async blockItems<T>(
    cache: Map<string, readonly T[]>,
    blockHash: Uint8Array,
    type: "l1-transactions" | "l1-receipts",
    rootOf: (header: BlockHeader) => Uint8Array,
    decode: (leaf: Uint8Array, what: string) => T,
  ): Promise<readonly T[]> {
    const id = toHexRaw(blockHash);
    const known = cache.get(id);
    if (known !== undefined) return known;
    const header = await this.headerByHash(blockHash);
    const what = `${type} of ${toHex(blockHash)}`;
    await this.oracle.hint({ type, hash: blockHash });
    const leaves = await readWithFetch(this.oracle, what, () =>
      readOrderedTrie(this.oracle, rootOf(header), what),
    );
    const items = leaves.map((leaf) => decode(leaf, what));
    cache.set(id, items);
    return items;
  }
}

/** Blobs from preimages, each checked by KZG before use (so `verified`). */
export class OracleBlobProvider implements BlobProvider {
  readonly verified = true;

  constructor(
    private readonly oracle: ProgramOracle,
    private readonly kzg: () => Promise<Kzg> = loadKzg,
  ) {}

  async blob(block: L1BlockRef, index: number, versionedHash: Uint8Array): Promise<Uint8Array> {
    await this.oracle.hint({
      type: "l1-blob",
      versionedHash,
      blockHash: block.hash,
      blockNumber: block.number,
      index,
    });
    const kzg = await this.kzg();
    return readWithFetch(this.oracle, `blob ${toHex(versionedHash)}`, () =>
      readBlob(this.oracle, versionedHash, kzg),
    );
  }
}

/** The agreed L2 chain from preimages: the agreed head and its ancestors, by parent hash. */
export class OracleL2Provider implements L2Provider {
  private readonly hashes = new Map<bigint, Uint8Array>();
  private readonly headers = new Map<bigint, BlockHeader>();
  private lowest: bigint;

  constructor(
    private readonly oracle: ProgramOracle,
    private readonly head: {
      readonly number: bigint;
      readonly hash: Uint8Array;
      readonly header: BlockHeader;
    },
  ) {
    this.hashes.set(head.number, head.hash);
    this.headers.set(head.number, head.header);
    this.lowest = head.number;
  }

  /** The header of agreed block `number` (walking down by parent hash), or undefined above the agreed head. */
  async header(number: bigint): Promise<{ hash: Uint8Array; header: BlockHeader } | undefined> {
    if (number > this.head.number || number < 0n) return undefined;
    while (this.lowest > number) {
      const above = this.headers.get(this.lowest)!;
      const hash = above.parentHash;
      await this.oracle.hint({ type: "l2-block-header", hash });
      const header = await readWithFetch(this.oracle, `L2 header ${toHex(hash)}`, () =>
        readHeader(this.oracle, hash, "L2 header"),
      );
      if (header.number !== this.lowest - 1n)
        throw new InvalidWitnessError(`L2 header ${toHex(hash)} has number ${header.number}`, {
          what: "L2 header",
          expected: this.lowest - 1n,
        });
      this.lowest -= 1n;
      this.hashes.set(this.lowest, hash);
      this.headers.set(this.lowest, header);
    }
    return { hash: this.hashes.get(number)!, header: this.headers.get(number)! };
  }

  async blockByNumber(number: bigint): Promise<L2Block | undefined> {
    const found = await this.header(number);
    if (found === undefined) return undefined;
    const what = `L2 transactions of ${toHex(found.hash)}`;
    await this.oracle.hint({ type: "l2-transactions", hash: found.hash });
    const transactions = await readWithFetch(this.oracle, what, () =>
      readOrderedTrie(this.oracle, found.header.transactionsRoot, what),
    );
    return { hash: found.hash, header: found.header, transactions };
  }
}
