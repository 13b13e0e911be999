/**
 * A local HTTP server in front of a real node for the providers' tests: JSON-RPC calls and GETs are forwarded to
 * the target, and a test may replace the handler to tamper with the real answer (flip a field, drop an item,
 * answer another block), answer an error, or never answer.
 */
import { type IncomingMessage, type Server, type ServerResponse, createServer } from "node:http";
import type { AddressInfo } from "node:net";

export interface RpcRequest {
  readonly method: string;
  readonly params: unknown[];
}

/** A JSON-RPC response envelope (parsed). */
export type Envelope = Record<string, unknown>;

export type Forward = (request: RpcRequest) => Promise<Envelope>;
export type RpcHandler = (request: RpcRequest, forward: Forward) => Promise<Envelope | string>;
export interface GetAnswer {
  readonly status: number;
  readonly body: string;
}
export type GetHandler = (path: string, forward: (path: string) => Promise<GetAnswer>) => Promise<GetAnswer>;

export interface TamperProxy {
  readonly url: string;
  /** JSON-RPC handler; the default forwards. A string answer is sent as the raw body. */
  rpc: RpcHandler;
  /** GET handler; the default forwards. */
  get: GetHandler;
  /** Every GET path asked, in order. */
  readonly paths: string[];
  /** Resolves handlers that wait for the proxy to close (for "never answers" tests). */
  readonly closing: Promise<void>;
  close(): Promise<void>;
}

const passRpc: RpcHandler = (request, forward) => forward(request);
const passGet: GetHandler = (path, forward) => forward(path);

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on("data", (c: Buffer) => parts.push(c));
    req.on("end", () => resolve(Buffer.concat(parts).toString("utf8")));
    req.on("error", reject);
  });
}

/** Starts a proxy on 127.0.0.1 in front of `target` (an http URL; may be "" when every handler answers itself). */
export async function startTamperProxy(target: string): Promise<TamperProxy> {
  let signalClose!: () => void;
  const closing = new Promise<void>((resolve) => (signalClose = resolve));
  let nextId = 1;
  const forward: Forward = async (request) => {
    const res = await fetch(target, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: nextId++, ...request }),
    });
    return (await res.json()) as Envelope;
  };
  const forwardGet = async (path: string): Promise<GetAnswer> => {
    const res = await fetch(new URL(path, target));
    return { status: res.status, body: await res.text() };
  };
  const proxy: TamperProxy = {
    url: "",
    rpc: passRpc,
    get: passGet,
    paths: [],
    closing,
    close: async () => {
      signalClose();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const answer = (res: ServerResponse, status: number, body: string): void => {
    res.writeHead(status, { "content-type": "application/json" });
    res.end(body);
  };
  const server: Server = createServer((req, res) => {
    void (async () => {
      try {
        if (req.method === "GET") {
          proxy.paths.push(req.url ?? "");
          const got = await proxy.get(req.url ?? "", forwardGet);
          answer(res, got.status, got.body);
          return;
        }
        const request = JSON.parse(await readBody(req)) as {
          id: unknown;
          method: string;
          params?: unknown[];
        };
        const out = await proxy.rpc({ method: request.method, params: request.params ?? [] }, forward);
        answer(res, 200, typeof out === "string" ? out : JSON.stringify({ ...out, id: request.id }));
      } catch (error) {
        if (!res.headersSent) answer(res, 502, JSON.stringify({ proxyError: String(error) }));
      }
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(proxy, { url: `http://127.0.0.1:${port}` });
}
