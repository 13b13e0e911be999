/** Creating and signing payment authorizations (Transfer- and ReceiveWithAuthorization). */
import { type Address, getAddress, isAddress, isAddressEqual, type LocalAccount } from "viem";
import { InvalidAuthorizationError } from "./errors.js";
import { isNonce, randomNonce } from "./nonce.js";
import { splitSignature, joinSignature } from "./signature.js";
import { receiveWithAuthorizationTypedData, transferWithAuthorizationTypedData } from "./typed-data.js";
import type { AuthorizationKind, PaymentAuthorization, SignedAuthorization, TokenDomain } from "./types.js";

const MAX_UINT256 = (1n << 256n) - 1n;

/** The part of a viem account used for signing: any LocalAccount (private key, HD, mnemonic). */
export type TypedDataSigner = Pick<LocalAccount, "address" | "signTypedData">;

export interface AuthorizationInput {
  kind?: AuthorizationKind;
  from: Address;
  to: Address;
  value: bigint;
  /** Defaults to 0 (valid from the start). */
  validAfter?: bigint;
  validBefore: bigint;
  /** Defaults to 32 fresh random bytes. */
  nonce?: PaymentAuthorization["nonce"];
}

function checkUint256(field: string, value: bigint): void {
  if (typeof value !== "bigint" || value < 0n || value > MAX_UINT256) {
    throw new InvalidAuthorizationError(`${field} must be a uint256 bigint`);
  }
}

function checkAddress(field: string, value: string): Address {
  if (!isAddress(value, { strict: false }))
    throw new InvalidAuthorizationError(`${field} is not an address: ${value}`);
  return getAddress(value);
}

/** Validates the fields and fills defaults (kind "transfer", validAfter 0, a random nonce). */
export function createAuthorization(input: AuthorizationInput): PaymentAuthorization {
  const kind = input.kind ?? "transfer";
  if (kind !== "transfer" && kind !== "receive")
    throw new InvalidAuthorizationError(`unknown kind ${String(kind)}`);
  const validAfter = input.validAfter ?? 0n;
  checkUint256("value", input.value);
  checkUint256("validAfter", validAfter);
  checkUint256("validBefore", input.validBefore);
  if (validAfter >= input.validBefore) {
    throw new InvalidAuthorizationError("validAfter must be earlier than validBefore");
  }
  const nonce = input.nonce ?? randomNonce();
  if (!isNonce(nonce)) throw new InvalidAuthorizationError("nonce must be 32 bytes of 0x-prefixed hex");
  return {
    kind,
    from: checkAddress("from", input.from),
    to: checkAddress("to", input.to),
    value: input.value,
    validAfter,
    validBefore: input.validBefore,
    nonce: nonce.toLowerCase() as PaymentAuthorization["nonce"],
  };
}

/** Signs the authorization's typed data with its `from` account; the signature's v is 27/28. */
export async function signAuthorization(
  account: TypedDataSigner,
  authorization: PaymentAuthorization,
  domain: TokenDomain,
): Promise<SignedAuthorization> {
  if (!isAddressEqual(account.address, authorization.from)) {
    throw new InvalidAuthorizationError(
      `authorization is from ${authorization.from}; it cannot be signed by ${account.address}`,
    );
  }
  const raw =
    authorization.kind === "receive"
      ? await account.signTypedData(receiveWithAuthorizationTypedData(domain, authorization))
      : await account.signTypedData(transferWithAuthorizationTypedData(domain, authorization));
  const split = splitSignature(raw);
  return { authorization, domain, signature: joinSignature(split), split };
}

/** The token's window at a block timestamp: usable only while validAfter < t < validBefore. */
export function isUsableAt(
  authorization: Pick<PaymentAuthorization, "validAfter" | "validBefore">,
  t: bigint,
): boolean {
  return t > authorization.validAfter && t < authorization.validBefore;
}

/** Expired for good once a sealed block's timestamp reaches validBefore (strict rule: t >= validBefore). */
export function isExpiredAt(authorization: Pick<PaymentAuthorization, "validBefore">, t: bigint): boolean {
  return t >= authorization.validBefore;
}
