import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DeriveError, DroppedInputError } from "../errors.js";
import { BLOB_SIZE, InvalidBlobError, MAX_BLOB_DATA_SIZE, decodeBlob, encodeBlob } from "./codec.js";

const latin1 = (s: string): Uint8Array => Uint8Array.from(s, (c) => c.charCodeAt(0));
/** A blob whose first bytes are `prefix` and the rest zero (op-node's `copy(b[:], input)` on a cleared blob). */
function blobWithPrefix(prefix: Uint8Array | string): Uint8Array {
  const blob = new Uint8Array(BLOB_SIZE);
  blob.set(typeof prefix === "string" ? latin1(prefix) : prefix);
  return blob;
}
function refusal(blob: Uint8Array): InvalidBlobError {
  try {
    decodeBlob(blob);
  } catch (e) {
    expect(e).toBeInstanceOf(InvalidBlobError);
    expect(e).toBeInstanceOf(DroppedInputError);
    const err = e as InvalidBlobError;
    expect(err.kind).toBe("dropped");
    expect(err.stage).toBe("blob");
    return err;
  }
  throw new Error("blob decoded but should have been refused");
}
/** Byte equality without vitest's element-by-element deep equality (slow on 128 KiB arrays). */
function expectBytes(actual: Uint8Array, expected: Uint8Array): void {
  if (Buffer.from(actual.buffer, actual.byteOffset, actual.length).equals(expected)) return;
  let i = 0;
  while (i < actual.length && i < expected.length && actual[i] === expected[i]) i++;
  expect({ length: actual.length, firstDifference: i }).toEqual({
    length: expected.length,
    firstDifference: -1,
  });
}
/** A deterministic pseudo-random byte source (op-node seeds math/rand with 99; we only need "random-looking"). */
function pseudoRandomBytes(n: number, seed: number): Uint8Array {
  const out = new Uint8Array(n);
  let s = seed >>> 0;
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out[i] = s >>> 24;
  }
  return out;
}

