/**
 * HTTP for the providers: every request has a deadline and every body a byte limit, because the server is not
 * trusted (a slow or endless answer must not hang or exhaust the caller). JSON-RPC 2.0 over POST and JSON over GET.
 */
import { EndpointUnavailableError, MalformedResponseError, RemoteCallError } from "./errors.js";
import type { RequestStats } from "./request-stats.js";

export interface HttpLimits {
  /** Deadline of one request, body included; default 30 000 ms. */
  readonly timeoutMs?: number;
  /** Largest body accepted; default 64 MiB. */
  readonly maxResponseBytes?: number;
  /** Counters the caller owns (not a limit): every request made under these limits is counted there. */
  readonly stats?: RequestStats;
}

export const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

export interface HttpAnswer {
  readonly status: number;
  readonly body: string;
  /** The body's length in bytes. */
  readonly bytes: number;
}

/** Reads at most `limit` bytes of `response`'s body; past that the stream is cancelled and the answer refused. */
async function boundedText(
  response: Response,
  limit: number,
  what: string,
): Promise<{ text: string; bytes: number }> {
  const declared = Number(response.headers.get("content-length") ?? "0");
  if (declared > limit) {
    await response.body?.cancel();
    throw new MalformedResponseError(`${what}: body of ${declared} bytes exceeds the limit`, {
      details: { limit, declared },
    });
  }
  if (response.body === null) return { text: "", bytes: 0 };
  const parts: Uint8Array[] = [];
  let size = 0;
  for await (const part of response.body as unknown as AsyncIterable<Uint8Array>) {
    size += part.byteLength;
    if (size > limit) {
      await response.body.cancel().catch(() => undefined);
      throw new MalformedResponseError(`${what}: body exceeds the limit`, { details: { limit } });
    }
    parts.push(part);
  }
  return { text: Buffer.concat(parts, size).toString("utf8"), bytes: size };
}

/** One HTTP request under `limits`; network failures and timeouts are EndpointUnavailableError. */
export async function httpRequest(
  url: string,
  init: { method: "GET" | "POST"; body?: string; headers?: Record<string, string> },
  limits: HttpLimits,
  what: string,
): Promise<HttpAnswer> {
  const timeoutMs = limits.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  // A referenced timer, not AbortSignal.timeout (whose timer is unreferenced): fetch against an endpoint that
  // accepts and resets every connection holds no referenced handle while it retries, so with nothing else
  // pending (a process still starting) the event loop drained and the process exited 0 mid-request.
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new DOMException("timed out", "TimeoutError")), timeoutMs);
  const signal = controller.signal;
  const finished = limits.stats?.begin(what, init.body === undefined ? 0 : Buffer.byteLength(init.body));
  let bytes = 0;
  try {
    const response = await fetch(url, { ...init, signal });
    const body = await boundedText(response, limits.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES, what);
    bytes = body.bytes;
    return { status: response.status, body: body.text, bytes };
  } catch (error) {
    if (error instanceof MalformedResponseError) throw error;
    const timedOut = signal.aborted;
    throw new EndpointUnavailableError(
      timedOut ? `${what}: no answer within ${timeoutMs} ms` : `${what}: request failed`,
      { details: { url, timedOut }, cause: error },
    );
  } finally {
    clearTimeout(timer);
    finished?.(bytes);
  }
}

/** JSON.parse that names what it was parsing when it fails. */
export function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new MalformedResponseError(`${what}: the body is not JSON`, { cause: error });
  }
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A minimal JSON-RPC 2.0 client: one POST per call, the envelope checked, `result` returned as untrusted JSON. */
export class JsonRpcClient {
  private nextId = 1;

  constructor(
    readonly url: string,
    /** The deadline, body cap and counters of every call (a client on the same endpoint may share them). */
    readonly limits: HttpLimits = {},
  ) {}

  async call(method: string, params: readonly unknown[]): Promise<unknown> {
    const id = this.nextId++;
    const answer = await httpRequest(
      this.url,
      {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id, method, params }),
      },
      this.limits,
      method,
    );
    if (answer.status >= 500 || answer.status === 429) {
      throw new EndpointUnavailableError(`${method}: HTTP ${answer.status}`, {
        details: { url: this.url, status: answer.status },
      });
    }
    const envelope = parseJson(answer.body, method);
    if (!isRecord(envelope) || envelope.jsonrpc !== "2.0") {
      throw new MalformedResponseError(`${method}: HTTP ${answer.status}, not a JSON-RPC 2.0 response`, {
        details: { status: answer.status },
      });
    }
    if (envelope.error !== undefined) {
      const e = envelope.error;
      if (!isRecord(e) || typeof e.code !== "number" || typeof e.message !== "string") {
        throw new MalformedResponseError(`${method}: malformed JSON-RPC error object`);
      }
      throw new RemoteCallError(method, e.code, e.message);
    }
    if (envelope.id !== id) {
      throw new MalformedResponseError(`${method}: the response id does not match the request's`, {
        details: { expected: id },
      });
    }
    if (!("result" in envelope)) throw new MalformedResponseError(`${method}: the response has no result`);
    return envelope.result;
  }
}
