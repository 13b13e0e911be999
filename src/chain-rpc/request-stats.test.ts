/**
 * RequestStats: the counters a caller passes to its clients (HttpLimits.stats) count every request made through
 * them, answered or refused, with the answers' body bytes, and leave other clients' requests out.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { JsonRpcClient } from "./http.js";
import { startTamperProxy, type TamperProxy } from "./proxy.test-support.js";
import { RequestStats } from "./request-stats.js";

let endpoint: TamperProxy;
const bodies: string[] = [];

beforeAll(async () => {
  endpoint = await startTamperProxy("");
  endpoint.rpc = async (request) => {
    const body =
      request.method === "eth_blockNumber"
        ? JSON.stringify({ jsonrpc: "2.0", id: request.params[0], result: "0x10" })
        : JSON.stringify({ jsonrpc: "2.0", id: request.params[0], error: { code: -32601, message: "nope" } });
    bodies.push(body);
    return body;
  };
});
afterAll(async () => {
  await endpoint?.close();
});

it("counts each request, its method and the bytes answered, for its own clients only", async () => {
  const stats = new RequestStats();
  const counted = new JsonRpcClient(endpoint.url, { stats });
  const other = new JsonRpcClient(endpoint.url);
  // The raw answers echo the request id passed as the first param, so the client accepts them.
  await Promise.all([counted.call("eth_blockNumber", [1]), counted.call("eth_blockNumber", [2])]);
  await expect(counted.call("debug_dbGet", [3])).rejects.toThrow("code -32601");
  await other.call("eth_blockNumber", [1]);
  expect(stats.requests).toBe(3);
  expect(stats.byMethod).toEqual({ eth_blockNumber: 2, debug_dbGet: 1 });
  expect(stats.responseBytes).toBe(
    bodies.slice(0, 3).reduce((sum, body) => sum + Buffer.byteLength(body), 0),
  );
  expect(stats.requestBytes).toBeGreaterThan(0);
  // Two requests overlapped: the wall time in flight is at most their summed time.
  expect(stats.busyMs).toBeGreaterThan(0);
  expect(stats.busyMs).toBeLessThanOrEqual(stats.requestMs + 1e-6);
});
