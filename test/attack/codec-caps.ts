/**
 * Frames at every cap of the host-enclave codec, in both length-prefix forms: length prefixes at and past the
 * request cap (MAX_REQUEST_PAYLOAD_BYTES), a Prove count at and past the preimage table's cap
 * (MAX_PROVE_PREIMAGES) and the codec's vector cap, value lengths announcing more than the payload holds, a
 * non-canonical varint, SignerAttestation fields at and past their 512-byte caps, and (optionally) a real frame of
 * MAX_PROVE_PREIMAGES empty preimages (~69 MB). Each is sent on its own connection; the answers are classified as
 * the mutations' are (./enclave-attack.ts), and a SignerAttestation at its caps must be answered.
 */
import { encodeRequest, MAX_REQUEST_PAYLOAD_BYTES } from "../../generated/protocol/index.js";
import { MAX_PROVE_PREIMAGES } from "../../src/proof/preimages/index.js";
import type { FrameLengthPrefix, ListenAddress } from "../../src/proof/transport/index.js";
import { classify, type SentFrame } from "./enclave-attack.js";
import type { Mutation } from "./mutations.js";
import { concat, frameOf, honestProve, provePayload, varint } from "./prove-frame.js";

/** The Prove vector's cap in the generated codec (spec/: Request::Prove.preimages). */
const CODEC_VECTOR_CAP = 4_194_304n;
const ATTESTATION_FIELD_CAP = 512;

export interface CapFrame {
  readonly name: string;
  readonly mutation: Mutation;
  /** What a correct enclave does: refuse (an Error or a close), or answer (the request is within its caps). */
  readonly expect: "refuse" | "answer";
}

const prefixOnly = (prefix: FrameLengthPrefix, announced: bigint): Uint8Array =>
  frameOf(new Uint8Array(0), prefix, announced);

function frame(
  name: string,
  bytes: Uint8Array,
  prefix: FrameLengthPrefix,
  expect: CapFrame["expect"] = "refuse",
): CapFrame {
  return { name, expect, mutation: { kind: name, frame: bytes, prefix, endInput: true } };
}

function attestation(userData: number, nonce: number): Uint8Array {
  return encodeRequest({
    kind: "SignerAttestation",
    user_data: new Uint8Array(userData).fill(0x5a),
    nonce: new Uint8Array(nonce).fill(0xa5),
  });
}

/** A Prove payload of `count` preimages with empty values under distinct keccak256 keys (content that lies). */
function emptyValuesPayload(count: number): Uint8Array {
  const entry = new Uint8Array(33);
  entry[31] = 1; // key type: Keccak256; the value's length (the last byte) stays 0
  const entries = new Uint8Array(count * 33);
  for (let i = 0; i < count; i++) {
    new DataView(entry.buffer).setUint32(0, i, false);
    entries.set(entry, i * 33);
  }
  return concat([Uint8Array.of(0), varint(BigInt(count)), entries]);
}

