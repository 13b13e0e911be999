/**
 * A request's deadline keeps the process alive and ends the request. A child process with nothing pending but one
 * request to an endpoint that accepts the connection and never answers must stay alive until the deadline and end
 * it as EndpointUnavailableError (global fetch, used before, held no referenced handle while it retried an endpoint
 * that reset every connection: such a process drained its event loop and exited 0 mid-request). An endpoint that
 * resets every connection fails the request at once, long before the deadline, as EndpointUnavailableError.
 */
import { execFile } from "node:child_process";
import { createServer, type Server, type Socket } from "node:net";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, expect, it } from "vitest";

const run = promisify(execFile);
const HTTP_MODULE = fileURLToPath(new URL("./http.ts", import.meta.url));
const ERRORS_MODULE = fileURLToPath(new URL("./errors.ts", import.meta.url));

let silent: Server;
let resetting: Server;
const held: Socket[] = [];

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}

beforeAll(() => {
  silent = createServer((socket) => {
    held.push(socket);
    socket.resume();
  });
  resetting = createServer((socket) => socket.resetAndDestroy());
});

afterAll(async () => {
  for (const socket of held) socket.destroy();
  await new Promise<void>((resolve) => silent.close(() => resolve()));
  await new Promise<void>((resolve) => resetting.close(() => resolve()));
});

/** Runs one request in a child process that has nothing else pending; what it printed, and how long it took. */
async function requestInChild(url: string, timeoutMs: number): Promise<{ outcome: string; ms: number }> {
  const script = `
    const { httpRequest } = await import(${JSON.stringify(HTTP_MODULE)});
    const { EndpointUnavailableError } = await import(${JSON.stringify(ERRORS_MODULE)});
    const started = performance.now();
    await httpRequest(${JSON.stringify(url)}, { method: "POST", body: "{}" }, { timeoutMs: ${timeoutMs} }, "probe").then(
      () => console.log("answered"),
      (e) => console.log(e instanceof EndpointUnavailableError ? "unavailable: " + e.message : "other: " + e),
    );
    console.log(Math.round(performance.now() - started));
  `;
  const { stdout } = await run(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
    timeout: 120_000,
  });
  const [outcome = "", ms = "NaN"] = stdout.trim().split("\n");
  return { outcome, ms: Number(ms) };
}

it("keeps a process alive while a request to an endpoint that never answers is pending, and fails at the deadline", async () => {
  // A child that printed nothing exited while its request was pending: the failure this test is about.
  const { outcome, ms } = await requestInChild(await listen(silent), 1500);
  expect(outcome).toBe("unavailable: probe: no answer within 1500 ms");
  expect(ms).toBeGreaterThanOrEqual(1400);
}, 300_000);

it("fails a request to an endpoint that resets every connection at once, not at the deadline", async () => {
  const { outcome, ms } = await requestInChild(await listen(resetting), 60_000);
  expect(outcome).toBe("unavailable: probe: request failed");
  expect(ms).toBeLessThan(30_000);
}, 300_000);
