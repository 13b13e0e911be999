/**
 * Payments (library, rank 2; docs/payments.md): EIP-3009 authorizations on viem.
 *
 * Public surface: the token ABIs, authorizations and cancellations (typed data, signing, digests), signature
 * verification (ECDSA and ERC-1271) and normalisation, nonces, reading which transaction consumed a nonce,
 * relaying (simulate, broadcast, confirmations), and the errors (`PaymentsError` root).
 *
 * Concepts owned: the EIP-3009 authorization, its signature, its nonce and its consumption on chain.
 */
export { eip3009TokenAbi, erc1271Abi, ERC1271_MAGIC_VALUE } from "./abi.js";
export {
  createAuthorization,
  isExpiredAt,
  isUsableAt,
  signAuthorization,
  type AuthorizationInput,
  type TypedDataSigner,
} from "./authorization.js";
export { cancelAuthorizationCall, captureCall, type TokenCall } from "./calls.js";
export { signCancellation } from "./cancellation.js";
export { readTokenDomain, type DomainReader } from "./domain.js";
export * from "./errors.js";
export {
  AUTHORIZATION_CANCELED_TOPIC,
  AUTHORIZATION_USED_TOPIC,
  classifyNonceLogs,
  findNonceConsumer,
  type FindNonceConsumerOptions,
  type LogRecord,
  type NonceConsumption,
  type NonceLogReader,
  type TokenTransfer,
  TRANSFER_TOPIC,
  transferAfter,
} from "./nonce-consumer.js";
export { isNonce, NONCE_LENGTH, randomNonce } from "./nonce.js";
export {
  broadcastRelay,
  FINAL_CONFIRMATIONS,
  type PreparedRelay,
  prepareRelay,
  readAuthorizationState,
  type RelayClients,
  type RelayOptions,
  type RelayPublicClient,
  type RelayWalletClient,
  revertReasonOf,
  simulateAndRelayCancel,
  simulateAndRelayCapture,
  simulateTokenCall,
  waitForConfirmations,
} from "./relay.js";
export {
  isLowS,
  joinSignature,
  normaliseSignature,
  SECP256K1_HALF_N,
  SECP256K1_N,
  splitSignature,
} from "./signature.js";
export * from "./typed-data.js";
export type * from "./types.js";
export {
  authorizationDigest,
  cancellationDigest,
  type SignatureRejection,
  type SignatureVerdict,
  verifyAuthorizationSignature,
  verifyCancellationSignature,
  verifyEcdsaSignature,
  verifySignatureForAccount,
} from "./verify.js";
