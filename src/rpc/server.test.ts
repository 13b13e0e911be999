import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { createMemoryLogger } from "../log/index.js";
import { MetricsRegistry } from "../metrics/index.js";
import { createRpcServer, type RpcServer } from "./server.js";
import { createTestMethods, type TestMethodsState } from "./test/methods.js";

const MAX_BODY = 64 * 1024;
const MAX_BATCH = 20;

let server: RpcServer;
let state: TestMethodsState;
let base: string;
const { logger, lines } = createMemoryLogger("rpc-test", "debug");

interface Reply {
  status: number;
  headers: Headers;
  text: string;
}

async function post(body: unknown, headers: Record<string, string> = {}): Promise<Reply> {
  const response = await fetch(base, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

async function call(body: unknown): Promise<unknown> {
  const reply = await post(body);
  expect(reply.status).toBe(200);
  return JSON.parse(reply.text);
}

/** After every bad input the server must still answer a good request. */
async function expectAlive(): Promise<void> {
  expect(await call({ jsonrpc: "2.0", id: 99, method: "test_add", params: [40, 2] })).toEqual({
    jsonrpc: "2.0",
    id: 99,
    result: 42,
  });
}

beforeAll(async () => {
  const created = createTestMethods();
  state = created.state;
  server = createRpcServer({
    methods: created.methods,
    host: "127.0.0.1",
    port: 0,
    limits: { maxBodyBytes: MAX_BODY, maxBatchLength: MAX_BATCH },
    healthMethod: "healthz",
    broadcastRoutes: [{ path: "/ws/feed", onOpen: (send) => send('{"hello":true}') }],
    metrics: new MetricsRegistry(),
    logger,
  });
  const port = await server.listen();
  base = `http://127.0.0.1:${port}/`;
});

afterAll(async () => {
  await server.close({ drainMs: 1000 });
});

describe("single requests", () => {
  it("answers a call with its result and echoes ids of every type exactly", async () => {
    for (const id of [1, 0, -7, 1.5, 2 ** 53 + 2, "abc", "", "0x01", null]) {
      const reply = await post({ jsonrpc: "2.0", id, method: "test_add", params: [1, 2] });
      expect(reply.status).toBe(200);
      expect(reply.headers.get("content-type")).toBe("application/json");
      expect(JSON.parse(reply.text)).toEqual({ jsonrpc: "2.0", id, result: 3 });
    }
  });

  it("echoes a large integer id byte for byte as JSON.parse reads it", async () => {
    const reply = await post(
      '{"jsonrpc":"2.0","id":12345678901234567890,"method":"test_add","params":[1,1]}',
    );
    const asParsed = JSON.stringify(JSON.parse("12345678901234567890"));
    expect(reply.text).toBe(`{"jsonrpc":"2.0","id":${asParsed},"result":2}`);
  });

  it("accepts named params and absent params", async () => {
    expect(await call({ jsonrpc: "2.0", id: 1, method: "test_add", params: { a: 2, b: 5 } })).toMatchObject({
      result: 7,
    });
    expect(await call({ jsonrpc: "2.0", id: 2, method: "healthz" })).toMatchObject({
      result: { version: "0.1.0" },
    });
  });

  it("answers malformed JSON with -32700 and id null", async () => {
    for (const body of ['{"jsonrpc":"2.0",', "", "not json", "[1,2", "\u0000", '{"a":1}}']) {
      const reply = await post(body);
      expect(reply.status).toBe(200);
      expect(JSON.parse(reply.text)).toEqual({
        jsonrpc: "2.0",
        id: null,
        error: { code: -32700, message: expect.stringContaining("parse error") },
      });
    }
    await expectAlive();
  });

  it("answers invalid UTF-8 with -32700", async () => {
    const response = await fetch(base, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]),
    });
    expect(await response.json()).toMatchObject({ id: null, error: { code: -32700 } });
    await expectAlive();
  });

  it("answers non-object requests with -32600 and id null", async () => {
    for (const body of ["1", '"text"', "true", "null"]) {
      expect(await call(body)).toEqual({
        jsonrpc: "2.0",
        id: null,
        error: { code: -32600, message: expect.stringContaining("JSON object") },
      });
    }
    await expectAlive();
  });

  it("answers a missing or wrong jsonrpc member with -32600 and the request's id", async () => {
    expect(await call({ id: 5, method: "test_add", params: [1, 2] })).toMatchObject({
      id: 5,
      error: { code: -32600, message: expect.stringContaining("jsonrpc") },
    });
    expect(await call({ jsonrpc: "1.0", id: "x", method: "test_add", params: [1, 2] })).toMatchObject({
      id: "x",
      error: { code: -32600 },
    });
    expect(await call({ jsonrpc: 2, id: 6, method: "test_add" })).toMatchObject({
      id: 6,
      error: { code: -32600 },
    });
    await expectAlive();
  });

  it("answers a non-string method, bad params or a bad id with -32600", async () => {
    expect(await call({ jsonrpc: "2.0", id: 7, method: 1 })).toMatchObject({
      id: 7,
      error: { code: -32600 },
    });
    expect(await call({ jsonrpc: "2.0", id: 8, method: "test_add", params: "bar" })).toMatchObject({
      id: 8,
      error: { code: -32600, message: expect.stringContaining("params") },
    });
    expect(await call({ jsonrpc: "2.0", id: 9, method: "test_add", params: null })).toMatchObject({
      id: 9,
      error: { code: -32600 },
    });
    // An id that is neither string, number nor null cannot be echoed: id null.
    expect(await call({ jsonrpc: "2.0", id: { a: 1 }, method: "test_add", params: [1, 2] })).toMatchObject({
      id: null,
      error: { code: -32600, message: expect.stringContaining("id") },
    });
    expect(await call({ jsonrpc: "2.0", id: [1], method: "test_add" })).toMatchObject({
      id: null,
      error: { code: -32600 },
    });
    await expectAlive();
  });

  it("answers an unknown method with -32601", async () => {
    expect(await call({ jsonrpc: "2.0", id: 10, method: "eth_nope", params: [] })).toEqual({
      jsonrpc: "2.0",
      id: 10,
      error: { code: -32601, message: "the method eth_nope does not exist/is not available" },
    });
    expect(await call({ jsonrpc: "2.0", id: 11, method: "__proto__" })).toMatchObject({
      error: { code: -32601 },
    });
    await expectAlive();
  });

  it("answers wrong param types and counts with -32602 naming the parameter", async () => {
    expect(await call({ jsonrpc: "2.0", id: 12, method: "test_add", params: [1, "2"] })).toEqual({
      jsonrpc: "2.0",
      id: 12,
      error: { code: -32602, message: "b: expected a number, got string" },
    });
    expect(await call({ jsonrpc: "2.0", id: 13, method: "test_add", params: [1] })).toMatchObject({
      error: { code: -32602, message: expect.stringContaining("(b)") },
    });
    expect(await call({ jsonrpc: "2.0", id: 14, method: "test_add", params: [1, 2, 3] })).toMatchObject({
      error: { code: -32602, message: expect.stringContaining("too many params") },
    });
    await expectAlive();
  });

  it("maps a handler's non-RpcError to -32603 and logs it", async () => {
    const before = lines.length;
    expect(await call({ jsonrpc: "2.0", id: 15, method: "test_throw" })).toEqual({
      jsonrpc: "2.0",
      id: 15,
      error: { code: -32603, message: "internal error: handler bug: cannot read properties of undefined" },
    });
    const logged = lines.slice(before).find((line) => line.level === "error");
    expect(logged).toMatchObject({ method: "test_throw", code: -32603, service: "rpc-test" });
    expect(logged?.err).toMatchObject({ type: "TypeError" });
    await expectAlive();
  });

  it("passes application RpcErrors through with their code and data", async () => {
    expect(await call({ jsonrpc: "2.0", id: 16, method: "test_block", params: [7] })).toEqual({
      jsonrpc: "2.0",
      id: 16,
      error: { code: -32001, message: "block 7 not found", data: { block: 7 } },
    });
  });

  it("answers -32603 when a result cannot be serialized", async () => {
    expect(await call({ jsonrpc: "2.0", id: 17, method: "test_bigint" })).toMatchObject({
      id: 17,
      error: { code: -32603 },
    });
    await expectAlive();
  });

  it("sends handler response headers", async () => {
    const reply = await post({ jsonrpc: "2.0", id: 18, method: "test_header", params: ["snapshot-3"] });
    expect(reply.headers.get("x-test-value")).toBe("snapshot-3");
    expect(reply.headers.get("content-type")).toBe("application/json");
    expect(reply.headers.get("x-injected")).toBeNull();
    expect(reply.headers.get("set-cookie")).toBeNull();
    expect(reply.headers.get("x-not-a-string")).toBeNull();
    expect(JSON.parse(reply.text)).toEqual({ jsonrpc: "2.0", id: 18, result: true });
    await expectAlive();
    expect(await server.metrics.exposition()).toMatch(/^jsonrpc_in_flight_requests 0$/m);
  });

  it("runs a notification and sends an empty 200 response", async () => {
    const reply = await post({ jsonrpc: "2.0", method: "test_note", params: ["single"] });
    expect(reply.status).toBe(200);
    expect(reply.text).toBe("");
    expect(state.notes).toContain("single");
    // Unknown methods and failures in notifications are not answered either.
    expect((await post({ jsonrpc: "2.0", method: "eth_nope" })).text).toBe("");
    expect((await post({ jsonrpc: "2.0", method: "test_throw" })).text).toBe("");
  });
});

