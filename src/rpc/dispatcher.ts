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
import {
  BatchBudgetExceededError,
  BatchResponseTooLargeError,
  ResponseTooLargeError,
} from "./server-errors.js";
import { type BatchBudget, type RpcLimits, exceedsBytes } from "./limits.js";
import type { BoundMethod, MethodTable, RequestContext } from "./method.js";
import { MethodGates, type MethodLimits } from "./method-limits.js";
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
  /** Budgets a batch's calls share (priced before any call runs). */
  readonly batchBudgets?: readonly BatchBudget[];
  /** How errors name each limit (e.g. the flag that sets it); the RpcLimits field name by default. */
  readonly limitNames?: Partial<Record<keyof RpcLimits, string>>;
  /** Per-method concurrency limits and batch refusals. */
  readonly methodLimits?: MethodLimits;
}

/** A method's outcome when invoked directly (GET /healthz). */
export type DirectOutcome =
  { readonly ok: true; readonly result: unknown } | { readonly ok: false; readonly error: RpcError };

export class RpcDispatcher {
  private readonly methods: MethodTable;
  private readonly limits: RpcLimits;
  private readonly metrics: RpcMetrics;
  private readonly logger: Logger;
  private readonly batchBudgets: readonly BatchBudget[];
  private readonly limitNames: Partial<Record<keyof RpcLimits, string>>;
  private readonly gates: MethodGates;

  constructor(options: RpcDispatcherOptions) {
    this.methods = options.methods;
    this.limits = options.limits;
    this.metrics = options.metrics;
    this.logger = options.logger;
    this.batchBudgets = options.batchBudgets ?? [];
    this.limitNames = options.limitNames ?? {};
    this.gates = new MethodGates(options.methodLimits, (method) => this.methods.has(method));
  }

  private limitName(limit: keyof RpcLimits): string {
    return this.limitNames[limit] ?? limit;
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
      return this.dispatchOne(value, env, false);
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
    const refusals = this.priceBatch(value);
    const responses = await this.runBatch(value, refusals, env);
    const present = responses.filter((response): response is string => response !== undefined);
    return present.length === 0 ? undefined : `[${present.join(",")}]`;
  }

  /** The calls of a batch that its budgets refuse (index → error), priced in order. */
  private priceBatch(items: readonly unknown[]): Map<number, RpcError> {
    const refusals = new Map<number, RpcError>();
    for (const budget of this.batchBudgets) {
      let total = 0;
      for (let i = 0; i < items.length; i++) {
        const item = items[i];
        if (typeof item !== "object" || item === null || Array.isArray(item)) continue;
        const { method, params } = item as { method?: unknown; params?: unknown };
        if (typeof method !== "string") continue;
        let cost: number;
        try {
          cost = budget.cost(method, params);
        } catch {
          cost = 0; // a malformed call is refused by its own validation
        }
        if (!(cost > 0)) continue;
        total += cost;
        if (total > budget.limit && !refusals.has(i))
          refusals.set(i, new BatchBudgetExceededError(budget.name, budget.limit, total));
      }
    }
    return refusals;
  }

