/**
 * Hand-built method specs and handlers for the server-core tests: small, strict decoders that
 * throw InvalidParamsError naming the parameter, like the generated ones.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { InvalidParamsError, RpcError } from "../errors.js";
import { bindMethod, type MethodTable, type RpcMethodSpec, type Subscription } from "../method.js";

function positional(raw: unknown, names: readonly string[]): unknown[] {
  const values: unknown[] =
    raw === undefined
      ? []
      : Array.isArray(raw)
        ? raw
        : names.map((name) => (raw as Record<string, unknown>)[name]);
  if (values.length > names.length) {
    throw new InvalidParamsError(`too many params: expected at most ${names.length}, got ${values.length}`);
  }
  return values;
}

function spec<P, R>(
  name: string,
  paramNames: readonly string[],
  decode: (values: unknown[]) => P,
  encodeResult: (result: R) => unknown = (result) => result,
): RpcMethodSpec<P, R> {
  return {
    name,
    paramNames,
    decodeParams: (raw) => decode(positional(raw, paramNames)),
    encodeParams: () => {
      throw new Error("client side is not used in these tests");
    },
    encodeResult,
    decodeResult: (raw) => raw as R,
  };
}

function requireNumber(values: unknown[], index: number, name: string): number {
  const value = values[index];
  if (value === undefined)
    throw new InvalidParamsError(`missing value for required argument ${index} (${name})`);
  if (typeof value !== "number")
    throw new InvalidParamsError(`${name}: expected a number, got ${typeof value}`);
  return value;
}

/** Application error with a custom code, as node/host handlers raise. */
export class BlockNotFoundError extends RpcError {
  constructor(block: number) {
    super(-32001, `block ${block} not found`, { data: { block } });
  }
}

export interface TestMethodsState {
  healthy: boolean;
  /** Subscriptions closed so far, by id. */
  readonly closedSubscriptions: string[];
  /** Live subscriptions, by id. */
  readonly live: Map<string, Subscription>;
  /** Notifications received (method test_note). */
  readonly notes: unknown[];
  /** Abort reasons seen by test_waitForAbort. */
  readonly aborts: unknown[];
}

export function createTestMethods(): { methods: MethodTable; state: TestMethodsState } {
  const state: TestMethodsState = {
    healthy: true,
    closedSubscriptions: [],
    live: new Map(),
    notes: [],
    aborts: [],
  };
  const list = [
    bindMethod(
      spec("test_add", ["a", "b"], (v) => [requireNumber(v, 0, "a"), requireNumber(v, 1, "b")] as const),
      ([a, b]) => a + b,
    ),
    bindMethod(
      spec("test_echo", ["value"], (v) => {
        if (v.length !== 1) throw new InvalidParamsError(`value: expected exactly 1 param, got ${v.length}`);
        return v[0];
      }),
      (value) => value,
    ),
    bindMethod(
      spec("test_sleep", ["ms"], (v) => requireNumber(v, 0, "ms")),
      async (ms) => {
        await sleep(ms);
        return `slept ${ms}`;
      },
    ),
    bindMethod(
      spec("test_waitForAbort", [], () => undefined),
      (_params, ctx) =>
        new Promise<string>((resolve) => {
          ctx.signal.addEventListener("abort", () => {
            state.aborts.push(ctx.signal.reason);
            resolve("aborted");
          });
        }),
    ),
    bindMethod(
      spec("test_throw", [], () => undefined),
      () => {
        throw new TypeError("handler bug: cannot read properties of undefined");
      },
    ),
    bindMethod(
      spec("test_block", ["number"], (v) => requireNumber(v, 0, "number")),
      (block) => {
        throw new BlockNotFoundError(block);
      },
    ),
    bindMethod(
      spec<undefined, bigint>("test_bigint", [], () => undefined),
      () => 1n,
    ),
    bindMethod(
      spec("test_header", ["value"], (v) => String(v[0])),
      (value, ctx) => {
        ctx.responseHeaders.set("x-test-value", value);
        // Ignored by the server: reserved, or not a valid header line.
        ctx.responseHeaders.set("Content-Type", "text/html");
        ctx.responseHeaders.set("x-injected", "a\r\nset-cookie: b");
        ctx.responseHeaders.set("bad name", "c");
        // A handler bug a JavaScript caller can make: uWS throws on it half way through the response.
        ctx.responseHeaders.set("x-not-a-string", 5 as unknown as string);
        return true;
      },
    ),
    bindMethod(
      spec("test_note", ["value"], (v) => v[0]),
      (value) => {
        state.notes.push(value);
        return null;
      },
    ),
    bindMethod(
      spec("healthz", [], () => undefined),
      () => {
        if (!state.healthy) throw new RpcError(-32001, "no valid signer confirmed yet");
        return { version: "0.1.0" };
      },
    ),
    bindMethod(
      spec("test_subscribe", ["ticks"], (v) => requireNumber(v, 0, "ticks")),
      (ticks, ctx) => {
        const host = ctx.subscriptions;
        if (host === undefined) throw new RpcError(-32601, "subscriptions need a websocket connection");
        let id = "";
        const subscription = host.open(() => {
          state.closedSubscriptions.push(id);
          state.live.delete(id);
        });
        id = subscription.id;
        state.live.set(id, subscription);
        // Pushed before the response: must arrive after it.
        for (let tick = 0; tick < ticks; tick++) subscription.push({ tick });
        return id;
      },
    ),
    bindMethod(
      spec("eth_subscribe", ["kind"], (v) => {
        if (v[0] !== "ticks")
          throw new InvalidParamsError(`kind: expected "ticks", got ${JSON.stringify(v[0])}`);
        return v[0];
      }),
      (_kind, ctx) => {
        const host = ctx.subscriptions;
        if (host === undefined) throw new RpcError(-32601, "eth_subscribe needs a websocket connection");
        let id = "";
        const subscription = host.open(() => {
          state.closedSubscriptions.push(id);
          state.live.delete(id);
        });
        id = subscription.id;
        state.live.set(id, subscription);
        subscription.push("0x0");
        return id;
      },
    ),
    bindMethod(
      spec("eth_unsubscribe", ["id"], (v) => {
        if (typeof v[0] !== "string") throw new InvalidParamsError("id: expected a string");
        return v[0];
      }),
      (id, ctx) => ctx.subscriptions?.cancel(id) ?? false,
    ),
    bindMethod(
      spec("test_unsubscribe", ["id"], (v) => {
        if (typeof v[0] !== "string") throw new InvalidParamsError("id: expected a string");
        return v[0];
      }),
      (id, ctx) => ctx.subscriptions?.cancel(id) ?? false,
    ),
  ];
  return { methods: new Map(list.map((method) => [method.name, method])), state };
}
