/** Errors of the code generator: one root, CodegenError, with a kind per concrete class. */
import { SuiteError, type ErrorDetails } from "../src/errors/index.js";

export type CodegenErrorKind =
  | "typespec-invalid"
  | "openrpc-invalid"
  | "protocol-spec-invalid"
  | "journal-spec-invalid"
  | "runtime-not-self-contained";

/** Root of the code generator's errors (also thrown directly for a broken runtime file). */
export class CodegenError extends SuiteError<CodegenErrorKind> {
  readonly package = "codegen";

  constructor(
    message: string,
    kind: CodegenErrorKind,
    details?: ErrorDetails,
    options?: { cause?: unknown },
  ) {
    super(message, { kind, details, cause: options?.cause });
  }
}

/** Options of the concrete errors that take only a message. */
export interface CodegenErrorOptions {
  readonly details?: ErrorDetails;
  readonly cause?: unknown;
}
