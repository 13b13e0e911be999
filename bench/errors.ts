/** Errors of the benchmarks: one root, BenchError, with a kind per case. */
import { type ErrorDetails, SuiteError } from "../src/errors/index.js";

export type BenchErrorKind = "usage" | "wrong-result";

/** Root of the benchmarks' errors. */
export abstract class BenchError extends SuiteError<BenchErrorKind> {
  readonly package = "bench";

  constructor(message: string, kind: BenchErrorKind, details?: ErrorDetails) {
    super(message, { kind, details });
  }
}

/** A benchmark was called with a malformed flag. */
export class BenchUsageError extends BenchError {
  constructor(message: string, details?: ErrorDetails) {
    super(message, "usage", details);
  }
}

/** A measured operation produced a wrong result: the numbers would mean nothing. */
export class BenchResultError extends BenchError {
  constructor(message: string, details?: ErrorDetails) {
    super(message, "wrong-result", details);
  }
}
