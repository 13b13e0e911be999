/**
 * Errors of the merchant service: one root, MerchantError, with a kind per concrete class. The errors a
 * request can be refused with (RequestRefusedError) also carry the API's stable machine-readable `code`;
 * the HTTP router maps their kind to a status at its edge and answers `{ "error": { "code", "message",
 * ...details } }`.
 */
import { SuiteError, type ErrorDetails } from "../errors/index.js";
import type { OrderState } from "./order.js";

export type MerchantErrorKind =
  | "bad-request"
  | "unauthorized"
  | "forbidden"
  | "order-not-found"
  | "invalid-transition"
  | "invalid-signature"
  | "authorization-rejected"
  | "order-conflict"
  | "nonce-used"
  | "chain-unavailable"
  | "config"
  | "cli-usage"
  | "startup"
  | "store"
  | "invariant"
  | "not-sealed"
  | "api-error"
  | "bad-response"
  | "wait-timeout";

/** Root of the merchant service's errors. */
export abstract class MerchantError extends SuiteError<MerchantErrorKind> {
  readonly package = "merchant";

  constructor(
    message: string,
    kind: MerchantErrorKind,
    details?: ErrorDetails,
    options?: { cause?: unknown },
  ) {
    super(message, { kind, details, cause: options?.cause });
  }
}

/** A request the API refuses; `code` is the API's error code (e.g. "order_not_found", "wrong_payee"). */
export abstract class RequestRefusedError extends MerchantError {
  readonly code: string;

  constructor(
    kind: MerchantErrorKind,
    code: string,
    message: string,
    details: ErrorDetails = {},
    options?: { cause?: unknown },
  ) {
    super(message, kind, details, options);
    this.code = code;
  }
}

/** The request body or a parameter is malformed (JSON, hex, lengths, ranges, unknown fields). */
export class BadRequestError extends RequestRefusedError {
  constructor(message: string, details: Record<string, unknown> = {}) {
    super("bad-request", "bad_request", message, details);
  }
}

/** No API key, or one that is malformed, unknown, revoked or past its end. */
export class UnauthorizedError extends RequestRefusedError {
  constructor(message: string) {
    super("unauthorized", "unauthorized", message);
  }
}

/** The API key is valid but its scope does not allow the route. */
export class ForbiddenError extends RequestRefusedError {
  constructor(needed: string, scope: string, keyId: string) {
    super("forbidden", "forbidden", `this route needs the ${needed} scope; key ${keyId} has ${scope}`, {
      needed,
      scope,
      keyId,
    });
  }
}

export class OrderNotFoundError extends RequestRefusedError {
  constructor(id: string) {
    super("order-not-found", "order_not_found", `no order with id ${id}`, { id });
  }
}

/** The order is not in a state the requested action can start from. */
export class InvalidTransitionError extends RequestRefusedError {
  constructor(action: string, state: OrderState, id: string) {
    super("invalid-transition", "invalid_transition", `cannot ${action} order ${id}: it is ${state}`, {
      id,
      state,
      action,
    });
  }
}

/** A signature does not verify for the required signer under the token's domain. */
export class InvalidSignatureError extends RequestRefusedError {
  constructor(what: string, detail: string) {
    super("invalid-signature", "invalid_signature", `${what}: ${detail}`, { detail });
  }
}

/** The authorization is well-formed but not acceptable (wrong token, payee, window, chain state). */
export class AuthorizationRejectedError extends RequestRefusedError {
  constructor(code: string, message: string, details: Record<string, unknown> = {}) {
    super("authorization-rejected", code, message, details);
  }
}

/** An order for the same (chainId, token, authorizer, nonce) exists with different terms. */
export class OrderConflictError extends RequestRefusedError {
  constructor(id: string) {
    super(
      "order-conflict",
      "order_conflict",
      `an order (${id}) already holds this authorizer and nonce with different terms or signature`,
      { id },
    );
  }
}

/** The nonce was consumed onchain before the order was created. */
export class NonceAlreadyUsedError extends RequestRefusedError {
  constructor() {
    super("nonce-used", "nonce_used", "the authorization's nonce is already used or cancelled onchain");
  }
}

/** The node could not be reached or answered unexpectedly. */
export class ChainUnavailableError extends RequestRefusedError {
  constructor(message: string, options?: { cause?: unknown }) {
    super("chain-unavailable", "chain_unavailable", message, {}, options);
  }
}

/** A flag or environment variable of the service is missing or malformed. */
export class ConfigError extends MerchantError {
  constructor(message: string, options?: { details?: ErrorDetails; cause?: unknown }) {
    super(message, "config", options?.details, options);
  }
}

/** The merchant CLI was called with unknown or malformed arguments. */
export class CliUsageError extends MerchantError {
  constructor(message: string, options?: { details?: ErrorDetails; cause?: unknown }) {
    super(message, "cli-usage", options?.details, options);
  }
}

/** The service could not start: node unreachable, no token contract, port taken. */
export class MerchantStartupError extends MerchantError {
  constructor(message: string, options?: { details?: ErrorDetails; cause?: unknown }) {
    super(message, "startup", options?.details, options);
  }
}

/** The order store failed (database unreachable, a constraint or a migration failed). */
export class StoreError extends MerchantError {
  constructor(message: string, options?: { details?: ErrorDetails; cause?: unknown }) {
    super(message, "store", options?.details, options);
  }
}

/** A stored order lacks what its state promises (e.g. a cancelling order without a cancellation signature). */
export class OrderInvariantError extends MerchantError {
  constructor(message: string, details?: ErrorDetails) {
    super(message, "invariant", details);
  }
}

/** A transaction (of the development token's set-up) was not in a sealed block within the time allowed. */
export class TransactionNotSealedError extends MerchantError {
  constructor(
    readonly transactionHash: string,
    readonly timeoutMs: number,
  ) {
    super(`transaction ${transactionHash} was not sealed within ${timeoutMs} ms`, "not-sealed", {
      transactionHash,
      timeoutMs,
    });
  }
}

/** The body of a non-2xx answer of the merchant API. */
export interface ApiErrorBody {
  code: string;
  message: string;
  [detail: string]: unknown;
}

/** Client side: the merchant API answered with an error (status and the API's error object). */
export class MerchantApiError extends MerchantError {
  constructor(
    readonly status: number,
    readonly body: ApiErrorBody,
  ) {
    super(`HTTP ${status} ${body.code}: ${body.message}`, "api-error", { status, code: body.code });
  }
}

/** Client side: the merchant API's answer is not a JSON body within the size limit. */
export class MerchantResponseError extends MerchantError {
  constructor(message: string, details?: ErrorDetails) {
    super(message, "bad-response", details);
  }
}

/** Client side: an order did not reach one of the awaited states in time. */
export class OrderWaitTimeoutError extends MerchantError {
  constructor(
    readonly id: string,
    readonly state: string,
    readonly wanted: readonly string[],
    readonly timeoutMs: number,
  ) {
    super(`order ${id} is ${state} after ${timeoutMs} ms; wanted ${wanted.join(" or ")}`, "wait-timeout", {
      id,
      state,
      wanted,
      timeoutMs,
    });
  }
}
