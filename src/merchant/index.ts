/**
 * The merchant order service's public surface, for the applications that run it or talk to it (devnet,
 * bench): starting the service, its HTTP client and wire shapes, the development token, and its errors.
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
