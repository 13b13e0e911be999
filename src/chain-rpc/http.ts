/**
 * HTTP for the providers: every request has a deadline and every body a byte limit, because the server is not
 * trusted (a slow or endless answer must not hang or exhaust the caller). JSON-RPC 2.0 over POST and JSON over GET.
 */
import { Agent as HttpAgent, type IncomingMessage, request as httpRequestOf } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import { pipeline, type Readable } from "node:stream";
import { createBrotliDecompress, createGunzip, createInflate } from "node:zlib";
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

/** Keep-alive connections per scheme, shared by every request of the process (idle sockets do not hold it open). */
const AGENTS = { "http:": new HttpAgent({ keepAlive: true }), "https:": new HttpsAgent({ keepAlive: true }) };

/** A body in a content encoding is decompressed as it streams, the limit counting the decompressed bytes. */
function decoded(response: IncomingMessage): Readable {
  const encoding = (response.headers["content-encoding"] ?? "identity").trim().toLowerCase();
  const decoder =
    encoding === "gzip" || encoding === "x-gzip"
      ? createGunzip()
      : encoding === "deflate"
        ? createInflate()
        : encoding === "br"
          ? createBrotliDecompress()
          : undefined;
  // pipeline: an error or abort of the response reaches the decoder (and the loop reading it), and the other way.
  return decoder === undefined ? response : pipeline(response, decoder, () => undefined);
}

/**
 * Reads at most `limit` bytes of `response`'s body (after decompression); past that the stream is destroyed and the
 * answer refused.
 */
async function boundedText(
  response: IncomingMessage,
  limit: number,
  what: string,
): Promise<{ text: string; bytes: number }> {
  const declared = Number(response.headers["content-length"] ?? "0");
  if (declared > limit) {
    response.destroy();
    throw new MalformedResponseError(`${what}: body of ${declared} bytes exceeds the limit`, {
      details: { limit, declared },
    });
  }
  const body = decoded(response);
  const parts: Buffer[] = [];
  let size = 0;
  try {
    for await (const part of body as AsyncIterable<Buffer>) {
      size += part.byteLength;
      if (size > limit) {
        throw new MalformedResponseError(`${what}: body exceeds the limit`, { details: { limit } });
      }
      parts.push(part);
    }
  } catch (error) {
    // zlib's errors (Z_DATA_ERROR, Z_BUF_ERROR, ...): the body is not in the encoding it names.
    const code = (error as NodeJS.ErrnoException).code;
    if (typeof code === "string" && code.startsWith("Z_"))
      throw new MalformedResponseError(
        `${what}: the body is not valid ${String(response.headers["content-encoding"])}`,
        {
          cause: error,
        },
      );
    throw error;
  } finally {
    if (size > limit) {
      body.destroy();
      response.destroy();
    }
  }
  return { text: Buffer.concat(parts, size).toString("utf8"), bytes: size };
}

/**
 * One exchange over node:http(s) on the shared keep-alive agents (a fifth of the CPU of global fetch per request,
 * whose web streams and request clones the node's L1 polling and the host's witness reads paid on every call). A
 * request whose kept-alive connection the server had closed fails before anything was answered on it; it is sent
 * once more on a new connection, as Node's documentation advises. Redirects are not followed.
 */
function exchange(
  url: URL,
  init: { method: "GET" | "POST"; body?: string; headers?: Record<string, string> },
  signal: AbortSignal,
  retryOnReuse: boolean,
): Promise<IncomingMessage> {
  const agent =
    url.protocol === "https:" ? AGENTS["https:"] : url.protocol === "http:" ? AGENTS["http:"] : undefined;
  if (agent === undefined) return Promise.reject(new TypeError(`unsupported URL scheme ${url.protocol}`));
  const send = url.protocol === "https:" ? httpsRequest : httpRequestOf;
  const headers: Record<string, string | number> = { ...init.headers };
  if (init.body !== undefined) headers["content-length"] = Buffer.byteLength(init.body);
  return new Promise((resolve, reject) => {
    let answered = false;
    const request = send(url, { method: init.method, headers, agent, signal }, (response) => {
      answered = true;
      resolve(response);
    });
    // Once an answer began, an error is the body's (read by boundedText), and the request is never sent again.
    request.on("error", (error: NodeJS.ErrnoException) => {
      if (
        !answered &&
        retryOnReuse &&
        request.reusedSocket &&
        !signal.aborted &&
        isResetBeforeAnswer(error)
      ) {
        exchange(url, init, signal, false).then(resolve, reject);
      } else reject(error);
    });
    request.end(init.body);
  });
}

/** A kept-alive connection the server closed under the request: nothing was answered on it. */
function isResetBeforeAnswer(error: NodeJS.ErrnoException): boolean {
  return error.code === "ECONNRESET" || error.code === "EPIPE" || error.message === "socket hang up";
}

/** One HTTP request under `limits`; network failures and timeouts are EndpointUnavailableError. */
export async function httpRequest(
  url: string,
  init: { method: "GET" | "POST"; body?: string; headers?: Record<string, string> },
  limits: HttpLimits,
  what: string,
): Promise<HttpAnswer> {
  const timeoutMs = limits.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  // A referenced timer, not AbortSignal.timeout (whose timer is unreferenced): the deadline holds the process open
  // however the request waits (global fetch, used before, held no referenced handle while it retried an endpoint
  // that reset every connection, and a process with nothing else pending exited 0 mid-request).
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new DOMException("timed out", "TimeoutError")), timeoutMs);
  const signal = controller.signal;
  const finished = limits.stats?.begin(what, init.body === undefined ? 0 : Buffer.byteLength(init.body));
  let bytes = 0;
  try {
    const response = await exchange(new URL(url), init, signal, true);
    const body = await boundedText(response, limits.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES, what);
    bytes = body.bytes;
    return { status: response.statusCode ?? 0, body: body.text, bytes };
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
