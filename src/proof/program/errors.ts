/**
 * The proof program's refusals (docs/proof.md "Fail closed"). Each is a ProgramError: the enclave signs nothing
 * after any of them, and callers branch on the class or `kind`.
 */
import { describePreimageKey } from "../../chain/index.js";
import { SuiteError } from "../../errors/index.js";

export type ProgramErrorKind =
  | "missing-preimage"
  | "refused-preimage-key"
  | "invalid-witness"
  | "agreed-output"
  | "range-not-derived"
  | "unverified-preimages";

/** Root of the proof program's errors. */
export abstract class ProgramError<
  Kind extends ProgramErrorKind = ProgramErrorKind,
> extends SuiteError<Kind> {
  readonly package = "program";
}

/** A preimage the program needs is not in the witness (never read as "no data"). */
export class MissingWitnessError extends ProgramError<"missing-preimage"> {
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
export class RefusedPreimageKeyError extends ProgramError<"refused-preimage-key"> {
  override readonly name = "RefusedPreimageKeyError";
  constructor(key: Uint8Array, reason: string) {
    super(`preimage key ${describePreimageKey(key)} refused: ${reason}`, {
      kind: "refused-preimage-key",
      details: { key: describePreimageKey(key), reason },
    });
  }
}

/** A preimage that is present but cannot be what it claims to be (size, shape, blob commitment, trie). */
export class InvalidWitnessError extends ProgramError<"invalid-witness"> {
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
export class AgreedOutputMismatchError extends ProgramError<"agreed-output"> {
  override readonly name = "AgreedOutputMismatchError";
  constructor(message: string, details: { readonly field: string } & Record<string, unknown>) {
    super(message, { kind: "agreed-output", details });
  }
}

/** Derivation reached the L1 head before the claimed block (or the claim is not after the agreed head). */
export class RangeNotDerivedError extends ProgramError<"range-not-derived"> {
  override readonly name = "RangeNotDerivedError";
  constructor(message: string, details: { readonly claimedBlock: bigint; readonly safeHead: bigint }) {
    super(message, { kind: "range-not-derived", details });
  }
}

/**
 * The check of the preimages against their keys did not complete (a block worker that verified a share of them
 * failed or exited): nothing is read from them and the proof is refused.
 */
export class PreimageVerificationError extends ProgramError<"unverified-preimages"> {
  override readonly name = "PreimageVerificationError";
  constructor(reason: string, details: { readonly from: number; readonly to: number }) {
    super(
      `the preimages ${details.from} to ${details.to} were not verified (${reason}): the proof is refused`,
      {
        kind: "unverified-preimages",
        details: { ...details, reason },
      },
    );
  }
}
