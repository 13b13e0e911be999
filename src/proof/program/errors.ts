/**
 * The proof program's refusals (docs/proof.md "Fail closed"). Each is a ProofError: the enclave signs nothing
 * after any of them, and callers branch on the class or `kind`.
 */
import { describePreimageKey } from "../../chain/index.js";
import { ProofError } from "../errors.js";

/** A preimage the program needs is not in the witness (never read as "no data"). */
export class MissingWitnessError extends ProofError<"missing-preimage"> {
  override readonly name = "MissingWitnessError";
  constructor(
    readonly key: Uint8Array,
    what: string,
    options: { readonly cause?: unknown } = {},
  ) {
    super(`missing preimage ${describePreimageKey(key)} (${what}): the proof is refused`, {
      kind: "missing-preimage",
      details: { key: describePreimageKey(key), what },
      cause: options.cause,
    });
  }
}

/** A preimage key type the program never accepts (precompile results: the program computes them itself). */
export class RefusedPreimageKeyError extends ProofError<"refused-preimage-key"> {
  override readonly name = "RefusedPreimageKeyError";
  constructor(key: Uint8Array, reason: string) {
    super(`preimage key ${describePreimageKey(key)} refused: ${reason}`, {
      kind: "refused-preimage-key",
      details: { key: describePreimageKey(key), reason },
    });
  }
}

/** A preimage that is present but cannot be what it claims to be (size, shape, blob commitment, trie). */
export class InvalidWitnessError extends ProofError<"invalid-witness"> {
  override readonly name = "InvalidWitnessError";
  constructor(
    message: string,
    details: { readonly what: string } & Record<string, unknown>,
    options: { readonly cause?: unknown } = {},
  ) {
    super(message, { kind: "invalid-witness", details, cause: options.cause });
  }
}

/** The agreed output root does not open to a consistent L2 head (state root or message passer root differ). */
export class AgreedOutputMismatchError extends ProofError<"agreed-output"> {
  override readonly name = "AgreedOutputMismatchError";
  constructor(message: string, details: { readonly field: string } & Record<string, unknown>) {
    super(message, { kind: "agreed-output", details });
  }
}

/** Derivation reached the L1 head before the claimed block (or the claim is not after the agreed head). */
export class RangeNotDerivedError extends ProofError<"range-not-derived"> {
  override readonly name = "RangeNotDerivedError";
  constructor(message: string, details: { readonly claimedBlock: bigint; readonly safeHead: bigint }) {
    super(message, { kind: "range-not-derived", details });
  }
}
