/**
 * Messages between the block pool (pool.ts) and its worker threads (worker.ts). Everything is structured-cloned
 * but the preimage table, whose arrays are SharedArrayBuffers (read in place, never copied).
 */
import type { BlockHeader, PayloadAttributes, RollupConfig } from "../../../chain/index.js";
import type { SharedPreimageTable } from "../../preimages/index.js";

/** One block to execute on the parent header the witness carries for it. */
export interface BlockJob {
  readonly kind: "block";
  readonly id: number;
  /** The proof run the job belongs to: a worker keeps the table of the last run it saw. */
  readonly run: number;
  readonly table: SharedPreimageTable;
  readonly rollupConfig: RollupConfig;
  readonly parent: BlockHeader;
  readonly attributes: PayloadAttributes;
  readonly transactions: readonly Uint8Array[];
}

/** A share of the table's entries to check against their keys (`PreimageTable.verifyContent(from, to)`). */
export interface VerifyJob {
  readonly kind: "verify";
  readonly id: number;
  readonly run: number;
  readonly table: SharedPreimageTable;
  readonly from: number;
  readonly to: number;
}

/** What a worker answers for a VerifyJob. */
export type VerifyOutcome =
  /** Every keccak256- and sha256-keyed value of the share hashes to its key. */
  | { readonly kind: "verified" }
  /** The first value of the share that does not (the PreimageMismatchError's fields). */
  | { readonly kind: "mismatch"; readonly key: Uint8Array; readonly actualHash: Uint8Array }
  /** The check did not complete (the worker failed). */
  | { readonly kind: "failed"; readonly reason: string };

/**
 * A blob the request may carry, to check before derivation reads it: the 4096 field elements under `commitment`'s
 * element keys must have exactly that KZG commitment (src/proof/program/blob.ts).
 */
export interface BlobJob {
  readonly kind: "blob";
  readonly id: number;
  readonly run: number;
  readonly table: SharedPreimageTable;
  readonly commitment: Uint8Array;
}

/** What a worker answers for a BlobJob. */
export type BlobOutcome =
  /** The elements have the commitment: the sha256 of the blob they make. */
  | { readonly kind: "blob-checked"; readonly digest: Uint8Array }
  /** Not checked: an element missing or malformed, another commitment, or a failure of the worker. */
  | { readonly kind: "failed"; readonly reason: string };

/** What a worker answers for one job. */
export type BlockOutcome =
  /** Executed: the computed block hash and output root. */
  | { readonly kind: "sealed"; readonly hash: Uint8Array; readonly outputRoot: Uint8Array }
  /** The payload is invalid (sequential execution would replace it by its deposit-only version). */
  | { readonly kind: "invalid"; readonly reason: string }
  /** A preimage the block reads is not in the witness. */
  | { readonly kind: "missing"; readonly key: Uint8Array }
  /** Anything else (an invalid witness value, a failure of the worker). */
  | { readonly kind: "failed"; readonly reason: string };

export interface BlockReply {
  readonly id: number;
  readonly outcome: BlockOutcome | VerifyOutcome | BlobOutcome;
  /** The worker's V8 heap in use after the job (bytes). */
  readonly heapUsed: number;
}
