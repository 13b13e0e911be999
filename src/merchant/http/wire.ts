/**
 * The API's JSON shapes: strict parsing of untrusted request bodies (every field checked for
 * type, hex and length before use, unknown fields refused) and the order's wire form (uint256
 * values as decimal strings).
 */
import { getAddress, type Hex, isAddress } from "viem";
import { BadRequestError } from "../errors.js";
import { isOrderState, type Order, type OrderState } from "../order.js";
import type { CreateOrderInput } from "../service.js";

const MAX_UINT256 = (1n << 256n) - 1n;
/** ECDSA signatures are 65 bytes; EIP-1271 wallets may use longer ones, capped here. */
export const MAX_SIGNATURE_BYTES = 4096;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function asObject(body: unknown, what: string): Record<string, unknown> {
  if (body === undefined) throw new BadRequestError(`${what}: a JSON object body is required`);
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw new BadRequestError(`${what}: the body must be a JSON object`);
  }
  return body as Record<string, unknown>;
}

function refuseUnknown(body: Record<string, unknown>, known: readonly string[]): void {
  const unknown = Object.keys(body).filter((k) => !known.includes(k));
  if (unknown.length > 0) {
    throw new BadRequestError(`unknown field(s): ${unknown.join(", ")}`, { fields: unknown });
  }
}

function required(body: Record<string, unknown>, field: string): unknown {
  const value = body[field];
  if (value === undefined || value === null) throw new BadRequestError(`missing field ${field}`, { field });
  return value;
}

export function parseAddress(value: unknown, field: string): `0x${string}` {
  if (typeof value !== "string" || value.length !== 42 || !isAddress(value, { strict: false })) {
    throw new BadRequestError(`${field} must be a 20-byte 0x-prefixed hex address`, { field });
  }
  return getAddress(value);
}

export function parseUint256(value: unknown, field: string): bigint {
  let parsed: bigint;
  if (typeof value === "number") {
    if (!Number.isSafeInteger(value) || value < 0) {
      throw new BadRequestError(`${field} must be a non-negative integer (use a decimal string above 2^53)`, {
        field,
      });
    }
    parsed = BigInt(value);
  } else if (typeof value === "string" && /^(0|[1-9][0-9]{0,77})$/.test(value)) {
    parsed = BigInt(value);
  } else {
    throw new BadRequestError(`${field} must be a decimal string or a non-negative integer`, { field });
  }
  if (parsed > MAX_UINT256) throw new BadRequestError(`${field} exceeds uint256`, { field });
  return parsed;
}

export function parseNonce(value: unknown, field = "nonce"): Hex {
  if (typeof value !== "string" || !/^0x[0-9a-fA-F]{64}$/.test(value)) {
    throw new BadRequestError(`${field} must be 32 bytes of 0x-prefixed hex (66 characters)`, { field });
  }
  return value.toLowerCase() as Hex;
}

export function parseSignature(value: unknown, field = "signature"): Hex {
  if (typeof value !== "string" || !value.startsWith("0x")) {
    throw new BadRequestError(`${field} must be 0x-prefixed hex`, { field });
  }
  if (value.length > 2 + 2 * MAX_SIGNATURE_BYTES) {
    throw new BadRequestError(`${field} is longer than ${MAX_SIGNATURE_BYTES} bytes`, { field });
  }
  if (value.length % 2 !== 0 || !/^0x[0-9a-fA-F]*$/.test(value)) {
    throw new BadRequestError(`${field} must be an even number of hex digits`, { field });
  }
  if (value.length < 2 + 2 * 65) {
    throw new BadRequestError(`${field} must be at least 65 bytes, got ${(value.length - 2) / 2}`, { field });
  }
  return value.toLowerCase() as Hex;
}

const CREATE_FIELDS = [
  "kind",
  "from",
  "to",
  "value",
  "validAfter",
  "validBefore",
  "nonce",
  "signature",
  "token",
  "chainId",
] as const satisfies readonly (keyof CreateOrderBody)[];

