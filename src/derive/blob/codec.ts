/**
 * The OP Stack blob encoding (version 0), specs/protocol/ecotone/derivation.md "Blob Encoding", with the semantics
 * of op-node's `op-service/eth/blob.go` (the reference consensus implementation) and kona's `BlobData::decode`.
 *
 * A blob is 4096 field elements of 32 bytes. Rollup data is laid out as a byte stream
 * `version(1) ‖ length(u24 BE) ‖ data ‖ zero padding`, cut into rounds of 127 bytes; each round fills 4 field
 * elements (128 bytes): every element carries 31 stream bytes in its low bytes, and the stream's remaining 3 bytes
 * of the round are split into four 6-bit values, one in the top byte of each element (the top two bits stay 0 so
 * every element is below the BLS modulus).
 *
 * Stream offsets within a round (element j starts at blob offset 128·round + 32·j):
 *   stream[0..31)  ← element 0 bytes 1..32     stream[31] = x
 *   stream[32..63) ← element 1 bytes 1..32     stream[63] = y
 *   stream[64..95) ← element 2 bytes 1..32     stream[95] = z
 *   stream[96..127)← element 3 bytes 1..32
 *   top bytes: A = x & 0x3f, B = (y & 0x0f) | (x & 0xc0) >> 2, C = z & 0x3f, D = (z & 0xc0) >> 2 | (y & 0xf0) >> 4
 *
 * Decoding refuses (InvalidBlobError, a DroppedInputError: the spec says the blob is ignored): a size other than
 * 131072, a version byte other than 0, a length above 130044, a decoded field element with either of its top two
 * bits set, and any non-zero byte past the length (inside the decoded rounds or in the rest of the blob). This makes
 * decoding the inverse of encoding, with one exception inherited from op-node and kona for consensus compatibility:
 * the top two bits of the blob's very first byte are never checked (op-node's `ToData` takes element 0's top byte
 * as is and uses only its low 6 bits). Refusing them here would drop blobs that op-node and op-program derive from,
 * and the prover would diverge from the canonical chain. (A blob that a valid L1 block carries has every element
 * below the BLS modulus, so those bits can only be `01` there.)
 */
import { DroppedInputError } from "../errors.js";

/** Bytes in a blob: 4096 field elements of 32 bytes. */
export const BLOB_SIZE = 131_072;
/** Field elements in a blob. */
export const FIELD_ELEMENTS_PER_BLOB = 4096;
/** The largest data one blob carries: 1024 rounds of 127 bytes, less the 4-byte version and length header. */
export const MAX_BLOB_DATA_SIZE = 130_044;
/** The blob encoding version this codec reads and writes (byte 1 of the blob). */
export const BLOB_ENCODING_VERSION = 0;

const ROUND_STREAM_BYTES = 127;
const ROUND_BLOB_BYTES = 128;
const HEADER_BYTES = 4;

/** What makes a blob (or data to encode) invalid. */
export type InvalidBlobReason =
  | "size" // the blob is not 131072 bytes
  | "version" // byte 1 is not 0
  | "length" // the encoded length exceeds 130044
  | "field-element" // a field element's top two bits are set
  | "trailing-data" // a non-zero byte past the encoded length
  | "too-large"; // encodeBlob: more than 130044 bytes of data

/** A blob that does not hold valid version-0 rollup data (ignored per the spec), or data too large to encode. */
export class InvalidBlobError extends DroppedInputError {
  readonly reason: InvalidBlobReason;
  /** The byte offset in the blob where the problem was found, when there is one. */
  readonly offset: number | undefined;

  constructor(
    reason: InvalidBlobReason,
    message: string,
    details: { offset?: number; [key: string]: unknown } = {},
  ) {
    super("blob", message, { reason, ...details });
    this.reason = reason;
    this.offset = details.offset;
  }
}

/** Number of 127-byte rounds needed for `length` data bytes (at least one: the header lives in round 0). */
function roundsFor(length: number): number {
  return Math.max(1, Math.ceil((length + HEADER_BYTES) / ROUND_STREAM_BYTES));
}

/**
 * Decodes a version-0 OP Stack blob into its rollup data. Throws InvalidBlobError (kind "dropped") naming what is
 * wrong. The result is a view of a fresh buffer, not of `blob`.
 */
