/**
 * Transport-independent JSON-RPC 2.0 dispatch: parses a body, validates envelopes, applies the
 * batch limit, runs methods from the MethodTable and serializes the responses. HTTP and websocket
 * transports both call `dispatchText`.
 */
import type { Logger } from "../log/index.js";
import {
  classifyRequest,
  errorResponse,
  type RpcCall,
  type RpcId,
  type RpcNotification,
  successResponse,
} from "./envelope.js";
import {
  InternalError,
  InvalidRequestError,
  MethodNotFoundError,
  ParseError,
  type RpcError,
  toRpcError,
} from "./errors.js";
import type { RpcLimits } from "./limits.js";
import type { MethodTable, RequestContext } from "./method.js";
import type { RpcMetrics } from "./rpc-metrics.js";

/** The context of one call, and what to do once its outcome is known. */
export interface CallScope {
  readonly ctx: RequestContext;
  /** Called once the call finished; `ok` is false when it produced an error. */
  finish(ok: boolean): void;
}

/** What a transport provides for one body it hands to the dispatcher. */
export interface DispatchEnvironment {
  readonly transport: "http" | "ws";
  /** Creates the context for one call or notification of the body. */
  openCall(): CallScope;
  /**
   * When set, no method runs: every call is answered with this error and its own id (used for a
   * busy or draining server, so websocket clients can match the refusal to their request).
   */
  readonly refuse?: RpcError;
}

/** Label used for methods that are not in the table (keeps metric cardinality bounded). */
const UNKNOWN_METHOD_LABEL = "unknown_method";
const INVALID_REQUEST_LABEL = "invalid_request";

export interface RpcDispatcherOptions {
  readonly methods: MethodTable;
  readonly limits: RpcLimits;
  readonly metrics: RpcMetrics;
  readonly logger: Logger;
}

/** A method's outcome when invoked directly (GET /healthz). */
export type DirectOutcome =
  { readonly ok: true; readonly result: unknown } | { readonly ok: false; readonly error: RpcError };

export class RpcDispatcher {
  private readonly methods: MethodTable;
  private readonly limits: RpcLimits;
  private readonly metrics: RpcMetrics;
  private readonly logger: Logger;

  constructor(options: RpcDispatcherOptions) {
    this.methods = options.methods;
    this.limits = options.limits;
    this.metrics = options.metrics;
    this.logger = options.logger;
  }

  /**
   * Handles one HTTP body or websocket message. Returns the response text, or undefined when
   * nothing is to be sent (a notification, or a batch of notifications only).
   */
  async dispatchText(text: string, env: DispatchEnvironment): Promise<string | undefined> {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      this.countRejected(env.transport, -32700);
      return errorResponse(null, new ParseError());
    }
    return this.dispatchValue(value, env);
  }

  /** Handles one parsed body: a single request or a batch. */
  async dispatchValue(value: unknown, env: DispatchEnvironment): Promise<string | undefined> {
    if (!Array.isArray(value)) {
      return this.dispatchOne(value, env);
    }
    if (value.length === 0) {
      this.countRejected(env.transport, -32600);
      return errorResponse(null, new InvalidRequestError("invalid request: empty batch"));
    }
    if (value.length > this.limits.maxBatchLength) {
      this.countRejected(env.transport, -32600);
      return errorResponse(
        null,
        new InvalidRequestError(
          `invalid request: batch of ${value.length} requests exceeds the limit of ${this.limits.maxBatchLength}`,
          { data: { limit: this.limits.maxBatchLength, length: value.length } },
        ),
      );
    }
    const responses = await Promise.all(value.map((item) => this.dispatchOne(item, env)));
    const present = responses.filter((response): response is string => response !== undefined);
    return present.length === 0 ? undefined : `[${present.join(",")}]`;
  }

  /** Runs one method outside any JSON-RPC envelope (GET /healthz). */
  async invokeDirect(method: string, params: unknown, ctx: RequestContext): Promise<DirectOutcome> {
    const bound = this.methods.get(method);
    if (bound === undefined) return { ok: false, error: new MethodNotFoundError(method) };
    try {
      return { ok: true, result: await bound.invoke(params, ctx) };
    } catch (error) {
      const rpcError = toRpcError(error);
      this.logFailure(method, rpcError, error);
      return { ok: false, error: rpcError };
    }
  }

  private async dispatchOne(value: unknown, env: DispatchEnvironment): Promise<string | undefined> {
    const envelope = classifyRequest(value);
    switch (envelope.kind) {
      case "invalid":
        this.countRejected(env.transport, envelope.error.code);
        this.logger.debug({ code: envelope.error.code, reason: envelope.error.message }, "invalid request");
        return errorResponse(envelope.id, envelope.error);
      case "call":
        return this.runCall(envelope, env);
      case "notification":
        await this.runCall(envelope, env);
        return undefined;
    }
  }

  /** Runs a call or notification; returns the serialized response (ignored for notifications). */
  private async runCall(request: RpcCall | RpcNotification, env: DispatchEnvironment): Promise<string> {
    const id: RpcId = request.kind === "call" ? request.id : null;
    if (env.refuse !== undefined) {
      this.countRejected(env.transport, env.refuse.code, "refused");
      return errorResponse(id, env.refuse);
    }
    const bound = this.methods.get(request.method);
    if (bound === undefined) {
      this.countRejected(env.transport, -32601, UNKNOWN_METHOD_LABEL);
      return errorResponse(id, new MethodNotFoundError(request.method));
    }
    const scope = env.openCall();
    const started = process.hrtime.bigint();
    let response: string;
    let failure: RpcError | undefined;
    try {
      const result = await bound.invoke(request.params, scope.ctx);
      response = successResponse(id, result);
    } catch (error) {
      failure = toRpcError(error);
      this.logFailure(request.method, failure, error);
      response = errorResponse(id, failure);
    }
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    this.metrics.recordCall(request.method, env.transport, failure?.code, seconds);
    try {
      scope.finish(failure === undefined);
    } catch (error) {
      this.logger.error({ err: error, method: request.method }, "call scope cleanup failed");
    }
    return response;
  }

  private countRejected(transport: "http" | "ws", code: number, method = INVALID_REQUEST_LABEL): void {
    this.metrics.requests.inc({ method, transport, outcome: "error", code: String(code) });
  }

  private logFailure(method: string, rpcError: RpcError, thrown: unknown): void {
    if (rpcError instanceof InternalError) {
      this.logger.error({ err: thrown, method, code: rpcError.code }, "method failed with an internal error");
    } else {
      this.logger.debug(
        { method, code: rpcError.code, reason: rpcError.message },
        "method returned an error",
      );
    }
  }
}
