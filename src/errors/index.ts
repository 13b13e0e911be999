/**
 * The project's one error model (docs/errors.md). Every package declares one root class that extends
 * `SuiteError` (e.g. `ChainError`, `DeriveError`); its concrete errors extend that root. An error carries
 * - `kind`: a stable, machine-readable string that callers branch on (never the message text);
 * - `details`: the structured fields that explain it (ids, lengths, addresses), also kept as named properties
 *   where a class already exposes them;
 * - `cause`: the underlying error, when there is one (standard `Error.cause`); `walk()` follows the chain (viem's
 *   `BaseError.walk`), and `walkErrors` does the same for any error, the generated code's roots included.
 * JSON-RPC codes are not part of this model: servers map classes or kinds to codes at their edge.
 *
 * Layer: foundation, rank −1 (below every other package: each package's root error extends `SuiteError`).
 * Public surface: `SuiteError`, its options and `ErrorDetails`, `walkErrors`, `isSuiteError`, `hasKind`.
 * Concepts owned: the error model (kind, details, cause) every package's errors follow.
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

  /**
   * Follows the cause chain from this error: the first error `fn` accepts (undefined when none does), or without
   * `fn` the deepest cause.
   */
  walk(fn?: (error: unknown) => boolean): unknown {
    return walkErrors(this, fn);
  }
}

/**
 * Follows `error`'s cause chain (`Error.cause`), `error` first: the first error `fn` accepts (undefined when none
 * does), or without `fn` the deepest cause. A chain that loops back stops where it would repeat.
 */
export function walkErrors(error: unknown, fn?: (error: unknown) => boolean): unknown {
  const seen = new Set<unknown>();
  let current = error;
  for (;;) {
    if (fn?.(current) === true) return current;
    seen.add(current);
    const next: unknown = current instanceof Error ? current.cause : undefined;
    if (next === undefined || seen.has(next)) return fn === undefined ? current : undefined;
    current = next;
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