// Vectors from ethereum-optimism/optimism, op-service/eth/blob_test.go @ 03d8e654df991274cfb007b0ab7b1e9b384d8ff2
// (TestBlobEncodeDecode, TestSmallBlobEncoding, TestBigBlobEncoding, TestInvalidBlobDecoding, TestTooLongDataEncoding,
// TestDecodeTestVectors, TestEncodeTestVectors, TestExtraneousData).
describe("blob codec: op-node's blob_test.go vectors", () => {
  it("TestBlobEncodeDecode: round trips", () => {
    const cases = [
      "this is a test of blob encoding/decoding",
      "short",
      "\x00",
      "\x00\x01\x00",
      "\x00".repeat(27),
      "\x00".repeat(26),
      "\x00".repeat(25),
      "",
    ];
    for (const c of cases) {
      const data = latin1(c);
      expectBytes(decodeBlob(encodeBlob(data)), data);
    }
  });

  it("TestSmallBlobEncoding", () => {
    for (const [size, last] of [
      [128, 127], // the first round is filled and no data remains
      [10, 9], // only 10 bytes of data
      [27 + 31 * 3, 27 + 31 * 3 - 1], // no 3 extra bytes left after the first 4 field elements
    ] as const) {
      const data = new Uint8Array(size);
      data[last] = 0xff;
      expectBytes(decodeBlob(encodeBlob(data)), data);
    }
  });

  it("TestBigBlobEncoding: the maximum size, then 255 progressively shorter inputs", () => {
    const big = pseudoRandomBytes(MAX_BLOB_DATA_SIZE, 99);
    expectBytes(decodeBlob(encodeBlob(big)), big);
    for (let i = 1; i < 256; i++) {
      const data = big.subarray(i);
      const decoded = decodeBlob(encodeBlob(data));
      expect(decoded.length).toBe(data.length);
      expectBytes(decoded, data);
    }
  });

  it("TestInvalidBlobDecoding", () => {
    const blob = encodeBlob(latin1("this is a test of invalid blob decoding"));
    blob[32] = 0b1000_0000; // field elements never have their highest bit set
    expect(refusal(blob).reason).toBe("field-element");
    blob[32] = 0b0100_0000; // nor their second highest
    const err = refusal(blob);
    expect(err.reason).toBe("field-element");
    expect(err.offset).toBe(32);
    blob[32] = 0;
    blob[1] = 0x01; // invalid encoding version
    expect(refusal(blob).reason).toBe("version");
    blob[1] = 0;
    blob[2] = 0xff; // a much too long length
    expect(refusal(blob).reason).toBe("length");
  });

  it("TestTooLongDataEncoding: a blob's worth of data never fits", () => {
    expect(() => encodeBlob(new Uint8Array(BLOB_SIZE))).toThrow(InvalidBlobError);
  });

  it("TestDecodeTestVectors", () => {
    const ok: [string, string][] = [
      ["", ""], // an empty blob has version 0 and length 0: valid, decodes to empty output
      ["\x00\x00\x00\x00\x01", "\x00"], // len 1: one zero byte
      ["\x00\x00\x01\xFB\xFC", "\x00".repeat(130044)], // len 130044, max capacity
      ["\x00\x00\x00\x00\x0a\x00\x00\x00\x00\x00\x00\x00\x00\x00\xff", "\x00".repeat(9) + "\xff"], // len 10
      ["\x00\x00\x00\x00\x1b" + "\xff".repeat(27), "\xff".repeat(27)], // 27 0xff bytes
      ["\x3f\x00\x00\x00\x20" + "\xff".repeat(27) + "\x30\xff\xff\xff\xff", "\xff".repeat(32)], // 32 0xff bytes
    ];
    for (const [input, output] of ok) {
      const decoded = decodeBlob(blobWithPrefix(input));
      expect(decoded.length).toBe(output.length);
      expectBytes(decoded, latin1(output));
    }
    // len 130045 (0x01FBFD), above capacity
    expect(refusal(blobWithPrefix("\x00\x00\x01\xFB\xFD")).reason).toBe("length");
  });

  it("TestEncodeTestVectors", () => {
    const cases: [Uint8Array, string][] = [
      [new Uint8Array(0), ""], // empty data: the all-zero blob
      [new Uint8Array(MAX_BLOB_DATA_SIZE), "\x00\x00\x01\xfb\xfc"], // max input
      [latin1("\xff".repeat(27)), "\x00\x00\x00\x00\x1b" + "\xff".repeat(27)], // fits the first element
      [latin1("\xff".repeat(28)), "\x3f\x00\x00\x00\x1c" + "\xff".repeat(27) + "\x30"], // spills into top bytes
    ];
    for (const [input, output] of cases) expectBytes(encodeBlob(input), blobWithPrefix(output));
    const err = (() => {
      try {
        encodeBlob(new Uint8Array(MAX_BLOB_DATA_SIZE + 1));
      } catch (e) {
        return e as InvalidBlobError;
      }
      throw new Error("not refused");
    })();
    expect(err).toBeInstanceOf(DeriveError);
    expect(err.reason).toBe("too-large");
  });

  it("TestExtraneousData: non-zero bits past the length are refused", () => {
    // a zero-length blob with non-zero bits in element 0's top byte, or in byte 0 (both decode into data bytes)
    expect(refusal(blobWithPrefix("\x30\x00\x00\x00\x00")).reason).toBe("trailing-data");
    expect(refusal(blobWithPrefix("\x01\x00\x00\x00\x00")).reason).toBe("trailing-data");
    // a single non-zero byte anywhere after the length field
    const blob = new Uint8Array(BLOB_SIZE);
    let i = 5;
    for (; i < 128; i++) {
      blob[i - 1] = 0;
      blob[i] = 0x01;
      const err = refusal(blob);
      expect(err.reason).toBe("trailing-data");
      expect(err.offset).toBe(i);
    }
    for (; i < BLOB_SIZE; i += 7) {
      blob.fill(0, i - 7, i);
      blob[i] = 1;
      const err = refusal(blob);
      expect(err.reason).toBe("trailing-data");
      expect(err.offset).toBe(i);
    }
  });
});

