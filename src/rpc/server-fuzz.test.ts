import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { once } from "node:events";
import net from "node:net";
import { createRpcServer, type RpcServer } from "./server.js";
import { createTestMethods } from "./test/methods.js";

let server: RpcServer;
let base: string;

beforeAll(async () => {
  server = createRpcServer({
    methods: createTestMethods().methods,
    host: "127.0.0.1",
    port: 0,
    limits: { maxBodyBytes: 16 * 1024, maxBatchLength: 8 },
  });
  base = `http://127.0.0.1:${await server.listen()}/`;
});

afterAll(async () => {
  await server.close({ drainMs: 500 });
});

const KNOWN_CODES = new Set([-32700, -32600, -32601, -32602, -32603, -32001]);

/** Checks one response object against JSON-RPC 2.0. */
function expectResponse(value: unknown): void {
  expect(value).toBeTypeOf("object");
  const response = value as Record<string, unknown>;
  expect(response.jsonrpc).toBe("2.0");
  expect("id" in response).toBe(true);
  expect(["string", "number", "object"]).toContain(typeof response.id);
  const hasResult = "result" in response;
  const hasError = "error" in response;
  expect(hasResult !== hasError).toBe(true);
  if (hasError) {
    const error = response.error as { code: unknown; message: unknown };
    expect(KNOWN_CODES.has(error.code as number)).toBe(true);
    expect(typeof error.message).toBe("string");
  }
}

const methodName = fc.oneof(
  fc.constantFrom("test_add", "test_echo", "test_throw", "test_block", "test_bigint", "test_note", "healthz"),
  fc.string(),
  fc.jsonValue(),
);
const requestLike = fc.record(
  {
    jsonrpc: fc.oneof(fc.constant("2.0"), fc.jsonValue()),
    id: fc.oneof(fc.integer(), fc.string(), fc.constant(null), fc.jsonValue()),
    method: methodName,
    params: fc.oneof(fc.array(fc.oneof(fc.integer(), fc.jsonValue()), { maxLength: 4 }), fc.jsonValue()),
  },
  { requiredKeys: [] },
);
const body = fc.oneof(
  requestLike.map((request) => JSON.stringify(request)),
  fc.array(requestLike, { maxLength: 10 }).map((batch) => JSON.stringify(batch)),
  fc.jsonValue().map((value) => JSON.stringify(value)),
  fc.string({ unit: "binary", maxLength: 200 }),
);

async function alive(): Promise<void> {
  const response = await fetch(base, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: '{"jsonrpc":"2.0","id":1,"method":"test_add","params":[2,2]}',
  });
  expect(await response.json()).toEqual({ jsonrpc: "2.0", id: 1, result: 4 });
}

describe("hostile input", () => {
  it("answers any HTTP body with well-formed JSON-RPC (or nothing) and keeps serving", async () => {
    await fc.assert(
      fc.asyncProperty(body, async (text) => {
        const response = await fetch(base, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: text,
        });
        expect(response.status).toBe(200);
        const reply = await response.text();
        if (reply === "") return;
        const parsed: unknown = JSON.parse(reply);
        if (Array.isArray(parsed)) {
          expect(parsed.length).toBeGreaterThan(0);
          parsed.forEach(expectResponse);
        } else {
          expectResponse(parsed);
        }
      }),
      { numRuns: 300 },
    );
    await alive();
  });

  it("answers any websocket message and keeps the connection", async () => {
    const socket = new WebSocket(`${base.replace("http", "ws")}`);
    await once(socket, "open");
    const replies: unknown[] = [];
    socket.on("message", (data) => replies.push(JSON.parse(data.toString())));
    await fc.assert(
      fc.asyncProperty(body, async (text) => {
        socket.send(text);
      }),
      { numRuns: 200 },
    );
    socket.send('{"jsonrpc":"2.0","id":"last","method":"test_add","params":[1,1]}');
    const deadline = Date.now() + 3000;
    while (!replies.some((reply) => (reply as { id?: unknown }).id === "last") && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(replies).toContainEqual({ jsonrpc: "2.0", id: "last", result: 2 });
    for (const reply of replies) {
      if (Array.isArray(reply)) reply.forEach(expectResponse);
      else expectResponse(reply);
    }
    socket.close();
  });

  it("survives deeply nested JSON in a body and in a result", async () => {
    const depth = 7000;
    const nested = "[".repeat(depth) + "]".repeat(depth);
    let response = await fetch(base, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: nested,
    });
    expect(await response.json()).toEqual([
      { jsonrpc: "2.0", id: null, error: expect.objectContaining({ code: -32600 }) },
    ]);
    response = await fetch(base, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: `{"jsonrpc":"2.0","id":1,"method":"test_echo","params":[${nested}]}`,
    });
    // Either echoed or refused as -32603 when too deep to serialise: never a crash.
    const reply = (await response.json()) as { id: number; result?: unknown; error?: { code: number } };
    expect(reply.id).toBe(1);
    if (reply.error !== undefined) expect(reply.error.code).toBe(-32603);
    await alive();
  });

  it("survives raw TCP garbage and pipelined requests (which uWS refuses by closing)", async () => {
    const port = Number(new URL(base).port);
    const exchange = (bytes: Uint8Array | string): Promise<string> =>
      new Promise((resolve) => {
        const socket = net.connect(port, "127.0.0.1");
        let received = "";
        socket.on("data", (chunk: Buffer) => (received += chunk.toString("latin1")));
        socket.on("error", () => {});
        socket.on("close", () => resolve(received));
        socket.write(bytes);
        setTimeout(() => socket.destroy(), 300);
      });
    const garbage: (Uint8Array | string)[] = [
      ...fc.sample(fc.uint8Array({ minLength: 1, maxLength: 512 }), { numRuns: 40, seed: 7 }),
      ...fc.sample(
        fc.string({ maxLength: 200 }).map((tail) => `POST / HTTP/1.1\r\n${tail}`),
        { numRuns: 20, seed: 8 },
      ),
      "POST / HTTP/1.1\r\nContent-Length: -5\r\n\r\n",
      "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n",
      "POST / HTTP/1.1\r\nContent-Length: 99999999999999999999\r\n\r\n{}",
    ];
    await Promise.all(garbage.map((bytes) => exchange(bytes)));
    const call = (id: number, method: string, params: string): string => {
      const body = `{"jsonrpc":"2.0","id":${id},"method":"${method}","params":${params}}`;
      return `POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
    };
    const pipelined = await exchange(call(1, "test_sleep", "[50]") + call(2, "test_add", "[1,2]"));
    // Whatever uWS makes of it (today: the connection is closed unanswered), never a wrong answer.
    expect(pipelined).not.toContain('"id":2,"result":3}HTTP');
    await alive();
  });

  it("drops a websocket that sends a message over the body limit, and keeps serving", async () => {
    const socket = new WebSocket(`${base.replace("http", "ws")}`);
    await once(socket, "open");
    const closed = once(socket, "close");
    socket.send("x".repeat(17 * 1024));
    const [code] = (await closed) as [number];
    // uWS cuts the TCP connection at once (the client reports 1006), before reading the message.
    expect([1006, 1009]).toContain(code);
    await alive();
  });
});
