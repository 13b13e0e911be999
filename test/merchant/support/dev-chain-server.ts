/**
 * Serves the harness dev chain (test/evm) as a JSON-RPC HTTP endpoint on 127.0.0.1 so a separate
 * merchant service process can use it, and seals an empty block every `blockIntervalMs` like a
 * node with a block time (each block advances chain time by the dev chain's 2 s). Requests and
 * block production run one at a time. Used while no real node process is available.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { EvmHarness } from "../../evm/harness.js";
import { DevChain, HarnessRpcError } from "../../evm/dev-chain.js";

export interface DevChainServer {
  url: string;
  chain: DevChain;
  chainId: bigint;
  close(): Promise<void>;
}

const MAX_BODY = 4 * 1024 * 1024;

export async function startDevChainServer(
  options: { chainId?: bigint; blockIntervalMs?: number } = {},
): Promise<DevChainServer> {
  const chainId = options.chainId ?? 901n;
  const harness = await EvmHarness.create({ chainId, timestamp: BigInt(Math.floor(Date.now() / 1000)) });
  const chain = new DevChain(harness);
  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T>(task: () => Promise<T>): Promise<T> => {
    const run = queue.then(task, task);
    queue = run.catch(() => undefined);
    return run;
  };
  const answer = async (message: { id?: unknown; method?: unknown; params?: unknown }): Promise<unknown> => {
    try {
      if (typeof message.method !== "string") throw new HarnessRpcError(-32600, "invalid request");
      const params = Array.isArray(message.params) ? message.params : [];
      let result: unknown;
      if (message.method === "eth_getTransactionByHash") result = null;
      else if (message.method === "net_version") result = String(chainId);
      else result = await serial(() => chain.request(message.method as string, params));
      return { jsonrpc: "2.0", id: message.id ?? null, result };
    } catch (error) {
      const rpc = error instanceof HarnessRpcError ? error : new HarnessRpcError(-32603, String(error));
      return {
        jsonrpc: "2.0",
        id: message.id ?? null,
        error: {
          code: rpc.code,
          message: rpc.message,
          ...(rpc.data === undefined ? {} : { data: rpc.data }),
        },
      };
    }
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY) req.destroy();
      else chunks.push(chunk);
    });
    req.on("end", () => {
      let body: unknown;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      } catch {
        res.writeHead(400).end();
        return;
      }
      const work = Array.isArray(body)
        ? Promise.all(body.map((m) => answer(m as never)))
        : answer(body as never);
      void work.then((out) => {
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(out));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const timer =
    options.blockIntervalMs === undefined
      ? undefined
      : setInterval(() => {
          void serial(async () => chain.mine(1));
        }, options.blockIntervalMs);
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    chain,
    chainId,
    async close() {
      if (timer !== undefined) clearInterval(timer);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
