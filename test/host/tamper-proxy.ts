/**
 * A test transport between a host process and an enclave process: a Unix-socket proxy that reads each request
 * frame the host sends (docs/protocol.md "Host-to-enclave vsock protocol": 4-byte big-endian length, bincode
 * payload), decodes it, lets the test edit a Prove request's preimages, re-encodes it and forwards it to the
 * enclave; the enclave's response frame goes back to the host unchanged and is decoded on the way, so the test
 * sees what the enclave answered. Other requests (SignerPublicKey, SignerAttestation) pass unedited.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { connect, createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  decodeRequestPayload,
  decodeResponsePayload,
  encodeRequestFrame,
  frameWriteChunks,
  newRequestFrameReader,
  newResponseFrameReader,
  type Preimage,
  type Request,
  type Response,
} from "../../generated/protocol/index.js";

/** Edits the preimages of a Prove request on its way to the enclave. */
export type PreimageEdit = (preimages: readonly Preimage[]) => Preimage[];

export interface ProxiedExchange {
  readonly request: Request;
  /** The request as forwarded (after the edit). */
  readonly forwarded: Request;
  readonly response: Response;
  /** Request frame bytes as received from the host. */
  readonly frameBytes: number;
  /** From the request's first byte to its whole frame at the proxy (the host's write). */
  readonly hostFrameMs: number;
  /** From forwarding the request to the enclave's whole response (the enclave's transfer and work). */
  readonly enclaveMs: number;
}

export interface TamperProxy {
  /** The Unix socket the host connects to (its --vsock-cid). */
  readonly path: string;
  /** Every exchange that completed, in order. */
  readonly exchanges: ProxiedExchange[];
  /** The edit applied to the next Prove requests (undefined: forward unchanged). */
  edit: PreimageEdit | undefined;
  /**
   * Told of every completed exchange; with `keepExchanges` false it is the only record (the decoded requests are
   * then dropped once forwarded, so a long run of big frames is not held in memory).
   */
  onExchange: ((exchange: ProxiedExchange) => void) | undefined;
  /** Keep every exchange in `exchanges` (default true). */
  keepExchanges: boolean;
  close(): Promise<void>;
}

export async function startTamperProxy(enclavePath: string): Promise<TamperProxy> {
  const dir = mkdtempSync(join(tmpdir(), "tamper-proxy-"));
  const path = join(dir, "proxy.sock");
  const sockets = new Set<Socket>();
  const proxy: TamperProxy = {
    path,
    exchanges: [],
    edit: undefined,
    onExchange: undefined,
    keepExchanges: true,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => {
          rmSync(dir, { recursive: true, force: true });
          resolve();
        });
      }),
  };

  const forward = (host: Socket, request: Request, received: { bytes: number; ms: number }): void => {
    const edit = proxy.edit;
    const forwarded: Request =
      request.kind === "Prove" && edit !== undefined
        ? { kind: "Prove", preimages: edit(request.preimages) }
        : request;
    const sentAt = performance.now();
    const enclave = connect({ path: enclavePath });
    sockets.add(enclave);
    const responses = newResponseFrameReader();
    enclave.on("data", (chunk: Buffer) => {
      host.write(chunk);
      const payload = responses.push(chunk);
      if (payload === undefined) return;
      const exchange: ProxiedExchange = {
        request,
        forwarded,
        response: decodeResponsePayload(payload),
        frameBytes: received.bytes,
        hostFrameMs: received.ms,
        enclaveMs: performance.now() - sentAt,
      };
      if (proxy.keepExchanges) proxy.exchanges.push(exchange);
      proxy.onExchange?.(exchange);
    });
    enclave.on("end", () => host.end());
    enclave.on("error", () => host.destroy());
    enclave.on("close", () => sockets.delete(enclave));
    host.on("close", () => enclave.destroy());
    enclave.once("connect", () => {
      for (const chunk of frameWriteChunks(encodeRequestFrame(forwarded))) enclave.write(chunk);
    });
  };

  const server: Server = createServer((host) => {
    sockets.add(host);
    host.on("close", () => sockets.delete(host));
    host.on("error", () => host.destroy());
    const reader = newRequestFrameReader();
    let firstByteAt: number | undefined;
    let bytes = 0;
    const onData = (chunk: Buffer): void => {
      firstByteAt ??= performance.now();
      bytes += chunk.length;
      let payload: Uint8Array | undefined;
      try {
        payload = reader.push(chunk);
      } catch {
        host.destroy();
        return;
      }
      if (payload === undefined) return;
      host.off("data", onData);
      forward(host, decodeRequestPayload(payload), { bytes, ms: performance.now() - firstByteAt });
    };
    host.on("data", onData);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(path, () => resolve());
  });
  return proxy;
}
