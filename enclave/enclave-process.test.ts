/** A real enclave process in local mode over a Unix socket. */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { bytesToHex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  decodeRequestPayload,
  encodeRequest,
  encodeRequestFrame,
  type Response,
} from "../generated/protocol/index.js";
import {
  answerMessageForm,
  decodeAnswer,
  LengthPrefixedFrameReader,
  pairedMessageForm,
} from "../src/proof/transport/index.js";
import { verifyAttestationDocument } from "../src/attestation/index.js";
import { findBuiltInChain, rollupConfigToJson } from "../src/chain/index.js";
import {
  computeConfigHash,
  configHashFor,
  signerAddressOf as addressOfPublicKey,
} from "../src/proof/onchain/index.js";
import { type RunningEnclave, startEnclave, TEST_ENCLAVE_HEAP_MB } from "./test/enclave-process.js";
import { bootPreimages, honestWitness, keccakPreimage, sha256Preimage, text } from "./test/fixtures.js";
import { callEnclave, enclaveClient, exchangeRawBytes } from "./test/transport.js";

let enclave: RunningEnclave;

beforeAll(async () => {
  enclave = await startEnclave(["--read-timeout-ms", "400"]);
});

afterAll(async () => {
  await enclave?.stop();
});

async function publicKey(): Promise<Uint8Array> {
  return enclaveClient(enclave.address, { timeoutMs: 5000 }).signerPublicKey();
}

/** Sends raw bytes; returns the decoded response if the enclave answered with a frame, else null. */
async function sendRaw(bytes: Uint8Array, endAfterWrite = true): Promise<Response | null> {
  const { received } = await exchangeRawBytes(enclave.address, bytes, { endAfterWrite, timeoutMs: 5000 });
  if (received.length === 0) return null;
  // The enclave answers in the length-prefix form it read (an input opening with four zero bytes is 8-byte); an
  // Error to bytes that are no request may come in either message form.
  const reader = new LengthPrefixedFrameReader({ form: "detect", maxPayloadBytes: 1 << 20 });
  const payload = reader.push(received);
  expect(payload).toBeDefined();
  return decodeAnswer(payload!, undefined, pairedMessageForm(reader.lengthPrefix!));
}

function expectErrorOrClosed(response: Response | null): void {
  if (response !== null) expect(response.kind).toBe("Error");
}

/** Whether `bytes` is exactly one whole frame holding a valid request (random bytes can be: `00 00 00 01 01`). */
function isValidRequestFrame(bytes: Uint8Array): boolean {
  try {
    const reader = new LengthPrefixedFrameReader({ form: "detect", maxPayloadBytes: 1 << 30 });
    const payload = reader.push(bytes);
    if (payload === undefined) return false;
    decodeRequestPayload(payload, answerMessageForm(payload, reader.lengthPrefix!));
    return true;
  } catch {
    return false;
  }
}

