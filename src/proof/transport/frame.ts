/**
 * Frames of the host-enclave protocol in both length-prefix forms: the spec's 4-byte big-endian prefix and the
 * 8-byte big-endian prefix Base's prover speaks today. One reader and one encoder, used by the host, the enclave
 * and the conformance suite.
 *
 * The enclave reads either form and tells them apart from the first four bytes: an 8-byte prefix of any length
 * under 4 GiB starts with four zero bytes, and no 4-byte frame can, because a zero-length frame is refused here
 * (no Request or Response encodes to zero bytes). An 8-byte prefix of 4 GiB or more would not start with zeros,
 * but every such length is far above the payload caps, so it is refused whichever way it is read.
 *
 * The announced length is checked against the cap (and the caller's admission) as soon as the prefix is complete,
 * before any payload byte is kept; memory grows only with the bytes actually received.
 */
import {
  BincodeWriter,
  DEFAULT_PROTOCOL_FORM,
  encodeResponse,
  FRAME_PREFIX_BYTES,
  FrameError,
  FrameReader,
  FrameTooLargeError,
  MAX_REQUEST_PAYLOAD_BYTES,
  MAX_RESPONSE_PAYLOAD_BYTES,
  type ProtocolForm,
  type Request,
  type Response,
  writeRequest,
} from "../../../generated/protocol/index.js";

/** The width of a frame's big-endian length prefix. */
export type FrameLengthPrefix = 4 | 8;

/** The spec's form (docs/protocol.md "Host-to-enclave vsock protocol"). */
export const DEFAULT_FRAME_LENGTH_PREFIX: FrameLengthPrefix = 4;

export const FRAME_LENGTH_PREFIXES: readonly FrameLengthPrefix[] = [4, 8];

/** Parses a `--frame-length-prefix` value ("4" or "8"); undefined for anything else. */
export function parseFrameLengthPrefix(text: string): FrameLengthPrefix | undefined {
  const trimmed = text.trim();
  if (trimmed === "4") return 4;
  if (trimmed === "8") return 8;
  return undefined;
}

/** Prefix and payload as one buffer; refuses an empty payload and one over `maxPayloadBytes`. */
export function encodeFrame(
  payload: Uint8Array,
  prefix: FrameLengthPrefix,
  maxPayloadBytes: number,
): Uint8Array {
  if (payload.length === 0) throw new FrameError("a frame carries at least one payload byte");
  if (payload.length > maxPayloadBytes) throw new FrameTooLargeError(payload.length, maxPayloadBytes);
  const frame = new Uint8Array(prefix + payload.length);
  const view = new DataView(frame.buffer);
  if (prefix === 4) view.setUint32(0, payload.length, false);
  else view.setBigUint64(0, BigInt(payload.length), false);
  frame.set(payload, prefix);
  return frame;
}

/** Which prefix forms a reader accepts: one fixed form (the host) or either, detected (the enclave). */
export type FrameForm = FrameLengthPrefix | "detect";

export interface FrameReaderOptions {
  readonly form: FrameForm;
  readonly maxPayloadBytes: number;
  /**
   * Called once with the announced length, after the cap check and before any payload byte is kept; it may
   * throw to refuse the frame (an admission budget).
   */
  readonly admit?: (announcedLength: number) => void;
  /**
   * Makes the array the complete payload is assembled in (default: a new Uint8Array). The enclave with block
   * workers takes one on a SharedArrayBuffer, which its workers read in place (docs/enclave.md "Parallel execution").
   */
  readonly allocate?: (length: number) => Uint8Array;
}

/**
 * Reassembles exactly one frame from the chunks a stream delivers (one request per connection): bytes after
 * the frame are an error.
 */
export class LengthPrefixedFrameReader {
  private readonly head = new Uint8Array(8);
  private headFilled = 0;
  private prefixBytes: FrameLengthPrefix | undefined;
  /** The payload's reader once the prefix is accepted (the spec's 4-byte reader, fed the accepted length). */
  private payload: FrameReader | undefined;

  constructor(private readonly options: FrameReaderOptions) {
    // The payload caps (1 GiB requests, 64 MiB responses) are far below this; the payload reader needs it.
    if (!Number.isInteger(options.maxPayloadBytes) || options.maxPayloadBytes > 0xffff_ffff)
      throw new RangeError(
        `a frame payload cap must be an integer below 4 GiB, got ${options.maxPayloadBytes}`,
      );
    if (options.form !== "detect") this.prefixBytes = options.form;
  }

  /** The prefix form of the frame being read, once known (the enclave answers in it). */
  get lengthPrefix(): FrameLengthPrefix | undefined {
    return this.prefixBytes;
  }

  /**
   * Feeds received bytes; returns the payload once the frame is complete, undefined while more is needed.
   * Throws FrameTooLargeError for a length over the cap, FrameError for a zero length or bytes after the frame,
   * and whatever `admit` throws.
   */
  push(chunk: Uint8Array): Uint8Array | undefined {
    if (this.payload !== undefined) return this.payload.push(chunk);
    const started = this.fillHead(chunk);
    return started?.reader.push(started.rest);
  }