describe("blob codec: our own rules", () => {
  it("refuses a blob of the wrong size", () => {
    expect(refusal(new Uint8Array(BLOB_SIZE - 1)).reason).toBe("size");
    expect(refusal(new Uint8Array(BLOB_SIZE + 1)).reason).toBe("size");
    expect(refusal(new Uint8Array(0)).reason).toBe("size");
  });

  it("checks the top bits of every decoded field element, in every round", () => {
    const data = pseudoRandomBytes(5000, 7);
    const blob = encodeBlob(data);
    for (const element of [1, 2, 3, 4, 5, 38, 39]) {
      const copy = blob.slice();
      copy[element * 32]! |= 0x80;
      const err = refusal(copy);
      expect(err.reason).toBe("field-element");
      expect(err.details).toMatchObject({ fieldElement: element });
    }
    // elements past the data are covered by the "all zero" rule
    const copy = blob.slice();
    copy[200 * 32] = 0x40;
    expect(refusal(copy).reason).toBe("trailing-data");
  });

  it("ignores the top two bits of the very first byte, as op-node and kona do", () => {
    const data = latin1("consensus compatible");
    const blob = encodeBlob(data);
    for (const top of [0x40, 0x80, 0xc0]) {
      const copy = blob.slice();
      copy[0]! |= top;
      expectBytes(decodeBlob(copy), data);
    }
  });

  it("refuses non-zero data between the length and the end of the last decoded round", () => {
    const blob = encodeBlob(new Uint8Array(200)); // two rounds: stream bytes 204..253 must be zero
    blob[128 + 127] = 1; // the last byte of round 1
    expect(refusal(blob)).toMatchObject({ reason: "trailing-data", offset: 255 });
    const viaTopByte = encodeBlob(new Uint8Array(200));
    viaTopByte[128 + 96] = 0x01; // D of round 1 carries y's high nibble; y is stream byte 127 + 63, a data byte
    expect(decodeBlob(viaTopByte)[127 + 63 - 4]).toBe(0x10);
    const pastLength = encodeBlob(new Uint8Array(100)); // one round; stream bytes 104..126 must be zero
    pastLength[64] = 0x01; // C carries z = stream byte 95 < 104: data
    expect(decodeBlob(pastLength)[95 - 4]).toBe(0x01);
    const zeroLength = encodeBlob(new Uint8Array(0));
    zeroLength[96] = 0x10; // D: z's high bits, stream byte 95, past a zero length
    expect(refusal(zeroLength)).toMatchObject({ reason: "trailing-data", offset: 96 });
  });

  it("round trips any data (fast-check)", () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 0, maxLength: MAX_BLOB_DATA_SIZE }), (data) => {
        expectBytes(decodeBlob(encodeBlob(data)), data);
      }),
      { numRuns: 60 },
    );
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 0, maxLength: 600 }), (data) => {
        expectBytes(decodeBlob(encodeBlob(data)), data);
      }),
      { numRuns: 400 },
    );
  });

  it("random corruption never crashes and never decodes to data whose encoding is another blob", () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 0, maxLength: 3000 }),
        fc.array(fc.tuple(fc.nat(BLOB_SIZE - 1), fc.integer({ min: 1, max: 255 })), {
          minLength: 1,
          maxLength: 4,
        }),
        (data, flips) => {
          const blob = encodeBlob(data);
          for (const [at, mask] of flips) blob[at]! ^= mask;
          let decoded: Uint8Array;
          try {
            decoded = decodeBlob(blob);
          } catch (e) {
            expect(e).toBeInstanceOf(InvalidBlobError);
            return;
          }
          // Whatever decodes is exactly what the (corrupted) blob encodes: decoding is injective, so a corruption
          // can only ever yield data that a batcher could have posted as this very blob. The one tolerated
          // difference is the top two bits of byte 0, which op-node ignores.
          const expected = blob.slice();
          expected[0]! &= 0x3f;
          expectBytes(encodeBlob(decoded), expected);
        },
      ),
      { numRuns: 3000 },
    );
  });
});
