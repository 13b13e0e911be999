/** Small helpers for the node tests: raw JSON-RPC over fetch, viem clients for a node process, waiting. */
import { connect, createServer } from "node:net";
import { createPublicClient, createWalletClient, defineChain, http, parseGwei, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { NodeProcess } from "./spawn-node.js";

export interface RawResponse {
  status: number;
  headers: Headers;
  body:
    | {
        jsonrpc?: string;
        id?: unknown;
        result?: unknown;
        error?: { code: number; message: string; data?: unknown };
      }
    | undefined;
  text: string;
}

export async function rawCall(url: string, body: string): Promise<RawResponse> {
  const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body });
  const text = await res.text();
  let parsed: RawResponse["body"];
  try {
    parsed = text.length > 0 ? (JSON.parse(text) as RawResponse["body"]) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: res.status, headers: res.headers, body: parsed, text };
}

export async function rpc(url: string, method: string, params: unknown[]): Promise<RawResponse> {
  return rawCall(url, JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }));
}

/** The result, or throws with the JSON-RPC error. */
export async function call<T = unknown>(url: string, method: string, params: unknown[]): Promise<T> {
  const r = await rpc(url, method, params);
  if (r.body?.error !== undefined) throw new Error(`${method}: ${r.body.error.code} ${r.body.error.message}`);
  return r.body?.result as T;
}

export function devChain(node: NodeProcess) {
  return defineChain({
    id: node.chainId,
    name: "op-dev",
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [node.url], webSocket: [node.wsUrl] } },
  });
}

export function clients(node: NodeProcess, accountIndex = 0) {
  const chain = devChain(node);
  const publicClient = createPublicClient({
    chain,
    transport: http(node.url, { timeout: 60_000 }),
    pollingInterval: 50,
  });
  const walletClient = createWalletClient({
    chain,
    transport: http(node.url, { timeout: 60_000 }),
    account: privateKeyToAccount(node.accounts[accountIndex]!.privateKey),
  });
  return { chain, publicClient, walletClient };
}

/** Polls `probe` every `intervalMs` until it returns a value other than undefined. */
export async function waitFor<T>(
  probe: () => Promise<T | undefined>,
  what: string,
  timeoutMs = 15_000,
  intervalMs = 10,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

export const hexNumber = (n: bigint | number): Hex => `0x${n.toString(16)}`;

/**
 * Declares a body of `length` bytes and sends only the headers: resolves to the HTTP status the
 * server answers with before reading the body (e.g. 413 for an oversized body).
 */
export function declaredBodyStatus(url: string, length: number): Promise<number> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => {
      socket.write(
        `POST / HTTP/1.1\r\nHost: ${hostname}\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`,
      );
    });
    let text = "";
    socket.on("data", (d) => {
      text += d.toString("latin1");
      const m = /^HTTP\/1\.1 (\d{3})/.exec(text);
      if (m) {
        resolve(Number(m[1]));
        socket.destroy();
      }
    });
    socket.on("error", reject);
    socket.setTimeout(5_000, () => {
      socket.destroy();
      reject(new Error("no answer to the declared body"));
    });
  });
}

/**
 * A signed EIP-1559 transfer of `value` wei from dev account `accountIndex` at an explicit `nonce`
 * (10 gwei fee cap, 1 gwei tip, 21 000 gas): for nonce gaps and resubmissions that a wallet would not make.
 */
export function signTransfer(node: NodeProcess, accountIndex: number, nonce: number, to: Hex, value: bigint) {
  return privateKeyToAccount(node.accounts[accountIndex]!.privateKey).signTransaction({
    chainId: devChain(node).id,
    type: "eip1559",
    nonce,
    to,
    value,
    gas: 21_000n,
    maxFeePerGas: parseGwei("10"),
    maxPriorityFeePerGas: parseGwei("1"),
  });
}

/** A free TCP port on 127.0.0.1 (bound and released; the caller binds it right after). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
