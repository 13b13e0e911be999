/** Transport server behaviour that needs control over concurrent raw connections. */
import { connect } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import {
  decodeResponsePayload,
  encodeRequest,
  FrameReader,
  type Response,
} from "../generated/protocol/index.js";
import { parseListenAddress } from "../src/proof/transport/index.js";
import { EnclaveServer } from "./server.js";
import { exchangeRawBytes } from "./test/transport.js";

let server: EnclaveServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function frame(payload: Uint8Array, announced = payload.length): Uint8Array {
  const out = new Uint8Array(4 + payload.length);
  new DataView(out.buffer).setUint32(0, announced, false);
  out.set(payload, 4);
  return out;
}

async function send(bytes: Uint8Array): Promise<Response | null> {
  const { received } = await exchangeRawBytes(server!.address, bytes, {
    endAfterWrite: true,
    timeoutMs: 5000,
  });
  if (received.length === 0) return null;
  return decodeResponsePayload(new FrameReader(1 << 20).push(received)!);
}

describe("EnclaveServer buffered-bytes budget", () => {
  it("refuses a frame that does not fit next to one in flight, and admits again once it is gone", async () => {
    server = new EnclaveServer({
      listen: parseListenAddress("127.0.0.1:0"),
      maxBufferedRequestBytes: 100,
      handle: async (request) => ({ kind: "Error", message: `handled ${request.kind}` }),
    });
    await server.start();
    const address = server.address;
    if (address.kind !== "tcp") throw new Error("expected tcp");

    // Connection A announces 80 bytes and sends only 10 of them, holding its reservation.
    const a = connect(address.port, address.host);
    await new Promise<void>((resolve) => a.on("connect", () => resolve()));
    a.write(frame(new Uint8Array(10), 80));
    await new Promise((resolve) => setTimeout(resolve, 50));

    // B announces 30 (80 + 30 > 100): refused before its payload is read.
    const padded = new Uint8Array(30);
    padded.set(encodeRequest({ kind: "SignerAttestation", user_data: new Uint8Array(26), nonce: null }));
    expect(await send(frame(padded))).toEqual({
      kind: "Error",
      message: "enclave busy: a 30-byte request does not fit next to 80 bytes already admitted (budget 100)",
    });
    // A small request still fits.
    expect(await send(frame(encodeRequest({ kind: "SignerPublicKey" })))).toEqual({
      kind: "Error",
      message: "handled SignerPublicKey",
    });

    a.destroy();
    await new Promise((resolve) => setTimeout(resolve, 50));
    const fits = encodeRequest({ kind: "SignerAttestation", user_data: new Uint8Array(60), nonce: null });
    expect(await send(frame(fits))).toEqual({ kind: "Error", message: "handled SignerAttestation" });
  });
});

describe("EnclaveServer sharedPayloads", () => {
  for (const shared of [true, false]) {
    it(`${shared ? "assembles" : "does not assemble"} a request payload on a SharedArrayBuffer`, async () => {
      const seen: { onShared: boolean; bytes: Uint8Array }[] = [];
      server = new EnclaveServer({
        listen: parseListenAddress("127.0.0.1:0"),
        sharedPayloads: shared,
        handleRaw: async (payload) => {
          seen.push({ onShared: payload.buffer instanceof SharedArrayBuffer, bytes: payload.slice() });
          return undefined;
        },
        handle: async (request) => ({ kind: "Error", message: `handled ${request.kind}` }),
      });
      await server.start();
      const request = encodeRequest({
        kind: "SignerAttestation",
        user_data: new Uint8Array(40),
        nonce: null,
      });
      expect(await send(frame(request))).toEqual({ kind: "Error", message: "handled SignerAttestation" });
      expect(seen).toEqual([{ onShared: shared, bytes: request }]);
    });
  }
});
