/**
 * Errors of the order service. Each carries the HTTP status and a stable machine-readable code;
 * the API answers them as `{ "error": { "code", "message", ...details } }`.
 */
import type { OrderState } from "./order.js";

export class MerchantError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: Readonly<Record<string, unknown>> = {},
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** The request body or a parameter is malformed (JSON, hex, lengths, ranges, unknown fields). */
export class BadRequestError extends MerchantError {
  constructor(message: string, details: Record<string, unknown> = {}) {
    super(400, "bad_request", message, details);
  }
}

export class OrderNotFoundError extends MerchantError {
  constructor(id: string) {
    super(404, "order_not_found", `no order with id ${id}`, { id });
  }
}

/** The order is not in a state the requested action can start from. */
export class InvalidTransitionError extends MerchantError {
  constructor(action: string, state: OrderState, id: string) {
    super(409, "invalid_transition", `cannot ${action} order ${id}: it is ${state}`, { id, state, action });
  }
}

/** A signature does not verify for the required signer under the token's domain. */
export class InvalidSignatureError extends MerchantError {
  constructor(what: string, detail: string) {
    super(422, "invalid_signature", `${what}: ${detail}`, { detail });
  }
}

/** The authorization is well-formed but not acceptable (wrong token, payee, window, chain state). */
export class AuthorizationRejectedError extends MerchantError {
  constructor(code: string, message: string, details: Record<string, unknown> = {}) {
    super(422, code, message, details);
  }
}

/** An order for the same (chainId, token, authorizer, nonce) exists with different terms. */
export class OrderConflictError extends MerchantError {
  constructor(id: string) {
    super(
      409,
      "order_conflict",
      `an order (${id}) already holds this authorizer and nonce with different terms or signature`,
      { id },
    );
  }
}

/** The nonce was consumed onchain before the order was created. */
export class NonceAlreadyUsedError extends MerchantError {
  constructor() {
    super(409, "nonce_used", "the authorization's nonce is already used or cancelled onchain");
  }
}

/** The node could not be reached or answered unexpectedly. */
export class ChainUnavailableError extends MerchantError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(503, "chain_unavailable", message, {}, options);
  }
}
