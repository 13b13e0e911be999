/** The witness path's errors (docs/errors.md): a source that does not check, a witness over the bounds. */
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

/**
 * The witness would not fit one Prove frame (the enclave's preimage-count or payload cap) or the fetched cache
 * would outgrow it; collection stops there. `limit` names which.
 */
export class WitnessTooLargeError extends HostError<"witness-too-large"> {
  override readonly name = "WitnessTooLargeError";
  constructor(
    message: string,
    readonly fields: { readonly limit: "preimages" | "frame-bytes" | "cache-bytes" } & Record<
      string,
      number | string
    >,
  ) {
    super(message, { kind: "witness-too-large", details: fields });
  }
}

/** The L1 walk back from the request's L1 head went past --max-l1-distance headers; collection stops there. */
export class L1DistanceError extends HostError<"l1-distance"> {
  override readonly name = "L1DistanceError";
  constructor(
    message: string,
    readonly fields: { readonly distance: number; readonly maxL1Distance: number; readonly hash: string },
  ) {
    super(message, { kind: "l1-distance", details: fields });
  }
}
