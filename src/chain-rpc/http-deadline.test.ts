/**
 * A request's deadline keeps the process alive. Against an endpoint that accepts and resets every connection,
 * fetch retries without holding a referenced handle, so an unreferenced deadline (AbortSignal.timeout) left a
 * process with nothing else pending (the prover host probing its L2 endpoint at start) to drain its event loop
 * and exit 0 in the middle of the request. The request ends as EndpointUnavailableError at its deadline.
 */
import { createServer, type Server } from "node:net";
import { afterAll, beforeAll, expect, it } from "vitest";
import { EndpointUnavailableError } from "./errors.js";
import { httpRequest } from "./http.js";

let server: Server;
let url: string;

beforeAll(async () => {
  server = createServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const referencedTimers = (): number => process.getActiveResourcesInfo().filter((r) => r === "Timeout").length;

it("holds a referenced timer while a request to a resetting endpoint is pending, and fails at the deadline", async () => {
  const before = referencedTimers();
  const pending = httpRequest(url, { method: "POST", body: "{}" }, { timeoutMs: 1500 }, "probe");
  const outcome = pending.then(
    () => undefined,
    (error: unknown) => error,
  );
  await new Promise((resolve) => setImmediate(resolve));
  // The request's own deadline: the only timer this test adds while the request is in flight.
  expect(referencedTimers()).toBe(before + 1);
  const error = await outcome;
  expect(error).toBeInstanceOf(EndpointUnavailableError);
  expect((error as EndpointUnavailableError).message).toBe("probe: no answer within 1500 ms");
});
