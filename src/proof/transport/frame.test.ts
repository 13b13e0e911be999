import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  decodeRequestPayload,
  encodeRequest,
  encodeRequestFrame,
  FrameError,
  FrameTooLargeError,
  MAX_REQUEST_PAYLOAD_BYTES,
  type Preimage,
  type Request,
} from "../../../generated/protocol/index.js";
import {
  encodeFrame,
  encodeRequestFrameWith,
  LengthPrefixedFrameReader,
  parseFrameLengthPrefix,
} from "./frame.js";

const request: Request = { kind: "SignerAttestation", user_data: new Uint8Array([1, 2, 3]), nonce: null };
const payload = encodeRequest(request);

/** Feeds `bytes` one byte at a time (the worst split a stream can deliver); returns the payload if complete. */
function byteByByte(reader: LengthPrefixedFrameReader, bytes: Uint8Array): Uint8Array | undefined {
  let out: Uint8Array | undefined;
  for (let i = 0; i < bytes.length; i++) out = reader.push(bytes.subarray(i, i + 1)) ?? out;
  return out;
}

function prefixOnly(width: 4 | 8, length: bigint): Uint8Array {
  const out = new Uint8Array(width);
  const view = new DataView(out.buffer);
  if (width === 4) view.setUint32(0, Number(length), false);
  else view.setBigUint64(0, length, false);
  return out;
}

