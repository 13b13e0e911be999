/**
 * The merchant service as a process under hostile HTTP: a request that throws inside a uWebSockets callback (a
 * malformed percent-escape in a path parameter) is answered 400 and the process keeps serving; the router's
 * in-flight limit answers 503 `overloaded` at once while it is full and serves again once requests finish.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMerchantProcess, type MerchantProcess } from "./support/merchant-process.js";
import { startTestChain, type TestChain } from "./support/test-chain.js";
import { buyerAuthorization, createWorld, orderBody, type World } from "./support/world.js";

let chain: TestChain;
let world: World;
let merchant: MerchantProcess;
let dir: string;

const MAX_IN_FLIGHT = 2;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "merchant-robust-"));
  chain = await startTestChain();
  world = await createWorld(chain);
  merchant = await startMerchantProcess({
    rpcUrl: chain.rpcUrl,
    token: world.token,
    relayerKey: world.relayerKey,
    store: { sqlite: join(dir, "robust.db") },
    extraArgs: ["--max-in-flight", String(MAX_IN_FLIGHT)],
  });
});

afterAll(async () => {
  await merchant?.stop();
  await chain?.close();
  rmSync(dir, { recursive: true, force: true });
});

function port(): number {
  return Number(new URL(merchant.url).port);
}

/** Sends raw bytes on a new connection; resolves with the whole answer once the server has sent it. */
function rawRequest(bytes: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port(), "127.0.0.1");
    let text = "";
    socket.on("data", (chunk: Buffer) => {
      text += chunk.toString("utf8");
      const split = text.indexOf("\r\n\r\n");
      if (split < 0) return;
      const length = /content-length: *(\d+)/i.exec(text.slice(0, split))?.[1];
      if (length !== undefined && Buffer.byteLength(text.slice(split + 4)) >= Number(length)) {
        socket.destroy();
        resolve({ status: Number(text.slice(9, 12)), body: text.slice(split + 4) });
      }
    });
    socket.on("error", reject);
    socket.on("close", () => reject(new Error(`connection closed before a whole answer: ${text}`)));
    socket.write(bytes);
  });
}

/** A request whose headers arrived but whose body never completes: in flight until the socket closes. */
function hangingPost(): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port(), "127.0.0.1", () => {
      socket.write(
        "POST /orders HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{",
        () => resolve(socket),
      );
    });
    socket.on("error", reject);
  });
}

async function healthStatus(): Promise<number> {
  return (await fetch(`${merchant.url}/healthz`)).status;
}

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("the merchant process under hostile HTTP", () => {
  it("answers a path that throws while decoding with 400 and keeps serving", async () => {
    for (const request of [
      "GET /orders/%E0 HTTP/1.1\r\nHost: x\r\n\r\n",
      "GET /orders/%ZZ HTTP/1.1\r\nHost: x\r\n\r\n",
      "POST /orders/%E0%A4/capture HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n",
      "POST /orders/%FF/void HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n",
    ]) {
      const answer = await rawRequest(request);
      expect(answer.status, request).toBe(400);
      expect((JSON.parse(answer.body) as { error: { code: string } }).error.code).toBe("bad_request");
    }
    expect(merchant.child.exitCode).toBeNull();
    expect(await healthStatus()).toBe(200);
    // Still serving real work.
    const created = await merchant.client.createOrder(orderBody(await buyerAuthorization(world)));
    expect(created.status).toBe(201);
    expect((await merchant.client.getOrder(created.order.id)).order.state).toBe("authorized");
  });

  it("answers 503 overloaded at once beyond the in-flight limit, and serves again when requests finish", async () => {
    const hanging = [await hangingPost(), await hangingPost()];
    try {
      await until("the router to be full", async () => (await healthStatus()) === 503);
      const refused = await fetch(`${merchant.url}/orders`);
      expect(refused.status).toBe(503);
      expect(await refused.json()).toMatchObject({
        error: { code: "overloaded", maxInFlight: MAX_IN_FLIGHT },
      });
    } finally {
      for (const socket of hanging) socket.destroy();
    }
    await until("the router to serve again", async () => (await healthStatus()) === 200);
    expect((await merchant.client.listOrders()).orders.length).toBeGreaterThan(0);
    expect(merchant.child.exitCode).toBeNull();
  });
});
