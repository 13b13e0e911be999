import { spawn } from "node:child_process";
import http from "node:http";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import WebSocket from "ws";
import { createRpcServer, type RpcServer } from "./server.js";
import { ListenError } from "./server-errors.js";
import { createTestMethods, type TestMethodsState } from "./test/methods.js";

async function startServer(): Promise<{ server: RpcServer; port: number; state: TestMethodsState }> {
  const { methods, state } = createTestMethods();
  const server = createRpcServer({ methods, host: "127.0.0.1", port: 0 });
  return { server, port: await server.listen(), state };
}

function rpcBody(id: number, method: string, params: unknown[]): string {
  return JSON.stringify({ jsonrpc: "2.0", id, method, params });
}

/** POST over a fresh connection (never a pooled one) or through the given agent. */
function postRaw(
  port: number,
  body: string,
  agent: http.Agent | false = false,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        host: "127.0.0.1",
        port,
        method: "POST",
        path: "/",
        agent,
        headers: { "content-type": "application/json" },
      },
      (response) => {
        let text = "";
        response.setEncoding("utf8");
        response.on("data", (part: string) => (text += part));
        response.on("end", () => resolve({ status: response.statusCode ?? 0, text }));
        response.on("error", reject);
      },
    );
    request.on("error", reject);
    request.end(body);
  });
}

async function inFlight(server: RpcServer): Promise<number> {
  const text = await server.metrics.exposition();
  const match = /^jsonrpc_in_flight_requests (\d+)$/m.exec(text);
  return Number(match?.[1] ?? "NaN");
}

