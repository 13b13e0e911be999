/**
 * Both frame length-prefix forms and both message forms against one real enclave process (local mode, Unix
 * socket): the host's transport proves the recorded devnet witness and asks for the image hash and an attestation
 * in all four combinations of 4- or 8-byte frames and the spec's or Base's messages, the host process with
 * `--frame-length-prefix 8` and with the default reaches the same enclave, and the enclave answers in the form it
 * was asked in. Then an in-process enclave server on loopback TCP with a small admission budget: a frame
 * announcing more than the budget is refused before its payload is read, in both forms.
 */
import { connect } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { FIXTURE_ROLLUP_PATH, recordedWitness } from "../../conformance/fixture.js";
import { journalProblems } from "../../conformance/journal-check.js";
import { EnclaveServer } from "../../enclave/index.js";
import { type RunningEnclave, startEnclave } from "../../enclave/test/enclave-process.js";
import { decodeResponsePayload, encodeRequest, type Response } from "../../generated/protocol/index.js";
import { callEnclave } from "../../src/host/index.js";
import { signerAddressOf } from "../../src/proof/onchain/index.js";
import {
  encodeRequestFrameWith,
  formatListenAddress,
  type FrameLengthPrefix,
  LengthPrefixedFrameReader,
  pairedMessageForm,
  parseListenAddress,
} from "../../src/proof/transport/index.js";
import { hostClient } from "./host-client.js";
import { hostArgs, type RunningHost, startHost } from "./spawn-host.js";

const hex = (bytes: Uint8Array): string => `0x${Buffer.from(bytes).toString("hex")}`;

/** Writes `bytes` on a fresh connection and collects everything until the peer closes. */
function rawExchange(port: number, bytes: Uint8Array): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: "127.0.0.1", port });
    const received: Buffer[] = [];
    socket.on("data", (chunk: Buffer) => received.push(chunk));
    socket.on("error", reject);
    socket.on("close", () => resolve(Buffer.concat(received)));
    socket.on("connect", () => socket.write(bytes));
  });
}

function readResponse(bytes: Uint8Array, form: FrameLengthPrefix): Response {
  const reader = new LengthPrefixedFrameReader({ form, maxPayloadBytes: 1 << 20 });
  const payload = reader.push(bytes);
  if (payload === undefined) throw new Error(`no complete ${form}-byte frame in ${bytes.length} bytes`);
  // A SignerPublicKey is the same bytes in both message forms: the enclave answers it in the frame's paired form.
  return decodeResponsePayload(payload, pairedMessageForm(form));
}

describe("one enclave process, hosts speaking 4- and 8-byte frames", () => {
  let enclave: RunningEnclave;
  const hosts: RunningHost[] = [];

  beforeAll(async () => {
    enclave = await startEnclave(["--rollup-config", FIXTURE_ROLLUP_PATH]);
  }, 60_000);

  afterAll(async () => {
    await Promise.all(hosts.map((host) => host.stop()));
    await enclave?.stop();
  });

  for (const prefix of [8, 4] as const) {
    for (const form of ["spec", "base"] as const) {
      it(`proves the recorded witness through the host transport with ${prefix}-byte frames and ${form} messages`, async () => {
        const { preimages, manifest } = recordedWitness();
        const response = await callEnclave(
          enclave.address,
          { kind: "Prove", preimages },
          { frameLengthPrefix: prefix, messageForm: form, responseStartTimeoutMs: Number.POSITIVE_INFINITY },
        );
        if (response.kind !== "Prove") throw new Error(`expected a proof, got ${JSON.stringify(response)}`);
        expect(hex(response.result.Tee.aggregate_proposal.output_root)).toBe(manifest.boot.claimedOutputRoot);
        const signerAddress = new Uint8Array(Buffer.from(enclave.signer.slice(2), "hex"));
        expect(
          journalProblems(response.result, {
            witness: preimages,
            signerAddress,
            teeImageHash: new Uint8Array(32),
          }),
        ).toEqual([]);
        // A Prove is the same bytes in both message forms: the enclave answers in the form paired with the frame
        // (8-byte: Base's, stamped with tee_signer), which the host reads whatever its own form.
        const stamp = response.result.Tee.tee_signer;
        expect(stamp === undefined ? undefined : hex(stamp)).toBe(
          prefix === 8 ? enclave.signer.toLowerCase() : undefined,
        );
      }, 120_000);

      it(`asks for the image hash and an attestation with ${prefix}-byte frames and ${form} messages, answered in that form`, async () => {
        const options = { frameLengthPrefix: prefix, messageForm: form } as const;
        const hash = await callEnclave(enclave.address, { kind: "TeeImageHash" }, options);
        expect(hash).toEqual({ kind: "TeeImageHash", image_hash: new Uint8Array(32) });
        const nonce = new Uint8Array([prefix, form.length]);
        const attestation = await callEnclave(
          enclave.address,
          { kind: "SignerAttestation", user_data: null, nonce },
          options,
        );
        expect(attestation.kind).toBe("SignerAttestation");
      }, 60_000);
    }
  }

  it("a host process with --frame-length-prefix 8 and one with the default both reach the enclave", async () => {
    const enclaves = [formatListenAddress(enclave.address)];
    const eight = await startHost(hostArgs({ enclaves, extra: ["--frame-length-prefix", "8"] }));
    hosts.push(eight);
    const four = await startHost(hostArgs({ enclaves }));
    hosts.push(four);
    const keys = await Promise.all(
      [eight, four].map((host) => hostClient(host.url)("enclave_signerPublicKey")),
    );
    expect(keys[0]).toEqual(keys[1]);
    const [key] = keys[0] as number[][];
    expect(hex(signerAddressOf(Uint8Array.from(key!)))).toBe(enclave.signer.toLowerCase());
  }, 120_000);
});

describe("an enclave server on loopback TCP with a 100-byte admission budget", () => {
  let server: EnclaveServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  async function start(): Promise<number> {
    server = new EnclaveServer({
      listen: parseListenAddress("127.0.0.1:0"),
      maxBufferedRequestBytes: 100,
      handle: async (request) => ({ kind: "Error", message: `handled ${request.kind}` }),
    });
    await server.start();
    const address = server.address;
    if (address.kind !== "tcp") throw new Error("expected a tcp address");
    return address.port;
  }

  for (const prefix of [4, 8] as const) {
    it(`answers a ${prefix}-byte request in ${prefix}-byte form`, async () => {
      const port = await start();
      const answer = await rawExchange(port, encodeRequestFrameWith({ kind: "SignerPublicKey" }, prefix));
      expect(readResponse(answer, prefix)).toEqual({ kind: "Error", message: "handled SignerPublicKey" });
    });

    it(`refuses a ${prefix}-byte frame announcing more than the budget before reading its payload`, async () => {
      const port = await start();
      const payload = new Uint8Array(101);
      payload.set(encodeRequest({ kind: "SignerPublicKey" }));
      const frame = new Uint8Array(prefix + 10);
      const view = new DataView(frame.buffer);
      if (prefix === 4) view.setUint32(0, payload.length, false);
      else view.setBigUint64(0, BigInt(payload.length), false);
      frame.set(payload.subarray(0, 10), prefix);
      // Only 10 of the 101 announced bytes are sent: the refusal cannot wait for the payload.
      const answer = await rawExchange(port, frame);
      expect(readResponse(answer, prefix)).toEqual({
        kind: "Error",
        message:
          "enclave busy: a 101-byte request does not fit next to 0 bytes already admitted (budget 100)",
      });
    });
  }
});
