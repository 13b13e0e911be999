/**
 * JSON-RPC 2.0 envelopes: classifying one parsed request object and serializing responses.
 * Everything here is pure; it never throws on hostile input.
 */
import { InvalidRequestError, type RpcError } from "./errors.js";

/** A request id as the client sent it: echoed back exactly. */
export type RpcId = string | number | null;

/** A request that will be answered (it carried an `id` member, possibly null). */
export interface RpcCall {
  readonly kind: "call";
  readonly id: RpcId;
  readonly method: string;
  readonly params: unknown;
}

/** A request without an `id` member: run, never answered. */
export interface RpcNotification {
  readonly kind: "notification";
  readonly method: string;
  readonly params: unknown;
}

/** Not a valid request: answered with -32600 and the request's id where it could be read. */
export interface RpcInvalid {
  readonly kind: "invalid";
  readonly id: RpcId;
  readonly error: RpcError;
}

export type RpcEnvelope = RpcCall | RpcNotification | RpcInvalid;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isValidId(value: unknown): value is RpcId {
  return value === null || typeof value === "string" || (typeof value === "number" && Number.isFinite(value));
}

/** Classifies one element of a batch (or a whole single request). */
export function classifyRequest(value: unknown): RpcEnvelope {
  if (!isPlainObject(value)) {
    return invalid(null, "invalid request: a request must be a JSON object");
  }
  const hasId = Object.hasOwn(value, "id");
  const rawId = value.id;
  if (hasId && !isValidId(rawId)) {
    return invalid(null, "invalid request: id must be a string, a number or null");
  }
  const id: RpcId = hasId ? (rawId as RpcId) : null;
  if (value.jsonrpc !== "2.0") {
    return invalid(id, 'invalid request: jsonrpc must be exactly "2.0"');
  }
  if (typeof value.method !== "string") {
    return invalid(id, "invalid request: method must be a string");
  }
  const params = value.params;
  if (params !== undefined && (typeof params !== "object" || params === null)) {
    return invalid(id, "invalid request: params must be an array or an object when present");
  }
  return hasId
    ? { kind: "call", id, method: value.method, params }
    : { kind: "notification", method: value.method, params };
}

function invalid(id: RpcId, message: string): RpcInvalid {
  return { kind: "invalid", id, error: new InvalidRequestError(message) };
}

/**
 * A method's result already serialized as JSON text (e.g. on a worker thread): written into the response
 * as it is, never parsed or re-encoded on the event loop. The producer guarantees it is valid JSON.
 */
export class RawJsonResult {
  constructor(readonly json: string) {}
}

/** Serializes a success response. Throws only when `result` is not JSON-serializable. */
export function successResponse(id: RpcId, result: unknown): string {
  // JSON.stringify drops undefined members: a handler returning nothing answers null.
  const text = result instanceof RawJsonResult ? result.json : (JSON.stringify(result ?? null) ?? "null");
  return `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${text}}`;
}

/** Serializes an error response. Falls back to dropping `data` if it is not serializable. */
export function errorResponse(id: RpcId, error: RpcError): string {
  const idText = JSON.stringify(id);
  try {
    return `{"jsonrpc":"2.0","id":${idText},"error":${JSON.stringify(error.toJSON())}}`;
  } catch {
    return `{"jsonrpc":"2.0","id":${idText},"error":${JSON.stringify({ code: error.code, message: error.message })}}`;
  }
}

/** Serializes a server-pushed notification (subscriptions). */
export function notificationMessage(method: string, subscription: string, result: unknown): string {
  const text = result instanceof RawJsonResult ? result.json : (JSON.stringify(result ?? null) ?? "null");
  return `{"jsonrpc":"2.0","method":${JSON.stringify(method)},"params":{"subscription":${JSON.stringify(subscription)},"result":${text}}}`;
}
