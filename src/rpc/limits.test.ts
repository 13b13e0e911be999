/**
 * The server core's response and batch bounds, on the dispatcher itself: the bytes of one response, the
 * summed bytes of a batch's responses (later calls never run), budgets a batch's calls share, and the
 * subscriptions one connection may hold.
 */
import { describe, expect, it } from "vitest";
import { createSilentLogger } from "../log/index.js";
import { MetricsRegistry } from "../metrics/index.js";
import { type DispatchEnvironment, RpcDispatcher } from "./dispatcher.js";
import { InvalidParamsError } from "./errors.js";
import { type BatchBudget, type RpcLimits, exceedsBytes, resolveLimits } from "./limits.js";
import { bindMethod, type MethodTable, type RequestContext, type RpcMethodSpec } from "./method.js";
import { RpcMetrics } from "./rpc-metrics.js";
import { ConnectionSubscriptions } from "./subscriptions.js";

type Reply = { id: unknown; result?: unknown; error?: { code: number; message: string; data?: unknown } };

function spec(name: string): RpcMethodSpec<unknown[], unknown> {
  return {
    name,
    paramNames: ["a", "b"],
    decodeParams: (raw) => {
      if (!Array.isArray(raw)) throw new InvalidParamsError("params: expected an array");
      return raw;
    },
    encodeParams: () => [],
    encodeResult: (result) => result,
    decodeResult: (raw) => raw,
  };
}

/** `test_bytes [n]` answers a string of n characters and counts its runs. */
function setUp(limits: Partial<RpcLimits>, budgets: BatchBudget[] = []) {
  const runs: number[] = [];
  const methods: MethodTable = new Map([
    [
      "test_bytes",
      bindMethod(spec("test_bytes"), async (params) => {
        const n = params[0] as number;
        runs.push(n);
        await new Promise((resolve) => setImmediate(resolve));
        return "x".repeat(n);
      }),
    ],
  ]);
  const dispatcher = new RpcDispatcher({
    methods,
    limits: resolveLimits(limits),
    metrics: new RpcMetrics(new MetricsRegistry()),
    logger: createSilentLogger(),
    batchBudgets: budgets,
    limitNames: { maxResponseBytes: "--max-response", maxBatchResponseBytes: "--max-batch-response" },
  });
  const ctx: RequestContext = {
    transport: "http",
    signal: new AbortController().signal,
    responseHeaders: new Map(),
  };
  const env: DispatchEnvironment = { transport: "http", openCall: () => ({ ctx, finish: () => {} }) };
  const send = async (body: unknown): Promise<Reply | Reply[]> =>
    JSON.parse((await dispatcher.dispatchText(JSON.stringify(body), env))!) as Reply | Reply[];
  return { send, runs };
}

const req = (id: number, n: number) => ({ jsonrpc: "2.0", id, method: "test_bytes", params: [n] });
/** Bytes of the response to req(id, n) for a one-digit id. */
const responseBytes = (n: number) => `{"jsonrpc":"2.0","id":1,"result":"${"x".repeat(n)}"}`.length;

describe("response bytes", () => {
  it("answers a response at the limit and refuses one byte over with -32005 naming the limit", async () => {
    const limit = responseBytes(1000);
    const { send } = setUp({ maxResponseBytes: limit });
    expect(((await send(req(1, 1000))) as Reply).result).toBe("x".repeat(1000));
    const over = (await send(req(1, 1001))) as Reply;
    expect(over.error?.code).toBe(-32005);
    expect(over.error?.message).toContain("--max-response");
    expect(over.error?.data).toEqual({ limit: "--max-response", max: limit, bytes: limit + 1 });
  });

  it("counts UTF-8 bytes, not UTF-16 units", () => {
    expect(exceedsBytes("é".repeat(10), 19)).toEqual({ over: true, bytes: 20 });
    expect(exceedsBytes("é".repeat(10), 20)).toEqual({ over: false, bytes: 20 });
    expect(exceedsBytes("a".repeat(10), 30)).toEqual({ over: false, bytes: 10 });
    expect(exceedsBytes("a".repeat(31), 30).over).toBe(true);
  });
});

