/**
 * The enclave's memory against hostile frames (docs/enclave.md "Memory"): a real enclave process started with a
 * small heap (--max-old-space-size=128) proves the recorded devnet witness, is sent a frame of 300,000 small
 * preimages (about 10 MB on the wire; ~420 MB of heap when every key and value was a copied object), frames at
 * the codec's caps (4,194,304 preimages, 1 GiB), and then proves the recorded witness again with the same signer.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  encodeRequest,
  encodeRequestFrame,
  FrameReader,
  type Preimage,
  decodeResponsePayload,
  type Response,
} from "../../generated/protocol/index.js";
import { bytesToHex, hexToBytes } from "viem";
import { FIXTURE_ROLLUP_PATH, recordedWitness } from "../../conformance/fixture.js";
import { aggregateJournal, recoverJournalSigner } from "../../src/proof/onchain/index.js";
import { PreimageTable, preimageKeyOf, readBootInfo } from "../../src/proof/preimages/index.js";
import { type RunningEnclave, startEnclave } from "../../enclave/test/enclave-process.js";
import { callEnclave, exchangeRawBytes } from "../../enclave/test/transport.js";

const HEAP_MB = 128;
let enclave: RunningEnclave;

beforeAll(async () => {
  enclave = await startEnclave(["--rollup-config", FIXTURE_ROLLUP_PATH], {
    nodeFlags: [`--max-old-space-size=${HEAP_MB}`],
  });
}, 120_000);

afterAll(async () => {
  await enclave?.stop();
});

/** Proves the recorded witness; returns the signer every journal recovers to. */
async function proveRecorded(): Promise<string> {
  const { preimages, manifest } = recordedWitness();
  const response = await callEnclave(enclave.address, { kind: "Prove", preimages }, { timeoutMs: 300_000 });
  if (response.kind !== "Prove")
    throw new Error(`the recorded witness was not proved: ${JSON.stringify(response)}`);
  const aggregate = response.result.Tee.aggregate_proposal;
  expect(bytesToHex(aggregate.output_root)).toBe(manifest.boot.claimedOutputRoot);
  const boot = readBootInfo(PreimageTable.fromPreimages(preimages));
  const journal = aggregateJournal(
    { boot, configHash: aggregate.config_hash, teeImageHash: new Uint8Array(32) },
    {
      startBlock: BigInt(manifest.startBlock),
      outputRoots: manifest.outputRoots.map((root) => hexToBytes(root as `0x${string}`)),
    },
  );
  return bytesToHex(recoverJournalSigner(journal, aggregate.signature));
}

/** Sends one raw frame and decodes the answer (null when the enclave closed without one). */
async function sendFrame(bytes: Uint8Array): Promise<Response | null> {
  const { received } = await exchangeRawBytes(enclave.address, bytes, {
    endAfterWrite: false,
    timeoutMs: 120_000,
  });
  if (received.length === 0) return null;
  return decodeResponsePayload(new FrameReader(1 << 20).push(received)!);
}

/** `count` blob-keyed preimages of one byte each: the smallest entries the codec accepts. */
function smallPreimages(count: number): Preimage[] {
  const preimages: Preimage[] = [];
  for (let i = 0; i < count; i++) {
    const data = new Uint8Array(31);
    new DataView(data.buffer).setUint32(0, i);
    preimages.push([preimageKeyOf("Blob", data), new Uint8Array(1)]);
  }
  return preimages;
}

describe("enclave memory (real process, small heap)", () => {
  it("survives a frame of many small preimages and frames at the codec's caps, keeping its key", async () => {
    const signer = await proveRecorded();
    expect(signer).toBe(enclave.signer);

    // 300,000 small preimages: decoded into the compact table and refused as a proof (no boot information).
    const many = await sendFrame(encodeRequestFrame({ kind: "Prove", preimages: smallPreimages(300_000) }));
    expect(many).toMatchObject({ kind: "Error", message: expect.stringMatching(/^MissingBootKeyError/) });

    // The codec's count cap, 4,194,304 minimal entries (138 MB): refused before its payload is read.
    const atCountCap = encodeRequest({ kind: "Prove", preimages: [] });
    const count = 4_194_304;
    const payloadLength = 1 + 5 + count * 33;
    const frame = new Uint8Array(4 + payloadLength);
    const view = new DataView(frame.buffer);
    view.setUint32(0, payloadLength, false);
    frame[4] = atCountCap[0]!;
    frame[5] = 0xfc;
    view.setUint32(6, count, true);
    for (let i = 0; i < count; i++) frame[10 + i * 33 + 31] = 4; // Blob, then a zero-length value
    const capped = await sendFrame(frame);
    expect(capped).toMatchObject({ kind: "Error", message: expect.stringMatching(/^enclave busy: /) });

    // The codec's byte cap (1 GiB) announced: refused at once.
    const huge = new Uint8Array(8);
    new DataView(huge.buffer).setUint32(0, 1 << 30, false);
    expect(await sendFrame(huge)).toMatchObject({
      kind: "Error",
      message: expect.stringMatching(/^enclave busy: a 1073741824-byte request does not fit/),
    });

    expect(enclave.child.exitCode).toBeNull();
    expect(await proveRecorded()).toBe(signer);
    const listening = enclave.logs.find((line) => line.msg === "enclave listening");
    expect(listening?.requestBudgetBytes).toBeLessThan(HEAP_MB * 1024 * 1024);
  }, 600_000);
});
