/**
 * Malformed HTTP and JSON-RPC against a running server, over raw sockets (so nothing a client library would
 * refuse to send is off limits), one class at a time: bad JSON, a huge body, deep nesting, wrong types, bad
 * percent-encoding in paths, unknown methods (JSON-RPC methods and HTTP verbs), an oversized batch, broken HTTP
 * framing, slow clients (headers trickled a byte at a time) and abrupt clients (a request cut off by a reset).
 * Each class records the answers it got (HTTP status, plus the JSON-RPC error code when there is one, or
 * "closed" / "timeout"), and afterwards whether the process is still running and answering its health request.
 */
import { type ChildProcess } from "node:child_process";
import { connect, type Socket } from "node:net";

export interface HttpTarget {
  readonly name: string;
  readonly port: number;
  readonly child: ChildProcess;
  /** JSON-RPC servers take POST on any path; the merchant service is a REST API. */
  readonly kind: "json-rpc" | "rest";
  /** Extra header lines sent with every request (e.g. the merchant's API key). */
  readonly headers?: readonly string[];
  /** How liveness is asked: GET /healthz, or (a server without a health route) a JSON-RPC eth_chainId call. */
  readonly health: "healthz" | "eth_chainId";
  /** A path parameter route of a REST target, `{}` standing for the parameter (e.g. /orders/{}). */
  readonly paramRoute?: string;
}

export interface RawAnswer {
  /** "400", "200 -32700", "closed", "timeout", ... */
  readonly label: string;
  readonly millis: number;
}

/** Sends `parts` (written in order, `gapMs` apart), then reads one HTTP answer: status and JSON-RPC code. */
export function rawHttp(
  port: number,
  parts: readonly (string | Uint8Array)[],
  options: {
    readonly timeoutMs: number;
    readonly gapMs?: number;
    /** Reset the connection after writing (an abrupt client). */
    readonly reset?: boolean;
    /** Half-close after writing: the server sees end of input and cannot wait for more. */
    readonly endInput?: boolean;
  } = { timeoutMs: 30_000 },
): Promise<RawAnswer> {
  const started = Date.now();
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    let received = Buffer.alloc(0);
    let done = false;
    const finish = (label: string): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ label, millis: Date.now() - started });
    };
    const timer = setTimeout(() => finish("timeout"), options.timeoutMs);
    socket.on("error", () => finish(received.length > 0 ? labelOf(received) : "closed"));
    socket.on("close", () => finish(received.length > 0 ? labelOf(received) : "closed"));
    socket.on("data", (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      if (complete(received)) finish(labelOf(received));
    });
    socket.on("connect", () => {
      void (async () => {
        for (const part of parts) {
          if (socket.destroyed) return;
          socket.write(part);
          if (options.gapMs !== undefined) await new Promise((r) => setTimeout(r, options.gapMs));
        }
        if (options.endInput === true) socket.end();
        if (options.reset === true) {
          socket.resetAndDestroy();
          finish("reset by client");
        }
      })();
    });
  });
}

function complete(received: Buffer): boolean {
  const split = received.indexOf("\r\n\r\n");
  if (split < 0) return false;
  const head = received.subarray(0, split).toString("latin1");
  const length = /content-length: *(\d+)/i.exec(head)?.[1];
  if (length !== undefined) return received.length - split - 4 >= Number(length);
  return /transfer-encoding: *chunked/i.test(head) ? received.includes("0\r\n\r\n", split) : true;
}

function labelOf(received: Buffer): string {
  const text = received.toString("utf8");
  const status = /^HTTP\/1\.[01] (\d{3})/.exec(text)?.[1] ?? "unparsable";
  const body = text.slice(text.indexOf("\r\n\r\n") + 4);
  const code = /"code":\s*(-?\d+)/.exec(body)?.[1];
  return code === undefined ? status : `${status} ${code}`;
}

const request = (method: string, path: string, target: HttpTarget, body?: string): string[] => {
  const lines = [`${method} ${path} HTTP/1.1`, "Host: 127.0.0.1", ...(target.headers ?? [])];
  if (body === undefined) return [`${lines.join("\r\n")}\r\n\r\n`];
  lines.push("Content-Type: application/json", `Content-Length: ${Buffer.byteLength(body)}`);
  return [`${lines.join("\r\n")}\r\n\r\n`, body];
};