describe("batches", () => {
  it("answers an empty batch with a single -32600", async () => {
    expect(await call([])).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: { code: -32600, message: "invalid request: empty batch" },
    });
    await expectAlive();
  });

  it("answers a mixed batch with one response per call, in order, none for notifications", async () => {
    const reply = await call([
      { jsonrpc: "2.0", id: 1, method: "test_add", params: [1, 2] },
      { jsonrpc: "2.0", method: "test_note", params: ["in batch"] },
      { jsonrpc: "2.0", id: "two", method: "eth_nope" },
      1,
      { jsonrpc: "2.0", id: 3, method: "test_add", params: ["x", 1] },
      { id: 4, method: "test_add" },
      { jsonrpc: "2.0", id: null, method: "test_echo", params: [[1, { a: "b" }]] },
      { jsonrpc: "2.0", id: 5, method: "test_throw" },
      { jsonrpc: "2.0", method: "eth_nope" },
    ]);
    expect(reply).toEqual([
      { jsonrpc: "2.0", id: 1, result: 3 },
      { jsonrpc: "2.0", id: "two", error: { code: -32601, message: expect.any(String) } },
      { jsonrpc: "2.0", id: null, error: { code: -32600, message: expect.any(String) } },
      { jsonrpc: "2.0", id: 3, error: { code: -32602, message: "a: expected a number, got string" } },
      { jsonrpc: "2.0", id: 4, error: { code: -32600, message: expect.stringContaining("jsonrpc") } },
      { jsonrpc: "2.0", id: null, result: [1, { a: "b" }] },
      { jsonrpc: "2.0", id: 5, error: { code: -32603, message: expect.any(String) } },
    ]);
    expect(state.notes).toContain("in batch");
    await expectAlive();
  });

  it("answers an all-notification batch with an empty 200 response", async () => {
    const reply = await post([
      { jsonrpc: "2.0", method: "test_note", params: ["n1"] },
      { jsonrpc: "2.0", method: "test_note", params: ["n2"] },
    ]);
    expect(reply.status).toBe(200);
    expect(reply.text).toBe("");
    expect(state.notes).toEqual(expect.arrayContaining(["n1", "n2"]));
  });

  it("answers a batch of invalid elements with one error each", async () => {
    expect(await call([1, 2, 3])).toEqual(
      [1, 2, 3].map(() => ({ jsonrpc: "2.0", id: null, error: expect.anything() })),
    );
  });

  it("refuses an over-long batch with a single -32600 naming the limit, and accepts one at the limit", async () => {
    const request = (id: number) => ({ jsonrpc: "2.0", id, method: "test_add", params: [id, 1] });
    const over = Array.from({ length: MAX_BATCH + 1 }, (_, i) => request(i));
    expect(await call(over)).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: {
        code: -32600,
        message: expect.stringContaining(`limit of ${MAX_BATCH}`),
        data: { limit: MAX_BATCH, length: MAX_BATCH + 1 },
      },
    });
    const atLimit = (await call(over.slice(0, MAX_BATCH))) as unknown[];
    expect(atLimit).toHaveLength(MAX_BATCH);
    expect(atLimit[MAX_BATCH - 1]).toEqual({ jsonrpc: "2.0", id: MAX_BATCH - 1, result: MAX_BATCH });
    await expectAlive();
  });
});

