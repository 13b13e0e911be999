/**
 * Messages between the block pool (pool.ts) and its worker threads (worker.ts). Everything is structured-cloned
 * but the preimage table, whose arrays are SharedArrayBuffers (read in place, never copied).
 */
import type { BlockHeader, PayloadAttributes, RollupConfig } from "../../../chain/index.js";
import type { SharedPreimageTable } from "../../preimages/index.js";

/** One block to execute on the parent header the witness carries for it. */
export interface BlockJob {
  readonly id: number;
  /** The proof run the job belongs to: a worker keeps the table of the last run it saw. */
  readonly run: number;
  readonly table: SharedPreimageTable;
  readonly rollupConfig: RollupConfig;
  readonly parent: BlockHeader;
  readonly attributes: PayloadAttributes;
  readonly transactions: readonly Uint8Array[];
}

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
  readonly outcome: BlockOutcome;
  /** The worker's V8 heap in use after the job (bytes). */
  readonly heapUsed: number;
}
