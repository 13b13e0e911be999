/** proof_jobs rows to ProofJob values, for both engines (PostgreSQL returns BIGINT columns as strings). */
import { decodeRequest, decodeResult, type ProofJob, type ProofJobState } from "./job.js";

type Integer = number | string;

export interface ProofJobRow {
  readonly id: Integer;
  readonly namespace: string;
  readonly start_block: Integer;
  readonly end_block: Integer;
  readonly request: string;
  readonly state: ProofJobState;
  readonly attempts: Integer;
  readonly lease_owner: string | null;
  readonly lease_token: string | null;
  readonly lease_expires_at_ms: Integer | null;
  readonly available_at_ms: Integer;
  readonly result: string | null;
  readonly error: string | null;
  readonly created_at_ms: Integer;
  readonly updated_at_ms: Integer;
  readonly finished_at_ms: Integer | null;
}

const optionalNumber = (value: Integer | null): number | null => (value === null ? null : Number(value));

export function jobFromRow(row: ProofJobRow): ProofJob {
  const id = Number(row.id);
  const expiresAtMs = optionalNumber(row.lease_expires_at_ms);
  return {
    id,
    namespace: row.namespace,
    range: { startBlock: BigInt(row.start_block), endBlock: BigInt(row.end_block) },
    request: decodeRequest(id, row.request),
    state: row.state,
    attempts: Number(row.attempts),
    lease:
      row.state === "leased" && row.lease_owner !== null && expiresAtMs !== null
        ? { owner: row.lease_owner, expiresAtMs }
        : null,
    result: row.result === null ? null : decodeResult(id, row.result),
    error: row.error,
    availableAtMs: Number(row.available_at_ms),
    createdAtMs: Number(row.created_at_ms),
    updatedAtMs: Number(row.updated_at_ms),
    finishedAtMs: optionalNumber(row.finished_at_ms),
  };
}
