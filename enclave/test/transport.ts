/**
 * Test support for talking to an enclave at a local-mode address. Well-formed exchanges go through the
 * host's production transport client (src/host/transport), so the enclave tests exercise the same
 * client the host uses; `exchangeRawBytes` writes deliberately broken frames that no client would send.
 */
import { connect } from "node:net";
import { type Request, RequestClient, type Response } from "../../generated/protocol/index.js";
import { callEnclave as hostCallEnclave } from "../../src/host/index.js";
import type { ListenAddress } from "../../src/proof/transport/index.js";

export interface CallOptions {
  /** Read timeout for the whole exchange (default: the protocol's 5 minutes). */
  readonly timeoutMs?: number;
}

/** Sends `request` and resolves with the enclave's response. */
export function callEnclave(
  address: ListenAddress,
  request: Request,
  options: CallOptions = {},
): Promise<Response> {
  return hostCallEnclave(
    address,
    request,
    options.timeoutMs === undefined ? {} : { readTimeoutMs: options.timeoutMs },
  );
}

/** A typed client (generated/protocol/client.ts) for one enclave address, one connection per call. */
export function enclaveClient(address: ListenAddress, options: CallOptions = {}): RequestClient {
  return new RequestClient((request) => callEnclave(address, request, options));
}

/**
 * Writes raw bytes (optionally half-closing afterwards) and collects everything the peer sends until it
 * closes the connection. For protocol tests with deliberately broken frames.
 */
export function exchangeRawBytes(
  address: ListenAddress,
  bytes: Uint8Array,
  options: { endAfterWrite: boolean; timeoutMs: number },
): Promise<{ received: Uint8Array; closedBy: "peer" | "timeout" | "error" }> {
  return new Promise((resolve) => {
    const socket = address.kind === "unix" ? connect(address.path) : connect(address.port, address.host);
    const parts: Buffer[] = [];
    let closedBy: "peer" | "timeout" | "error" = "peer";
    socket.setTimeout(options.timeoutMs, () => {
      closedBy = "timeout";
      socket.destroy();
    });
    socket.on("error", () => {
      closedBy = "error";
    });
    socket.on("connect", () => {
      socket.write(bytes);
      if (options.endAfterWrite) socket.end();
    });
    socket.on("data", (chunk: Buffer) => parts.push(chunk));
    socket.on("close", () => resolve({ received: new Uint8Array(Buffer.concat(parts)), closedBy }));
  });
}
