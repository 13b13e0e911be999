/**
 * Reads of the block store's node table: trie nodes, contract code and header preimages by keccak256.
 * The table's key is the 31 bytes of the hash after its first byte (a keccak256 preimage key without
 * its type byte).
 */
import Database from "better-sqlite3";
import { MissingPreimageError } from "../../chain/index.js";
import type { HashSource } from "../state/sources.js";

export class NodeTable implements HashSource {
  private readonly getNodeStmt: Database.Statement<[Uint8Array], { value: Uint8Array }>;

  constructor(protected readonly db: Database.Database) {
    this.getNodeStmt = db.prepare("SELECT value FROM nodes WHERE key = ?");
  }

  get(key: Uint8Array): Uint8Array {
    const v = this.tryGet(key);
    if (v === undefined) throw new MissingPreimageError(key);
    return v;
  }

  tryGet(key: Uint8Array): Uint8Array | undefined {
    if (key[0] !== 2) return undefined;
    return this.getNodeStmt.get(key.subarray(1))?.value;
  }

  tryGetByKeccak256Hex(hashHex: string): Uint8Array | undefined {
    return this.getNodeStmt.get(Buffer.from(hashHex.slice(2), "hex"))?.value;
  }

  /** Node or code by its full keccak256 hash. */
  getNodeByHash(hash: Uint8Array): Uint8Array | undefined {
    return this.getNodeStmt.get(hash.subarray(1))?.value;
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}

/**
 * A read-only connection to the node table, for threads other than the sequencer's: the database is
 * in WAL mode, so a reader sees every block committed before its read and never blocks the writer.
 */
export class ReadonlyNodeTable extends NodeTable {
  constructor(path: string) {
    super(new Database(path, { readonly: true, fileMustExist: true }));
  }
}
