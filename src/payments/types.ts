/**
 * Payment authorization types. Values that go straight into viem calls and typed data stay in
 * viem's edge types (checksummed `Address`, `Hex` for bytes32); amounts and times are bigint.
 */
import type { Address, Hex } from "viem";

/**
 * `transfer`: TransferWithAuthorization, relayable by anyone holding it (x402's choice).
 * `receive`: ReceiveWithAuthorization, only the payee `to` may submit it (capture by the named recipient).
 */
export type AuthorizationKind = "transfer" | "receive";

export interface PaymentAuthorization {
  kind: AuthorizationKind;
  from: Address;
  to: Address;
  /** Token base units (6 decimals for USDC). */
  value: bigint;
  /** Unix seconds; valid only when block.timestamp > validAfter. */
  validAfter: bigint;
  /** Unix seconds; valid only when block.timestamp < validBefore (strict). */
  validBefore: bigint;
  /** 32 random bytes. */
  nonce: Hex;
}

/** The EIP-712 domain of an EIP-3009 token, as read from the token itself. */
export interface TokenDomain {
  name: string;
  version: string;
  chainId: bigint;
  verifyingContract: Address;
}

/** A signature split for the (v, r, s) overloads: v is always 27 or 28. */
export interface SplitSignature {
  v: 27 | 28;
  yParity: 0 | 1;
  r: Hex;
  s: Hex;
}

export interface SignedAuthorization {
  authorization: PaymentAuthorization;
  domain: TokenDomain;
  /** 65 bytes r | s | v with v in {27, 28}. */
  signature: Hex;
  split: SplitSignature;
}

/** What a cancellation refers to: the original authorization's signer and nonce. */
export interface CancellationTarget {
  from: Address;
  nonce: Hex;
}

export interface SignedCancellation {
  authorizer: Address;
  nonce: Hex;
  domain: TokenDomain;
  signature: Hex;
  split: SplitSignature;
}
