/**
 * The honest Prove request of the recorded conformance witness (conformance/fixtures), laid out field by field so a
 * mutation can aim at one field: the variant tag, the preimage count, and per preimage its 31 key data bytes, its
 * key type tag (the wire carries the 32-byte key's type byte after its data, as a variant index), its value's
 * length prefix and its value bytes. Payload-level edits keep the frame's length prefix
 * honest (the payload is what changes); `frameOf` frames a payload in either length-prefix form.
 */
import { recordedWitness } from "../../conformance/fixture.js";
import {
  BincodeReader,
  BincodeWriter,
  encodePreimage,
  encodeRequest,
  type Preimage,
  type PreimageKeyType,
  preimageKeyTypeFromDiscriminant,
  readPreimageKey,
} from "../../generated/protocol/index.js";
import { type FrameLengthPrefix, pairedMessageForm } from "../../src/proof/transport/index.js";

/** One preimage's place in the payload: [start, end) of each part. */
export interface EntryLayout {
  readonly start: number;
  /** The key type tag's offset (start + 31: after the key's 31 data bytes). */
  readonly typeAt: number;
  readonly lengthAt: number;
  readonly valueAt: number;
  readonly end: number;
  readonly keyType: PreimageKeyType;
  /** For local keys: the boot information index (last 8 bytes of the key). */
  readonly localIndex?: number;
}

export interface ProveLayout {
  readonly payload: Uint8Array;
  readonly preimages: readonly Preimage[];
  /** The count's varint: [countAt, entriesAt). */
  readonly countAt: number;
  readonly entriesAt: number;
  readonly entries: readonly EntryLayout[];
}

/** Walks an encoded Prove payload (both message forms encode Prove the same way: tag 0, then the vector). */
export function layoutOf(payload: Uint8Array, preimages: readonly Preimage[]): ProveLayout {
  const r = new BincodeReader(payload);
  r.variant();
  const countAt = r.position;
  const count = r.length64(33, "preimages");
  const entriesAt = r.position;
  const entries: EntryLayout[] = [];
  for (let i = 0; i < count; i++) {
    const start = r.position;
    const key = readPreimageKey(r);
    const lengthAt = r.position;
    const length = Number(r.varint(64));
    const valueAt = r.position;
    r.raw(length);
    const keyType = preimageKeyTypeFromDiscriminant(key[0]!)!;
    const localIndex =
      keyType === "Local"
        ? Number(new DataView(key.buffer, key.byteOffset + 24, 8).getBigUint64(0, false))
        : undefined;
    entries.push({
      start,
      typeAt: start + 31,
      lengthAt,
      valueAt,
      end: r.position,
      keyType,
      ...(localIndex === undefined ? {} : { localIndex }),
    });
  }
  r.end();
  return { payload, preimages, countAt, entriesAt, entries };
}

let cached: ProveLayout | undefined;

/** The recorded witness's honest Prove payload and its layout (built once per process). */
export function honestProve(): ProveLayout {
  if (cached === undefined) {
    const preimages = recordedWitness().preimages;
    cached = layoutOf(encodeRequest({ kind: "Prove", preimages }), preimages);
  }
  return cached;
}

/** A u64 varint as bincode writes it. */
export function varint(value: bigint): Uint8Array {
  const w = new BincodeWriter();
  w.varint(value, 64);
  return w.finish();
}

/** A Prove payload from raw entry bytes and an announced count (which need not match). */
export function provePayload(count: bigint, entries: readonly Uint8Array[]): Uint8Array {
  return concat([Uint8Array.of(0), varint(count), ...entries]);
}

/** The entries of `layout` as raw byte slices (views into its payload). */
export function entryBytes(layout: ProveLayout): Uint8Array[] {
  return layout.entries.map((e) => layout.payload.subarray(e.start, e.end));
}

export function encodeEntry(preimage: Preimage): Uint8Array {
  return encodePreimage(preimage);
}

export function concat(parts: readonly Uint8Array[]): Uint8Array {
  return new Uint8Array(Buffer.concat(parts));
}

/** `payload` behind a length prefix of `prefix` bytes announcing `announced` (default: its true length). */
export function frameOf(
  payload: Uint8Array,
  prefix: FrameLengthPrefix,
  announced: bigint = BigInt(payload.length),
): Uint8Array {
  const frame = new Uint8Array(prefix + payload.length);
  const view = new DataView(frame.buffer);
  if (prefix === 4) view.setUint32(0, Number(announced), false);
  else view.setBigUint64(0, announced, false);
  frame.set(payload, prefix);
  return frame;
}

/** The message form the enclave answers a Prove frame of each frame form in (Base's for 8-byte frames). */
export const formOf = pairedMessageForm;
