/** fast-check round trips for every protocol message and the journal. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { journalLength, packJournal, unpackJournal, type Journal } from "../../../generated/journal/index.js";
import {
  BincodeDecodeError,
  BincodeEncodeError,
  BincodeReader,
  decodePreimageKey,
  decodeProofResult,
  decodeProposal,
  decodeRequest,
  decodeResponse,
  encodePreimageKey,
  encodeProofResult,
  encodeProposal,
  encodeRequest,
  encodeResponse,
  PREIMAGE_KEY_LENGTH,
  PREIMAGE_KEY_TYPE_DISCRIMINANTS,
  PREIMAGE_KEY_TYPE_VARIANTS,
  type PreimageKey,
  type ProofResult,
  type Proposal,
  type Request,
  readPreimageKeyInto,
  type Response,
} from "../../../generated/protocol/index.js";

const u64 = fc.bigInt({ min: 0n, max: (1n << 64n) - 1n });
const b256 = fc.uint8Array({ minLength: 32, maxLength: 32 });
const bytesArb = fc.uint8Array({ maxLength: 400 });

/** Any 32-byte key whose first byte is a key type's discriminant (1-6). */
const preimageKey: fc.Arbitrary<PreimageKey> = fc
  .tuple(
    fc.constantFrom(...PREIMAGE_KEY_TYPE_VARIANTS.map((t) => PREIMAGE_KEY_TYPE_DISCRIMINANTS[t])),
    fc.uint8Array({ minLength: 31, maxLength: 31 }),
  )
  .map(([type, data]) => Uint8Array.of(type, ...data));

const proposal: fc.Arbitrary<Proposal> = fc.record({
  output_root: b256,
  signature: fc.uint8Array({ minLength: 0, maxLength: 70 }),
  l1_origin_hash: b256,
  l1_origin_number: u64,
  l2_block_number: u64,
  prev_output_root: b256,
  config_hash: b256,
});

const proofResult: fc.Arbitrary<ProofResult> = fc.record({
  Tee: fc.record({ aggregate_proposal: proposal, proposals: fc.array(proposal, { maxLength: 5 }) }),
});

const request: fc.Arbitrary<Request> = fc.oneof(
  fc.record({
    kind: fc.constant("Prove" as const),
    preimages: fc.array(fc.tuple(preimageKey, bytesArb), { maxLength: 6 }),
  }),
  fc.constant({ kind: "SignerPublicKey" as const }),
  fc.record({
    kind: fc.constant("SignerAttestation" as const),
    user_data: fc.option(bytesArb, { nil: null }),
    nonce: fc.option(bytesArb, { nil: null }),
  }),
);

const response: fc.Arbitrary<Response> = fc.oneof(
  fc.record({ kind: fc.constant("Prove" as const), result: proofResult }),
  fc.record({ kind: fc.constant("SignerPublicKey" as const), public_key: bytesArb }),
  fc.record({
    kind: fc.constant("SignerAttestation" as const),
    document: fc.uint8Array({ maxLength: 5000 }),
  }),
  fc.record({ kind: fc.constant("Error" as const), message: fc.string({ unit: "grapheme", maxLength: 80 }) }),
);

function roundTrips<T>(
  arb: fc.Arbitrary<T>,
  encode: (v: T) => Uint8Array,
  decode: (b: Uint8Array) => T,
  numRuns = 300,
): void {
  fc.assert(
    fc.property(arb, (value) => {
      const wire = encode(value);
      const back = decode(wire);
      expect(back).toEqual(value);
      expect(encode(back)).toEqual(wire);
    }),
    { numRuns },
  );
}

describe("bincode round trips", () => {
  it("PreimageKey", () => roundTrips(preimageKey, encodePreimageKey, decodePreimageKey));
  it("Proposal", () => roundTrips(proposal, encodeProposal, decodeProposal));
  it("ProofResult", () => roundTrips(proofResult, encodeProofResult, decodeProofResult, 80));
  it("Request", () => roundTrips(request, encodeRequest, decodeRequest));
  it("Response", () => roundTrips(response, encodeResponse, decodeResponse, 150));

  it("no strict prefix of an encoded message decodes", () => {
    fc.assert(
      fc.property(request, fc.nat(), (value, cutSeed) => {
        const wire = encodeRequest(value);
        const cut = cutSeed % wire.length;
        expect(() => decodeRequest(wire.subarray(0, cut))).toThrow();
      }),
      { numRuns: 300 },
    );
  });
});