export function decodeBlob(blob: Uint8Array): Uint8Array {
  if (blob.length !== BLOB_SIZE) {
    throw new InvalidBlobError("size", `blob has ${blob.length} bytes, expected ${BLOB_SIZE}`, {
      size: blob.length,
    });
  }
  if (blob[1] !== BLOB_ENCODING_VERSION) {
    throw new InvalidBlobError(
      "version",
      `blob encoding version ${blob[1]}, expected ${BLOB_ENCODING_VERSION}`,
      {
        offset: 1,
        version: blob[1],
      },
    );
  }
  const length = (blob[2]! << 16) | (blob[3]! << 8) | blob[4]!;
  if (length > MAX_BLOB_DATA_SIZE) {
    throw new InvalidBlobError("length", `blob data length ${length} exceeds ${MAX_BLOB_DATA_SIZE}`, {
      offset: 2,
      length,
    });
  }
  const rounds = roundsFor(length);
  const stream = new Uint8Array(rounds * ROUND_STREAM_BYTES);
  for (let round = 0; round < rounds; round++) {
    const b = round * ROUND_BLOB_BYTES;
    const s = round * ROUND_STREAM_BYTES;
    const a = blob[b]!;
    const bb = blob[b + 32]!;
    const c = blob[b + 64]!;
    const d = blob[b + 96]!;
    // Element 0's top byte of round 0 is deliberately not checked (see the module comment).
    if (round !== 0 && (a & 0xc0) !== 0) fieldElementError(b);
    if ((bb & 0xc0) !== 0) fieldElementError(b + 32);
    if ((c & 0xc0) !== 0) fieldElementError(b + 64);
    if ((d & 0xc0) !== 0) fieldElementError(b + 96);
    stream.set(blob.subarray(b + 1, b + 32), s);
    stream[s + 31] = (a & 0x3f) | ((bb & 0x30) << 2);
    stream.set(blob.subarray(b + 33, b + 64), s + 32);
    stream[s + 63] = (bb & 0x0f) | ((d & 0x0f) << 4);
    stream.set(blob.subarray(b + 65, b + 96), s + 64);
    stream[s + 95] = (c & 0x3f) | ((d & 0x30) << 2);
    stream.set(blob.subarray(b + 97, b + 128), s + 96);
  }
  const end = HEADER_BYTES + length;
  for (let i = end; i < stream.length; i++) {
    if (stream[i] !== 0) {
      throw new InvalidBlobError(
        "trailing-data",
        `non-zero data past the length ${length} in a decoded field element`,
        {
          offset: blobOffsetOfStreamByte(blob, i),
          length,
        },
      );
    }
  }
  for (let i = rounds * ROUND_BLOB_BYTES; i < BLOB_SIZE; i++) {
    if (blob[i] !== 0) {
      throw new InvalidBlobError(
        "trailing-data",
        `non-zero byte at ${i}, past the data's last field element`,
        {
          offset: i,
          length,
        },
      );
    }
  }
  return stream.subarray(HEADER_BYTES, end);
}

function fieldElementError(offset: number): never {
  throw new InvalidBlobError(
    "field-element",
    `field element ${offset / 32} has one of its top two bits set`,
    {
      offset,
      fieldElement: offset / 32,
    },
  );
}

/** The blob offset of the (first) byte that put non-zero bits into stream byte `i`. */
function blobOffsetOfStreamByte(blob: Uint8Array, i: number): number {
  const round = Math.floor(i / ROUND_STREAM_BYTES);
  const r = i % ROUND_STREAM_BYTES;
  const base = round * ROUND_BLOB_BYTES;
  // The three bytes spread over top bytes: x = A[0..6) ‖ B[4..6), y = B[0..4) ‖ D[0..4), z = C[0..6) ‖ D[4..6).
  if (r === 31) return (blob[base]! & 0x3f) !== 0 ? base : base + 32;
  if (r === 63) return (blob[base + 32]! & 0x0f) !== 0 ? base + 32 : base + 96;
  if (r === 95) return (blob[base + 64]! & 0x3f) !== 0 ? base + 64 : base + 96;
  const element = Math.floor(r / 32);
  return base + element * 32 + 1 + (r - element * 32);
}

/**
 * Encodes rollup data into a version-0 OP Stack blob (131072 bytes); the inverse of decodeBlob. Throws
 * InvalidBlobError (reason "too-large") for more than 130044 bytes.
 */
export function encodeBlob(data: Uint8Array): Uint8Array {
  if (data.length > MAX_BLOB_DATA_SIZE) {
    throw new InvalidBlobError(
      "too-large",
      `${data.length} bytes do not fit in one blob (max ${MAX_BLOB_DATA_SIZE})`,
      {
        size: data.length,
      },
    );
  }
  const blob = new Uint8Array(BLOB_SIZE);
  const rounds = roundsFor(data.length);
  // The stream is header ‖ data ‖ zeros; rounds are cut from it 127 bytes at a time.
  const stream = new Uint8Array(rounds * ROUND_STREAM_BYTES);
  stream[0] = BLOB_ENCODING_VERSION;
  stream[1] = (data.length >>> 16) & 0xff;
  stream[2] = (data.length >>> 8) & 0xff;
  stream[3] = data.length & 0xff;
  stream.set(data, HEADER_BYTES);
  for (let round = 0; round < rounds; round++) {
    const b = round * ROUND_BLOB_BYTES;
    const s = round * ROUND_STREAM_BYTES;
    const x = stream[s + 31]!;
    const y = stream[s + 63]!;
    const z = stream[s + 95]!;
    blob[b] = x & 0x3f;
    blob.set(stream.subarray(s, s + 31), b + 1);
    blob[b + 32] = (y & 0x0f) | ((x & 0xc0) >> 2);
    blob.set(stream.subarray(s + 32, s + 63), b + 33);
    blob[b + 64] = z & 0x3f;
    blob.set(stream.subarray(s + 64, s + 95), b + 65);
    blob[b + 96] = ((z & 0xc0) >> 2) | ((y & 0xf0) >> 4);
    blob.set(stream.subarray(s + 96, s + 127), b + 97);
  }
  return blob;
}
