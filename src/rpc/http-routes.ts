/**
 * The server's HTTP routes: POST <any path> JSON-RPC, GET /healthz, GET /metrics, the CORS preflight and a
 * 404 for everything else, each behind the uWS guard.
 */
import type { HttpRequest } from "@trufflesuite/uws-js-unofficial";
import type { DispatchEnvironment } from "./dispatcher.js";
import { errorResponse } from "./envelope.js";
import { InternalError, InvalidRequestError, type RpcError } from "./errors.js";
import { readBody } from "./http-body.js";
import type { RequestContext } from "./method.js";
import { type ServerCore, decodeUtf8OrInvalid } from "./server-core.js";
import {
  BodyTooLargeError,
  HealthNotConfiguredError,
  RouteNotFoundError,
  ServerBusyError,
  ServerShuttingDownError,
  UnsupportedContentTypeError,
} from "./server-errors.js";
import type { GuardedResponse, GuardFailure, HttpAnswer } from "./uws-guard.js";

const JSON_CONTENT_TYPES = new Set(["application/json", "application/json-rpc", "application/jsonrequest"]);

class HttpRequestContext implements RequestContext {
  readonly transport = "http" as const;

  constructor(
    private readonly response: GuardedResponse,
    readonly responseHeaders: Map<string, string>,
  ) {}

  get signal(): AbortSignal {
    return this.response.signal;
  }
}

/** Headers the server writes itself; a handler cannot set or duplicate them. */
const RESERVED_HEADERS = new Set([
  "content-type",
  "content-length",
  "transfer-encoding",
  "connection",
  "date",
  "access-control-allow-origin",
]);

/** A handler-provided header is written only if it is a token name with a single-line string value. */
function isSafeExtraHeader(name: unknown, value: unknown): boolean {
  return (
    typeof name === "string" &&
    typeof value === "string" &&
    /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name) &&
    !/[\r\n\0]/.test(value) &&
    !RESERVED_HEADERS.has(name.toLowerCase())
  );
}

/** The headers of a handler's map that may be written. */
function safeExtraHeaders(headers: ReadonlyMap<string, string>): [string, string][] {
  return [...headers].filter(([name, value]) => isSafeExtraHeader(name, value));
}

/** A JSON-RPC error object as the body of a transport-level answer. */
function jsonRpcError(status: number, error: RpcError, closeConnection = false): HttpAnswer {
  return { status, contentType: "application/json", body: errorResponse(null, error), closeConnection };
}

/** The body the guard answers a refusal or failure with: a JSON-RPC error object (-32600, -32603, -32005). */
export function jsonRpcFailureBody(maxInFlight: number): (failure: GuardFailure) => string {
  const errorOf = (failure: GuardFailure): RpcError => {
    switch (failure.status) {
      case 400:
        return new InvalidRequestError(`invalid request: ${failure.message}`);
      case 503:
        return new ServerBusyError(maxInFlight);
      case 500:
        return new InternalError(failure.message);
    }
  };
  return (failure) => errorResponse(null, errorOf(failure));
}

export interface HttpRoutesOptions {
  /** Method run by GET /healthz; 404 without it. */
  readonly healthMethod: string | undefined;
  /** CORS preflights are answered only when set. */
  readonly corsOrigin: string | undefined;
}

export class HttpRoutes {
  constructor(
    private readonly core: ServerCore,
    private readonly options: HttpRoutesOptions,
  ) {}

  /** GET /healthz and GET /metrics: counted in flight, never refused as busy. */
  registerServiceRoutes(): void {
    const { app, guard } = this.core;
    const unlimited = { limited: false };
    app.get(
      "/healthz",
      guard.http((response) => this.handleHealth(response), unlimited),
    );
    app.get(
      "/metrics",
      guard.http((response) => this.handleMetrics(response), unlimited),
    );
  }

