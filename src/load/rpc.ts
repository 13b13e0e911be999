/**
 * The generator's JSON-RPC client: batches over HTTP keep-alive (Node's fetch), each call answered by its own
 * result or error. Sends go out as batches of eth_sendRawTransaction without waiting for earlier batches
 * (pipelined); reads of blocks and receipts go the same way.
 */
import { LoadRpcError } from "./errors.js";

export interface RpcCall {
  readonly method: string;
  readonly params: readonly unknown[];
}

export type RpcAnswer =
  | { readonly ok: true; readonly result: unknown }
  | { readonly ok: false; readonly code: number; readonly message: string };

/** Largest response body read (the node's own batch response cap is 25 MB). */
const MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

interface WireResponse {
  id?: unknown;
  result?: unknown;
  error?: { code?: unknown; message?: unknown };
}

export class LoadRpc {
  private nextId = 1;

  constructor(
    readonly url: string,
    private readonly timeoutMs = 30_000,
  ) {}

  /** One batch; answers in the order of `calls`. Throws LoadRpcError when the batch itself fails. */
  async batch(calls: readonly RpcCall[]): Promise<RpcAnswer[]> {
    if (calls.length === 0) return [];
    const first = this.nextId;
    this.nextId += calls.length;
    const body = JSON.stringify(
      calls.map((call, i) => ({ jsonrpc: "2.0", id: first + i, method: call.method, params: call.params })),
    );
    let text: string;
    try {
      const response = await fetch(this.url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body,
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      const length = Number(response.headers.get("content-length") ?? "0");
      if (length > MAX_RESPONSE_BYTES) throw new Error(`response of ${length} bytes`);
      text = await response.text();
      if (!response.ok && !text.startsWith("[") && !text.startsWith("{"))
        throw new Error(`HTTP ${response.status}`);
    } catch (e) {
      throw new LoadRpcError(
        `${calls[0]!.method} batch to ${this.url} failed: ${(e as Error).message}`,
        {
          method: calls[0]!.method,
          calls: calls.length,
        },
        { cause: e },
      );
    }
    const parsed = JSON.parse(text) as WireResponse | WireResponse[];
    if (!Array.isArray(parsed)) {
      // A batch refused whole (e.g. over the server's batch limit): every call gets its error.
      const error = parsed.error ?? { code: -32603, message: "no batch response" };
      return calls.map(() => ({ ok: false, code: Number(error.code), message: String(error.message) }));
    }
    const byId = new Map(parsed.map((r) => [Number(r.id), r]));
    return calls.map((_, i) => {
      const r = byId.get(first + i);
      if (r === undefined) return { ok: false, code: -32603, message: "no response for this call" };
      if (r.error !== undefined)
        return { ok: false, code: Number(r.error.code), message: String(r.error.message) };
      return { ok: true, result: r.result };
    });
  }

  /** One call; throws LoadRpcError on an error answer. */
  async call<T>(method: string, params: readonly unknown[]): Promise<T> {
    const [answer] = await this.batch([{ method, params }]);
    if (!answer!.ok) throw new LoadRpcError(`${method}: ${answer!.message}`, { method, code: answer!.code });
    return answer!.result as T;
  }
}

/**
 * The kind of a refused send, for the report: the error message up to its first colon, without numbers and
 * hex ("nonce too low: next nonce 5, tx nonce 3" → "nonce too low").
 */
export function errorKind(message: string): string {
  const head = message.split(":")[0]!;
  return (
    head
      .replace(/0x[0-9a-fA-F]+/g, "")
      .replace(/\d+/g, "")
      .replace(/\s+/g, " ")
      .trim()
      .toLowerCase() || "unknown"
  );
}
