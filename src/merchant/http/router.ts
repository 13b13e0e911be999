/**
 * A small JSON router on uWebSockets.js for REST-style APIs: routes by method and path pattern
 * (uWS patterns, `:name` parameters), request bodies read with src/rpc's streaming body reader
 * under a byte limit and parsed as JSON, handler results and refused requests (RequestRefusedError) written as JSON.
 * Everything needed from the uWS request is copied before the first await (uWS invalidates it). Every uWS
 * callback runs behind src/rpc's UwsGuard (an exception is answered 400 `bad_request` / 500 `internal_error`,
 * never escapes), and at most `maxInFlight` requests are served at once: one more is answered 503 `overloaded`
 * at once.
 */
import type { HttpRequest, TemplatedApp } from "@trufflesuite/uws-js-unofficial";
import type { Logger } from "../../log/index.js";
import type { Counter, Histogram, MetricsRegistry } from "../../metrics/index.js";
import { type GuardedResponse, type GuardFailure, readBody, UwsGuard } from "../../rpc/index.js";
import { type ApiCaller, type ApiScope, scopeAllows } from "../api-keys.js";
import { ForbiddenError, type MerchantErrorKind, RequestRefusedError, UnauthorizedError } from "../errors.js";

export interface JsonRequest {
  method: string;
  path: string;
  params: Readonly<Record<string, string>>;
  query: URLSearchParams;
  /** Parsed JSON body; undefined when the body was empty. */
  body: unknown;
  /** The API key's holder; null on public routes. */
  caller: ApiCaller | null;
}

/** Who may call a route: anyone, or a key with this scope (write includes read). */
export type RouteAccess = "public" | ApiScope;

export interface JsonResponse {
  status: number;
  body: unknown;
  headers?: Readonly<Record<string, string>>;
}

export type JsonHandler = (request: JsonRequest) => Promise<JsonResponse>;

export interface JsonRouterOptions {
  logger: Logger;
  metrics: MetricsRegistry;
  /** Largest accepted request body in bytes. */
  maxBodyBytes: number;
  /** Requests served at once (from the first byte to the answer); more are answered 503 at once. */
  maxInFlight: number;
  /** The holder of a presented API key (the part after "Bearer "), or null when it is not a working key. */
  authenticate(presented: string): Promise<ApiCaller | null>;
}

/** The HTTP status a refused request is answered with, by the error's kind. */
const STATUS_OF_KIND: Readonly<Partial<Record<MerchantErrorKind, number>>> = {
  "bad-request": 400,
  unauthorized: 401,
  forbidden: 403,
  "order-not-found": 404,
  "invalid-transition": 409,
  "order-conflict": 409,
  "nonce-used": 409,
  "invalid-signature": 422,
  "authorization-rejected": 422,
  "chain-unavailable": 503,
};

export function errorBody(code: string, message: string, details: Record<string, unknown> = {}): unknown {
  return { error: { code, message, ...details } };
}

/** JSON with bigints written as decimal strings. */
export function toJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => (typeof v === "bigint" ? v.toString() : v));
}

/** Errors the client caused (400 `bad_request`): a malformed percent-escape, a request refused as bad input. */
function isBadInput(error: unknown): boolean {
  return error instanceof URIError || (error instanceof RequestRefusedError && error.kind === "bad-request");
}

/** The merchant's JSON error body for what the guard answers itself (400, 500, 503). */
function failureBody(maxInFlight: number): (failure: GuardFailure) => string {
  return ({ status, message }) =>
    toJson(
      status === 400
        ? errorBody("bad_request", message)
        : status === 503
          ? errorBody("overloaded", `the service is serving ${maxInFlight} requests; retry later`, {
              maxInFlight,
            })
          : errorBody("internal_error", "internal error; see the service log"),
    );
}

export class JsonRouter {
  private readonly logger: Logger;
  private readonly maxBodyBytes: number;
  private readonly durations: Histogram<"route">;
  private readonly patternsByPath = new Map<string, Set<string>>();
  private readonly authenticate: (presented: string) => Promise<ApiCaller | null>;
  readonly guard: UwsGuard;

  constructor(
    private readonly app: TemplatedApp,
    options: JsonRouterOptions,
  ) {
    this.logger = options.logger;
    this.maxBodyBytes = options.maxBodyBytes;
    this.authenticate = options.authenticate;
    const responses: Counter<"route" | "status"> = options.metrics.counter({
      name: "merchant_http_responses_total",
      help: "HTTP responses of the merchant API by route pattern and status",
      labelNames: ["route", "status"],
    });
    this.guard = new UwsGuard({
      logger: options.logger,
      maxInFlight: options.maxInFlight,
      isBadInput,
      failureBody: failureBody(options.maxInFlight),
      // Responses of the named routes (the API's patterns, "*" for unknown ones); /metrics is not counted.
      onResponse: (status, route) => {
        if (route !== undefined) responses.inc({ route, status: String(status) });
      },
    });
    this.durations = options.metrics.histogram({
      name: "merchant_http_request_seconds",
      help: "Time from request to response by route pattern",
      labelNames: ["route"],
    });
  }

  get(pattern: string, access: RouteAccess, handler: JsonHandler): this {
    return this.add("get", pattern, access, handler);
  }

  post(pattern: string, access: RouteAccess, handler: JsonHandler): this {
    return this.add("post", pattern, access, handler);
  }

