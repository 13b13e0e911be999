// The guard on a bare uWS app, with handlers that throw in every callback position. Unguarded, each of these
// throws into uWS: the process reports an uncaught exception (vitest fails the run) or aborts ("Returning from
// a request handler without responding or attaching an abort handler is forbidden"), or the request hangs.
import uWS, { type TemplatedApp, type us_listen_socket } from "@trufflesuite/uws-js-unofficial";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { createMemoryLogger } from "../log/index.js";
import { readBody } from "./http-body.js";
import { type GuardedResponse, UwsGuard } from "./uws-guard.js";

const MAX_IN_FLIGHT = 4;
const { logger, lines } = createMemoryLogger("guard-test", "debug");
const guard = new UwsGuard({ logger, maxInFlight: MAX_IN_FLIGHT });
const held: GuardedResponse[] = [];
const answered: [number, string | undefined][] = [];
const counting = new UwsGuard({
  logger,
  maxInFlight: 1,
  onResponse: (status, route) => answered.push([status, route]),
});
let app: TemplatedApp & { close(): void };
let listenSocket: us_listen_socket;
let base: string;
let wsBase: string;

function boom(message = "boom"): never {
  throw new Error(message);
}

beforeAll(async () => {
  app = uWS.App() as TemplatedApp & { close(): void };
  app.get(
    "/ok",
    guard.http((response) => response.respond({ status: 200, body: "ok" })),
  );
  app.get(
    "/sync-throw",
    guard.http(() => boom()),
  );
  app.get(
    "/orders/:id",
    guard.http((response, req) => {
      const id = decodeURIComponent(req.getParameter(0) ?? "");
      response.respond({ status: 200, body: id });
    }),
  );
  app.get(
    "/async-throw",
    guard.http(async () => {
      await Promise.resolve();
      boom("after an await");
    }),
  );
  app.get(
    "/timer-throw",
    guard.http((response) => {
      setTimeout(
        response.callback(() => boom("in a timer")),
        1,
      );
    }),
  );
  app.post(
    "/body-throw",
    guard.http((response) =>
      readBody(response.raw, 1024, {
        onBody: () => JSON.parse("{not json"),
        onTooLarge: () => boom(),
        onError: (error) => response.fail(error, "body"),
      }),
    ),
  );
  app.post(
    "/body-throw-unhandled",
    guard.http((response) =>
      readBody(response.raw, 1024, {
        onBody: () => boom("in onBody"),
        onTooLarge: () => boom(),
      }),
    ),
  );
  app.get(
    "/half-written",
    guard.http((response) =>
      // A header value that is not a string makes uWS throw after the status line was written.
      response.respond({ status: 200, body: "x", headers: [["x-count", 5 as unknown as string]] }),
    ),
  );
  app.get(
    "/hold",
    guard.http((response) => {
      held.push(response);
    }),
  );
  app.get(
    "/named/ok",
    counting.http((response) => response.respond({ status: 200, body: "ok" }), { name: "/named/ok" }),
  );
  app.get(
    "/named/throw",
    counting.http(() => boom(), { name: "/named/throw" }),
  );
  app.get(
    "/named/hold",
    counting.http(
      (response) => {
        held.push(response);
      },
      { name: "/named/hold" },
    ),
  );
  app.get(
    "/unnamed",
    counting.http((response) => response.respond({ status: 204, body: "" })),
  );
  app.ws("/ws/open", guard.webSocket({ open: () => boom("in open") }));
  app.ws("/ws/message", guard.webSocket({ message: () => boom("in message") }));
  app.ws(
    "/ws/message-async",
    guard.webSocket({
      message: async () => {
        await Promise.resolve();
        boom("in an async message handler");
      },
    }),
  );
  app.ws("/ws/close", guard.webSocket({ close: () => boom("in close") }));
  app.ws("/ws/upgrade", guard.webSocket({ upgrade: () => boom("in upgrade") }));
  const port = await new Promise<number>((resolve, reject) =>
    app.listen("127.0.0.1", 0, (socket) => {
      if (socket === false) {
        reject(new Error("cannot listen"));
        return;
      }
      listenSocket = socket;
      resolve(uWS.us_socket_local_port(socket as unknown as uWS.us_socket));
    }),
  );
  base = `http://127.0.0.1:${port}`;
  wsBase = `ws://127.0.0.1:${port}`;
});

afterAll(() => {
  uWS.us_listen_socket_close(listenSocket);
  app.close();
});

async function get(path: string, init: RequestInit = {}): Promise<{ status: number; body: unknown }> {
  const response = await fetch(base + path, { ...init, signal: AbortSignal.timeout(30_000) });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // plain text
  }
  return { status: response.status, body };
}

async function expectAlive(): Promise<void> {
  expect(await get("/ok")).toEqual({ status: 200, body: "ok" });
  expect(guard.inFlight.size).toBe(0);
}