describe("batch response bytes", () => {
  it("answers the calls that fit, refuses the one that crosses the cap and every later one, and never runs those not started", async () => {
    // Each response is ~1 KB; the cap holds three of them (plus separators).
    const cap = 3 * (responseBytes(1000) + 1);
    const { send, runs } = setUp({ maxBatchResponseBytes: cap, batchConcurrency: 2 });
    const batch = Array.from({ length: 50 }, (_, i) => req(i, 1000));
    const replies = (await send(batch)) as Reply[];
    expect(replies).toHaveLength(50);
    expect(replies.map((r) => r.id)).toEqual(batch.map((r) => r.id));
    const ok = replies.filter((r) => r.result !== undefined);
    expect(ok).toHaveLength(3);
    expect(replies.slice(0, 3).every((r) => r.result !== undefined)).toBe(true);
    for (const r of replies.slice(3)) {
      expect(r.error?.code).toBe(-32005);
      expect(r.error?.message).toContain("--max-batch-response");
    }
    // With two calls at a time, at most the call after the crossing one had started: 50 never ran.
    expect(runs.length).toBeLessThanOrEqual(5);
  });

  it("a batch under the cap is answered in full, in order", async () => {
    const { send } = setUp({ batchConcurrency: 3 });
    const replies = (await send(Array.from({ length: 20 }, (_, i) => req(i, i)))) as Reply[];
    expect(replies.map((r) => r.result)).toEqual(Array.from({ length: 20 }, (_, i) => "x".repeat(i)));
  });
});

describe("batch budgets", () => {
  const budget: BatchBudget = {
    name: "units",
    limit: 10,
    cost: (method, params) => (method === "test_bytes" && Array.isArray(params) ? Number(params[1] ?? 0) : 0),
  };

  it("runs calls while the batch's total stays within the budget and refuses the ones past it without running them", async () => {
    const { send, runs } = setUp({}, [budget]);
    const batch = [4, 6, 1, 0].map((units, i) => ({
      jsonrpc: "2.0",
      id: i,
      method: "test_bytes",
      params: [i, units],
    }));
    const replies = (await send(batch)) as Reply[];
    expect(replies[0]!.result).toBe("");
    expect(replies[1]!.result).toBe("x");
    expect(replies[2]!.error?.code).toBe(-32005);
    expect(replies[2]!.error?.data).toEqual({ limit: "units", max: 10, requested: 11 });
    expect(replies[3]!.result).toBe("xxx");
    expect(runs.sort()).toEqual([0, 1, 3]);
  });

  it("prices malformed calls at nothing and leaves them to their own validation", async () => {
    const throwing: BatchBudget = {
      name: "x",
      limit: 1,
      cost: () => {
        throw new Error("bad params");
      },
    };
    const { send } = setUp({}, [throwing]);
    const replies = (await send([
      req(1, 2),
      { jsonrpc: "2.0", id: 2, method: "test_bytes", params: {} },
    ])) as Reply[];
    expect(replies[0]!.result).toBe("xx");
    expect(replies[1]!.error?.code).toBe(-32602);
  });
});

describe("subscriptions per connection", () => {
  it("opens up to the limit, refuses one more with -32005 naming it, and opens again after a cancel", () => {
    const connection = new ConnectionSubscriptions(
      () => true,
      () => {},
      () => {},
      { max: 2, name: "--max-subs" },
    );
    const a = connection.create(() => {}, "eth_subscription");
    connection.create(() => {}, "eth_subscription");
    let refused: unknown;
    try {
      connection.create(() => {}, "eth_subscription");
    } catch (e) {
      refused = e;
    }
    expect(refused).toMatchObject({ code: -32005, kind: "too-many-subscriptions" });
    expect((refused as Error).message).toContain("--max-subs");
    expect(connection.size).toBe(2);
    expect(connection.cancel(a.id)).toBe(true);
    connection.create(() => {}, "eth_subscription");
    expect(connection.size).toBe(2);
  });
});
