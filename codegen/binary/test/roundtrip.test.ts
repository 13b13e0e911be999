/** fast-check round trips for every protocol message and the journal. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { journalLength, packJournal, unpackJournal, type Journal } from "../../../generated/journal/index.js";
import {
  BincodeDecodeError,
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
  PREIMAGE_KEY_TYPE_VARIANTS,
  type PreimageKey,
  type ProofResult,
  type Proposal,
  type Request,
  type Response,
} from "../../../generated/protocol/index.js";

const u64 = fc.bigInt({ min: 0n, max: (1n << 64n) - 1n });
const b256 = fc.uint8Array({ minLength: 32, maxLength: 32 });
const bytesArb = fc.uint8Array({ maxLength: 400 });

const preimageKey: fc.Arbitrary<PreimageKey> = fc.record({
  data: fc.uint8Array({ minLength: 31, maxLength: 31 }),
  key_type: fc.constantFrom(...PREIMAGE_KEY_TYPE_VARIANTS),
});

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
