/** The server core against a real Ethereum client library (viem) over HTTP and websocket. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { http, webSocket } from "viem";
import { createRpcServer, type RpcServer } from "./server.js";
import { createTestMethods, type TestMethodsState } from "./test/methods.js";

let server: RpcServer;
let state: TestMethodsState;
let port: number;

beforeAll(async () => {
  const created = createTestMethods();
  state = created.state;
  server = createRpcServer({ methods: created.methods });
  port = await server.listen();
});

afterAll(async () => {
  await server.close({ drainMs: 500 });
});

describe("viem as the client", () => {
  it("batches calls over HTTP and maps errors", async () => {
    const transport = http(`http://127.0.0.1:${port}/`, { batch: true, retryCount: 0 })({});
    const results = await Promise.all([
      transport.request({ method: "test_add" as never, params: [1, 2] as never }),
      transport.request({ method: "test_echo" as never, params: ["0xabc"] as never }),
    ]);
    expect(results).toEqual([3, "0xabc"]);
    await expect(
      transport.request({ method: "test_add" as never, params: [1, "x"] as never }),
    ).rejects.toMatchObject({ code: -32602 });
  });

  it("subscribes over websocket, receives eth_subscription pushes and unsubscribes", async () => {
    const transport = webSocket(`ws://127.0.0.1:${port}/`, { retryCount: 0, reconnect: false })({});
    const received: unknown[] = [];
    const subscription = await transport.value!.subscribe({
      params: ["ticks"] as never,
      onData: (data: unknown) => received.push(data),
    });
    const id = subscription.subscriptionId;
    expect(id).toMatch(/^0x[0-9a-f]{32}$/);
    state.live.get(id)!.push("0x1");
    const deadline = Date.now() + 2000;
    while (received.length < 2 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 5));
    expect(received).toEqual([
      { subscription: id, result: "0x0" },
      { subscription: id, result: "0x1" },
    ]);
    const unsubscribed = (await subscription.unsubscribe()) as { result: boolean };
    expect(unsubscribed.result).toBe(true);
    expect(state.closedSubscriptions).toContain(id);
    (await transport.value!.getRpcClient()).close();
  });
});
