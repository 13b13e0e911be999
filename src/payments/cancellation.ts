/**
 * Buyer-signed cancellation (`CancelAuthorization(address authorizer,bytes32 nonce)`). The client
 * refuses to sign with any account other than the authorization's `from`: such a signature could
 * never cancel anything and would only leak a useless signature.
 */
import { getAddress } from "viem";
import type { TypedDataSigner } from "./authorization.js";
import { CancellationSignerMismatchError } from "./errors.js";
import { joinSignature, splitSignature } from "./signature.js";
import { cancelAuthorizationTypedData } from "./typed-data.js";
import type { CancellationTarget, SignedCancellation, TokenDomain } from "./types.js";

export async function signCancellation(
  account: TypedDataSigner,
  authorization: CancellationTarget,
  domain: TokenDomain,
): Promise<SignedCancellation> {
  const signer = getAddress(account.address);
  const authorizer = getAddress(authorization.from);
  if (signer !== authorizer) throw new CancellationSignerMismatchError(signer, authorizer);
  const raw = await account.signTypedData(
    cancelAuthorizationTypedData(domain, { from: authorizer, nonce: authorization.nonce }),
  );
  const split = splitSignature(raw);
  return { authorizer, nonce: authorization.nonce, domain, signature: joinSignature(split), split };
}
