/**
 * A client transport for JSON-RPC 2.0 over HTTP POST, for the generated clients
 * (`new NodeClient(httpTransport("http://127.0.0.1:8545"))`). Responses are untrusted: the body is
 * read up to a byte limit and the envelope is checked before the result is handed to the codecs.
 */
import type { RpcTransport } from "./method-runtime.js";
import { type RpcErrorDetails, RpcRuntimeError } from "./rpc-errors.js";

/**
 * The server answered with a JSON-RPC error object. Deliberately not an RpcError: a server that
 * calls another one decides what its own caller should see, instead of passing the code through.
 */
export class RemoteRpcError extends RpcRuntimeError<"remote-error"> {
  readonly method: string;
  readonly code: number;
  readonly data: unknown;

  constructor(method: string, code: number, message: string, data: unknown) {
    super(`${method} failed with code ${code}: ${message}`, {
      kind: "remote-error",
      details: { method, code },
    });
    this.method = method;
    this.code = code;
    this.data = data;
  }
}

/** The call did not produce a JSON-RPC response (network failure, timeout, oversized or malformed body). */
export class RpcTransportError extends RpcRuntimeError<"transport-failed"> {
  constructor(message: string, options: { details?: RpcErrorDetails; cause?: unknown } = {}) {
    super(message, { kind: "transport-failed", details: options.details, cause: options.cause });
  }
}

export interface HttpTransportOptions {
  /** Extra request headers. */
  readonly headers?: Readonly<Record<string, string>>;
  /** Per-call timeout; default 30 000 ms. */
  readonly timeoutMs?: number;
  /** Largest response body accepted; default 64 MiB. */
  readonly maxResponseBytes?: number;
}

const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

/**
 * Reads a response body as UTF-8 text, refusing one larger than `limit` bytes (by its declared length, else
 * while it streams in: an untrusted server never makes the reader hold more). Throws RpcTransportError.
 */
export async function readCappedText(response: Response, limit: number): Promise<string> {
  const declared = Number(response.headers.get("content-length") ?? "0");
  if (declared > limit)
    throw new RpcTransportError(`response of ${declared} bytes exceeds the ${limit}-byte limit`);
  if (response.body === null) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel();
      throw new RpcTransportError(`response exceeds the ${limit}-byte limit`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, total).toString("utf8");
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Sends each call as one JSON-RPC request to `url` and returns its `result`. */
export function httpTransport(url: string, options: HttpTransportOptions = {}): RpcTransport {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  let nextId = 1;
  return async (method, params) => {
    const id = nextId++;
    let text: string;
    let status: number;
    try {
      const response = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", ...options.headers },
        body: JSON.stringify({ jsonrpc: "2.0", id, method, params }),
        signal: AbortSignal.timeout(timeoutMs),
      });
      status = response.status;
      text = await readCappedText(response, maxResponseBytes);
    } catch (error) {
      if (error instanceof RpcTransportError) throw error;
      throw new RpcTransportError(
        `${method}: request to ${url} failed: ${error instanceof Error ? error.message : String(error)}`,
        {
          cause: error,
        },
      );
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new RpcTransportError(`${method}: HTTP ${status} with a body that is not JSON`);
    }
    if (!isObject(body) || body.jsonrpc !== "2.0") {
      throw new RpcTransportError(
        `${method}: HTTP ${status} with a body that is not a JSON-RPC 2.0 response`,
      );
    }
    if (isObject(body.error)) {
      const { code, message, data } = body.error;
      if (typeof code !== "number" || typeof message !== "string") {
        throw new RpcTransportError(`${method}: malformed JSON-RPC error object`);
      }
      throw new RemoteRpcError(method, code, message, data);
    }
    if (body.id !== id)
      throw new RpcTransportError(`${method}: response id ${JSON.stringify(body.id)} does not match ${id}`);
    if (!("result" in body)) throw new RpcTransportError(`${method}: response has neither result nor error`);
    return body.result;
  };
}