export function parseCreateOrder(body: unknown): CreateOrderInput {
  const object = asObject(body, "create order");
  refuseUnknown(object, CREATE_FIELDS);
  const kind = required(object, "kind");
  if (kind !== "transfer" && kind !== "receive") {
    throw new BadRequestError(
      'kind must be "transfer" (TransferWithAuthorization) or "receive" (ReceiveWithAuthorization)',
      {
        field: "kind",
      },
    );
  }
  const input: CreateOrderInput = {
    kind,
    from: parseAddress(required(object, "from"), "from"),
    to: parseAddress(required(object, "to"), "to"),
    value: parseUint256(required(object, "value"), "value"),
    validAfter: parseUint256(object.validAfter ?? 0, "validAfter"),
    validBefore: parseUint256(required(object, "validBefore"), "validBefore"),
    nonce: parseNonce(required(object, "nonce")),
    signature: parseSignature(required(object, "signature")),
  };
  if (object.token !== undefined) input.token = parseAddress(object.token, "token");
  if (object.chainId !== undefined) input.chainId = parseUint256(object.chainId, "chainId");
  return input;
}

export function parseCancel(body: unknown): Hex {
  const object = asObject(body, "cancel");
  refuseUnknown(object, ["signature"]);
  return parseSignature(required(object, "signature"));
}

/** Capture and void take no body; an empty object is accepted too. */
export function parseEmpty(body: unknown, what: string): void {
  if (body === undefined) return;
  refuseUnknown(asObject(body, what), []);
}

export function parseOrderId(value: string | undefined): string {
  if (value === undefined || !UUID.test(value)) {
    throw new BadRequestError(
      `order id must be a lowercase UUID, got ${JSON.stringify(value?.slice(0, 80) ?? "")}`,
      {
        field: "id",
      },
    );
  }
  return value;
}

export interface ListParameters {
  state?: OrderState;
  limit: number;
  after?: string;
}

export function parseListQuery(query: URLSearchParams): ListParameters {
  const unknown = [...query.keys()].filter((k) => !["state", "limit", "after"].includes(k));
  if (unknown.length > 0) throw new BadRequestError(`unknown query parameter(s): ${unknown.join(", ")}`);
  const out: ListParameters = { limit: 100 };
  const state = query.get("state");
  if (state !== null) {
    if (!isOrderState(state))
      throw new BadRequestError(`unknown state ${JSON.stringify(state.slice(0, 40))}`, { field: "state" });
    out.state = state;
  }
  const limit = query.get("limit");
  if (limit !== null) {
    if (!/^[1-9][0-9]{0,2}$/.test(limit) || Number(limit) > 500) {
      throw new BadRequestError("limit must be an integer from 1 to 500", { field: "limit" });
    }
    out.limit = Number(limit);
  }
  const after = query.get("after");
  if (after !== null) out.after = parseOrderId(after);
  return out;
}

/** An EIP-3009 authorization's fields as the API carries them (numbers as decimal strings, bytes as 0x hex). */
export interface AuthorizationJson {
  from: string;
  to: string;
  value: string;
  validAfter: string;
  validBefore: string;
  nonce: string;
}

/** The body of POST /orders, as parseCreateOrder reads it. */
export interface CreateOrderBody extends AuthorizationJson {
  kind: "transfer" | "receive";
  signature: string;
  token?: string;
  chainId?: string;
}

export interface OrderJson extends AuthorizationJson {
  id: string;
  state: OrderState;
  kind: string;
  chainId: string;
  token: string;
  /** The buyer's authorization signature: only in answers to callers with the write scope. */
  signature?: string;
  txHash: string | null;
  settledTxHash: string | null;
  note: string | null;
  version: number;
  createdBlock: string;
  createdAt: string;
  updatedAt: string;
}

/**
 * An order as the API answers it. The buyer's signature is included only for `withSignature` (callers with the
 * write scope): anyone holding a TransferWithAuthorization signature can submit it.
 */
export function orderToJson(order: Order, withSignature: boolean): OrderJson {
  const json: OrderJson = {
    id: order.id,
    state: order.state,
    kind: order.kind,
    chainId: order.chainId.toString(),
    token: order.token,
    from: order.authorizer,
    to: order.to,
    value: order.value.toString(),
    validAfter: order.validAfter.toString(),
    validBefore: order.validBefore.toString(),
    nonce: order.nonce,
    txHash: order.txHash,
    settledTxHash: order.settledTxHash,
    note: order.note,
    version: order.version,
    createdBlock: order.createdBlock.toString(),
    createdAt: order.createdAt.toISOString(),
    updatedAt: order.updatedAt.toISOString(),
  };
  if (withSignature) json.signature = order.signature;
  return json;
}
