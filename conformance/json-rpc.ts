/**
 * Raw JSON-RPC 2.0 over HTTP POST for the conformance checks. Deliberately not the generated typed
 * clients: the checks send malformed bodies and bad parameters on purpose and judge the raw envelope.
 * Responses are untrusted: bodies are read up to a cap and parsed defensively.
 */
import { readCappedText, RpcTransportError } from "../generated/rpc/index.js";
import { ConformanceError, type ConformanceErrorOptions } from "./errors.js";

export interface RawHttpResponse {
  readonly status: number;
  readonly text: string;
  /** The parsed body, or undefined when it is not JSON. */
  readonly body: unknown;
}

export interface JsonRpcErrorObject {
  readonly code: number;
  readonly message: string;
  readonly data?: unknown;
}

export type JsonRpcOutcome =
  | { readonly kind: "result"; readonly result: unknown }
  | { readonly kind: "error"; readonly error: JsonRpcErrorObject };

/** A response that is not a well-formed JSON-RPC 2.0 envelope, or a call that failed. */
export class JsonRpcEnvelopeError extends ConformanceError<"json-rpc-envelope"> {
  override readonly name = "JsonRpcEnvelopeError";
  constructor(message: string, options: ConformanceErrorOptions = {}) {
    super(message, { kind: "json-rpc-envelope", ...options });
  }
}

const MAX_BODY_BYTES = 32 * 1024 * 1024;
const TIMEOUT_MS = 20_000;

/** The body as text, at most MAX_BODY_BYTES of it (the generated clients' capped reader). */
async function readCapped(response: Response): Promise<string> {
  try {
    return await readCappedText(response, MAX_BODY_BYTES);
  } catch (error) {
    if (error instanceof RpcTransportError) throw new JsonRpcEnvelopeError(error.message, { cause: error });
    throw error;
  }
}

function parseOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

export async function httpRequest(
  url: string,
  init: { method: "GET" | "POST"; body?: string },
): Promise<RawHttpResponse> {
  const response = await fetch(url, {
    method: init.method,
    headers: init.body === undefined ? {} : { "content-type": "application/json" },
    body: init.body,
    signal: AbortSignal.timeout(TIMEOUT_MS),
  });
  const text = await readCapped(response);
  return { status: response.status, text, body: parseOrUndefined(text) };
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Interprets a parsed body as a single JSON-RPC 2.0 response; throws JsonRpcEnvelopeError otherwise.
 * The id must echo `expectedId`, on errors too; `nullIdOnError` also accepts id null on an error (what
 * JSON-RPC 2.0 allows when the request's id could not be detected: a parse error or an invalid request).
 */
export function parseEnvelope(
  body: unknown,
  expectedId: unknown,
  { nullIdOnError = false }: { nullIdOnError?: boolean } = {},
): JsonRpcOutcome {
  if (!isRecord(body) || body.jsonrpc !== "2.0") {
    throw new JsonRpcEnvelopeError(`not a JSON-RPC 2.0 response: ${JSON.stringify(body)?.slice(0, 200)}`);
  }
  const idMatches = body.id === expectedId;
  if (isRecord(body.error)) {
    const { code, message, data } = body.error;
    if (typeof code !== "number" || !Number.isInteger(code) || typeof message !== "string") {
      throw new JsonRpcEnvelopeError(`malformed error object: ${JSON.stringify(body.error)}`);
    }
    if ("result" in body) throw new JsonRpcEnvelopeError("response carries both result and error");
    if (!idMatches && !(nullIdOnError && body.id === null)) {
      throw new JsonRpcEnvelopeError(
        `error ${code} carries id ${JSON.stringify(body.id)}, not the request's ${JSON.stringify(expectedId)}`,
      );
    }
    return { kind: "error", error: { code, message, data } };
  }
  if (!("result" in body)) throw new JsonRpcEnvelopeError("response has neither result nor error");
  if (!idMatches) {
    throw new JsonRpcEnvelopeError(
      `response id ${JSON.stringify(body.id)} does not match ${JSON.stringify(expectedId)}`,
    );
  }
  return { kind: "result", result: body.result };
}

let nextId = 1;

/** One JSON-RPC call with the given params (any JSON value, sent as-is; undefined: no `params` member). */
export async function rpcCall(url: string, method: string, params: unknown): Promise<JsonRpcOutcome> {
  const id = nextId++;
  const response = await httpRequest(url, {
    method: "POST",
    body: JSON.stringify({ jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) }),
  });
  if (response.body === undefined) {
    throw new JsonRpcEnvelopeError(
      `HTTP ${response.status} with a body that is not JSON: ${response.text.slice(0, 200)}`,
    );
  }
  return parseEnvelope(response.body, id);
}

export interface BatchCall {
  readonly id: string | number;
  readonly method: string;
  readonly params: unknown;
}

/**
 * One batch (a JSON array of calls); returns each call's outcome by id. Throws JsonRpcEnvelopeError unless
 * the answer is an array holding exactly one valid response per call.
 */
export async function rpcBatch(
  url: string,
  calls: readonly BatchCall[],
): Promise<Map<string | number, JsonRpcOutcome>> {
  const response = await httpRequest(url, {
    method: "POST",
    body: JSON.stringify(calls.map(({ id, method, params }) => ({ jsonrpc: "2.0", id, method, params }))),
  });
  if (!Array.isArray(response.body)) {
    throw new JsonRpcEnvelopeError(
      `a batch was answered with HTTP ${response.status} ${response.text.slice(0, 200)}, not an array`,
    );
  }
  if (response.body.length !== calls.length) {
    throw new JsonRpcEnvelopeError(
      `a batch of ${calls.length} calls was answered with ${response.body.length} responses`,
    );
  }
  const outcomes = new Map<string | number, JsonRpcOutcome>();
  for (const entry of response.body as unknown[]) {
    const id = isRecord(entry) ? entry.id : undefined;
    const call = calls.find((c) => c.id === id);
    if (call === undefined || outcomes.has(call.id)) {
      throw new JsonRpcEnvelopeError(
        `a batch response carries id ${JSON.stringify(id)}, matching no call once`,
      );
    }
    outcomes.set(call.id, parseEnvelope(entry, call.id));
  }
  return outcomes;
}

/** The result of a call that must succeed; throws (a check failure) with the error otherwise. */
export async function rpcResult(url: string, method: string, params: unknown): Promise<unknown> {
  const outcome = await rpcCall(url, method, params);
  if (outcome.kind === "error") {
    throw new JsonRpcEnvelopeError(`${method} failed with ${outcome.error.code}: ${outcome.error.message}`);
  }
  return outcome.result;
}

export function describeOutcome(outcome: JsonRpcOutcome): string {
  return outcome.kind === "error"
    ? `error ${outcome.error.code} "${outcome.error.message}"`
    : `result ${JSON.stringify(outcome.result)?.slice(0, 120)}`;
}