async function waitFor(condition: () => Promise<boolean> | boolean, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe("broadcast backpressure", () => {
  it("disconnects a subscriber that stops reading instead of silently skipping frames", async () => {
    const server = createRpcServer({
      methods: new Map(),
      broadcastRoutes: [{ path: "/feed", maxBackpressureBytes: 64 * 1024 }],
    });
    const port = await server.listen();
    const slow = new WebSocket(`ws://127.0.0.1:${port}/feed`);
    const fast = new WebSocket(`ws://127.0.0.1:${port}/feed`);
    await Promise.all([once(slow, "open"), once(fast, "open")]);
    let fastFrames = 0;
    let fastWaiter: { frames: number; resolve: () => void; reject: (e: Error) => void } | undefined;
    fast.on("message", () => {
      fastFrames++;
      if (fastWaiter !== undefined && fastFrames >= fastWaiter.frames) fastWaiter.resolve();
    });
    fast.on("close", () =>
      fastWaiter?.reject(new Error(`the reading subscriber was closed at ${fastFrames} frames`)),
    );
    /** Resolves once the reading subscriber has received `frames` frames; rejects if it is closed first. */
    const fastReceived = (frames: number) =>
      fastFrames >= frames
        ? Promise.resolve()
        : new Promise<void>((resolve, reject) => (fastWaiter = { frames, resolve, reject }));
    const slowClosed = once(slow, "close");
    await waitFor(() => server.subscriberCount("/feed") === 2);
    slow.pause();
    // 32 MiB: more than the loopback socket buffers can hold for the paused reader. Two frames (32 KiB, half the
    // bound) at a time, each pair once the reading subscriber has it: that one never lags by more than the bound,
    // however slowly this loaded process reads (bursts of 50 frames once left it short of 2 000 frames after 10 s
    // on CI).
    const frame = "x".repeat(16 * 1024);
    for (let i = 0; i < 2000; i += 2) {
      server.broadcast("/feed", frame);
      server.broadcast("/feed", frame);
      await fastReceived(i + 2);
    }
    expect(fastFrames).toBe(2000);
    await waitFor(() => server.subscriberCount("/feed") === 1, 10_000);
    slow.resume();
    await slowClosed;
    fast.close();
    await server.close();
  });
});

describe("CORS", () => {
  it("answers preflights and marks responses when corsOrigin is set", async () => {
    const server = createRpcServer({ methods: createTestMethods().methods, corsOrigin: "*" });
    const port = await server.listen();
    const preflight = await fetch(`http://127.0.0.1:${port}/`, {
      method: "OPTIONS",
      headers: { origin: "http://app.example", "access-control-request-method": "POST" },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe("*");
    expect(preflight.headers.get("access-control-allow-headers")).toBe("content-type");
    const response = await fetch(`http://127.0.0.1:${port}/`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: "http://app.example" },
      body: rpcBody(1, "test_add", [1, 2]),
    });
    expect(response.headers.get("access-control-allow-origin")).toBe("*");
    expect(await response.json()).toMatchObject({ result: 3 });
    await server.close();
  });
});

describe("in-flight limit", () => {
  it("answers HTTP 503 and websocket -32005 with the call's id while maxInFlight requests run", async () => {
    const { methods } = createTestMethods();
    const server = createRpcServer({ methods, limits: { maxInFlight: 1 } });
    const port = await server.listen();
    const slow = postRaw(port, rpcBody(1, "test_sleep", [300]));
    await waitFor(async () => (await inFlight(server)) === 1);

    const refused = await postRaw(port, rpcBody(2, "test_add", [1, 2]));
    expect(refused.status).toBe(503);
    expect(JSON.parse(refused.text)).toMatchObject({ error: { code: -32005, data: { limit: 1 } } });

    const socket = new WebSocket(`ws://127.0.0.1:${port}/`);
    await once(socket, "open");
    const reply = once(socket, "message");
    socket.send(JSON.stringify([{ jsonrpc: "2.0", id: 7, method: "test_add", params: [1, 2] }]));
    const [frame] = (await reply) as [Buffer];
    expect(JSON.parse(frame.toString())).toEqual([
      { jsonrpc: "2.0", id: 7, error: { code: -32005, message: expect.any(String), data: { limit: 1 } } },
    ]);

    expect(JSON.parse((await slow).text)).toMatchObject({ result: "slept 300" });
    await waitFor(async () => (await inFlight(server)) === 0);
    expect((await postRaw(port, rpcBody(3, "test_add", [1, 2]))).status).toBe(200);
    socket.close();
    await server.close();
  });
});

describe("graceful close", () => {
  it("drains an in-flight request, refuses new connections and answers 503 on open ones", async () => {
    const { server, port } = await startServer();
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    // An idle keep-alive connection, opened before the close.
    expect((await postRaw(port, rpcBody(1, "test_add", [1, 1]), agent)).status).toBe(200);

    const slow = postRaw(port, rpcBody(2, "test_sleep", [400]));
    await waitFor(async () => (await inFlight(server)) === 1);
    const closed = server.close({ drainMs: 5000 });

    await expect(postRaw(port, rpcBody(3, "test_add", [1, 2]))).rejects.toMatchObject({
      code: "ECONNREFUSED",
    });
    const onOpenConnection = await postRaw(port, rpcBody(4, "test_add", [1, 2]), agent);
    expect(onOpenConnection.status).toBe(503);
    expect(JSON.parse(onOpenConnection.text)).toMatchObject({ error: { code: -32000 } });

    // Answered in full: had close() not waited, the connection would have been cut.
    expect(JSON.parse((await slow).text)).toEqual({ jsonrpc: "2.0", id: 2, result: "slept 400" });
    await closed;
    agent.destroy();
  });

  it("cuts off requests still running after drainMs and aborts their signal", async () => {
    const { server, port, state } = await startServer();
    const slow = postRaw(port, rpcBody(1, "test_waitForAbort", []));
    await waitFor(async () => (await inFlight(server)) === 1);
    const started = Date.now();
    await server.close({ drainMs: 100 });
    expect(Date.now() - started).toBeLessThan(2000);
    await expect(slow).rejects.toThrow();
    expect(state.aborts).toHaveLength(1);
    expect(String(state.aborts[0])).toContain("server closed before the request finished");
  });

  it("aborts a handler's signal when the HTTP client goes away", async () => {
    const { server, port, state } = await startServer();
    const request = http.request({
      host: "127.0.0.1",
      port,
      method: "POST",
      path: "/",
      agent: false,
      headers: { "content-type": "application/json" },
    });
    request.on("error", () => {});
    request.end(rpcBody(1, "test_waitForAbort", []));
    await waitFor(async () => (await inFlight(server)) === 1);
    request.destroy();
    await waitFor(() => state.aborts.length === 1);
    expect(String(state.aborts[0])).toContain("client closed the connection");
    await waitFor(async () => (await inFlight(server)) === 0);
    await server.close({ drainMs: 100 });
  });

  it("refuses websocket calls with -32000 and their id while draining, then closes with 1001", async () => {
    const { server, port } = await startServer();
    const socket = new WebSocket(`ws://127.0.0.1:${port}/`);
    await once(socket, "open");
    const frames: unknown[] = [];
    socket.on("message", (data: Buffer) => frames.push(JSON.parse(data.toString())));
    socket.send(rpcBody(1, "test_sleep", [300]));
    await waitFor(async () => (await inFlight(server)) === 1);
    const closeEvent = once(socket, "close");
    const closed = server.close({ drainMs: 2000 });
    socket.send(rpcBody(2, "test_add", [1, 2]));
    await closed;
    const [code] = (await closeEvent) as [number];
    expect(code).toBe(1001);
    expect(frames).toEqual([
      { jsonrpc: "2.0", id: 2, error: { code: -32000, message: expect.stringContaining("shutting down") } },
      { jsonrpc: "2.0", id: 1, result: "slept 300" },
    ]);
    // Closing twice is harmless.
    await server.close();
  });

  it("answers GET /healthz with 404 when no health method is configured; refuses bad configurations", async () => {
    const { server, port } = await startServer();
    const response = await fetch(`http://127.0.0.1:${port}/healthz`);
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ code: -32601 });
    await server.close();
    expect(() => createRpcServer({ methods: new Map(), healthMethod: "healthz" })).toThrow(
      /not in the method table/,
    );
    expect(() => createRpcServer({ methods: new Map(), broadcastRoutes: [{ path: "/" }] })).toThrow(
      /also a broadcast route/,
    );
    expect(() =>
      createRpcServer({ methods: new Map(), broadcastRoutes: [{ path: "/a" }, { path: "/a" }] }),
    ).toThrow(/configured twice/);
  });

  it("reports a port already in use", async () => {
    const { server, port } = await startServer();
    const second = createRpcServer({ methods: new Map(), host: "127.0.0.1", port });
    await expect(second.listen()).rejects.toBeInstanceOf(ListenError);
    await second.close();
    await server.close();
  });

  it("drains on SIGTERM in a real process and exits 0", async () => {
    const fixture = fileURLToPath(new URL("./test/serve-fixture.ts", import.meta.url));
    const child = spawn(process.execPath, ["--import", "tsx", fixture], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    let stdout = "";
    const port = await new Promise<number>((resolve, reject) => {
      child.stdout.on("data", (chunk: Buffer) => {
        stdout += chunk.toString();
        const match = /port=(\d+)/.exec(stdout);
        if (match) resolve(Number(match[1]));
      });
      child.once("exit", (code) => reject(new Error(`fixture exited early (${code}): ${stderr}`)));
    });
    const slow = postRaw(port, rpcBody(1, "test_sleep", [500]));
    await waitFor(async () => {
      const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
      // The slow call plus this metrics request.
      return /^jsonrpc_in_flight_requests 2$/m.test(metrics);
    });
    const exited = once(child, "exit");
    child.kill("SIGTERM");
    expect(JSON.parse((await slow).text)).toEqual({ jsonrpc: "2.0", id: 1, result: "slept 500" });
    const [code] = (await exited) as [number];
    expect(code).toBe(0);
    const lines = stderr
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { msg: string; level: string });
    expect(lines.map((line) => line.msg)).toEqual(
      expect.arrayContaining([
        "JSON-RPC server listening",
        "shutting down",
        "draining JSON-RPC server",
        "shutdown complete",
      ]),
    );
  });
});
