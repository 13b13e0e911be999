/** Named errors of the payments library: one root, PaymentsError, with a kind per concrete class. */
import type { Address, Hex } from "viem";
import { SuiteError, type ErrorDetails } from "../errors/index.js";

export type PaymentsErrorKind =
  | "invalid-authorization"
  | "malformed-signature"
  | "cancellation-signer-mismatch"
  | "invalid-token-domain"
  | "relay-simulation-failed"
  | "relay-reverted"
  | "ambiguous-nonce-consumption";

/** Options of the concrete errors that take only a message: structured fields and the cause. */
export interface PaymentsErrorOptions {
  readonly details?: ErrorDetails;
  readonly cause?: unknown;
}

/** Root of the payments library's errors. */
export abstract class PaymentsError extends SuiteError<PaymentsErrorKind> {
  readonly package = "payments";

  constructor(message: string, kind: PaymentsErrorKind, options: PaymentsErrorOptions = {}) {
    super(message, { kind, details: options.details, cause: options.cause });
  }
}

/** An authorization's fields are out of range or malformed (addresses, amounts, window, nonce). */
export class InvalidAuthorizationError extends PaymentsError {
  constructor(message: string, options?: PaymentsErrorOptions) {
    super(message, "invalid-authorization", options);
  }
}

/** A signature is not 65 bytes r | s | v with v in {0, 1, 27, 28}. */
export class MalformedSignatureError extends PaymentsError {
  constructor(message: string, options?: PaymentsErrorOptions) {
    super(message, "malformed-signature", options);
  }
}

/** The account asked to sign a cancellation is not the authorization's `from`: refused before signing. */
export class CancellationSignerMismatchError extends PaymentsError {
  constructor(
    readonly signer: Address,
    readonly authorizer: Address,
  ) {
    super(
      `only the authorizer ${authorizer} may sign the cancellation; refusing to sign with ${signer}`,
      "cancellation-signer-mismatch",
      { details: { signer, authorizer } },
    );
  }
}

/** The token returned a domain we cannot use (e.g. an empty name). */
export class InvalidTokenDomainError extends PaymentsError {
  constructor(message: string, options?: PaymentsErrorOptions) {
    super(message, "invalid-token-domain", options);
  }
}

/**
 * What an EIP-3009 token's revert means, from the revert strings of its interface (USDC v2.2's, which
 * contracts/src/Eip3009Token.sol keeps): callers branch on this, never on the text.
 */
export type TokenRevertKind =
  | "authorization-used-or-canceled"
  | "authorization-not-yet-valid"
  | "authorization-expired"
  | "invalid-signature"
  | "caller-not-payee"
  | "other";

const TOKEN_REVERTS: ReadonlyMap<string, TokenRevertKind> = new Map([
  ["FiatTokenV2: authorization is used or canceled", "authorization-used-or-canceled"],
  ["FiatTokenV2: authorization is not yet valid", "authorization-not-yet-valid"],
  ["FiatTokenV2: authorization is expired", "authorization-expired"],
  ["FiatTokenV2: invalid signature", "invalid-signature"],
  ["FiatTokenV2: caller must be the payee", "caller-not-payee"],
]);

/** The meaning of a token's revert reason (the decoded `Error(string)`); "other" for anything else. */
export function tokenRevertKind(reason: string): TokenRevertKind {
  return TOKEN_REVERTS.get(reason) ?? "other";
}

/** `eth_call` of a relay reverted: nothing was signed or sent. */
export class RelaySimulationFailedError extends PaymentsError {
  /** What the revert means (from the token's revert string). */
  readonly revert: TokenRevertKind;

  constructor(
    readonly functionName: string,
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    const revert = tokenRevertKind(reason);
    super(`simulation of ${functionName} reverted: ${reason}`, "relay-simulation-failed", {
      details: { functionName, reason, revert },
      cause: options?.cause,
    });
    this.revert = revert;
  }
}

/** A relayed transaction was mined but reverted. */
export class RelayRevertedError extends PaymentsError {
  constructor(readonly transactionHash: Hex) {
    super(`transaction ${transactionHash} reverted`, "relay-reverted", { details: { transactionHash } });
  }
}

/** A token's logs show more than one consumption of one (authorizer, nonce): a nonce is consumed once. */
export class AmbiguousNonceConsumptionError extends PaymentsError {
  constructor(
    readonly authorizer: Address,
    readonly nonce: Hex,
    readonly count: number,
  ) {
    super(
      `${count} consumption logs for authorizer ${authorizer} nonce ${nonce}; a nonce is consumed once`,
      "ambiguous-nonce-consumption",
      { details: { authorizer, nonce, count } },
    );
  }
}
