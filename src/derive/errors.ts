/**
 * Derivation's errors (docs/derive.md). Every refusal names its stage and falls in one of three kinds:
 * - "data-missing": the provider could not supply data derivation needs (a header, receipts, a blob). The caller
 *   must fail closed: never read it as "no data", an empty batch or a deposit-only block.
 * - "dropped": input that the OP Stack rules discard (a bad frame, channel or batch). Logged; derivation goes on.
 * - "critical": derivation cannot continue (an inconsistent provider, a rule the chain cannot satisfy).
 */
import { SuiteError, type ErrorDetails } from "../errors/index.js";

export type DeriveErrorKind = "data-missing" | "dropped" | "critical";

/** The stage that raised an error, in pipeline order. */
export type DeriveStage =
  | "traversal"
  | "retrieval"
  | "blob"
  | "frames"
  | "channel"
  | "batches"
  | "validation"
  | "attributes"
  | "driver"
  | "config";

/** Root of derivation's errors. */
export class DeriveError extends SuiteError<DeriveErrorKind> {
  readonly package = "derive";
  readonly stage: DeriveStage;

  constructor(
    stage: DeriveStage,
    kind: DeriveErrorKind,
    message: string,
    details?: ErrorDetails,
    options?: { cause?: unknown },
  ) {
    super(`${stage}: ${message}`, { kind, details: { stage, ...details }, cause: options?.cause });
    this.stage = stage;
  }
}

/** The provider lacks data derivation needs: fail closed. */
export class DataMissingError extends DeriveError {
  constructor(stage: DeriveStage, message: string, details?: ErrorDetails, options?: { cause?: unknown }) {
    super(stage, "data-missing", message, details, options);
  }
}

/** Input the spec says to drop (frame, channel, batch): derivation goes on without it. */
export class DroppedInputError extends DeriveError {
  constructor(stage: DeriveStage, message: string, details?: ErrorDetails, options?: { cause?: unknown }) {
    super(stage, "dropped", message, details, options);
  }
}

/** Derivation cannot go on. */
export class CriticalDeriveError extends DeriveError {
  constructor(stage: DeriveStage, message: string, details?: ErrorDetails, options?: { cause?: unknown }) {
    super(stage, "critical", message, details, options);
  }
}