const healthRequest = (target: HttpTarget): string[] =>
  target.health === "healthz"
    ? [`GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`]
    : request(
        "POST",
        "/",
        { ...target, headers: [] },
        '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}',
      );

/** Where a JSON body goes: any path for JSON-RPC, the order route for the merchant. */
const postPath = (target: HttpTarget): string => (target.kind === "json-rpc" ? "/" : "/orders");

export interface HttpClass {
  readonly name: string;
  /** Sends the class's requests; resolves with every answer's label. */
  run(target: HttpTarget, timeoutMs: number): Promise<RawAnswer[]>;
}

const one = (
  build: (target: HttpTarget) => (string | Uint8Array)[][],
  options: { readonly gapMs?: number; readonly reset?: boolean; readonly endInput?: boolean } = {},
): HttpClass["run"] => {
  return async (target, timeoutMs) => {
    const answers: RawAnswer[] = [];
    for (const parts of build(target))
      answers.push(await rawHttp(target.port, parts, { timeoutMs, ...options }));
    return answers;
  };
};

const NESTING = 100_000;

export const HTTP_CLASSES: readonly HttpClass[] = [
  {
    name: "bad JSON",
    run: one((t) => [
      request("POST", postPath(t), t, '{"jsonrpc":"2.0","id":1,"method":'),
      request("POST", postPath(t), t, "\u0000\u00ff not json"),
      request("POST", postPath(t), t, '{"a":1}}'),
    ]),
  },
  {
    name: "huge body",
    run: async (target, timeoutMs) => {
      // A declared 1 GiB body with 1 MiB actually sent, then an undeclared-length chunked body of 64 MiB.
      const head = [`POST ${postPath(target)} HTTP/1.1`, "Host: 127.0.0.1", ...(target.headers ?? [])];
      const declared = `${[...head, "Content-Type: application/json", "Content-Length: 1073741824"].join("\r\n")}\r\n\r\n`;
      const chunk = `${(1 << 20).toString(16)}\r\n${"[".repeat(1 << 20)}\r\n`;
      const chunkedHead = `${[...head, "Content-Type: application/json", "Transfer-Encoding: chunked"].join("\r\n")}\r\n\r\n`;
      return [
        await rawHttp(target.port, [declared, "[".repeat(1 << 20)], { timeoutMs }),
        await rawHttp(target.port, [chunkedHead, ...Array.from({ length: 64 }, () => chunk)], { timeoutMs }),
      ];
    },
  },
  {
    name: "deep nesting",
    run: one((t) => [
      request("POST", postPath(t), t, `${"[".repeat(NESTING)}${"]".repeat(NESTING)}`),
      request("POST", postPath(t), t, `${'{"a":'.repeat(NESTING)}1${"}".repeat(NESTING)}`),
    ]),
  },
  {
    name: "wrong types",
    run: one((t) =>
      t.kind === "json-rpc"
        ? [
            request("POST", "/", t, '{"jsonrpc":"2.0","id":{},"method":7,"params":"x"}'),
            request(
              "POST",
              "/",
              t,
              '{"jsonrpc":"2.0","id":1,"method":"eth_getBalance","params":[123,{"a":[]}]}',
            ),
            request(
              "POST",
              "/",
              t,
              '{"jsonrpc":"2.0","id":1,"method":"prover_prove","params":[{"l1_head":7}]}',
            ),
            request("POST", "/", t, '"just a string"'),
          ]
        : [
            request("POST", "/orders", t, '{"authorization":[],"amount":{},"nonce":true}'),
            request("POST", "/orders", t, "[1,2,3]"),
            request("POST", "/orders", t, "null"),
          ],
    ),
  },
  {
    name: "bad percent-encoding",
    run: one((t) => [
      request("GET", "/%E0", t),
      request("GET", "/%zz%", t),
      request("POST", t.kind === "json-rpc" ? "/%E0%A4" : "/orders/%E0", t, "{}"),
      ...(t.paramRoute === undefined
        ? []
        : [
            request("GET", t.paramRoute.replace("{}", "%E0"), t),
            request("GET", t.paramRoute.replace("{}", "%"), t),
          ]),
    ]),
  },
  {
    name: "unknown methods",
    run: one((t) => [
      ...(t.kind === "json-rpc"
        ? [request("POST", "/", t, '{"jsonrpc":"2.0","id":1,"method":"attack_unknown","params":[]}')]
        : [request("GET", "/no/such/route", t)]),
      request("BREW", "/", t),
      request("DELETE", postPath(t), t),
    ]),
  },
  {
    name: "oversized batch",
    run: one((t) => [
      request(
        "POST",
        postPath(t),
        t,
        `[${Array.from({ length: 100_001 }, (_, i) => `{"jsonrpc":"2.0","id":${i},"method":"eth_chainId"}`).join(",")}]`,
      ),
    ]),
  },
  {
    name: "broken HTTP framing",
    run: one(
      (t) => [
        ["GARBAGE\r\n\r\n"],
        [`GET /healthz HTTP/9.9\r\nHost: x\r\n\r\n`],
        [`POST ${postPath(t)} HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n{}`],
        [`POST ${postPath(t)} HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 9\r\n\r\n{}`],
        [`GET / HTTP/1.1\r\nno colon header line\r\n\r\n`],
        [`GET /${"a".repeat(100_000)} HTTP/1.1\r\nHost: x\r\n\r\n`],
      ],
      { endInput: true },
    ),
  },
  {
    name: "slow clients",
    run: async (target, timeoutMs) => {
      // 32 connections trickling headers a byte every 100 ms while the health route must still answer.
      const sockets: Socket[] = [];
      const head = `POST ${postPath(target)} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\n`;
      let stop = false;
      for (let i = 0; i < 32; i++) {
        const socket = connect(target.port, "127.0.0.1");
        socket.on("error", () => undefined);
        sockets.push(socket);
        void (async () => {
          for (let at = 0; !stop && at < head.length && !socket.destroyed; at++) {
            socket.write(head[at]!);
            await new Promise((r) => setTimeout(r, 100));
          }
        })();
      }
      await new Promise((r) => setTimeout(r, 1000));
      const health = await rawHttp(target.port, healthRequest(target), { timeoutMs });
      stop = true;
      for (const socket of sockets) socket.destroy();
      return [{ label: `health ${health.label} while 32 trickle`, millis: health.millis }];
    },
  },
  {
    name: "abrupt clients",
    run: async (target, timeoutMs) => {
      const head = request(
        "POST",
        postPath(target),
        target,
        `{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}`,
      );
      const cut = [head[0]!, head[1]!.slice(0, 10)];
      return Promise.all(
        Array.from({ length: 64 }, () => rawHttp(target.port, cut, { timeoutMs, gapMs: 5, reset: true })),
      );
    },
  },
];