function logged(text: string): boolean {
  return lines.some((line) => JSON.stringify(line).includes(text));
}

describe("HTTP callbacks behind the guard", () => {
  it("answers 500 when a route handler throws synchronously, and keeps serving", async () => {
    expect(await get("/sync-throw")).toEqual({
      status: 500,
      body: { error: { code: "internal_error", message: "internal error" } },
    });
    expect(logged("boom")).toBe(true);
    await expectAlive();
  });

  it("answers 400 to malformed percent-encoding in a route parameter", async () => {
    expect(await get("/orders/%E0")).toEqual({
      status: 400,
      body: { error: { code: "bad_request", message: "bad request: URI malformed" } },
    });
    expect(await get("/orders/a%20b")).toEqual({ status: 200, body: "a b" });
    await expectAlive();
  });

  it("answers 500 when the handler's promise rejects or a timer of the request throws", async () => {
    expect((await get("/async-throw")).status).toBe(500);
    expect((await get("/timer-throw")).status).toBe(500);
    expect(logged("after an await") && logged("in a timer")).toBe(true);
    await expectAlive();
  });

  it("answers 400 when onData's body handler throws a SyntaxError; closes the connection without an onError", async () => {
    expect((await get("/body-throw", { method: "POST", body: "x" })).status).toBe(400);
    await expect(get("/body-throw-unhandled", { method: "POST", body: "x" })).rejects.toThrow();
    await expectAlive();
  });

  it("closes the connection when a response throws half written, instead of leaving it hanging", async () => {
    await expect(get("/half-written")).rejects.toThrow();
    expect(logged("writing an HTTP response failed")).toBe(true);
    await expectAlive();
  });

  it("answers 503 at once beyond the in-flight limit, before the handler runs", async () => {
    const pending = Array.from({ length: MAX_IN_FLIGHT }, () => get("/hold"));
    await expect.poll(() => held.length, { timeout: 30_000 }).toBe(MAX_IN_FLIGHT);
    expect(await get("/ok")).toEqual({
      status: 503,
      body: {
        error: {
          code: "server_busy",
          message: `server busy: ${MAX_IN_FLIGHT} requests already in flight, retry later`,
        },
      },
    });
    expect(held.length).toBe(MAX_IN_FLIGHT);
    for (const response of held.splice(0)) response.respond({ status: 200, body: "released" });
    for (const reply of await Promise.all(pending)) expect(reply).toEqual({ status: 200, body: "released" });
    await expectAlive();
  });
});

function closeCode(ws: WebSocket): Promise<number> {
  return new Promise((resolve) => ws.on("close", (code) => resolve(code)));
}

describe("onResponse", () => {
  it("is told each status with the route's name, including the guard's own 500 and 503 answers", async () => {
    expect((await get("/named/ok")).status).toBe(200);
    expect((await get("/named/throw")).status).toBe(500);
    expect((await get("/unnamed")).status).toBe(204);
    const pending = get("/named/hold");
    await expect.poll(() => held.length, { timeout: 30_000 }).toBe(1);
    expect((await get("/named/ok")).status).toBe(503);
    held.splice(0).forEach((response) => response.respond({ status: 200, body: "released" }));
    expect((await pending).status).toBe(200);
    expect(answered).toEqual([
      [200, "/named/ok"],
      [500, "/named/throw"],
      [204, undefined],
      [503, "/named/ok"],
      [200, "/named/hold"],
    ]);
    expect(counting.inFlight.size).toBe(0);
  });
});

describe("websocket callbacks behind the guard", () => {
  it("closes the socket with 1011 when open, message or an async message handler throws", async () => {
    const open = new WebSocket(`${wsBase}/ws/open`);
    expect(await closeCode(open)).toBe(1011);
    for (const path of ["/ws/message", "/ws/message-async"]) {
      const ws = new WebSocket(wsBase + path);
      const closed = closeCode(ws);
      ws.on("open", () => ws.send("hello"));
      expect(await closed).toBe(1011);
    }
    expect(logged("in open") && logged("in message") && logged("in an async message handler")).toBe(true);
    await expectAlive();
  });

  it("logs a throwing close handler, and answers 500 to a throwing upgrade", async () => {
    const ws = new WebSocket(`${wsBase}/ws/close`);
    await new Promise((resolve) => ws.on("open", resolve));
    const closed = closeCode(ws);
    ws.close(1000);
    expect(await closed).toBe(1000);
    await expect.poll(() => logged("in close"), { timeout: 30_000 }).toBe(true);
    const upgrade = new WebSocket(`${wsBase}/ws/upgrade`);
    const status = await new Promise<number>((resolve) => {
      upgrade.on("unexpected-response", (_req, res) => resolve(res.statusCode ?? 0));
      upgrade.on("error", () => resolve(-1));
    });
    expect(status).toBe(500);
    await expectAlive();
  });
});