  /** Call when the stream ends: throws FrameError unless a complete frame was read. */
  finish(): void {
    if (this.payload !== undefined) return this.payload.finish();
    throw new FrameError(
      `stream ended inside a frame after ${this.headFilled} of ${this.prefixBytes ?? "4 or 8"} prefix bytes`,
    );
  }

  /** Takes prefix bytes from `chunk`; once the prefix is complete, the payload reader and the bytes after it. */
  private fillHead(chunk: Uint8Array): { reader: FrameReader; rest: Uint8Array } | undefined {
    let rest = chunk;
    for (;;) {
      const want = this.prefixBytes ?? 4;
      const take = Math.min(want - this.headFilled, rest.length);
      this.head.set(rest.subarray(0, take), this.headFilled);
      this.headFilled += take;
      rest = rest.subarray(take);
      if (this.headFilled < want) return undefined;
      if (this.prefixBytes === undefined) {
        // Detection: four zero bytes can only open an 8-byte prefix (a 4-byte zero length is refused).
        this.prefixBytes = this.head.subarray(0, 4).every((b) => b === 0) ? 8 : 4;
        continue;
      }
      this.payload = this.accept(this.readPrefix());
      return { reader: this.payload, rest };
    }
  }

  private readPrefix(): bigint {
    const view = new DataView(this.head.buffer);
    return this.prefixBytes === 4 ? BigInt(view.getUint32(0, false)) : view.getBigUint64(0, false);
  }

  private accept(announced: bigint): FrameReader {
    const max = this.options.maxPayloadBytes;
    if (announced > BigInt(max)) {
      // Reported as a number: lengths past 2^53 lose precision in the message only, never in the check.
      throw new FrameTooLargeError(Number(announced), max);
    }
    if (announced === 0n) throw new FrameError("a zero-length frame carries no message");
    const length = Number(announced);
    this.options.admit?.(length);
    // The accepted length is at most the cap (below 4 GiB): the spec's reader takes it as a 4-byte prefix and
    // keeps exactly that many payload bytes, refusing any after them.
    const reader = new FrameReader(length, undefined, this.options.allocate);
    const prefix = new Uint8Array(FRAME_PREFIX_BYTES);
    new DataView(prefix.buffer).setUint32(0, length, false);
    reader.push(prefix);
    return reader;
  }
}

/**
 * The frame encoder of one direction: the message in the given message form, framed in the given prefix form under
 * that direction's payload cap.
 */
function messageFrameEncoder<Message>(
  encode: (message: Message, form: ProtocolForm) => Uint8Array,
  maxPayloadBytes: number,
): (message: Message, prefix: FrameLengthPrefix, form?: ProtocolForm) => Uint8Array {
  return (message, prefix, form = DEFAULT_PROTOCOL_FORM) =>
    encodeFrame(encode(message, form), prefix, maxPayloadBytes);
}

/**
 * A request as a complete frame (capped at the protocol's request payload cap), encoded in place: the writer is sized
 * from the request (a Prove's preimages) and leaves room for the length prefix, so a frame of hundreds of megabytes is
 * allocated once, not grown by doubling and then copied twice (payload, frame). Byte for byte what `encodeRequest`
 * framed by `encodeFrame` gives.
 */
export function encodeRequestFrameWith(
  request: Request,
  prefix: FrameLengthPrefix,
  form: ProtocolForm = DEFAULT_PROTOCOL_FORM,
): Uint8Array {
  const writer = new BincodeWriter(form, { headroom: prefix, capacity: requestBytesBound(request) });
  writeRequest(writer, request);
  const length = writer.written;
  if (length === 0) throw new FrameError("a frame carries at least one payload byte");
  if (length > MAX_REQUEST_PAYLOAD_BYTES) throw new FrameTooLargeError(length, MAX_REQUEST_PAYLOAD_BYTES);
  const frame = writer.withHeadroom();
  const view = new DataView(frame.buffer, frame.byteOffset, prefix);
  if (prefix === 4) view.setUint32(0, length, false);
  else view.setBigUint64(0, BigInt(length), false);
  return frame;
}

/**
 * At least the bytes `request` encodes to in any form when it is a Prove (per preimage: a key of at most 36 bytes, a
 * length of at most 9 and the value); other requests start small and grow (they are a few hundred bytes).
 */
function requestBytesBound(request: Request): number {
  if (request.kind !== "Prove") return 256;
  let bytes = 16;
  for (const [, value] of request.preimages) bytes += 45 + value.length;
  return bytes;
}

/** A response as a complete frame (capped at the response cap). */
export const encodeResponseFrameWith = messageFrameEncoder<Response>(
  encodeResponse,
  MAX_RESPONSE_PAYLOAD_BYTES,
);
