/** Named errors of the payments library. */
import type { Address, Hex } from "viem";

export class PaymentsError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** An authorization's fields are out of range or malformed (addresses, amounts, window, nonce). */
export class InvalidAuthorizationError extends PaymentsError {}

/** A signature is not 65 bytes r | s | v with v in {0, 1, 27, 28}. */
export class MalformedSignatureError extends PaymentsError {}

/** The account asked to sign a cancellation is not the authorization's `from`: refused before signing. */
export class CancellationSignerMismatchError extends PaymentsError {
  constructor(
    readonly signer: Address,
    readonly authorizer: Address,
  ) {
    super(`only the authorizer ${authorizer} may sign the cancellation; refusing to sign with ${signer}`);
  }
}

/** The token returned a domain we cannot use (e.g. an empty name). */
export class InvalidTokenDomainError extends PaymentsError {}

/** `eth_call` of a relay reverted: nothing was signed or sent. */
export class RelaySimulationFailedError extends PaymentsError {
  constructor(
    readonly functionName: string,
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(`simulation of ${functionName} reverted: ${reason}`, options);
  }
}

/** A relayed transaction was mined but reverted. */
export class RelayRevertedError extends PaymentsError {
  constructor(readonly transactionHash: Hex) {
    super(`transaction ${transactionHash} reverted`);
  }
}
