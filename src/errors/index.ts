/**
 * The project's one error model (docs/errors.md). Every package declares one root class that extends
 * `SuiteError` (e.g. `ChainError`, `DeriveError`); its concrete errors extend that root. An error carries
 * - `kind`: a stable, machine-readable string that callers branch on (never the message text);
 * - `details`: the structured fields that explain it (ids, lengths, addresses), also kept as named properties
 *   where a class already exposes them;
 * - `cause`: the underlying error, when there is one (standard `Error.cause`).
 * JSON-RPC codes are not part of this model: servers map classes or kinds to codes at their edge.
 */

/** Structured fields of an error: JSON-friendly values (bigints and byte arrays are allowed). */
export type ErrorDetails = Readonly<Record<string, unknown>>;

export interface SuiteErrorOptions<Kind extends string> {
  readonly kind: Kind;
  readonly details?: ErrorDetails;
  readonly cause?: unknown;
}

/** Root of every error class the project defines. */
export abstract class SuiteError<Kind extends string = string> extends Error {
  /** The package that defined the error (e.g. "chain", "derive"). */
  abstract readonly package: string;
  readonly kind: Kind;
  readonly details: ErrorDetails;

  constructor(message: string, options: SuiteErrorOptions<Kind>) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.kind = options.kind;
    this.details = options.details ?? {};
  }
}

/** True when `error` is one of the project's errors (any package). */
export function isSuiteError(error: unknown): error is SuiteError {
  return error instanceof SuiteError;
}

/** True when `error` is a project error of the given kind. */
export function hasKind<Kind extends string>(error: unknown, kind: Kind): error is SuiteError<Kind> {
  return error instanceof SuiteError && error.kind === kind;
}
