/**
 * EIP-712 typed data for the three EIP-3009 messages, built from a domain read from the token.
 * The results are viem `TypedDataDefinition`s: pass them to `account.signTypedData`,
 * `hashTypedData` or `recoverTypedDataAddress`.
 */
import { hashDomain, type Hex } from "viem";
import type { CancellationTarget, PaymentAuthorization, TokenDomain } from "./types.js";

const AUTHORIZATION_FIELDS = [
  { name: "from", type: "address" },
  { name: "to", type: "address" },
  { name: "value", type: "uint256" },
  { name: "validAfter", type: "uint256" },
  { name: "validBefore", type: "uint256" },
  { name: "nonce", type: "bytes32" },
] as const;

export const TRANSFER_WITH_AUTHORIZATION_TYPES = { TransferWithAuthorization: AUTHORIZATION_FIELDS } as const;
export const RECEIVE_WITH_AUTHORIZATION_TYPES = { ReceiveWithAuthorization: AUTHORIZATION_FIELDS } as const;
export const CANCEL_AUTHORIZATION_TYPES = {
  CancelAuthorization: [
    { name: "authorizer", type: "address" },
    { name: "nonce", type: "bytes32" },
  ],
} as const;

export const EIP712_DOMAIN_TYPES = {
  EIP712Domain: [
    { name: "name", type: "string" },
    { name: "version", type: "string" },
    { name: "chainId", type: "uint256" },
    { name: "verifyingContract", type: "address" },
  ],
} as const;

function authorizationMessage(authorization: PaymentAuthorization) {
  return {
    from: authorization.from,
    to: authorization.to,
    value: authorization.value,
    validAfter: authorization.validAfter,
    validBefore: authorization.validBefore,
    nonce: authorization.nonce,
  };
}

export function transferWithAuthorizationTypedData(domain: TokenDomain, authorization: PaymentAuthorization) {
  return {
    domain: { ...domain },
    types: TRANSFER_WITH_AUTHORIZATION_TYPES,
    primaryType: "TransferWithAuthorization",
    message: authorizationMessage(authorization),
  } as const;
}

export function receiveWithAuthorizationTypedData(domain: TokenDomain, authorization: PaymentAuthorization) {
  return {
    domain: { ...domain },
    types: RECEIVE_WITH_AUTHORIZATION_TYPES,
    primaryType: "ReceiveWithAuthorization",
    message: authorizationMessage(authorization),
  } as const;
}

/** Transfer- or ReceiveWithAuthorization, by the authorization's kind. */
export function authorizationTypedData(domain: TokenDomain, authorization: PaymentAuthorization) {
  return authorization.kind === "receive"
    ? receiveWithAuthorizationTypedData(domain, authorization)
    : transferWithAuthorizationTypedData(domain, authorization);
}

export function cancelAuthorizationTypedData(domain: TokenDomain, target: CancellationTarget) {
  return {
    domain: { ...domain },
    types: CANCEL_AUTHORIZATION_TYPES,
    primaryType: "CancelAuthorization",
    message: { authorizer: target.from, nonce: target.nonce },
  } as const;
}

/** The EIP-712 domain separator the token computes (`DOMAIN_SEPARATOR()`). */
export function domainSeparator(domain: TokenDomain): Hex {
  return hashDomain({ domain: { ...domain }, types: EIP712_DOMAIN_TYPES });
}
