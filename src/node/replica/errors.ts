/**
 * Errors of a read replica (docs/node/replicas.md "Read replicas"): its connection to the leader, a leader whose chain
 * is not the replica's, and a block the replica's own execution does not reproduce. All extend NodeError.
 */
import type { BlockDifference } from "../safe-head/errors.js";
import { NodeError } from "../errors.js";

/** The leader cannot be asked now: the websocket is closed, being reopened, or the request timed out. */
export class LeaderUnavailableError extends NodeError {
  constructor(message: string, details: Record<string, unknown> = {}) {
    super(message, "leader-unavailable", { details });
  }
}

/** The leader answered a request with a JSON-RPC error (passed on as is where a client's request is forwarded). */
export class LeaderRequestError extends NodeError {
  readonly code: number;
  readonly data: unknown;

  constructor(method: string, code: number, message: string, data: unknown) {
    super(message, "leader-request-failed", { details: { method, code } });
    this.code = code;
    this.data = data;
  }
}

/** The leader sent something that is not what the method or stream promises (not hex, not RLP, a wrong number…). */
export class LeaderDataError extends NodeError {
  constructor(message: string) {
    super(message, "leader-data-invalid");
  }
}

/**
 * The leader serves another chain than the replica holds: another genesis, another block at a height the replica
 * has, or a block whose parent is not the replica's. The replica stops following (its data directory belongs to
 * another chain, or the leader's was reset).
 */
export class LeaderDivergedError extends NodeError {
  constructor(message: string, details: Record<string, unknown>) {
    super(message, "leader-diverged", { details });
  }
}

/**
 * A sealed block the leader published is not what the replica's execution of its transactions gives: the
 * replica does not take it (and stops following rather than serve a chain it cannot reproduce).
 */
export class ReplicaVerificationError extends NodeError {
  readonly number: bigint;

  constructor(number: bigint, reason: string, difference?: BlockDifference) {
    super(
      `block ${number} from the leader does not verify: ${reason}${difference === undefined ? "" : ` (${difference.field}: leader ${difference.sealed}, re-executed ${difference.derived})`}`,
      "replica-verification",
      {
        details: {
          number,
          reason,
          ...(difference === undefined
            ? {}
            : { field: difference.field, leaderValue: difference.sealed, executedValue: difference.derived }),
        },
      },
    );
    this.number = number;
  }
}
