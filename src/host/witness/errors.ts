/** The witness path's error (docs/errors.md): a source answered something that does not check, or could not answer. */
import { HostError } from "../errors.js";

/** A source answered something that does not check, or could not answer what a hint named. */
export class WitnessFetchError extends HostError<"witness-fetch"> {
  override readonly name = "WitnessFetchError";
  constructor(
    message: string,
    details: { readonly hint: string } & Record<string, unknown>,
    options: { readonly cause?: unknown } = {},
  ) {
    super(message, { kind: "witness-fetch", details, cause: options.cause });
  }
}
