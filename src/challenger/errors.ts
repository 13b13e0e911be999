/**
 * The challenger's errors (the project's error model, src/errors): `ChallengerError` is the root, each concrete
 * class has one `kind`; callers branch on the class or the kind, never on the message.
 */
import { type ErrorDetails, SuiteError } from "../errors/index.js";

export type ChallengerErrorKind = "config" | "nullify-reverted" | "journal-version-mismatch";

/** Root of the challenger's errors. */
export abstract class ChallengerError extends SuiteError<ChallengerErrorKind> {
  readonly package = "challenger";

  constructor(
    message: string,
    kind: ChallengerErrorKind,
    details?: ErrorDetails,
    options?: { cause?: unknown },
  ) {
    super(message, { kind, details, cause: options?.cause });
  }
}

/** A flag or environment variable is missing or malformed (`details.flag` names it). */
export class ChallengerConfigError extends ChallengerError {
  constructor(message: string, details?: ErrorDetails, options?: { cause?: unknown }) {
    super(message, "config", details, options);
  }
}

/** nullify() was mined and reverted. */
export class NullifyRevertedError extends ChallengerError {
  constructor(details: { readonly transactionHash: string; readonly id: bigint }) {
    super(`nullify(${details.id}) reverted in ${details.transactionHash}`, "nullify-reverted", details);
  }
}

/**
 * The verifier checks another journal version than the challenger's --journal-version: no nullification proof the
 * host returns would verify. Logged on every attempt until reconfigured.
 */
export class ChallengerJournalVersionError extends ChallengerError {
  constructor(details: {
    readonly verifier: string;
    readonly configured: string;
    readonly deployed: string;
  }) {
    super(
      `the verifier ${details.verifier} checks ${details.deployed} journals, the challenger is configured for ${details.configured} (--journal-version)`,
      "journal-version-mismatch",
      details,
    );
  }
}