/** Sends a raw HTTP request (chunked when no content-length is given) and reads the reply. */
function rawRequest(
  options: http.RequestOptions,
  chunks: Buffer[],
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = http.request({ ...options, agent: false }, (response) => {
      let body = "";
      response.setEncoding("utf8");
      response.on("data", (part: string) => {
        body += part;
      });
      response.on("end", () => resolve({ status: response.statusCode ?? 0, body }));
    });
    // The server may answer and close before the whole body is written.
    request.on("error", (error) => reject(error));
    let index = 0;
    const writeNext = (): void => {
      if (index === chunks.length) {
        request.end();
        return;
      }
      const chunk = chunks[index++]!;
      if (request.destroyed) return;
      request.write(chunk, () => setImmediate(writeNext));
    };
    writeNext();
  });
}

describe("limits and HTTP errors", () => {
  it("refuses an oversized body with HTTP 413 and a JSON-RPC error (declared length)", async () => {
    const big = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "test_echo",
      params: ["x".repeat(3 * 1024 * 1024)],
    });
    const reply = await post(big).catch((error: unknown) => error);
    expect(reply).toMatchObject({ status: 413 });
    expect(JSON.parse((reply as Reply).text)).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: {
        code: -32600,
        message: expect.stringContaining(`${MAX_BODY} bytes`),
        data: { limit: MAX_BODY },
      },
    });
    await expectAlive();
  });

  it("refuses a chunked body once it passes the limit while streaming", async () => {
    const port = server.port!;
    const chunk = Buffer.alloc(16 * 1024, 0x20);
    // 4 MiB of whitespace in 16 KiB chunks; the server must answer long before the end.
    const chunks = [
      Buffer.from('{"jsonrpc":"2.0","id":1,"method":"test_add","params":[1,2]'),
      ...Array(256).fill(chunk),
    ];
    const reply = await rawRequest(
      { host: "127.0.0.1", port, method: "POST", path: "/", headers: { "content-type": "application/json" } },
      chunks,
    );
    expect(reply.status).toBe(413);
    expect(JSON.parse(reply.body)).toMatchObject({ error: { code: -32600, data: { limit: MAX_BODY } } });
    await expectAlive();
  });

  it("accepts a chunked body under the limit", async () => {
    const body = JSON.stringify({ jsonrpc: "2.0", id: 3, method: "test_echo", params: ["y".repeat(40_000)] });
    const parts = [
      Buffer.from(body.slice(0, 10)),
      Buffer.from(body.slice(10, 30_000)),
      Buffer.from(body.slice(30_000)),
    ];
    const reply = await rawRequest(
      {
        host: "127.0.0.1",
        port: server.port!,
        method: "POST",
        path: "/rpc",
        headers: { "content-type": "application/json" },
      },
      parts,
    );
    expect(reply.status).toBe(200);
    expect(JSON.parse(reply.body)).toEqual({ jsonrpc: "2.0", id: 3, result: "y".repeat(40_000) });
  });

  it("refuses non-JSON content types with HTTP 415", async () => {
    const reply = await post(
      { jsonrpc: "2.0", id: 1, method: "test_add", params: [1, 2] },
      {
        "content-type": "application/x-www-form-urlencoded",
      },
    );
    expect(reply.status).toBe(415);
    expect(JSON.parse(reply.text)).toMatchObject({ error: { code: -32600 } });
    expect(
      (
        await post(
          { jsonrpc: "2.0", id: 1, method: "test_add", params: [1, 2] },
          {
            "content-type": "application/json; charset=utf-8",
          },
        )
      ).status,
    ).toBe(200);
    await expectAlive();
  });

  it("answers malformed percent-encoding in a URL with 404 and keeps serving", async () => {
    for (const path of ["/%E0", "/orders/%E0%A4%A", "/%", "/healthz%ZZ"]) {
      const response = await fetch(base.slice(0, -1) + path, { signal: AbortSignal.timeout(30_000) });
      expect(response.status).toBe(404);
      expect((JSON.parse(await response.text()) as { error: { code: number } }).error.code).toBe(-32600);
    }
    await expectAlive();
  });

  it("answers unknown routes with 404", async () => {
    const response = await fetch(`${base}nothing-here`);
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ error: { code: -32600 } });
  });
});

