/**
 * Offchain verification of authorization and cancellation signatures, with the token's own rules:
 * for an account without code, ECDSA recovery over the EIP-712 digest must give the signer, with
 * low s and v in {27, 28} (0/1 are normalised first, as a relayer does before submitting); for an
 * account with code, EIP-1271 `isValidSignature` must answer 0x1626ba7e (needs an `eth_call`,
 * see {@link verifySignatureForAccount}).
 */
import { type Address, getAddress, type Hex, hashTypedData, type PublicClient, recoverAddress } from "viem";
import { ERC1271_MAGIC_VALUE, erc1271Abi } from "./abi.js";
import { MalformedSignatureError } from "./errors.js";
import { isLowS, joinSignature, splitSignature } from "./signature.js";
import {
  cancelAuthorizationTypedData,
  receiveWithAuthorizationTypedData,
  transferWithAuthorizationTypedData,
} from "./typed-data.js";
import type { CancellationTarget, PaymentAuthorization, TokenDomain } from "./types.js";

export type SignatureRejection = "malformed" | "high-s" | "wrong-signer" | "contract-rejected";

export type SignatureVerdict =
  { valid: true; signer: Address } | { valid: false; reason: SignatureRejection; detail: string };

export function authorizationDigest(domain: TokenDomain, authorization: PaymentAuthorization): Hex {
  return authorization.kind === "receive"
    ? hashTypedData(receiveWithAuthorizationTypedData(domain, authorization))
    : hashTypedData(transferWithAuthorizationTypedData(domain, authorization));
}

export function cancellationDigest(domain: TokenDomain, target: CancellationTarget): Hex {
  return hashTypedData(cancelAuthorizationTypedData(domain, target));
}

/** The ECDSA (account without code) rule of the token, offchain. */
export async function verifyEcdsaSignature(
  expectedSigner: Address,
  digest: Hex,
  signature: Hex,
): Promise<SignatureVerdict> {
  let normalised: Hex;
  try {
    const split = splitSignature(signature);
    if (!isLowS(split)) {
      return {
        valid: false,
        reason: "high-s",
        detail: "s is above n/2: the token rejects malleable signatures",
      };
    }
    normalised = joinSignature(split);
  } catch (error) {
    if (error instanceof MalformedSignatureError)
      return { valid: false, reason: "malformed", detail: error.message };
    throw error;
  }
  let recovered: Address;
  try {
    recovered = await recoverAddress({ hash: digest, signature: normalised });
  } catch (error) {
    return {
      valid: false,
      reason: "malformed",
      detail: `no public key recovers from this signature (${String(error)})`,
    };
  }
  const signer = getAddress(expectedSigner);
  if (recovered !== signer) {
    return { valid: false, reason: "wrong-signer", detail: `signed by ${recovered}, expected ${signer}` };
  }
  return { valid: true, signer };
}

export async function verifyAuthorizationSignature(input: {
  authorization: PaymentAuthorization;
  domain: TokenDomain;
  signature: Hex;
}): Promise<SignatureVerdict> {
  return verifyEcdsaSignature(
    input.authorization.from,
    authorizationDigest(input.domain, input.authorization),
    input.signature,
  );
}

export async function verifyCancellationSignature(input: {
  authorizer: Address;
  nonce: Hex;
  domain: TokenDomain;
  signature: Hex;
}): Promise<SignatureVerdict> {
  return verifyEcdsaSignature(
    input.authorizer,
    cancellationDigest(input.domain, { from: input.authorizer, nonce: input.nonce }),
    input.signature,
  );
}

/** The client calls used by {@link verifySignatureForAccount}. */
export type AccountCodeReader = Pick<PublicClient, "getCode" | "readContract">;

/**
 * Verifies like the token does for whatever `signer` is at the current block: EIP-1271 when it
 * has code, ECDSA otherwise.
 */
export async function verifySignatureForAccount(
  client: AccountCodeReader,
  signer: Address,
  digest: Hex,
  signature: Hex,
): Promise<SignatureVerdict> {
  const code = await client.getCode({ address: signer });
  if (code === undefined || code === "0x") return verifyEcdsaSignature(signer, digest, signature);
  let answer: Hex;
  try {
    answer = await client.readContract({
      address: signer,
      abi: erc1271Abi,
      functionName: "isValidSignature",
      args: [digest, signature],
    });
  } catch (error) {
    return {
      valid: false,
      reason: "contract-rejected",
      detail: `isValidSignature reverted: ${String(error)}`,
    };
  }
  if (answer.toLowerCase() !== ERC1271_MAGIC_VALUE) {
    return { valid: false, reason: "contract-rejected", detail: `isValidSignature answered ${answer}` };
  }
  return { valid: true, signer: getAddress(signer) };
}
