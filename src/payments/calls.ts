/**
 * Calldata for the token calls a relayer submits. Pure: the same bytes go to `eth_call` for the
 * simulation and into the signed transaction.
 */
import { type Address, encodeFunctionData, getAddress, type Hex } from "viem";
import { eip3009TokenAbi } from "./abi.js";
import type { SignedAuthorization, SignedCancellation } from "./types.js";

export interface TokenCall {
  to: Address;
  data: Hex;
  functionName: "cancelAuthorization" | "transferWithAuthorization" | "receiveWithAuthorization";
}

/** `cancelAuthorization(authorizer, nonce, v, r, s)`. Any account may submit it. */
export function cancelAuthorizationCall(token: Address, cancellation: SignedCancellation): TokenCall {
  const { v, r, s } = cancellation.split;
  return {
    to: getAddress(token),
    functionName: "cancelAuthorization",
    data: encodeFunctionData({
      abi: eip3009TokenAbi,
      functionName: "cancelAuthorization",
      args: [cancellation.authorizer, cancellation.nonce, v, r, s],
    }),
  };
}

/**
 * The capture of a signed authorization: `transferWithAuthorization` (any submitter) or
 * `receiveWithAuthorization` (the submitter must be the payee `to`), with the (v, r, s) overload.
 */
export function captureCall(token: Address, signed: SignedAuthorization): TokenCall {
  const a = signed.authorization;
  const { v, r, s } = signed.split;
  const args = [a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce, v, r, s] as const;
  const functionName = a.kind === "receive" ? "receiveWithAuthorization" : "transferWithAuthorization";
  return {
    to: getAddress(token),
    functionName,
    data: encodeFunctionData({ abi: eip3009TokenAbi, functionName, args }),
  };
}