describe("healthz and metrics", () => {
  it("GET /healthz returns the method's result with 200, or its error object with 500", async () => {
    state.healthy = true;
    let response = await fetch(`${base}healthz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ version: "0.1.0" });
    state.healthy = false;
    response = await fetch(`${base}healthz`);
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({ code: -32001, message: "no valid signer confirmed yet" });
    state.healthy = true;
    expect((await fetch(`${base}healthz`)).status).toBe(200);
  });

  it("GET /metrics exposes request counters, durations and the in-flight gauge", async () => {
    await call({ jsonrpc: "2.0", id: 1, method: "test_add", params: [1, 2] });
    await call({ jsonrpc: "2.0", id: 1, method: "test_add", params: ["1", 2] });
    const response = await fetch(`${base}metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("text/plain");
    const text = await response.text();
    expect(text).toMatch(
      /jsonrpc_requests_total\{method="test_add",transport="http",outcome="ok",code=""\} \d+/,
    );
    expect(text).toMatch(
      /jsonrpc_requests_total\{method="test_add",transport="http",outcome="error",code="-32602"\} \d+/,
    );
    expect(text).toMatch(
      /jsonrpc_requests_total\{method="unknown_method",transport="http",outcome="error",code="-32601"\}/,
    );
    expect(text).toMatch(/jsonrpc_request_duration_seconds_bucket\{le="0\.001",method="test_add"\} \d+/);
    expect(text).toContain("jsonrpc_in_flight_requests");
    expect(text).toMatch(/jsonrpc_http_responses_total\{status="413"\} [1-9]/);
  });

  it("lets other modules register their own metrics on the same registry", async () => {
    const proofs = server.metrics.gauge({ name: "test_in_flight_proofs", help: "proofs being computed" });
    const errors = server.metrics.counter({
      name: "test_transport_errors_total",
      help: "transport errors",
      labelNames: ["enclave"],
    });
    proofs.set(2);
    errors.inc({ enclave: "0" }, 3);
    const text = await (await fetch(`${base}metrics`)).text();
    expect(text).toContain("test_in_flight_proofs 2");
    expect(text).toContain('test_transport_errors_total{enclave="0"} 3');
  });
});

describe("concurrency", () => {
  it("serves many concurrent requests, each with its own answer", async () => {
    const replies = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        call({
          jsonrpc: "2.0",
          id: i,
          method: i % 10 === 0 ? "test_sleep" : "test_add",
          params: i % 10 === 0 ? [20] : [i, i],
        }),
      ),
    );
    replies.forEach((reply, i) => {
      expect(reply).toEqual({ jsonrpc: "2.0", id: i, result: i % 10 === 0 ? "slept 20" : 2 * i });
    });
  });
});

