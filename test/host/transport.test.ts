/**
 * The host's transport client against real socket peers that misbehave (hostile peers, not mocks of
 * the enclave) and against a real enclave process: every failure is an EnclaveTransportError, nothing is
 * allocated from an announced length, writes are chunked at 28 KiB.
 */
import { createServer, type Socket } from "node:net";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningEnclave, startEnclave } from "../../enclave/test/enclave-process.js";
import {
  encodeRequestFrame,
  encodeResponseFrame,
  frameWriteChunks,
  MAX_RESPONSE_PAYLOAD_BYTES,
  MAX_WRITE_CHUNK_BYTES,
  type Preimage,
} from "../../generated/protocol/index.js";
import {
  callEnclave,
  EnclaveCallAbortedError,
  EnclaveClient,
  EnclaveRefusedError,
  EnclaveTransportError,
  UnexpectedEnclaveResponseError,
} from "../../src/host/index.js";
import { startRawResponder, startSilentPeer } from "./peers.js";

// Never open AF_VSOCK on this machine: the host transport and the native addon both refuse it.
process.env.OP_ENCLAVE_FORBID_VSOCK = "1";

const unix = (path: string) => ({ kind: "unix" as const, path });

function prefix(length: number): Uint8Array {
  const bytes = new Uint8Array(4);
  new DataView(bytes.buffer).setUint32(0, length, false);
  return bytes;
}

