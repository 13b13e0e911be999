/**
 * Messages between the node's main thread and its call workers (EVM executions and heavy reads) (structured clone: bigints and
 * Uint8Arrays travel as they are). One job at a time per worker; every job carries its own id.
 */
import type { BlockHeader, PayloadAttributes, RollupConfig } from "../../chain/index.js";
import type { BlockWitness } from "../execution-witness.js";
import type { AccessListEntry, CallEnvironment, CallMessage, CallOutcome } from "../state/call.js";
import type { NodeRpcLimits } from "../rpc/limits.js";
import type { BlockRead } from "./block-reads.js";

/** Passed as `workerData`: what a worker needs to open the chain store read-only. */
export interface CallWorkerData {
  /** The node's SQLite file (WAL mode: readers do not block the sequencer's writer). */
  dbPath: string;
  /** The L2 chain id (transactions of full blocks are decoded with its Common). */
  chainId: bigint;
}

/**
 * Trie nodes and code written by the block being built that the worker has not seen yet: entries
 * `[from, from + entries.length)` of the builder's append-only, content-addressed node map.
 */
export interface OverlayDelta {
  /** The block being built (its payload id, hex): a new id replaces the worker's overlay. */
  blockId: string;
  from: number;
  /** [unprefixed hex keccak256, value] */
  entries: [string, Uint8Array][];
}

export type CallJob =
  | { kind: "call"; id: number; env: CallEnvironment; overlay: OverlayDelta | undefined; msg: CallMessage }
  | {
      kind: "estimate";
      id: number;
      env: CallEnvironment;
      overlay: OverlayDelta | undefined;
      msg: CallMessage;
      cap: bigint;
    }
  | {
      kind: "access-list";
      id: number;
      env: CallEnvironment;
      overlay: OverlayDelta | undefined;
      msg: CallMessage;
    }
  | ProofJob
  /** A block read (block-reads.ts) over sealed blocks, answered as JSON text. */
  | { kind: "block-read"; id: number; overlay: undefined; read: BlockRead }
  | WitnessJob;

/**
 * A block built on a sealed parent with every read recorded (execution-witness.ts `executeWithWitness`), or a sealed
 * block's witness from its record (witness-record.ts `witnessFor`).
 */
export interface WitnessJob {
  kind: "witness";
  id: number;
  overlay: undefined;
  config: RollupConfig;
  parent: BlockHeader;
  attributes: PayloadAttributes;
  transactions: readonly Uint8Array[];
  /** The sealed block these rebuild, when the caller established one: its witness record answers if kept. */
  sealed?: Uint8Array;
}

/**
 * eth_getProof at one state root (a sealed block's, or a snapshot's with its overlay): the worker
 * builds the proofs and serializes the JSON-RPC result itself, so the main thread only forwards text.
 */
export interface ProofJob {
  kind: "proof";
  id: number;
  stateRoot: Uint8Array;
  overlay: OverlayDelta | undefined;
  address: Uint8Array;
  /** The 32-byte storage keys end to end (one buffer clones far faster than a thousand small ones). */
  storageKeys: Uint8Array;
}

export type EstimateResult = { gas: bigint } | { failure: CallOutcome };

/** eth_createAccessList: the list and the outcome of the run that used it. */
export interface AccessListResult {
  accessList: AccessListEntry[];
  outcome: CallOutcome;
}

export type WorkerReply =
  /** The worker has opened the store and takes jobs. */
  | { kind: "ready" }
  /** An EVM execution of job `id` starts (the deadline counts per execution, like geth's evmtimeout). */
  | { kind: "run-started"; id: number }
  | { kind: "call-result"; id: number; outcome: CallOutcome }
  | { kind: "estimate-result"; id: number; result: EstimateResult }
  | { kind: "access-list-result"; id: number; result: AccessListResult }
  /** A read job's JSON-RPC `result`, already serialized (the main thread writes it into the response as is). */
  | { kind: "json-result"; id: number; json: string }
  /** A witness job's block hash and witness. */
  | { kind: "witness-result"; id: number; blockHash: Uint8Array; witness: BlockWitness; recorded: boolean }
  | { kind: "intrinsic-gas"; id: number; gas: bigint; intrinsic: bigint }
  /** A read counted more than a limit allows (the main thread rebuilds the NodeLimitExceededError). */
  | {
      kind: "limit-exceeded";
      id: number;
      limit: keyof NodeRpcLimits;
      max: number;
      requested: number;
      what: string;
    }
  /** Anything else the job threw (the same name and message the in-thread run would throw). */
  | { kind: "failed"; id: number; name: string; message: string };
