/**
 * A `prover_prove` flood against a real host process: the host's L2 endpoint is a socket that accepts requests and
 * never answers (a stalled upstream), so the calls that get a proof slot hold it. Once every slot is held (the
 * stalled endpoint has seen the held calls' first requests), the flood sends single calls and batches carrying
 * prover_prove from many connections; each must be answered at once with -32005 (busy) or, inside a batch, refused.
 * Then the stalled endpoint hangs up, the held calls fail, and the host must still answer GET /healthz.
 */
import { createServer, type Server, type Socket } from "node:net";
import { Pool } from "undici";
import { proofRequest } from "../host/proof-request.js";
import { count, type ErrorMix, postJsonRpc } from "./rpc-post.js";

/**
 * An HTTP endpoint that reads requests and never answers them, once `stall()` is called; before that it answers
 * every request 503 (an unavailable endpoint: a host's start-up probe gives up at once instead of waiting).
 */
export interface StalledEndpoint {
  readonly url: string;
  stall(): void;
  /** Requests received so far (request lines seen). */
  readonly requests: () => number;
  /** Resolves once `count` requests have arrived. */
  waitForRequests(count: number): Promise<void>;
  close(): Promise<void>;
}

export async function startStalledEndpoint(): Promise<StalledEndpoint> {
  const sockets = new Set<Socket>();
  let requests = 0;
  const waiters: { count: number; resolve: () => void }[] = [];
  let stalling = false;
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => undefined);
    socket.on("data", (chunk: Buffer) => {
      if (!stalling) {
        socket.end("HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
        return;
      }
      requests += chunk.toString("latin1").match(/^(POST|GET) /gm)?.length ?? 0;
      for (const waiter of waiters.filter((w) => requests >= w.count)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
    stall: () => {
      stalling = true;
    },
    requests: () => requests,
    waitForRequests: (count) =>
      requests >= count ? Promise.resolve() : new Promise((resolve) => waiters.push({ count, resolve })),
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export interface FloodResult {
  readonly singles: number;
  readonly batches: number;
  /** JSON-RPC error code (or "ok", "http <status>", "transport") → count, single calls. */
  readonly singleCodes: Map<string, number>;
  /** The same for each element of the batches. */
  readonly batchCodes: Map<string, number>;
  readonly p50Millis: number;
  readonly maxMillis: number;
  /** What the held calls answered once the stalled endpoint hung up. */
  readonly heldCodes: Map<string, number>;
}

async function post(pool: Pool, body: unknown): Promise<{ codes: string[]; millis: number }> {
  const started = Date.now();
  const mix: ErrorMix = new Map();
  await postJsonRpc(pool, body, mix);
  return {
    codes: [...mix.entries()].flatMap(([code, n]) => Array<string>(n).fill(code)),
    millis: Date.now() - started,
  };
}

const call = (id: number) => ({ jsonrpc: "2.0", id, method: "prover_prove", params: [proofRequest()] });

/**
 * Holds `slots` proof slots of the host at `url` (whose L2 endpoint is `stalled`), floods it with `singles` single
 * calls and `batches` batches of 10 from `connections` connections, then releases the held calls.
 */
export async function floodProve(
  url: string,
  stalled: StalledEndpoint,
  options: {
    readonly slots: number;
    readonly singles: number;
    readonly batches: number;
    readonly connections: number;
  },
): Promise<FloodResult> {
  const pool = new Pool(url, {
    connections: options.connections,
    headersTimeout: 600_000,
    bodyTimeout: 600_000,
  });
  const heldPool = new Pool(url, {
    connections: options.slots,
    headersTimeout: 600_000,
    bodyTimeout: 600_000,
  });
  try {
    stalled.stall();
    const before = stalled.requests();
    const held = Array.from({ length: options.slots }, (_, i) => post(heldPool, call(i)));
    await stalled.waitForRequests(before + options.slots);
    const singleCodes = new Map<string, number>();
    const batchCodes = new Map<string, number>();
    const millis: number[] = [];
    let next = 0;
    const total = options.singles + options.batches;
    await Promise.all(
      Array.from({ length: options.connections }, async () => {
        while (next < total) {
          const i = next++;
          if (i < options.singles) {
            const answer = await post(pool, call(i));
            millis.push(answer.millis);
            for (const code of answer.codes) count(singleCodes, code);
          } else {
            const answer = await post(
              pool,
              Array.from({ length: 10 }, (_, j) => call(i * 10 + j)),
            );
            for (const code of answer.codes) count(batchCodes, code);
          }
        }
      }),
    );
    await stalled.close();
    const heldCodes = new Map<string, number>();
    for (const answer of await Promise.all(held)) for (const code of answer.codes) count(heldCodes, code);
    millis.sort((a, b) => a - b);
    return {
      singles: options.singles,
      batches: options.batches,
      singleCodes,
      batchCodes,
      p50Millis: millis[Math.floor(millis.length / 2)] ?? Number.NaN,
      maxMillis: millis.at(-1) ?? Number.NaN,
      heldCodes,
    };
  } finally {
    await pool.close();
    await heldPool.close();
  }
}