/** The cap frames; `huge` adds the real ~69 MB frame at the preimage table's cap. */
export function capFrames(options: { readonly huge: boolean }): CapFrame[] {
  const cap = BigInt(MAX_REQUEST_PAYLOAD_BYTES);
  const honest = honestProve();
  const entry = honest.payload.subarray(honest.entriesAt, honest.entries[0]!.end);
  const frames: CapFrame[] = [];
  for (const prefix of [4, 8] as const) {
    const form = `${prefix}-byte prefix`;
    frames.push(
      frame(`${form}: announces the request cap, sends nothing`, prefixOnly(prefix, cap), prefix),
      frame(`${form}: announces the cap + 1`, prefixOnly(prefix, cap + 1n), prefix),
      frame(`${form}: announces u32 max`, prefixOnly(prefix, 0xffff_ffffn), prefix),
      frame(
        `${form}: Prove count at the table cap, no entries`,
        frameOf(provePayload(BigInt(MAX_PROVE_PREIMAGES), []), prefix),
        prefix,
      ),
      frame(
        `${form}: Prove count past the table cap, one entry`,
        frameOf(provePayload(BigInt(MAX_PROVE_PREIMAGES) + 1n, [entry]), prefix),
        prefix,
      ),
      frame(
        `${form}: Prove count at the codec cap`,
        frameOf(provePayload(CODEC_VECTOR_CAP, [entry]), prefix),
        prefix,
      ),
      frame(
        `${form}: Prove count past the codec cap`,
        frameOf(provePayload(CODEC_VECTOR_CAP + 1n, [entry]), prefix),
        prefix,
      ),
      frame(
        `${form}: value length announcing u64 max`,
        frameOf(
          concat([Uint8Array.of(0), varint(1n), entry.subarray(0, 32), varint((1n << 64n) - 1n)]),
          prefix,
        ),
        prefix,
      ),
      frame(
        `${form}: non-canonical count varint`,
        frameOf(concat([Uint8Array.of(0, 0xfb, 1, 0), entry]), prefix),
        prefix,
      ),
      frame(
        `${form}: SignerAttestation fields at their caps`,
        frameOf(attestationPayload(prefix, ATTESTATION_FIELD_CAP, ATTESTATION_FIELD_CAP), prefix),
        prefix,
        "answer",
      ),
      frame(
        `${form}: SignerAttestation user data past its cap`,
        frameOf(attestationPayload(prefix, ATTESTATION_FIELD_CAP + 1, 0), prefix),
        prefix,
      ),
      frame(
        `${form}: SignerAttestation nonce past its cap`,
        frameOf(attestationPayload(prefix, 0, ATTESTATION_FIELD_CAP + 1), prefix),
        prefix,
      ),
    );
  }
  // 8-byte prefixes announcing 4 GiB and more: the first four bytes are not zero, so the enclave reads the first
  // four as a 4-byte prefix (announcing at least 1) and the rest as payload.
  frames.push(frame("8-byte prefix: announces 2^40", prefixOnly(8, 1n << 40n), 8));
  frames.push(frame("8-byte prefix: announces u64 max", prefixOnly(8, (1n << 64n) - 1n), 8));
  if (options.huge) {
    frames.push(
      frame(
        `4-byte prefix: a real frame of ${MAX_PROVE_PREIMAGES} empty preimages`,
        frameOf(emptyValuesPayload(MAX_PROVE_PREIMAGES), 4),
        4,
      ),
    );
  }
  return frames;
}

/** The attestation request in the message form of `prefix` (the two forms number its variant differently). */
function attestationPayload(prefix: FrameLengthPrefix, userData: number, nonce: number): Uint8Array {
  const payload = attestation(
    Math.min(userData, ATTESTATION_FIELD_CAP),
    Math.min(nonce, ATTESTATION_FIELD_CAP),
  );
  const out = prefix === 8 ? Uint8Array.from(payload, (b, i) => (i === 0 ? 3 : b)) : payload;
  if (userData <= ATTESTATION_FIELD_CAP && nonce <= ATTESTATION_FIELD_CAP) return out;
  // Past a cap: rewrite the field with one more byte than the encoder allows.
  const tag = out.subarray(0, 1);
  const field = (length: number) =>
    length === 0
      ? Uint8Array.of(0)
      : concat([Uint8Array.of(1), varint(BigInt(length)), new Uint8Array(length)]);
  return concat([tag, field(userData), field(nonce)]);
}

export interface CapResult {
  readonly name: string;
  readonly expect: CapFrame["expect"];
  readonly result: SentFrame;
  readonly millis: number;
  /** Refused when a refusal was expected, answered (not an Error, not a Prove) when an answer was. */
  readonly ok: boolean;
}

/** Sends every cap frame, one connection each, in order. */
export async function runCapFrames(
  address: ListenAddress,
  frames: readonly CapFrame[],
  honest: Record<FrameLengthPrefix, Uint8Array>,
  timeoutMs: number,
): Promise<CapResult[]> {
  const results: CapResult[] = [];
  for (const capFrame of frames) {
    const started = Date.now();
    const result = await classify(address, capFrame.mutation, honest, timeoutMs);
    const refused = result.outcome === "refused" || result.outcome === "closed";
    const ok = capFrame.expect === "refuse" ? refused : result.outcome === "answered";
    results.push({ name: capFrame.name, expect: capFrame.expect, result, millis: Date.now() - started, ok });
  }
  return results;
}