async function transportFailure(bytes: Uint8Array): Promise<EnclaveTransportError> {
  const peer = await startRawResponder(bytes);
  try {
    const error = await callEnclave(unix(peer.path), { kind: "SignerPublicKey" }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(EnclaveTransportError);
    return error as EnclaveTransportError;
  } finally {
    await peer.close();
  }
}

describe("host transport client against hostile peers", () => {
  it("refuses an oversized length prefix before reading the payload", async () => {
    const error = await transportFailure(prefix(MAX_RESPONSE_PAYLOAD_BYTES + 1));
    expect(error.reason).toMatch(/bad response frame: frame length \d+ exceeds the maximum/);
  });

  it("refuses a truncated frame, trailing bytes and an undecodable payload", async () => {
    expect((await transportFailure(new Uint8Array([0, 0, 0, 9, 1, 2]))).reason).toMatch(/closed early/);
    const frame = encodeResponseFrame({ kind: "Error", message: "x" });
    const trailing = new Uint8Array([...frame, 0xff]);
    expect((await transportFailure(trailing)).reason).toMatch(/bytes after the end of the frame/);
    expect((await transportFailure(new Uint8Array([0, 0, 0, 2, 0xee, 0x01]))).reason).toMatch(
      /undecodable response/,
    );
    expect((await transportFailure(new Uint8Array(0))).reason).toMatch(/closed early|closed before/);
  });

  it("fails a connection to nothing, and honours the read timeout and the abort signal", async () => {
    const dir = await mkdtemp(join(tmpdir(), "host-transport-"));
    try {
      await expect(callEnclave(unix(join(dir, "absent.sock")), { kind: "SignerPublicKey" })).rejects.toThrow(
        /connection failed: connect ENOENT/,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    const silent = await startSilentPeer();
    try {
      await expect(
        callEnclave(unix(silent.path), { kind: "SignerPublicKey" }, { readTimeoutMs: 100 }),
      ).rejects.toThrow(/no response within 100 ms/);
      const controller = new AbortController();
      const pending = callEnclave(
        unix(silent.path),
        { kind: "SignerPublicKey" },
        { signal: controller.signal },
      );
      await silent.connectionAccepted(2);
      controller.abort();
      await expect(pending).rejects.toBeInstanceOf(EnclaveCallAbortedError);
      // A frame that starts but never completes is cut off by the read timeout, even for a Prove
      // (whose wait for the first byte is bounded only by the caller's signal).
      const partial = await startRawResponder(new Uint8Array([0, 0, 0, 50, 0]), { keepOpen: true });
      try {
        await expect(
          callEnclave(
            unix(partial.path),
            { kind: "Prove", preimages: [] },
            { readTimeoutMs: 100, responseStartTimeoutMs: Infinity },
          ),
        ).rejects.toThrow(/response frame incomplete after 100 ms/);
      } finally {
        await partial.close();
      }
    } finally {
      await silent.close();
    }
  });

  it("never opens a vsock connection here: the interlock refuses it as a transport failure", async () => {
    const failure = await callEnclave(
      { kind: "vsock", cid: 16, port: 8000 },
      { kind: "SignerPublicKey" },
    ).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(failure).toBeInstanceOf(EnclaveTransportError);
    expect((failure as Error).message).toMatch(
      /vsock:16:8000: connection failed: VsockForbiddenError: AF_VSOCK sockets are forbidden/,
    );
  });

  it("rejects a response of the wrong kind and a malformed public key", async () => {
    const wrongKind = await startRawResponder(
      encodeResponseFrame({ kind: "SignerAttestation", document: new Uint8Array([1]) }),
    );
    const shortKey = await startRawResponder(
      encodeResponseFrame({ kind: "SignerPublicKey", public_key: new Uint8Array(33).fill(2) }),
    );
    try {
      await expect(new EnclaveClient(unix(wrongKind.path)).signerPublicKey()).rejects.toBeInstanceOf(
        UnexpectedEnclaveResponseError,
      );
      await expect(new EnclaveClient(unix(shortKey.path)).signerPublicKey()).rejects.toThrow(
        /must be 65 bytes/,
      );
    } finally {
      await wrongKind.close();
      await shortKey.close();
    }
  });

  it("writes a large request completely and intact while the peer applies backpressure", async () => {
    const dir = await mkdtemp(join(tmpdir(), "host-transport-"));
    const path = join(dir, "slow-reader.sock");
    const received: Buffer[] = [];
    let allReceived: () => void = () => {};
    const value = new Uint8Array(4_000_000).map((_, i) => i % 251);
    const request = {
      kind: "Prove" as const,
      preimages: [[Uint8Array.of(3, ...new Uint8Array(31)), value]] as Preimage[],
    };
    const expected = encodeRequestFrame(request);
    const done = new Promise<void>((resolve) => (allReceived = resolve));
    const sockets: Socket[] = [];
    const server = createServer((socket) => {
      sockets.push(socket);
      socket.on("error", () => {});
      socket.pause(); // the host's writes fill the socket buffers and must wait for 'drain'
      setTimeout(() => {
        socket.on("data", (chunk: Buffer) => {
          received.push(chunk);
          if (received.reduce((n, part) => n + part.length, 0) >= expected.length) allReceived();
        });
        socket.resume();
      }, 200);
    });
    await new Promise<void>((resolve) => server.listen(path, resolve));
    try {
      const pending = callEnclave(unix(path), request, { readTimeoutMs: 5_000 }).catch((e: unknown) => e);
      await done;
      expect(Buffer.concat(received).equals(expected)).toBe(true);
      for (const socket of sockets) socket.destroy();
      for (const chunk of frameWriteChunks(expected))
        expect(chunk.length).toBeLessThanOrEqual(MAX_WRITE_CHUNK_BYTES);
      expect(await pending).toBeInstanceOf(EnclaveTransportError);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("host transport client's memory", () => {
  it("keeps neither a Prove's preimages nor its frame once written, while the enclave works", async () => {
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    const settle = () => {
      gc();
      gc();
      return process.memoryUsage().arrayBuffers;
    };
    const dir = await mkdtemp(join(tmpdir(), "host-transport-"));
    const path = join(dir, "busy-enclave.sock");
    const size = 64 * 2 ** 20;
    const key = Uint8Array.of(3, ...new Uint8Array(31));
    const frameLength = encodeRequestFrame({
      kind: "Prove",
      preimages: [[key, new Uint8Array(size)]],
    }).length;
    let received = 0;
    let allReceived: () => void = () => {};
    const done = new Promise<void>((resolve) => (allReceived = resolve));
    const sockets: Socket[] = [];
    // Reads the whole request and never answers: an enclave still proving.
    const server = createServer((socket) => {
      sockets.push(socket);
      socket.on("error", () => {});
      socket.on("data", (chunk: Buffer) => {
        received += chunk.length;
        if (received >= frameLength) allReceived();
      });
    });
    await new Promise<void>((resolve) => server.listen(path, resolve));
    const controller = new AbortController();
    try {
      const before = settle();
      let preimages: Preimage[] | undefined = [[key, new Uint8Array(size)]];
      const pending = new EnclaveClient(unix(path))
        .prove(preimages, controller.signal)
        .catch((e: unknown) => e);
      preimages = undefined;
      await done;
      // The value (64 MiB) and the frame carrying it (64 MiB) are both gone while the call waits for its answer (a
      // few turns of the event loop allowed for the socket's last write to complete and let go of its chunk).
      let retained = Number.POSITIVE_INFINITY;
      for (let turn = 0; turn < 100 && retained >= 16 * 2 ** 20; turn++) {
        await new Promise<void>((resolve) => setImmediate(resolve));
        retained = settle() - before;
      }
      expect(retained).toBeLessThan(16 * 2 ** 20);
      controller.abort();
      expect(await pending).toBeInstanceOf(EnclaveCallAbortedError);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("host transport client against a real enclave", () => {
  let enclave: RunningEnclave;
  beforeAll(async () => {
    enclave = await startEnclave();
  });
  afterAll(async () => {
    await enclave?.stop();
  });

  it("fetches the key and turns an enclave Error response into EnclaveRefusedError", async () => {
    const client = new EnclaveClient(enclave.address);
    const key = await client.signerPublicKey();
    expect(key).toHaveLength(65);
    const refusal = await client.prove([]).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(refusal).toBeInstanceOf(EnclaveRefusedError);
    expect((refusal as EnclaveRefusedError).enclaveMessage).toMatch(/missing boot information: local key 1/);
  });
});