export interface ClassResult {
  readonly target: string;
  readonly name: string;
  /** label → count */
  readonly answers: Map<string, number>;
  readonly maxMillis: number;
  /** The process is running and its health request answered 200 (without an error) after the class. */
  readonly alive: boolean;
}

/** The process is running and answers its health request with 200 (and no JSON-RPC error). */
export async function answersHealth(target: HttpTarget, timeoutMs: number): Promise<boolean> {
  if (target.child.exitCode !== null || target.child.signalCode !== null) return false;
  const answer = await rawHttp(target.port, healthRequest(target), { timeoutMs });
  return answer.label === "200";
}

/** Runs `classes` against `target` in order, checking health after each. */
export async function runHttpClasses(
  target: HttpTarget,
  classes: readonly HttpClass[],
  timeoutMs: number,
): Promise<ClassResult[]> {
  const results: ClassResult[] = [];
  for (const httpClass of classes) {
    const answers = await httpClass.run(target, timeoutMs);
    const counts = new Map<string, number>();
    for (const a of answers) counts.set(a.label, (counts.get(a.label) ?? 0) + 1);
    results.push({
      target: target.name,
      name: httpClass.name,
      answers: counts,
      maxMillis: Math.max(...answers.map((a) => a.millis)),
      alive: await answersHealth(target, timeoutMs),
    });
  }
  return results;
}