/** A websocket client that collects every frame it receives. */
async function connect(
  path: string,
): Promise<{ socket: WebSocket; frames: unknown[]; next: (count: number) => Promise<unknown[]> }> {
  const socket = new WebSocket(`ws://127.0.0.1:${server.port}${path}`);
  const frames: unknown[] = [];
  const waiters: (() => void)[] = [];
  socket.on("message", (data) => {
    frames.push(JSON.parse(data.toString()));
    for (const waiter of waiters.splice(0)) waiter();
  });
  await new Promise<void>((resolve, reject) => {
    socket.once("open", () => resolve());
    socket.once("error", reject);
  });
  const next = async (count: number): Promise<unknown[]> => {
    while (frames.length < count) await new Promise<void>((resolve) => waiters.push(resolve));
    return frames.slice(0, count);
  };
  return { socket, frames, next };
}

describe("websocket JSON-RPC", () => {
  it("answers requests, batches and errors over the websocket", async () => {
    const { socket, next } = await connect("/");
    socket.send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "test_add", params: [2, 3] }));
    expect(await next(1)).toEqual([{ jsonrpc: "2.0", id: 1, result: 5 }]);
    socket.send("{bad json");
    expect((await next(2))[1]).toMatchObject({ id: null, error: { code: -32700 } });
    socket.send(
      JSON.stringify([
        { jsonrpc: "2.0", id: "a", method: "test_add", params: [1, 1] },
        { jsonrpc: "2.0", method: "test_note", params: ["ws"] },
      ]),
    );
    expect((await next(3))[2]).toEqual([{ jsonrpc: "2.0", id: "a", result: 2 }]);
    socket.close();
  });

  it("pushes subscription notifications after the subscribe response, and unsubscribes on request and on close", async () => {
    const { socket, next } = await connect("/");
    socket.send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "test_subscribe", params: [2] }));
    const [response, first, second] = (await next(3)) as [{ result: string }, unknown, unknown];
    const id = response.result;
    expect(id).toMatch(/^0x[0-9a-f]{32}$/);
    expect(first).toEqual({
      jsonrpc: "2.0",
      method: "eth_subscription",
      params: { subscription: id, result: { tick: 0 } },
    });
    expect(second).toEqual({
      jsonrpc: "2.0",
      method: "eth_subscription",
      params: { subscription: id, result: { tick: 1 } },
    });
    // A push from outside the request (as a block feed would).
    expect(state.live.get(id)?.push({ tick: "later" })).toBe(true);
    expect((await next(4))[3]).toMatchObject({ params: { subscription: id, result: { tick: "later" } } });

    socket.send(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "test_unsubscribe", params: [id] }));
    expect((await next(5))[4]).toEqual({ jsonrpc: "2.0", id: 2, result: true });
    expect(state.closedSubscriptions).toContain(id);
    socket.send(JSON.stringify({ jsonrpc: "2.0", id: 3, method: "test_unsubscribe", params: [id] }));
    expect((await next(6))[5]).toEqual({ jsonrpc: "2.0", id: 3, result: false });

    socket.send(JSON.stringify({ jsonrpc: "2.0", id: 4, method: "test_subscribe", params: [0] }));
    const second_id = ((await next(7))[6] as { result: string }).result;
    const live = state.live.get(second_id)!;
    await new Promise<void>((resolve) => {
      socket.once("close", () => resolve());
      socket.close();
    });
    await waitFor(() => state.closedSubscriptions.includes(second_id));
    expect(live.closed).toBe(true);
    expect(live.push({ tick: "after close" })).toBe(false);
  });

  it("refuses subscriptions over HTTP with the handler's error", async () => {
    expect(await call({ jsonrpc: "2.0", id: 1, method: "test_subscribe", params: [1] })).toMatchObject({
      error: { code: -32601 },
    });
  });

  it("broadcasts text frames to every subscriber of a raw route", async () => {
    const a = await connect("/ws/feed");
    const b = await connect("/ws/feed");
    expect(await a.next(1)).toEqual([{ hello: true }]);
    await b.next(1);
    await waitFor(() => server.subscriberCount("/ws/feed") === 2);
    expect(server.broadcast("/ws/feed", JSON.stringify({ index: 0 }))).toBe(true);
    expect(server.broadcast("/ws/feed", JSON.stringify({ index: 1 }))).toBe(true);
    expect(await a.next(3)).toEqual([{ hello: true }, { index: 0 }, { index: 1 }]);
    expect(await b.next(3)).toEqual([{ hello: true }, { index: 0 }, { index: 1 }]);
    a.socket.close();
    b.socket.close();
    await waitFor(() => server.subscriberCount("/ws/feed") === 0);
    expect(() => server.broadcast("/ws/unknown", "x")).toThrow(/no broadcast route/);
  });
});

async function waitFor(condition: () => boolean, timeoutMs = 2000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
