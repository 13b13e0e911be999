/** Errors of the code generator: one root, CodegenError, with a kind per concrete class. */
import { SuiteError, type ErrorDetails } from "../src/errors/index.js";

export type CodegenErrorKind =
  | "typespec-invalid"
  | "openrpc-invalid"
  | "examples-invalid"
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

/** Thrown when the TypeSpec sources do not compile or use a construct codegen does not support. */
export class SpecError extends CodegenError {
  constructor(message: string, options: CodegenErrorOptions = {}) {
    super(message, "typespec-invalid", options.details, options);
  }
}

/** Thrown when an assembled document does not validate against the OpenRPC meta-schema. */
export class InvalidOpenRpcDocumentError extends CodegenError {
  constructor(message: string, options: CodegenErrorOptions = {}) {
    super(message, "openrpc-invalid", options.details, options);
  }
}

/** A recorded examples file (spec/examples) is malformed or does not fit its methods. */
export class ExamplesError extends CodegenError {
  constructor(message: string, options: CodegenErrorOptions = {}) {
    super(message, "examples-invalid", options.details, options);
  }
}

/** The protocol spec file (spec/protocol) is malformed or inconsistent. */
export class ProtocolSpecError extends CodegenError {
  constructor(message: string, options: CodegenErrorOptions = {}) {
    super(message, "protocol-spec-invalid", options.details, options);
  }
}

/** The journal layout file (spec/journal) is malformed or describes something the packer cannot express. */
export class JournalSpecError extends CodegenError {
  constructor(message: string, options: CodegenErrorOptions = {}) {
    super(message, "journal-spec-invalid", options.details, options);
  }
}
