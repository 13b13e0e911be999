/**
 * httpRequest over node:http against real local servers: bodies in a content encoding are decoded and the byte limit
 * counts the decoded bytes (a small compressed body that inflates past it is refused); a declared length over the
 * limit is refused before the body is read; a kept-alive connection the server closes under the next request is
 * replaced by a new one and the request answered; a body that stalls midway ends at the deadline.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { brotliCompressSync, deflateSync, gzipSync } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import { EndpointUnavailableError, MalformedResponseError } from "./errors.js";
import { httpRequest, JsonRpcClient } from "./http.js";

const servers: Server[] = [];
const sockets: Socket[] = [];

async function serve(
  handler: (req: IncomingMessage, res: ServerResponse, body: string) => void,
): Promise<string> {
  const server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on("data", (part: Buffer) => parts.push(part));
    req.on("end", () => handler(req, res, Buffer.concat(parts).toString("utf8")));
  });
  server.on("connection", (socket) => sockets.push(socket));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}

afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  for (const server of servers.splice(0)) await new Promise<void>((resolve) => server.close(() => resolve()));
});

const post = (url: string, limits = {}) => httpRequest(url, { method: "POST", body: "{}" }, limits, "probe");

describe("httpRequest", () => {
  it.each([
    ["gzip", gzipSync],
    ["deflate", deflateSync],
    ["br", brotliCompressSync],
  ] as const)("decodes a %s body", async (encoding, compress) => {
    const text = JSON.stringify({ jsonrpc: "2.0", id: 1, result: "x".repeat(10_000) });
    const url = await serve((_req, res) => {
      res.writeHead(200, { "content-encoding": encoding, "content-type": "application/json" });
      res.end(compress(Buffer.from(text)));
    });
    const answer = await post(url);
    expect(answer).toEqual({ status: 200, body: text, bytes: text.length });
  });

  it("refuses a compressed body that decodes past the limit", async () => {
    const bomb = gzipSync(Buffer.alloc(4 * 1024 * 1024));
    expect(bomb.length).toBeLessThan(10_000);
    const url = await serve((_req, res) => {
      res.writeHead(200, { "content-encoding": "gzip", "content-length": bomb.length });
      res.end(bomb);
    });
    const failure = await post(url, { maxResponseBytes: 1024 * 1024 }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(MalformedResponseError);
    expect((failure as Error).message).toBe("probe: body exceeds the limit");
  });

  it("refuses a body that is not in the encoding it names", async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { "content-encoding": "gzip" });
      res.end("not gzip at all");
    });
    const failure = await post(url).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(MalformedResponseError);
    expect((failure as Error).message).toBe("probe: the body is not valid gzip");
  });

  it("does not send a request again when its connection breaks after the answer began", async () => {
    let requests = 0;
    const url = await serve((req, res) => {
      requests++;
      // The first request keeps its connection; the second breaks it in the middle of its body.
      if (requests === 1) {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ jsonrpc: "2.0", id: 1, result: "first" }));
        return;
      }
      res.writeHead(200, { "content-length": 1000 });
      res.write("x".repeat(10), () => req.socket.resetAndDestroy());
    });
    expect((await post(url)).body).toContain("first");
    const failure = await post(url).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(EndpointUnavailableError);
    // Give a resend (the failure this test is about) time to reach the server.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(requests).toBe(2);
  });

  it("refuses a declared length over the limit before reading the body", async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { "content-length": 5000 });
      res.write("x".repeat(100));
    });
    await expect(post(url, { maxResponseBytes: 1000 })).rejects.toThrow(
      "probe: body of 5000 bytes exceeds the limit",
    );
  });

  it("sends the request again on a new connection when the server closed the kept-alive one under it", async () => {
    const perSocket = new Map<Socket, number>();
    const url = await serve((req, res, body) => {
      const socket = req.socket;
      const n = (perSocket.get(socket) ?? 0) + 1;
      perSocket.set(socket, n);
      // The second request on a connection finds it closed, as a server's idle timeout would close it.
      if (n === 2) {
        socket.destroy();
        return;
      }
      const { id } = JSON.parse(body) as { id: number };
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ jsonrpc: "2.0", id, result: `connection ${perSocket.size}` }));
    });
    const client = new JsonRpcClient(url);
    expect(await client.call("eth_chainId", [])).toBe("connection 1");
    // Sent on the kept-alive connection, which the server closes: answered on a second connection.
    expect(await client.call("eth_chainId", [])).toBe("connection 2");
    expect(perSocket.size).toBe(2);
  });

  it("ends a body that stalls midway at the deadline", async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { "content-length": 1000 });
      res.write("x".repeat(10));
    });
    const started = performance.now();
    const failure = await post(url, { timeoutMs: 300 }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(EndpointUnavailableError);
    expect((failure as Error).message).toBe("probe: no answer within 300 ms");
    expect(performance.now() - started).toBeGreaterThanOrEqual(250);
  });

  it("refuses a URL scheme other than http and https", async () => {
    const failure = await post("ftp://127.0.0.1/").catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(EndpointUnavailableError);
    expect((failure as Error).message).toBe("probe: request failed");
  });
});
