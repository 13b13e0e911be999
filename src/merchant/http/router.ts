/**
 * A small JSON router on uWebSockets.js for REST-style APIs: routes by method and path pattern
 * (uWS patterns, `:name` parameters), request bodies read with src/rpc's streaming body reader
 * under a byte limit and parsed as JSON, handler results and refused requests (RequestRefusedError) written as JSON.
 * Everything needed from the uWS request is copied before the first await (uWS invalidates it).
 */
import type { HttpRequest, HttpResponse, TemplatedApp } from "@trufflesuite/uws-js-unofficial";
import type { Logger } from "../../log/index.js";
import type { Counter, Histogram, MetricsRegistry } from "../../metrics/index.js";
import { readBody } from "../../rpc/index.js";
import { type MerchantErrorKind, RequestRefusedError } from "../errors.js";

export interface JsonRequest {
  method: string;
  path: string;
  params: Readonly<Record<string, string>>;
  query: URLSearchParams;
  /** Parsed JSON body; undefined when the body was empty. */
  body: unknown;
}

export interface JsonResponse {
  status: number;
  body: unknown;
}

export type JsonHandler = (request: JsonRequest) => Promise<JsonResponse>;

export interface JsonRouterOptions {
  logger: Logger;
  metrics: MetricsRegistry;
  /** Largest accepted request body in bytes. */
  maxBodyBytes: number;
}

const STATUS_TEXT: Readonly<Record<number, string>> = {
  200: "200 OK",
  201: "201 Created",
  202: "202 Accepted",
  400: "400 Bad Request",
  404: "404 Not Found",
  405: "405 Method Not Allowed",
  409: "409 Conflict",
  413: "413 Payload Too Large",
  415: "415 Unsupported Media Type",
  422: "422 Unprocessable Entity",
  500: "500 Internal Server Error",
  503: "503 Service Unavailable",
};

/** The HTTP status a refused request is answered with, by the error's kind. */
const STATUS_OF_KIND: Readonly<Partial<Record<MerchantErrorKind, number>>> = {
  "bad-request": 400,
  "order-not-found": 404,
  "invalid-transition": 409,
  "order-conflict": 409,
  "nonce-used": 409,
  "invalid-signature": 422,
  "authorization-rejected": 422,
  "chain-unavailable": 503,
};

function statusLine(status: number): string {
  return STATUS_TEXT[status] ?? `${status} Status`;
}

export function errorBody(code: string, message: string, details: Record<string, unknown> = {}): unknown {
  return { error: { code, message, ...details } };
}

/** JSON with bigints written as decimal strings. */
export function toJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => (typeof v === "bigint" ? v.toString() : v));
}

export class JsonRouter {
  private readonly logger: Logger;
  private readonly maxBodyBytes: number;
  private readonly responses: Counter<"route" | "status">;
  private readonly durations: Histogram<"route">;
  private readonly patternsByPath = new Map<string, Set<string>>();

  constructor(
    private readonly app: TemplatedApp,
    options: JsonRouterOptions,
  ) {
    this.logger = options.logger;
    this.maxBodyBytes = options.maxBodyBytes;
    this.responses = options.metrics.counter({
      name: "merchant_http_responses_total",
      help: "HTTP responses of the merchant API by route pattern and status",
      labelNames: ["route", "status"],
    });
    this.durations = options.metrics.histogram({
      name: "merchant_http_request_seconds",
      help: "Time from request to response by route pattern",
      labelNames: ["route"],
    });
  }

  get(pattern: string, handler: JsonHandler): this {
    return this.add("get", pattern, handler);
  }

  post(pattern: string, handler: JsonHandler): this {
    return this.add("post", pattern, handler);
  }

  /** Registers 405 for known paths with other methods and 404 for everything else. Call last. */
  finish(): void {
    for (const [pattern, methods] of this.patternsByPath) {
      const allowed = [...methods].map((m) => m.toUpperCase());
      for (const other of ["get", "post", "put", "del", "patch", "options", "head"] as const) {
        if (methods.has(other)) continue;
        this.app[other](pattern, (res, req) => {
          const method = req.getMethod().toUpperCase();
          this.writeNow(
            res,
            pattern,
            405,
            errorBody("method_not_allowed", `${method} is not allowed on ${pattern}`, { allowed }),
          );
        });
      }
    }
    this.app.any("/*", (res, req) => {
      this.writeNow(
        res,
        "*",
        404,
        errorBody("route_not_found", `no route for ${req.getMethod().toUpperCase()} ${req.getUrl()}`),
      );
    });
  }

  private add(method: "get" | "post", pattern: string, handler: JsonHandler): this {
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
    this.app[method](pattern, (res: HttpResponse, req: HttpRequest) => {
      const started = process.hrtime.bigint();
      const state = { aborted: false };
      res.onAborted(() => {
        state.aborted = true;
      });
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
      const finish = (response: JsonResponse): void => {
        this.durations.observe({ route: pattern }, Number(process.hrtime.bigint() - started) / 1e9);
        this.write(res, state, pattern, response);
      };
      const run = (body: unknown): void => {
        handler({ ...request, body }).then(finish, (error: unknown) =>
          finish(this.errorResponse(error, request.method, request.path)),
        );
      };
      if (method === "get") {
        run(undefined);
        return;
      }
      readBody(res, this.maxBodyBytes, {
        onTooLarge: (received) =>
          finish({
            status: 413,
            body: errorBody(
              "body_too_large",
              `request body exceeds ${this.maxBodyBytes} bytes (got at least ${received})`,
            ),
          }),
        onBody: (bytes) => {
          if (bytes.byteLength === 0) {
            run(undefined);
            return;
          }
          if (!contentType.startsWith("application/json")) {
            finish({
              status: 415,
              body: errorBody("unsupported_media_type", "request bodies must be application/json"),
            });
            return;
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
            return;
          }
          run(parsed);
        },
      });
    });
    return this;
  }

  private errorResponse(error: unknown, method: string, path: string): JsonResponse {
    const status = error instanceof RequestRefusedError ? STATUS_OF_KIND[error.kind] : undefined;
    if (error instanceof RequestRefusedError && status !== undefined) {
      return { status, body: errorBody(error.code, error.message, { ...error.details }) };
    }
    this.logger.error({ err: error, method, path }, "merchant API handler failed");
    return { status: 500, body: errorBody("internal_error", "internal error; see the service log") };
  }

  private writeNow(res: HttpResponse, route: string, status: number, body: unknown): void {
    this.responses.inc({ route, status: String(status) });
    res.writeStatus(statusLine(status)).writeHeader("content-type", "application/json").end(toJson(body));
  }

  private write(res: HttpResponse, state: { aborted: boolean }, route: string, response: JsonResponse): void {
    if (state.aborted) return;
    state.aborted = true;
    this.responses.inc({ route, status: String(response.status) });
    res.cork(() => {
      res
        .writeStatus(statusLine(response.status))
        .writeHeader("content-type", "application/json")
        .end(toJson(response.body));
    });
  }
}