describe("enclave process (local mode, Unix socket)", () => {
  it("logs its signer address and answers its 65-byte public key", async () => {
    const key = await publicKey();
    expect(key.length).toBe(65);
    expect(key[0]).toBe(4);
    expect(bytesToHex(addressOfPublicKey(key))).toBe(enclave.signer);
    const startLine = enclave.logs.find((l) => l.msg === "enclave listening");
    // Run from the service bundle beside node_modules: the secp256k1 package's own addon.
    expect(startLine).toMatchObject({
      mode: "local",
      teeImageHash: `0x${"00".repeat(32)}`,
      secp256k1: "libsecp256k1",
    });
    expect(Object.keys(startLine!).sort()).toEqual([
      "bundleSha256",
      "heapLimitBytes",
      "level",
      "listen",
      "mode",
      "msg",
      "node",
      "requestBudgetBytes",
      "secp256k1",
      "signer",
      "teeImageHash",
      "time",
      "workers",
    ]);
    // Started with the launcher's explicit heap (the old generation; V8 adds the young generation's semispaces).
    const heapMb = Number(startLine!.heapLimitBytes) / 2 ** 20;
    expect(heapMb).toBeGreaterThanOrEqual(TEST_ENCLAVE_HEAP_MB);
    expect(heapMb).toBeLessThan(TEST_ENCLAVE_HEAP_MB + 128);
  });

  it("attests with user_data and nonce echoed in the document", async () => {
    const userData = text("registrar challenge");
    const nonce = new Uint8Array([1, 2, 3, 4]);
    const document = await enclaveClient(enclave.address).signerAttestation(userData, nonce);
    const doc = await verifyAttestationDocument(document);
    expect(doc.userData).toEqual(userData);
    expect(doc.nonce).toEqual(nonce);
    expect(doc.publicKey).toEqual(await publicKey());
    expect(doc.moduleId).toMatch(/^LOCAL-DEVELOPMENT-ENCLAVE-/);
  });

  it("refuses an oversized length prefix before reading and keeps serving", async () => {
    const response = await sendRaw(new Uint8Array([0xff, 0xff, 0xff, 0xff, 1, 2, 3]));
    expect(response).toEqual({
      kind: "Error",
      message: "bad frame: frame length 4294967295 exceeds the maximum of 1073741824 bytes",
    });
    expect((await publicKey()).length).toBe(65);
  });

  it("answers a truncated frame and an undecodable payload with Error", async () => {
    const frame = encodeRequestFrame({ kind: "SignerAttestation", user_data: text("abc"), nonce: null });
    const truncated = await sendRaw(frame.subarray(0, frame.length - 2));
    expect(truncated).toMatchObject({
      kind: "Error",
      message: expect.stringMatching(/^bad frame: stream ended inside a frame/),
    });
    const garbage = await sendRaw(new Uint8Array([0, 0, 0, 2, 0x07, 0x00]));
    expect(garbage).toEqual({
      kind: "Error",
      message: "undecodable request: Request: unknown variant index 7 (at byte 0)",
    });
    const trailing = await sendRaw(new Uint8Array([0, 0, 0, 2, 0x01, 0x00]));
    expect(trailing).toMatchObject({ kind: "Error", message: expect.stringMatching(/1 trailing bytes/) });
    expect((await publicKey()).length).toBe(65);
  });

  it("closes a connection whose frame does not arrive within the read timeout", async () => {
    const started = Date.now();
    const { received, closedBy } = await exchangeRawBytes(enclave.address, new Uint8Array([0, 0, 0, 9, 1]), {
      endAfterWrite: false,
      timeoutMs: 5000,
    });
    expect(closedBy).toBe("peer");
    expect(received.length).toBe(0);
    expect(Date.now() - started).toBeGreaterThanOrEqual(350);
    expect((await publicKey()).length).toBe(65);
  });

  it("survives fuzzed frames (random bytes, truncations, oversized lengths) and answers the next connection", async () => {
    const valid = fc.oneof(
      fc.constant(encodeRequest({ kind: "SignerPublicKey" })),
      fc
        .uint8Array({ maxLength: 64 })
        .map((u) => encodeRequest({ kind: "SignerAttestation", user_data: u, nonce: null })),
    );
    const framed = (payload: Uint8Array) => {
      const out = new Uint8Array(4 + payload.length);
      new DataView(out.buffer).setUint32(0, payload.length, false);
      out.set(payload, 4);
      return out;
    };
    const hostile = fc.oneof(
      fc.uint8Array({ minLength: 1, maxLength: 300 }),
      fc.uint8Array({ maxLength: 300 }).map(framed),
      fc.tuple(valid, fc.nat()).map(([payload, cut]) => {
        const frame = framed(payload);
        return frame.subarray(0, cut % frame.length);
      }),
      fc
        .tuple(fc.integer({ min: 2 ** 30 + 1, max: 2 ** 32 - 1 }), fc.uint8Array({ maxLength: 50 }))
        .map(([length, rest]) => {
          const out = new Uint8Array(4 + rest.length);
          new DataView(out.buffer).setUint32(0, length, false);
          out.set(rest, 4);
          return out;
        }),
    );
    await fc.assert(
      fc.asyncProperty(hostile, async (bytes) => {
        const response = await sendRaw(bytes);
        // A hostile input that happens to be a valid request is served (any well-formed answer); all else is refused.
        if (isValidRequestFrame(bytes)) expect(response).not.toBeNull();
        else expectErrorOrClosed(response);
      }),
      // The first CI failure's counterexample: a whole frame whose one byte is the SignerPublicKey request.
      { numRuns: 60, examples: [[Uint8Array.from([0, 0, 0, 1, 1])]] },
    );
    expect(enclave.child.exitCode).toBeNull();
    expect((await publicKey()).length).toBe(65);
  });

  describe("Prove refusals over the socket (nothing signed: an Error, never a proposal)", () => {
    const prove = async (preimages: ReturnType<typeof bootPreimages>) => {
      const response = await callEnclave(enclave.address, { kind: "Prove", preimages });
      if (response.kind !== "Error") throw new Error(`expected Error, got ${response.kind}`);
      return response.message;
    };

    it("tampered keccak256 preimage", async () => {
      expect(await prove([...bootPreimages(), keccakPreimage(text("abc"), text("abd"))])).toMatch(
        /PreimageMismatchError/,
      );
    });

    it("tampered sha256 preimage", async () => {
      expect(
        await prove([...honestWitness(), sha256Preimage(text("x"), text("y")), ...bootPreimages()]),
      ).toMatch(/PreimageMismatchError: preimage for key sha256:/);
    });

    it("unknown chain id", async () => {
      expect(await prove([...bootPreimages({ chainId: 999_999n }), ...honestWitness()])).toMatch(
        /^UnsupportedChain: chain id 999999/,
      );
    });

    it("missing boot key", async () => {
      expect(await prove(bootPreimages({}, [3]))).toMatch(
        /missing boot information: local key 3 \(ClaimedOutputRoot\)/,
      );
    });

    it("a complete request without a witness is refused by the program: the agreed output root is missing", async () => {
      expect(await prove([...bootPreimages(), ...honestWitness()])).toMatch(
        /^MissingWitnessError: missing preimage keccak256:0x02.* \(agreed output root\): the proof is refused$/,
      );
    });

    it("a large Prove request (over 28 KiB) is read across many chunks", async () => {
      const big = Array.from({ length: 40 }, (_, i) => keccakPreimage(new Uint8Array(2000).fill(i)));
      expect(await prove([...big, ...bootPreimages({ chainId: 7n })])).toMatch(
        /^UnsupportedChain: chain id 7/,
      );
    });
  });
});

