/**
 * The store's witness records (src/node/witness-record.ts): for each recent sealed block, the hashes of the values
 * its builder read and the keys its state hashed, written in the block's own commit and pruned past the window.
 */
import { RLP } from "@ethereumjs/rlp";
import type Database from "better-sqlite3";

/** What the builder of one block read, as stored with it. */
export interface WitnessRecord {
  /** The keccak256 hashes of the values read, 32 bytes each, concatenated (each once). */
  reads: Uint8Array;
  /** The addresses (20 bytes) and storage slots (32 bytes) the block's state hashed into trie keys. */
  keys: Uint8Array[];
}

/** A stored record of the sealed block `hash`. */
export interface StoredWitnessRecord extends WitnessRecord {
  hash: Uint8Array;
}

/** Where stored records are read (the store, or a worker's read-only connection to it). */
export interface WitnessRecordSource {
  witnessRecord(number: bigint): StoredWitnessRecord | undefined;
}

/** The record's keys as stored: an RLP list of byte strings. */
export function encodeRecordKeys(keys: readonly Uint8Array[]): Uint8Array {
  return RLP.encode(keys as Uint8Array[]);
}

/** The stored keys back; a malformed value (not a list of byte strings) is an Error (the store is the node's own). */
export function decodeRecordKeys(encoded: Uint8Array): Uint8Array[] {
  const decoded = RLP.decode(encoded) as unknown;
  if (!Array.isArray(decoded) || !decoded.every((k) => k instanceof Uint8Array))
    throw new Error("a stored witness record's keys are not a list of byte strings");
  return decoded as Uint8Array[];
}

export const WITNESS_RECORDS_SCHEMA =
  "CREATE TABLE IF NOT EXISTS witness_records (number INTEGER PRIMARY KEY, hash BLOB NOT NULL, reads BLOB NOT NULL, keys BLOB NOT NULL);";

type Row = { hash: Uint8Array; reads: Uint8Array; keys: Uint8Array };

/** Reads records by block number (on the store's connection, or a worker's read-only one). */
export class WitnessRecordReader {
  private readonly stmt: Database.Statement<[number], Row>;

  constructor(db: Database.Database) {
    this.stmt = db.prepare("SELECT hash, reads, keys FROM witness_records WHERE number = ?");
  }

  read(number: bigint): StoredWitnessRecord | undefined {
    if (number < 0n || number > BigInt(Number.MAX_SAFE_INTEGER)) return undefined;
    const row = this.stmt.get(Number(number));
    if (row === undefined) return undefined;
    return {
      hash: new Uint8Array(row.hash),
      reads: new Uint8Array(row.reads),
      keys: decodeRecordKeys(row.keys),
    };
  }
}
