// Per-method concurrency limits over real HTTP and websocket connections: the host gives `prover_prove` a
// maximum of concurrent proofs and refuses it inside batches.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { createSilentLogger } from "../log/index.js";
import { InvalidParamsError } from "./errors.js";
import { bindMethod, type MethodTable, type RpcMethodSpec } from "./method.js";
import { createRpcServer, type RpcServer } from "./server.js";
import { InvalidLimitsError, ServerConfigError } from "./server-errors.js";

type Reply = { id: unknown; result?: unknown; error?: { code: number; message: string; data?: unknown } };

function spec(name: string): RpcMethodSpec<unknown[], unknown> {
  return {
    name,
    paramNames: ["value"],
    decodeParams: (raw) => {
      if (raw !== undefined && !Array.isArray(raw)) throw new InvalidParamsError("params: expected an array");
      return raw ?? [];
    },
    encodeParams: () => [],
    encodeResult: (result) => result,
    decodeResult: (raw) => raw,
  };
}

const MAX_PROOFS = 2;
/** Proofs started, and how to finish the ones still running (with a result, or by throwing). */
const started: unknown[] = [];
const running: { finish: (value: unknown) => void; fail: (error: Error) => void }[] = [];
const methods: MethodTable = new Map([
  [
    "test_prove",
    bindMethod(spec("test_prove"), (params) => {
      started.push(params[0]);
      return new Promise((resolve, reject) => running.push({ finish: resolve, fail: reject }));
    }),
  ],
  ["test_echo", bindMethod(spec("test_echo"), (params) => params[0])],
]);
const methodLimits = {
  test_prove: { maxConcurrent: MAX_PROOFS, allowInBatch: false, limitName: "--max-concurrent-proofs" },
};

let server: RpcServer;
let base: string;

beforeAll(async () => {
  server = createRpcServer({ methods, methodLimits, logger: createSilentLogger() });
  const port = await server.listen();
  base = `127.0.0.1:${port}/`;
});

afterAll(async () => {
  for (const call of running.splice(0)) call.finish(null);
  await server.close({ drainMs: 1000 });
});

async function post(body: unknown): Promise<Reply | Reply[]> {
  const response = await fetch(`http://${base}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(60_000),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as Reply | Reply[];
}

const call = (id: number, method: string, value: unknown) => ({
  jsonrpc: "2.0",
  id,
  method,
  params: [value],
});

const busy = (id: unknown): Reply => ({
  id,
  error: {
    code: -32005,
    message: `server busy: ${MAX_PROOFS} test_prove calls already running (--max-concurrent-proofs), retry later`,
    data: { method: "test_prove", limit: "--max-concurrent-proofs", max: MAX_PROOFS },
  },
});

describe("per-method concurrency limit", () => {
  it("answers a call beyond the limit at once with -32005 over HTTP and websocket, and runs it again once a slot frees", async () => {
    const first = post(call(1, "test_prove", "a"));
    const second = post(call(2, "test_prove", "b"));
    await expect.poll(() => running.length, { timeout: 60_000 }).toBe(MAX_PROOFS);

    expect(await post(call(3, "test_prove", "c"))).toMatchObject({ ...busy(3), jsonrpc: "2.0" });
    const ws = new WebSocket(`ws://${base}`);
    await new Promise((resolve, reject) => ws.on("open", resolve).on("error", reject));
    const wsReply = new Promise<Reply>((resolve) =>
      ws.once("message", (data) => resolve(JSON.parse(String(data)))),
    );
    ws.send(JSON.stringify(call(4, "test_prove", "d")));
    expect(await wsReply).toMatchObject(busy(4));
    ws.close();
    // Other methods are not limited.
    expect(await post(call(5, "test_echo", "free"))).toMatchObject({ id: 5, result: "free" });
    expect(started).toEqual(["a", "b"]);

    // A call that fails gives its slot back as well as one that succeeds.
    running.shift()!.fail(new Error("proof failed"));
    expect(await first).toMatchObject({ id: 1, error: { code: -32603 } });
    const third = post(call(6, "test_prove", "e"));
    await expect.poll(() => started.length, { timeout: 60_000 }).toBe(3);
    for (const proof of running.splice(0)) proof.finish("proved");
    expect(await second).toMatchObject({ id: 2, result: "proved" });
    expect(await third).toMatchObject({ id: 6, result: "proved" });
  });

  it("refuses the method inside a batch with -32600, without running it, and runs the rest of the batch", async () => {
    const before = started.length;
    const replies = (await post([call(7, "test_prove", "x"), call(8, "test_echo", "y")])) as Reply[];
    expect(replies).toEqual([
      {
        jsonrpc: "2.0",
        id: 7,
        error: {
          code: -32600,
          message: "invalid request: test_prove is not allowed in a batch, send it as a single request",
          data: { method: "test_prove" },
        },
      },
      { jsonrpc: "2.0", id: 8, result: "y" },
    ]);
    expect(started.length).toBe(before);
  });

  it("refuses a limit on a method it does not serve, and a limit that is not a positive integer", () => {
    expect(() => createRpcServer({ methods, methodLimits: { test_prov: { maxConcurrent: 1 } } })).toThrow(
      ServerConfigError,
    );
    for (const maxConcurrent of [0, -1, 1.5, Number.NaN]) {
      expect(() => createRpcServer({ methods, methodLimits: { test_prove: { maxConcurrent } } })).toThrow(
        InvalidLimitsError,
      );
    }
  });
});
