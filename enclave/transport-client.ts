/**
 * The host side of one enclave exchange over a local-mode address: connect, write one request frame in
 * chunks of at most 28 KiB, read one response frame (capped before reading), close.
 */
import { connect, type Socket } from "node:net";
import {
  decodeResponsePayload,
  encodeRequestFrame,
  frameWriteChunks,
  newResponseFrameReader,
  READ_TIMEOUT_MS,
  type Request,
  RequestClient,
  type Response,
} from "../generated/protocol/index.js";
import type { ListenAddress } from "./listen-address.js";

export class EnclaveTransportError extends Error {
  override readonly name = "EnclaveTransportError";
}

export interface CallOptions {
  readonly timeoutMs?: number;
  readonly maxResponsePayloadBytes?: number;
}

function open(address: ListenAddress): Socket {
  return address.kind === "unix" ? connect(address.path) : connect(address.port, address.host);
}

/** Sends `request` and resolves with the enclave's response. */
export function callEnclave(
  address: ListenAddress,
  request: Request,
  options: CallOptions = {},
): Promise<Response> {
  const frame = encodeRequestFrame(request);
  return new Promise<Response>((resolve, reject) => {
    const socket = open(address);
    const reader = newResponseFrameReader(options.maxResponsePayloadBytes);
    let done = false;
    const fail = (error: Error) => {
      if (done) return;
      done = true;
      socket.destroy();
      reject(error instanceof EnclaveTransportError ? error : new EnclaveTransportError(error.message));
    };
    socket.setTimeout(options.timeoutMs ?? READ_TIMEOUT_MS, () =>
      fail(new EnclaveTransportError("read timeout")),
    );
    socket.on("error", fail);
    socket.on("connect", () => {
      for (const chunk of frameWriteChunks(frame)) socket.write(chunk);
    });
    socket.on("data", (chunk: Buffer) => {
      try {
        const payload = reader.push(chunk);
        if (payload === undefined) return;
        done = true;
        socket.destroy();
        resolve(decodeResponsePayload(payload));
      } catch (error) {
        fail(error as Error);
      }
    });
    socket.on("end", () => {
      try {
        reader.finish();
      } catch (error) {
        fail(error as Error);
      }
    });
    socket.on("close", () => fail(new EnclaveTransportError("connection closed before a response")));
  });
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
    const socket = open(address);
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
