/** The witness path's errors (docs/errors.md): a source that does not check, a witness over the bounds. */
import { HostError } from "../errors.js";

/** A source answered something that does not check, or could not answer what a hint named. */
export class WitnessFetchError extends HostError<"witness-fetch"> {
  override readonly name: string = "WitnessFetchError";
  constructor(
    message: string,
    details: { readonly hint: string } & Record<string, unknown>,
    options: { readonly cause?: unknown } = {},
  ) {
    super(message, { kind: "witness-fetch", details, cause: options.cause });
  }
}

/**
 * A value the program read is in none of the L2 block witnesses and the endpoint does not answer it by hash: the
 * endpoint's witness is incomplete. Names what the value was (`kind`: a trie node, code, a header, or `unknown`
 * when no value the host holds names it), its hash, the L2 block it belongs to (when found), the endpoint and the
 * strategy. A WitnessFetchError of hint `state`.
 */
export class MissingWitnessValueError extends WitnessFetchError {
  override readonly name = "MissingWitnessValueError";
  constructor(
    readonly fields: {
      readonly kind: "trie-node" | "code" | "header" | "unknown";
      /** 0x hex: the full keccak256 when known, else the preimage key. */
      readonly hash: string;
      readonly block: bigint | undefined;
      readonly endpoint: string;
      readonly strategy: string;
    },
  ) {
    const what = fields.kind === "unknown" ? "value" : fields.kind;
    const block = fields.block === undefined ? "" : ` of L2 block ${fields.block}`;
    super(
      `the L2 block witnesses from ${fields.endpoint} (${fields.strategy}) lack the ${what} ${fields.hash}${block}, and the endpoint does not answer it by hash`,
      { hint: "state", ...fields },
    );
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
