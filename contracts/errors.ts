/** The contracts package's errors: compiling the sources and deploying the artifacts. */
import { SuiteError, type ErrorDetails } from "../src/errors/index.js";

export type ContractsErrorKind =
  "compilation-failed" | "compiler-version-mismatch" | "deployment-failed" | "deployment-conflict";

/** Root of the contracts package's errors. */
export abstract class ContractsError extends SuiteError<ContractsErrorKind> {
  readonly package = "contracts";

  constructor(
    message: string,
    kind: ContractsErrorKind,
    details: ErrorDetails,
    options: { cause?: unknown } = {},
  ) {
    super(message, { kind, details, cause: options.cause });
  }
}
