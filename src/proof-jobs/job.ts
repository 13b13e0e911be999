/**
 * What a proof job is: one L2 range, the prover_prove request that proves it, and its life in the queue
 * (queued → leased → succeeded, or back to queued after a failure or an expired lease, or failed once its attempts
 * are spent). Requests and results are stored as their JSON-RPC wire form and decoded through the generated codecs
 * when read.
 */
import {
  type ProofRequest,
  ProofRequestCodec,
  type ProofResult,
  ProofResultCodec,
} from "../../generated/rpc/index.js";
import { CorruptJobError, InvalidRangeError } from "./errors.js";
import { DEFAULT_NAMESPACE } from "./schema.js";

/** Longest namespace: room for a role and an address ("challenger:0x…"). */
export const MAX_NAMESPACE_LENGTH = 100;

/** Throws InvalidRangeError for an empty or overlong namespace. */
export function checkNamespace(namespace: string): void {
  if (namespace.length === 0 || namespace.length > MAX_NAMESPACE_LENGTH)
    throw new InvalidRangeError(`a namespace has 1 to ${MAX_NAMESPACE_LENGTH} characters`, {
      namespaceLength: namespace.length,
    });
}

/**
 * An L2 range: `startBlock` is the agreed block (its output root is the starting state, the parent of the first
 * block proved) and `endBlock` the claimed one. The next range starts where this one ends.
 */
export interface ProofRange {
  readonly startBlock: bigint;
  readonly endBlock: bigint;
}

/**
 * A range in the queue: a range is unique within its `namespace` (default `"proposer"`), so the ranges a
 * challenger disputes and the proposer's never collide, even when they cover the same blocks.
 */
export interface QueuedRange extends ProofRange {
  readonly namespace?: string;
}

export type ProofJobState = "queued" | "leased" | "succeeded" | "failed";

export const PROOF_JOB_STATES: readonly ProofJobState[] = ["queued", "leased", "succeeded", "failed"];

/** The worker holding a leased job and until when (milliseconds since the epoch, the queue's clock). */
export interface ProofJobLeaseInfo {
  readonly owner: string;
  readonly expiresAtMs: number;
}

export interface ProofJob {
  readonly id: number;
  /** Whose range it is (the range is unique within it). */
  readonly namespace: string;
  readonly range: ProofRange;
  readonly request: ProofRequest;
  readonly state: ProofJobState;
  /** Claims so far (a claim whose lease expired counts; a released one does not). */
  readonly attempts: number;
  /** Set while `leased`. */
  readonly lease: ProofJobLeaseInfo | null;
  /** Set once `succeeded`. */
  readonly result: ProofResult | null;
  /** The last failure: a prove error's message or an expired lease; kept after a later success for the record. */
  readonly error: string | null;
  /** When a `queued` job may next be claimed (later than now while backing off after a failure). */
  readonly availableAtMs: number;
  readonly createdAtMs: number;
  readonly updatedAtMs: number;
  /** When it reached `succeeded` or `failed`. */
  readonly finishedAtMs: number | null;
}

/** A claim: the job and the lease token every later call about it must present. */
export interface ProofJobLease {
  readonly job: ProofJob;
  readonly owner: string;
  /** Unique per claim: a heartbeat or result carrying an older claim's token is ignored. */
  readonly token: string;
  readonly expiresAtMs: number;
}

/** Checks a range and that its request proves exactly it; throws InvalidRangeError. */
export function checkRange(range: QueuedRange, request: ProofRequest): void {
  checkNamespace(range.namespace ?? DEFAULT_NAMESPACE);
  if (range.startBlock < 0n || range.endBlock <= range.startBlock)
    throw new InvalidRangeError("the end must be above the start", {
      startBlock: range.startBlock,
      endBlock: range.endBlock,
    });
  if (range.endBlock > BigInt(Number.MAX_SAFE_INTEGER))
    throw new InvalidRangeError("block numbers above 2^53 are not stored", { endBlock: range.endBlock });
  if (request.claimed_l2_block_number !== range.endBlock)
    throw new InvalidRangeError("the request's claimed_l2_block_number is not the range's end", {
      endBlock: range.endBlock,
      claimedBlock: request.claimed_l2_block_number,
    });
}

export const encodeRequest = (request: ProofRequest): string =>
  JSON.stringify(ProofRequestCodec.encode(request));
export const encodeResult = (result: ProofResult): string => JSON.stringify(ProofResultCodec.encode(result));

export function decodeRequest(jobId: number, text: string): ProofRequest {
  try {
    return ProofRequestCodec.decode(JSON.parse(text), "request");
  } catch (error) {
    throw new CorruptJobError(jobId, "request", error);
  }
}

export function decodeResult(jobId: number, text: string): ProofResult {
  try {
    return ProofResultCodec.decode(JSON.parse(text), "result");
  } catch (error) {
    throw new CorruptJobError(jobId, "result", error);
  }
}