describe("enclave process with a development rollup config (--rollup-config, local mode only)", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "enclave-rollup-"));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("computes the config's hash at start, logs it as a development config and proves that chain", async () => {
    // A chain 901 whose genesis is not the standalone dev chain's (Base's facts under id 901).
    const config = { ...findBuiltInChain(8453n)!.rollupConfig, l2ChainId: 901n };
    const path = join(dir, "rollup.json");
    await writeFile(path, JSON.stringify(rollupConfigToJson(config)));
    const dev = await startEnclave(["--rollup-config", path]);
    try {
      const warning = dev.logs.find(
        (line) => line.level === "warn" && /DEVELOPMENT rollup config/.test(String(line.msg)),
      );
      const expected = computeConfigHash({ ...findBuiltInChain(8453n)!.genesisFacts, chainId: 901n });
      expect(warning).toMatchObject({ path, chainId: "901", configHash: bytesToHex(expected) });
      expect(bytesToHex(expected)).not.toBe(bytesToHex(configHashFor(901n)));
      const response = await callEnclave(dev.address, {
        kind: "Prove",
        preimages: [...bootPreimages({ chainId: 901n }), ...honestWitness()],
      });
      expect(response.kind).toBe("Error");
      if (response.kind === "Error")
        expect(response.message).toMatch(/^MissingWitnessError: .*agreed output root/);
    } finally {
      await dev.stop();
    }
  });

  it("refuses to start on a file that is not a rollup config", async () => {
    const path = join(dir, "not-rollup.json");
    await writeFile(path, JSON.stringify({ hello: "world" }));
    await expect(startEnclave(["--rollup-config", path])).rejects.toThrow(/rollup/i);
  });
});
