/**
 * The merchant order service (service; docs/merchant.md): orders paid by EIP-3009 authorizations, relayed,
 * reconciled with the chain and voidable. Its processes are src/merchant/main.ts and cli.ts.
 *
 * Public surface, for the applications that run it or talk to it (devnet, bench): `startMerchantService`, its
 * command line, the HTTP client (`MerchantClient`) and wire shapes (`CreateOrderBody`, `OrderJson`, `OrderState`),
 * the development token (`deployDevToken`, `sealedReceipt`), and the errors (`MerchantError` root).
 *
 * Concepts owned: the order and its states, the order store, relaying and reconciliation, API keys.
 */
export { type MerchantConfig, type RunningMerchantService, startMerchantService } from "./app.js";
export { type CreateOrderBody, MerchantClient, type OrderAnswer } from "./client.js";
export { MERCHANT_USAGE, parseProcessConfig, type ProcessConfig } from "./config.js";
export { deployDevToken, type DevToken, type DevTokenOptions, sealedReceipt } from "./dev-token.js";
export {
  type ApiErrorBody,
  AuthorizationRejectedError,
  BadRequestError,
  ChainUnavailableError,
  CliUsageError,
  ConfigError,
  InvalidSignatureError,
  InvalidTransitionError,
  MerchantApiError,
  MerchantError,
  type MerchantErrorKind,
  MerchantResponseError,
  MerchantStartupError,
  NonceAlreadyUsedError,
  OrderConflictError,
  OrderInvariantError,
  OrderNotFoundError,
  OrderWaitTimeoutError,
  RequestRefusedError,
  StoreError,
  TransactionNotSealedError,
} from "./errors.js";
export type { OrderJson } from "./http/wire.js";
export type { OrderState } from "./order.js";
