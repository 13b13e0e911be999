/** Raw JSON-RPC 2.0 over HTTP for the conformance suite: no client library, so envelopes are checked as sent. */

export interface JsonRpcErrorObject {
  readonly code: number;
  readonly message: string;
  readonly data?: unknown;
}

export interface JsonRpcResponse {
  readonly jsonrpc: string;
  readonly id: unknown;
  readonly result?: unknown;
  readonly error?: JsonRpcErrorObject;
}

export async function post(url: string, body: unknown): Promise<{ status: number; json: unknown }> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, json: text.length === 0 ? undefined : (JSON.parse(text) as unknown) };
}

let nextId = 1;

/** One call; returns the response envelope (result or error). */
export async function rpc(url: string, method: string, params?: unknown): Promise<JsonRpcResponse> {
  const id = nextId++;
  const { json } = await post(url, {
    jsonrpc: "2.0",
    id,
    method,
    ...(params === undefined ? {} : { params }),
  });
  const response = json as JsonRpcResponse;
  if (response.jsonrpc !== "2.0")
    throw new Error(`response to ${method} is not JSON-RPC 2.0: ${JSON.stringify(json)}`);
  if (response.id !== id)
    throw new Error(`response to ${method} has id ${String(response.id)}, expected ${id}`);
  return response;
}

/** One call that must succeed. */
export async function result(url: string, method: string, params?: unknown): Promise<unknown> {
  const response = await rpc(url, method, params);
  if (response.error !== undefined)
    throw new Error(`${method} failed: ${response.error.code} ${response.error.message}`);
  return response.result;
}

/** One call that must fail; returns the error object. */
export async function failure(url: string, method: string, params?: unknown): Promise<JsonRpcErrorObject> {
  const response = await rpc(url, method, params);
  if (response.error === undefined)
    throw new Error(`${method} was expected to fail, got ${JSON.stringify(response.result).slice(0, 200)}`);
  return response.error;
}