  /** POST <any path>, the CORS preflight and the 404 for everything else: registered after the websockets. */
  registerJsonRpcRoutes(): void {
    const { app, guard } = this.core;
    const unlimited = { limited: false };
    app.post(
      "/*",
      guard.http((response, req) => this.handlePost(response, req)),
    );
    if (this.options.corsOrigin !== undefined) {
      app.options(
        "/*",
        guard.http((response) => this.handlePreflight(response), unlimited),
      );
    }
    app.any(
      "/*",
      guard.http(
        (response, req) =>
          response.respond(jsonRpcError(404, new RouteNotFoundError(req.getMethod(), req.getUrl()), true)),
        unlimited,
      ),
    );
  }

  private handlePost(response: GuardedResponse, req: HttpRequest): void {
    const { limits } = this.core;
    const contentType = req.getHeader("content-type");
    const declaredLength = req.getHeader("content-length");
    if (this.core.isDraining()) {
      response.respond(jsonRpcError(503, new ServerShuttingDownError(), true));
      return;
    }
    const mediaType = contentType.split(";", 1)[0]!.trim().toLowerCase();
    if (mediaType !== "" && !JSON_CONTENT_TYPES.has(mediaType)) {
      response.respond(jsonRpcError(415, new UnsupportedContentTypeError(contentType.slice(0, 100)), true));
      return;
    }
    const tooLarge = (): HttpAnswer => jsonRpcError(413, new BodyTooLargeError(limits.maxBodyBytes), true);
    if (declaredLength !== "" && !(Number(declaredLength) <= limits.maxBodyBytes)) {
      response.respond(tooLarge());
      return;
    }
    readBody(response.raw, limits.maxBodyBytes, {
      onTooLarge: () => response.respond(tooLarge()),
      onBody: (bytes) => {
        const text = decodeUtf8OrInvalid(bytes);
        response.callback(() => this.answerPost(response, text), "JSON-RPC dispatch")();
      },
      onError: (error) => response.fail(error, "HTTP body"),
    });
  }

  private async answerPost(response: GuardedResponse, text: string): Promise<void> {
    const responseHeaders = new Map<string, string>();
    const ctx = new HttpRequestContext(response, responseHeaders);
    const env: DispatchEnvironment = { transport: "http", openCall: () => ({ ctx, finish: () => {} }) };
    const body = await this.core.dispatcher.dispatchText(text, env);
    response.respond({
      status: 200,
      contentType: body === undefined ? undefined : "application/json",
      body: body ?? "",
      headers: safeExtraHeaders(responseHeaders),
    });
  }

  private async handleHealth(response: GuardedResponse): Promise<void> {
    const method = this.options.healthMethod;
    if (method === undefined) {
      const body = JSON.stringify(new HealthNotConfiguredError().toJSON());
      response.respond({ status: 404, contentType: "application/json", body });
      return;
    }
    if (this.core.isDraining()) {
      const body = JSON.stringify(new ServerShuttingDownError().toJSON());
      response.respond({ status: 503, contentType: "application/json", body });
      return;
    }
    const ctx = new HttpRequestContext(response, new Map());
    const outcome = await this.core.dispatcher.invokeDirect(method, [], ctx);
    let body: string;
    let status = 200;
    try {
      body = outcome.ok ? JSON.stringify(outcome.result ?? null) : JSON.stringify(outcome.error.toJSON());
      if (!outcome.ok) status = 500;
    } catch (error) {
      this.core.logger.error({ err: error, method }, "health result is not JSON-serializable");
      body = JSON.stringify({ code: -32603, message: "internal error: health result is not JSON" });
      status = 500;
    }
    response.respond({
      status,
      contentType: "application/json",
      body,
      headers: safeExtraHeaders(ctx.responseHeaders),
    });
  }

  private async handleMetrics(response: GuardedResponse): Promise<void> {
    const { metrics } = this.core;
    const text = await metrics.exposition();
    response.respond({ status: 200, contentType: metrics.contentType, body: text });
  }

  private handlePreflight(response: GuardedResponse): void {
    response.respond({
      status: 204,
      body: "",
      headers: [
        ["access-control-allow-methods", "POST, GET, OPTIONS"],
        ["access-control-allow-headers", "content-type"],
        ["access-control-max-age", "600"],
      ],
    });
  }
}
