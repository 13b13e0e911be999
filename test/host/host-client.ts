/** viem as the host's JSON-RPC client in tests: raw calls, errors reduced to their JSON-RPC code and message. */
import { BaseError, createClient, http } from "viem";

export interface RpcFailure {
  readonly code: number;
  readonly message: string;
}

export type HostCall = (method: string, params?: unknown) => Promise<unknown>;

export function hostClient(url: string): HostCall {
  const client = createClient({ transport: http(url, { retryCount: 0, timeout: 30_000 }) });
  return (method, params = []) =>
    client.request({ method, params } as never, { retryCount: 0 }) as Promise<unknown>;
}

/** Runs `call` expecting a JSON-RPC error; returns its code and the server's message. */
export async function rpcFailure(call: Promise<unknown>): Promise<RpcFailure> {
  try {
    const result = await call;
    throw new Error(`expected a JSON-RPC error, got ${JSON.stringify(result)}`);
  } catch (error) {
    if (!(error instanceof BaseError)) throw error;
    const withCode = error.walk((cause) => typeof (cause as { code?: unknown }).code === "number") as
      (BaseError & { code: number }) | null;
    if (withCode === null) throw error;
    return { code: withCode.code, message: withCode.details };
  }
}
