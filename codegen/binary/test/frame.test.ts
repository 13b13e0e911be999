/** Frames: 4-byte big-endian length prefix, capped before reading, one frame per connection, 28 KiB writes. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  decodeRequestPayload,
  encodeRequestFrame,
  encodeResponseFrame,
  FrameError,
  FrameReader,
  FrameTooLargeError,
  frameWriteChunks,
  MAX_REQUEST_PAYLOAD_BYTES,
  MAX_WRITE_CHUNK_BYTES,
  newRequestFrameReader,
  READ_TIMEOUT_MS,
} from "../../../generated/protocol/index.js";
import { bytes } from "./hex.js";

describe("frame constants from the spec", () => {
  it("28 KiB writes, 5-minute reads, 1 GiB request cap", () => {
    expect(MAX_WRITE_CHUNK_BYTES).toBe(28 * 1024);
    expect(READ_TIMEOUT_MS).toBe(5 * 60 * 1000);
    expect(MAX_REQUEST_PAYLOAD_BYTES).toBe(2 ** 30);
  });
});

describe("frame encoding (golden)", () => {
  it("SignerPublicKey request: length 1 big-endian, then the payload", () => {
    expect(encodeRequestFrame({ kind: "SignerPublicKey" })).toEqual(bytes("00000001", "01"));
  });

  it("Error response: length 6", () => {
    expect(encodeResponseFrame({ kind: "Error", message: "boom" })).toEqual(
      bytes("00000006", "03", "04", "626f6f6d"),
    );
  });

  it("a 300-byte prefix is big-endian", () => {
    const frame = encodeRequestFrame({
      kind: "SignerAttestation",
      user_data: new Uint8Array(294),
      nonce: null,
    });
    // payload: 02, 01, fb 2601 (294), 294 bytes, 00 = 300 bytes
    expect(frame.subarray(0, 4)).toEqual(bytes("0000012c"));
    expect(frame.length).toBe(304);
  });
});

describe("FrameReader", () => {
  it("reassembles a frame delivered in arbitrary pieces", () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 3000 }),
        fc.array(fc.integer({ min: 1, max: 700 }), { minLength: 1 }),
        (value, cuts) => {
          const request = {
            kind: "Prove" as const,
            preimages: [[Uint8Array.of(5, ...new Uint8Array(31)), value] as const],
          };
          const frame = encodeRequestFrame(request);
          const reader = newRequestFrameReader();
          let payload: Uint8Array | undefined;
          let at = 0;
          let i = 0;
          while (at < frame.length) {
            const size = cuts[i++ % cuts.length] as number;
            expect(payload).toBeUndefined();
            payload = reader.push(frame.subarray(at, at + size));
            at += size;
          }
          expect(payload).toBeDefined();
          reader.finish();
          expect(decodeRequestPayload(payload as Uint8Array)).toEqual(request);
        },
      ),
      { numRuns: 200 },
    );
  });

  it("refuses an oversized length as soon as the prefix is complete", () => {
    const reader = new FrameReader(1024);
    expect(reader.push(bytes("0000"))).toBeUndefined();
    expect(() => reader.push(bytes("0401"))).toThrow(FrameTooLargeError);
    const max = newRequestFrameReader();
    expect(() => max.push(bytes("ffffffff"))).toThrow(
      /frame length 4294967295 exceeds the maximum of 1073741824 bytes/,
    );
    expect(() => newRequestFrameReader().push(bytes("40000001"))).toThrow(FrameTooLargeError);
    expect(newRequestFrameReader().push(bytes("40000000"))).toBeUndefined();
  });

  it("asks `admit` about the announced length before keeping any payload byte", () => {
    const seen: number[] = [];
    const reader = newRequestFrameReader(undefined, (length) => {
      seen.push(length);
      if (length > 3) throw new FrameError("over budget");
    });
    expect(() => reader.push(bytes("00000004", "01"))).toThrow("over budget");
    expect(seen).toEqual([4]);
    const ok = newRequestFrameReader(undefined, (length) => seen.push(length));
    expect(ok.push(bytes("00000001", "01"))).toEqual(bytes("01"));
    expect(seen).toEqual([4, 1]);
  });

  it("assembles the payload in the array `allocate` makes, once every byte has arrived", () => {
    const asked: number[] = [];
    const reader = new FrameReader(1024, undefined, (length) => {
      asked.push(length);
      return new Uint8Array(new SharedArrayBuffer(length));
    });
    expect(reader.push(bytes("00000003", "01"))).toBeUndefined();
    expect(asked).toEqual([]);
    const payload = reader.push(bytes("0203"));
    expect(asked).toEqual([3]);
    expect(payload).toEqual(bytes("010203"));
    expect(payload?.buffer).toBeInstanceOf(SharedArrayBuffer);
    const wrong = new FrameReader(1024, undefined, () => new Uint8Array(2));
    expect(() => wrong.push(bytes("00000003", "010203"))).toThrow(
      "allocate gave 2 bytes for a 3-byte payload",
    );
  });

  it("a smaller cap can be configured, never a larger one", () => {
    expect(newRequestFrameReader(8).maxPayloadBytes).toBe(8);
    expect(newRequestFrameReader(2 ** 32).maxPayloadBytes).toBe(MAX_REQUEST_PAYLOAD_BYTES);
  });

  it("rejects bytes after the frame (one request per connection)", () => {
    const reader = newRequestFrameReader();
    expect(() => reader.push(bytes("00000001", "01", "00"))).toThrow(FrameError);
    const done = newRequestFrameReader();
    expect(done.push(bytes("00000001", "01"))).toEqual(bytes("01"));
    expect(() => done.push(bytes("00"))).toThrow(/after the end of the frame/);
  });

  it("reports a stream that ends inside a frame", () => {
    const empty = newRequestFrameReader();
    expect(() => empty.finish()).toThrow(/0 of 4 prefix bytes/);
    const partial = newRequestFrameReader();
    partial.push(bytes("00000005", "0102"));
    expect(() => partial.finish()).toThrow(/2 of 5 payload bytes/);
  });

  it("a zero-length frame completes immediately (and its empty payload does not decode)", () => {
    const reader = newRequestFrameReader();
    const payload = reader.push(bytes("00000000"));
    expect(payload).toEqual(new Uint8Array(0));
    expect(() => decodeRequestPayload(payload as Uint8Array)).toThrow(/truncated/);
  });
});

describe("write chunks", () => {
  it("split a frame into pieces of at most 28 KiB that concatenate back", () => {
    const frame = encodeRequestFrame({
      kind: "Prove",
      preimages: [[Uint8Array.of(1, ...new Uint8Array(31)), new Uint8Array(100_000).fill(7)]],
    });
    const chunks = frameWriteChunks(frame);
    expect(chunks.length).toBe(Math.ceil(frame.length / MAX_WRITE_CHUNK_BYTES));
    for (const chunk of chunks) expect(chunk.length).toBeLessThanOrEqual(MAX_WRITE_CHUNK_BYTES);
    expect(Buffer.concat(chunks)).toEqual(Buffer.from(frame));
  });
});