  /** The caller of a route that needs `access`, from the Authorization header; throws when refused. */
  private async authorize(access: RouteAccess, authorization: string): Promise<ApiCaller | null> {
    if (access === "public") return null;
    const bearer = /^Bearer +(\S+)$/i.exec(authorization.trim());
    if (bearer === null)
      throw new UnauthorizedError("this route needs an API key: Authorization: Bearer <key>");
    const caller = await this.authenticate(bearer[1] as string);
    if (caller === null) throw new UnauthorizedError("the API key is not valid (unknown, revoked or ended)");
    if (!scopeAllows(caller.scope, access)) throw new ForbiddenError(access, caller.scope, caller.keyId);
    return caller;
  }

  /** Registers 405 for known paths with other methods and 404 for everything else. Call last. */
  finish(): void {
    for (const [pattern, methods] of this.patternsByPath) {
      const allowed = [...methods].map((m) => m.toUpperCase());
      for (const other of ["get", "post", "put", "del", "patch", "options", "head"] as const) {
        if (methods.has(other)) continue;
        this.app[other](
          pattern,
          this.guard.http(
            (response, req) => {
              const method = req.getMethod().toUpperCase();
              this.write(response, {
                status: 405,
                body: errorBody("method_not_allowed", `${method} is not allowed on ${pattern}`, { allowed }),
              });
            },
            { limited: false, name: pattern },
          ),
        );
      }
    }
    this.app.any(
      "/*",
      this.guard.http(
        (response, req) => {
          this.write(response, {
            status: 404,
            body: errorBody(
              "route_not_found",
              `no route for ${req.getMethod().toUpperCase()} ${req.getUrl()}`,
            ),
          });
        },
        { limited: false, name: "*" },
      ),
    );
  }

  /** Requests being served now. */
  get requestsInFlight(): number {
    return this.guard.inFlight.size;
  }

  private add(method: "get" | "post", pattern: string, access: RouteAccess, handler: JsonHandler): this {
    const paramNames = pattern
      .split("/")
      .filter((segment) => segment.startsWith(":"))
      .map((segment) => segment.slice(1));
    let methods = this.patternsByPath.get(pattern);
    if (methods === undefined) {
      methods = new Set();
      this.patternsByPath.set(pattern, methods);
    }
    methods.add(method);
    this.app[method](
      pattern,
      this.guard.http(
        (response: GuardedResponse, req: HttpRequest) => {
          const started = process.hrtime.bigint();
          const params: Record<string, string> = {};
          paramNames.forEach((name, i) => {
            params[name] = decodeURIComponent(req.getParameter(i) ?? "");
          });
          const request = {
            method: method.toUpperCase(),
            path: req.getUrl(),
            params,
            query: new URLSearchParams(req.getQuery() ?? ""),
          };
          const contentType = req.getHeader("content-type").toLowerCase();
          const authorization = req.getHeader("authorization");
          const finish = (answer: JsonResponse): void => {
            this.durations.observe({ route: pattern }, Number(process.hrtime.bigint() - started) / 1e9);
            this.write(response, answer);
          };
          const run = (body: unknown): Promise<void> =>
            this.authorize(access, authorization)
              .then((caller) => handler({ ...request, body, caller }))
              .then(finish, (error: unknown) =>
                finish(this.errorResponse(error, request.method, request.path)),
              );
          if (method === "get") return run(undefined);
          readBody(response.raw, this.maxBodyBytes, {
            onTooLarge: response.callback(
              (received: number) =>
                finish({
                  status: 413,
                  body: errorBody(
                    "body_too_large",
                    `request body exceeds ${this.maxBodyBytes} bytes (got at least ${received})`,
                  ),
                }),
              pattern,
            ),
            onBody: response.callback((bytes: Uint8Array) => {
              if (bytes.byteLength === 0) return run(undefined);
              if (!contentType.startsWith("application/json")) {
                finish({
                  status: 415,
                  body: errorBody("unsupported_media_type", "request bodies must be application/json"),
                });
                return undefined;
              }
              let parsed: unknown;
              try {
                parsed = JSON.parse(Buffer.from(bytes).toString("utf8"));
              } catch (error) {
                finish({
                  status: 400,
                  body: errorBody(
                    "malformed_json",
                    `the request body is not valid JSON: ${(error as Error).message}`,
                  ),
                });
                return undefined;
              }
              return run(parsed);
            }, pattern),
            onError: (error) => response.fail(error, pattern),
          });
          return undefined;
        },
        { name: pattern },
      ),
    );
    return this;
  }

  private errorResponse(error: unknown, method: string, path: string): JsonResponse {
    const status = error instanceof RequestRefusedError ? STATUS_OF_KIND[error.kind] : undefined;
    if (error instanceof RequestRefusedError && status !== undefined) {
      return {
        status,
        body: errorBody(error.code, error.message, { ...error.details }),
        ...(status === 401 ? { headers: { "www-authenticate": 'Bearer realm="merchant"' } } : {}),
      };
    }
    this.logger.error({ err: error, method, path }, "merchant API handler failed");
    return { status: 500, body: errorBody("internal_error", "internal error; see the service log") };
  }

  /** Writes the answer unless the request was answered or aborted already. */
  private write(response: GuardedResponse, answer: JsonResponse): void {
    response.respond({
      status: answer.status,
      contentType: "application/json",
      body: toJson(answer.body),
      headers: Object.entries(answer.headers ?? {}),
    });
  }
}
