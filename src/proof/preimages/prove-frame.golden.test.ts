/**
 * The Prove frame of the recorded devnet witness (conformance/fixtures, 4,317 preimages of every key type the host
 * sends), pinned byte for byte: the generated codec encodes the 32-byte keys straight to the wire layout of Rust's
 * `struct PreimageKey { data: [u8; 31], key_type: PreimageKeyType }` (data first, then the type's variant index),
 * and the enclave's decoders give the same 32-byte keys back. The expected bytes are written here from the witness
 * file's own JSON, without the codec, and their digest was taken from the codec before the key became 32 bytes.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { FIXTURE_WITNESS_PATH, recordedWitness } from "../../../conformance/fixture.js";
import { decodeRequestPayload, encodeRequestFrame } from "../../../generated/protocol/index.js";
import { PreimageTable } from "./table.js";

/** sha256 of the frame (4-byte prefix and payload) as the object-keyed codec wrote it: 512,274 bytes. */
const FRAME_SHA256 = "c95957e09f8e805b3407ef1409038b88917cfee612e061a961e2210100606d46";

/** A bincode varint (lengths here stay below 2^32). */
function varint(n: number): number[] {
  if (n <= 250) return [n];
  if (n <= 0xffff) return [0xfb, n & 0xff, n >>> 8];
  return [0xfc, n & 0xff, (n >>> 8) & 0xff, (n >>> 16) & 0xff, n >>> 24];
}

/** The witness file's entries as written: 32-byte keys (type byte first) and values. */
function fileEntries(): { key: Buffer; value: Buffer }[] {
  const json = JSON.parse(gunzipSync(readFileSync(FIXTURE_WITNESS_PATH)).toString("utf8")) as {
    preimages: { key: string; value: string }[];
  };
  return json.preimages.map(({ key, value }) => ({
    key: Buffer.from(key.slice(2), "hex"),
    value: Buffer.from(value.slice(2), "hex"),
  }));
}

/** The Request::Prove payload by hand: variant 0, the count, then per entry data(31), type - 1, length, value. */
function handWrittenPayload(entries: readonly { key: Buffer; value: Buffer }[]): Buffer {
  const parts: Buffer[] = [Buffer.from([0, ...varint(entries.length)])];
  for (const { key, value } of entries) {
    parts.push(key.subarray(1), Buffer.from([key[0]! - 1, ...varint(value.length)]), value);
  }
  return Buffer.concat(parts);
}

describe("the recorded witness's Prove frame", () => {
  const entries = fileEntries();
  const { preimages } = recordedWitness();
  const frame = encodeRequestFrame({ kind: "Prove", preimages });
  const payload = frame.subarray(4);

  it("is the bytes written by hand from the witness file, and the pinned digest", () => {
    expect(entries.length).toBe(4317);
    expect(new Set(entries.map(({ key }) => key[0])).size).toBeGreaterThanOrEqual(3);
    expect(Buffer.from(payload).equals(handWrittenPayload(entries))).toBe(true);
    expect(new DataView(frame.buffer, frame.byteOffset).getUint32(0, false)).toBe(payload.length);
    expect(frame.length).toBe(512_274);
    expect(createHash("sha256").update(frame).digest("hex")).toBe(FRAME_SHA256);
  });

  it("decodes to the file's 32-byte keys, in the generated decoder and in the enclave's table", () => {
    const request = decodeRequestPayload(payload);
    if (request.kind !== "Prove") throw new Error(`decoded ${request.kind}`);
    expect(request.preimages.map(([key]) => Buffer.from(key).toString("hex"))).toEqual(
      entries.map(({ key }) => key.toString("hex")),
    );
    const table = PreimageTable.decode(payload);
    expect([...table.keys()].map((key) => Buffer.from(key).toString("hex"))).toEqual(
      entries.map(({ key }) => key.toString("hex")),
    );
    for (const { key, value } of entries.slice(0, 50)) expect(table.get(key)).toEqual(new Uint8Array(value));
  });
});
