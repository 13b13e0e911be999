/**
 * Reads of the block store's node table: trie nodes, contract code and header preimages by keccak256.
 * The table's key is the 31 bytes of the hash after its first byte (a keccak256 preimage key without
 * its type byte).
 */
import Database from "better-sqlite3";
import { MissingPreimageError } from "../../chain/index.js";
import type { HashSource } from "../state/sources.js";

/**
 * How much of the database file a connection reads through a memory map (SQLite's `mmap_size`; this build caps it at
 * 0x7fff0000, about 2 GiB). A trie node's read is a point lookup at a random key: through the map it costs no read(2)
 * per page and no copy into SQLite's own page cache. `npm run bench:node-store` (2 M random 31-byte keys, 796 MiB, the
 * file in the OS page cache either way; 2 × AMD EPYC vCPU): 28.2 µs a lookup without the map, 15.4 µs with it
 * (medians of 5 rounds of 200 000). A witness answered from its record reads ~2 000 values this way per Base-sized
 * block (57 % of the node's CPU while a host collected a 100-block witness at Base's target gas, in a profile of a
 * node run with --call-workers 0 so that its one thread did it), and the sequencer's and
 * the call workers' state reads are the same lookups. Writes still go through SQLite's journal as before. In the live
 * node the gain did not show: its witness workers still spent ~47 µs a lookup while a host collected a witness, and
 * the node's CPU over the proof was unchanged (docs/node/witnesses.md).
 */
export const NODE_STORE_MMAP_BYTES = 0x7fff0000;

export class NodeTable implements HashSource {
  private readonly getNodeStmt: Database.Statement<[Uint8Array], { value: Uint8Array }>;

  constructor(protected readonly db: Database.Database) {
    db.pragma(`mmap_size = ${NODE_STORE_MMAP_BYTES}`);
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