describe("PreimageKey: the 32-byte key straight to and from the wire", () => {
  it("a key with a valid type byte encodes to its 31 data bytes then the type's variant index, and back", () => {
    fc.assert(
      fc.property(preimageKey, (key) => {
        const wire = encodePreimageKey(key);
        expect(wire.length).toBe(PREIMAGE_KEY_LENGTH);
        expect(wire.subarray(0, 31)).toEqual(key.subarray(1));
        expect(wire[31]).toBe(
          PREIMAGE_KEY_TYPE_VARIANTS.findIndex((t) => PREIMAGE_KEY_TYPE_DISCRIMINANTS[t] === key[0]),
        );
        const back = decodePreimageKey(wire);
        expect(back).toEqual(key);
        expect(encodePreimageKey(back)).toEqual(wire);
      }),
      { numRuns: 500 },
    );
  });

  it("readPreimageKeyInto writes the same 32 bytes at an offset, leaving the rest alone", () => {
    fc.assert(
      fc.property(preimageKey, fc.integer({ min: 0, max: 64 }), (key, at) => {
        const out = new Uint8Array(at + 32 + 8).fill(0xee);
        const r = new BincodeReader(encodePreimageKey(key));
        readPreimageKeyInto(r, out, at);
        r.end();
        expect(out.subarray(at, at + 32)).toEqual(key);
        expect(out.subarray(0, at).every((b) => b === 0xee)).toBe(true);
        expect(out.subarray(at + 32).every((b) => b === 0xee)).toBe(true);
      }),
      { numRuns: 200 },
    );
  });

  it("a key whose type byte is no key type is refused by the encoder", () => {
    const invalid = fc.integer({ min: 0, max: 255 }).filter((b) => b < 1 || b > 6);
    fc.assert(
      fc.property(invalid, fc.uint8Array({ minLength: 31, maxLength: 31 }), (type, data) => {
        expect(() => encodePreimageKey(Uint8Array.of(type, ...data))).toThrow(BincodeEncodeError);
        expect(() => encodePreimageKey(Uint8Array.of(type, ...data))).toThrow(
          `PreimageKey: unknown PreimageKeyType byte ${type}`,
        );
      }),
      { numRuns: 300 },
    );
  });

  it("a wire key whose variant index is no key type is refused by name by the decoder", () => {
    const invalid = fc.integer({ min: 6, max: 250 });
    fc.assert(
      fc.property(invalid, fc.uint8Array({ minLength: 31, maxLength: 31 }), (index, data) => {
        const wire = Uint8Array.of(...data, index);
        expect(() => decodePreimageKey(wire)).toThrow(BincodeDecodeError);
        expect(() => decodePreimageKey(wire)).toThrow(
          `PreimageKeyType: unknown variant index ${index} (at byte 31)`,
        );
      }),
      { numRuns: 300 },
    );
  });
});

describe("decoders on arbitrary bytes", () => {
  /** Either a value that re-encodes to the same bytes, or a BincodeDecodeError: never another exception. */
  function decodesOrRejects<T>(
    decode: (b: Uint8Array) => T,
    encode: (v: T) => Uint8Array,
    input: Uint8Array,
  ): void {
    let value: T;
    try {
      value = decode(input);
    } catch (error) {
      expect(error).toBeInstanceOf(BincodeDecodeError);
      return;
    }
    expect(encode(value)).toEqual(input);
  }

  const noise = fc.oneof(
    fc.uint8Array({ maxLength: 200 }),
    // Bytes that start like a real message, so the decoder gets past the variant index.
    fc
      .tuple(fc.constantFrom(0, 1, 2, 3), fc.uint8Array({ maxLength: 200 }))
      .map(([v, rest]) => Uint8Array.of(v, ...rest)),
  );

  it("Request", () => {
    fc.assert(
      fc.property(noise, (input) => decodesOrRejects(decodeRequest, encodeRequest, input)),
      { numRuns: 2000 },
    );
  });

  it("Response", () => {
    fc.assert(
      fc.property(noise, (input) => decodesOrRejects(decodeResponse, encodeResponse, input)),
      {
        numRuns: 2000,
      },
    );
  });

  it("mutations of valid messages", () => {
    fc.assert(
      fc.property(request, fc.nat(), fc.integer({ min: 0, max: 255 }), (value, at, byte) => {
        const wire = encodeRequest(value);
        const mutated = wire.slice();
        mutated[at % wire.length] = byte;
        decodesOrRejects(decodeRequest, encodeRequest, mutated);
      }),
      { numRuns: 1000 },
    );
  });
});

const journal: fc.Arbitrary<Journal> = fc.record({
  proposer: fc.uint8Array({ minLength: 20, maxLength: 20 }),
  l1OriginHash: b256,
  prevOutputRoot: b256,
  startingL2Block: u64,
  outputRoot: b256,
  endingL2Block: u64,
  intermediateRoots: fc.array(b256, { maxLength: 12 }),
  configHash: b256,
  teeImageHash: b256,
});

describe("journal round trip", () => {
  it("pack then unpack gives the journal back, at length 196 + 32*N", () => {
    fc.assert(
      fc.property(journal, (value) => {
        const packed = packJournal(value);
        expect(packed.length).toBe(196 + 32 * value.intermediateRoots.length);
        expect(packed.length).toBe(journalLength(value.intermediateRoots.length));
        expect(unpackJournal(packed)).toEqual(value);
      }),
      { numRuns: 300 },
    );
  });
});