  /**
   * Runs a batch's calls in order, at most `batchConcurrency` at once, adding up the bytes of their
   * responses: once the sum crosses `maxBatchResponseBytes`, that response and every later one are
   * replaced by an error and calls not yet started never run, so a batch cannot hold more than about
   * the cap plus `batchConcurrency` responses in memory.
   */
  private async runBatch(
    items: readonly unknown[],
    refusals: ReadonlyMap<number, RpcError>,
    env: DispatchEnvironment,
  ): Promise<(string | undefined)[]> {
    const responses: (string | undefined)[] = new Array<string | undefined>(items.length);
    const cap = this.limits.maxBatchResponseBytes;
    let total = 0;
    let exceeded: RpcError | undefined;
    let next = 0;
    const batchConcurrency = this.limits.batchConcurrency;
    const settle = (index: number, response: string | undefined): void => {
      if (response === undefined) return;
      if (exceeded === undefined) {
        total += exceedsBytes(response, cap).bytes + 1;
        if (total <= cap) {
          responses[index] = response;
          return;
        }
        exceeded = new BatchResponseTooLargeError(cap, this.limitName("maxBatchResponseBytes"));
        this.logger.debug({ limit: cap }, "batch response over the limit");
      }
      responses[index] = errorResponse(idOf(items[index]), exceeded);
    };
    const worker = async (): Promise<void> => {
      while (next < items.length) {
        const index = next++;
        const item = items[index];
        const refusal = exceeded ?? refusals.get(index);
        if (refusal !== undefined) {
          const envelope = classifyRequest(item);
          this.countRejected(
            env.transport,
            refusal.code,
            envelope.kind === "invalid" ? undefined : "refused",
          );
          // A notification gets no answer, refused or not.
          settle(index, envelope.kind === "notification" ? undefined : errorResponse(envelope.id, refusal));
          continue;
        }
        // Past the first wave, each call waits for a turn of the event loop: a long batch of synchronous
        // methods must not hold timers (the node's sequencer) for its whole length.
        if (index >= batchConcurrency) await new Promise<void>((resolve) => setImmediate(resolve));
        settle(index, await this.dispatchOne(item, env, true));
      }
    };
    const workers = Math.min(this.limits.batchConcurrency, items.length);
    await Promise.all(Array.from({ length: workers }, () => worker()));
    return responses;
  }

  /** Runs one method outside any JSON-RPC envelope (GET /healthz). */
  async invokeDirect(method: string, params: unknown, ctx: RequestContext): Promise<DirectOutcome> {
    const bound = this.methods.get(method);
    if (bound === undefined) return { ok: false, error: new MethodNotFoundError(method) };
    const release = this.gates.enter(method, false);
    if (typeof release !== "function") return { ok: false, error: release };
    try {
      return { ok: true, result: await bound.invoke(params, ctx) };
    } catch (error) {
      const rpcError = toRpcError(error);
      this.logFailure(method, rpcError, error);
      return { ok: false, error: rpcError };
    } finally {
      release();
    }
  }

  private async dispatchOne(
    value: unknown,
    env: DispatchEnvironment,
    inBatch: boolean,
  ): Promise<string | undefined> {
    const envelope = classifyRequest(value);
    switch (envelope.kind) {
      case "invalid":
        this.countRejected(env.transport, envelope.error.code);
        this.logger.debug({ code: envelope.error.code, reason: envelope.error.message }, "invalid request");
        return errorResponse(envelope.id, envelope.error);
      case "call":
        return this.runCall(envelope, env, inBatch);
      case "notification":
        await this.runCall(envelope, env, inBatch);
        return undefined;
    }
  }

  /** Runs a call or notification; returns the serialized response (ignored for notifications). */
  private async runCall(
    request: RpcCall | RpcNotification,
    env: DispatchEnvironment,
    inBatch: boolean,
  ): Promise<string> {
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
    const release = this.gates.enter(request.method, inBatch);
    if (typeof release !== "function") {
      this.countRejected(env.transport, release.code, request.method);
      this.logger.debug(
        { method: request.method, reason: release.message },
        "call refused by its method limit",
      );
      return errorResponse(id, release);
    }
    try {
      return await this.runAdmittedCall(request, id, bound, env);
    } finally {
      release();
    }
  }

  private async runAdmittedCall(
    request: RpcCall | RpcNotification,
    id: RpcId,
    bound: BoundMethod,
    env: DispatchEnvironment,
  ): Promise<string> {
    const scope = env.openCall();
    const started = process.hrtime.bigint();
    let response: string;
    let failure: RpcError | undefined;
    try {
      const result = await bound.invoke(request.params, scope.ctx);
      response = successResponse(id, result);
      const size = exceedsBytes(response, this.limits.maxResponseBytes);
      if (size.over) {
        response = "";
        throw new ResponseTooLargeError(
          this.limits.maxResponseBytes,
          size.bytes,
          this.limitName("maxResponseBytes"),
        );
      }
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

/** The id of a batch item as far as it can be read (null otherwise). */
function idOf(item: unknown): RpcId {
  const envelope = classifyRequest(item);
  return envelope.kind === "notification" ? null : envelope.id;
}