describe("request frames encoded in place", () => {
  const preimage: fc.Arbitrary<Preimage> = fc
    .tuple(
      fc.constantFrom(1, 2, 3, 4),
      fc.uint8Array({ minLength: 31, maxLength: 31 }),
      fc.oneof(fc.uint8Array({ maxLength: 300 }), fc.uint8Array({ minLength: 60_000, maxLength: 70_000 })),
    )
    .map(([type, rest, value]): Preimage => [Uint8Array.of(type, ...rest), value]);
  const anyRequest: fc.Arbitrary<Request> = fc.oneof(
    fc.array(preimage, { maxLength: 12 }).map((preimages): Request => ({ kind: "Prove", preimages })),
    fc.constant<Request>({ kind: "SignerPublicKey" }),
    fc.constant<Request>(request),
  );

  it("gives the bytes of the encoded payload framed, in both prefixes and both forms, allocated once (property)", () => {
    fc.assert(
      fc.property(
        anyRequest,
        fc.constantFrom(4 as const, 8 as const),
        fc.constantFrom("spec" as const, "base" as const),
        (r, prefix, form) => {
          const frame = encodeRequestFrameWith(r, prefix, form);
          // Compared as one buffer: toEqual walks ~800 KB frames element by element (tens of seconds a run).
          const expected = encodeFrame(encodeRequest(r, form), prefix, MAX_REQUEST_PAYLOAD_BYTES);
          expect(
            Buffer.from(frame.buffer, frame.byteOffset, frame.byteLength).equals(expected),
            "frame bytes",
          ).toBe(true);
          // A Prove's buffer was sized from its preimages up front: never grown past the bound.
          if (r.kind === "Prove") {
            const bound = prefix + 16 + r.preimages.reduce((n, [, v]) => n + 45 + v.length, 0);
            expect(frame.buffer.byteLength).toBe(bound);
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe("frame length prefixes", () => {
  it("writes the 4-byte form exactly as the spec's generated encoder does", () => {
    expect(encodeRequestFrameWith(request, 4)).toEqual(encodeRequestFrame(request));
  });

  it("writes the 8-byte form as a big-endian u64 length then the payload in the message form given", () => {
    for (const form of ["spec", "base"] as const) {
      const frame = encodeRequestFrameWith(request, 8, form);
      const formPayload = encodeRequest(request, form);
      expect(Array.from(frame.subarray(0, 8))).toEqual([0, 0, 0, 0, 0, 0, 0, formPayload.length]);
      expect(frame.subarray(8)).toEqual(formPayload);
    }
    // The spec's messages unless told otherwise, whatever the frame.
    expect(encodeRequestFrameWith(request, 8).subarray(8)).toEqual(payload);
    // SignerAttestation is Base's request 3 (TeeImageHash is its 2), the spec's 2.
    expect([encodeRequest(request, "base")[0], payload[0]]).toEqual([3, 2]);
  });

  for (const width of [4, 8] as const) {
    it(`reads a ${width}-byte frame in its fixed form and when detecting, split at every byte`, () => {
      const frame = encodeRequestFrameWith(request, width);
      for (const form of [width, "detect"] as const) {
        const reader = new LengthPrefixedFrameReader({ form, maxPayloadBytes: 1 << 20 });
        const read = byteByByte(reader, frame);
        expect(read).toEqual(payload);
        expect(decodeRequestPayload(read!)).toEqual(request);
        expect(reader.lengthPrefix).toBe(width);
        expect(() => reader.finish()).not.toThrow();
      }
    });

    it(`refuses a ${width}-byte prefix over the cap before any payload byte, and never calls admit`, () => {
      let admitted = 0;
      const reader = new LengthPrefixedFrameReader({
        form: "detect",
        maxPayloadBytes: 1000,
        admit: () => admitted++,
      });
      expect(() => reader.push(prefixOnly(width, 1001n))).toThrow(FrameTooLargeError);
      expect(admitted).toBe(0);
    });

    it(`passes a ${width}-byte announced length to admit before the payload, which may refuse it`, () => {
      const seen: number[] = [];
      const reader = new LengthPrefixedFrameReader({
        form: "detect",
        maxPayloadBytes: 1 << 20,
        admit: (length) => {
          seen.push(length);
          throw new Error("over budget");
        },
      });
      expect(() => reader.push(prefixOnly(width, 500n))).toThrow("over budget");
      expect(seen).toEqual([500]);
    });

    it(`refuses a zero-length ${width}-byte frame`, () => {
      const reader = new LengthPrefixedFrameReader({ form: width, maxPayloadBytes: 1 << 20 });
      expect(() => reader.push(prefixOnly(width, 0n))).toThrow(/zero-length/);
      expect(() => encodeFrame(new Uint8Array(0), width, 10)).toThrow(FrameError);
    });

    it(`refuses bytes after a complete ${width}-byte frame and a stream ending inside one`, () => {
      const frame = encodeRequestFrameWith(request, width);
      const after = new LengthPrefixedFrameReader({ form: width, maxPayloadBytes: 1 << 20 });
      expect(() => after.push(new Uint8Array([...frame, 0]))).toThrow(/after the end of the frame/);
      const early = new LengthPrefixedFrameReader({ form: width, maxPayloadBytes: 1 << 20 });
      early.push(frame.subarray(0, frame.length - 1));
      expect(() => early.finish()).toThrow(/stream ended inside a frame/);
    });
  }

  it("a detecting reader takes four zero bytes as the start of an 8-byte prefix (no 4-byte frame is empty)", () => {
    const reader = new LengthPrefixedFrameReader({ form: "detect", maxPayloadBytes: 1 << 20 });
    expect(reader.push(new Uint8Array(4))).toBeUndefined();
    expect(reader.lengthPrefix).toBe(8);
    expect(() => reader.finish()).toThrow(/4 of 8 prefix bytes/);
  });

  it("refuses 8-byte lengths far past 2^53 without losing them to float rounding", () => {
    const reader = new LengthPrefixedFrameReader({ form: 8, maxPayloadBytes: 1 << 30 });
    expect(() => reader.push(prefixOnly(8, 0xffff_ffff_ffff_ffffn))).toThrow(FrameTooLargeError);
    const justOver = new LengthPrefixedFrameReader({ form: 8, maxPayloadBytes: 1 << 30 });
    expect(() => justOver.push(prefixOnly(8, (1n << 30n) + 1n))).toThrow(FrameTooLargeError);
  });

  it("a fixed 4-byte reader does not detect: four zero bytes are a refused zero length", () => {
    const reader = new LengthPrefixedFrameReader({ form: 4, maxPayloadBytes: 1 << 20 });
    expect(() => reader.push(encodeRequestFrameWith(request, 8))).toThrow(/zero-length/);
  });

  it("parses only 4 and 8", () => {
    expect(parseFrameLengthPrefix("4")).toBe(4);
    expect(parseFrameLengthPrefix(" 8 ")).toBe(8);
    for (const bad of ["", "2", "16", "8x", "0x8"]) expect(parseFrameLengthPrefix(bad)).toBeUndefined();
  });
});
