/**
 * Length-prefixed frames (4-byte big-endian unsigned length, then the payload). Copied verbatim into
 * generated/protocol/frame-runtime.ts by codegen/binary; generated/protocol/frame.ts binds it to the
 * limits of the protocol spec.
 */

import { type ProtocolErrorDetails, ProtocolError } from "./protocol-error.js";

export const FRAME_PREFIX_BYTES = 4;

export type FrameErrorKind = "frame-invalid" | "frame-too-large";

/** A frame that breaks the framing rules: a length over the cap, bytes after the frame, an early end. */
export class FrameError extends ProtocolError<FrameErrorKind> {
  constructor(
    message: string,
    options: { kind?: FrameErrorKind; details?: ProtocolErrorDetails; cause?: unknown } = {},
  ) {
    super(message, { kind: options.kind ?? "frame-invalid", details: options.details, cause: options.cause });
  }
}

/** The announced payload length exceeds the accepted maximum; raised before any payload is read. */
export class FrameTooLargeError extends FrameError {
  constructor(
    readonly announced: number,
    readonly max: number,
  ) {
    super(`frame length ${announced} exceeds the maximum of ${max} bytes`, {
      kind: "frame-too-large",
      details: { announced, max },
    });
  }
}

/** Prefix + payload as one buffer; refuses payloads over `maxPayloadBytes`. */
export function encodeFrameWithLimit(payload: Uint8Array, maxPayloadBytes: number): Uint8Array {
  if (payload.length > maxPayloadBytes) throw new FrameTooLargeError(payload.length, maxPayloadBytes);
  const frame = new Uint8Array(FRAME_PREFIX_BYTES + payload.length);
  new DataView(frame.buffer).setUint32(0, payload.length, false);
  frame.set(payload, FRAME_PREFIX_BYTES);
  return frame;
}

/** Splits bytes into consecutive views of at most `maxChunkBytes` each (no copies). */
export function splitIntoChunks(bytes: Uint8Array, maxChunkBytes: number): Uint8Array[] {
  if (!Number.isInteger(maxChunkBytes) || maxChunkBytes < 1)
    throw new RangeError(`bad chunk size ${maxChunkBytes}`);
  const chunks: Uint8Array[] = [];
  for (let at = 0; at < bytes.length; at += maxChunkBytes)
    chunks.push(bytes.subarray(at, at + maxChunkBytes));
  return chunks;
}

/**
 * Reassembles exactly one frame from the chunks a stream delivers. The announced length is checked
 * against the cap as soon as the prefix is complete; payload memory grows only with the bytes actually
 * received (nothing is allocated from the announced length). Bytes beyond the frame are an error
 * (one request per connection).
 */
export class FrameReader {
  private readonly prefix = new Uint8Array(FRAME_PREFIX_BYTES);
  private prefixFilled = 0;
  private announced: number | undefined;
  private readonly parts: Uint8Array[] = [];
  private received = 0;
  private done = false;

  /**
   * @param admit called once with the announced length, after the cap check and before any payload byte
   *   is kept; it may throw (a FrameError) to refuse the frame, e.g. when a memory budget is exhausted.
   * @param allocate makes the array the complete payload is assembled in, once every byte has arrived (default:
   *   a new Uint8Array); e.g. one on a SharedArrayBuffer that worker threads then read in place.
   */
  constructor(
    readonly maxPayloadBytes: number,
    private readonly admit?: (announcedLength: number) => void,
    private readonly allocate: (length: number) => Uint8Array = (length) => new Uint8Array(length),
  ) {}

  /** True once the prefix has been read and accepted. */
  get lengthKnown(): boolean {
    return this.announced !== undefined;
  }

  /**
   * Feeds received bytes; returns the payload once the frame is complete, undefined while more is needed.
   * Throws FrameTooLargeError for an oversized prefix and FrameError for bytes after a complete frame.
   */
  push(chunk: Uint8Array): Uint8Array | undefined {
    if (this.done) {
      if (chunk.length > 0) throw new FrameError("bytes after the end of the frame");
      return undefined;
    }
    let rest = chunk;
    if (this.announced === undefined) {
      const take = Math.min(FRAME_PREFIX_BYTES - this.prefixFilled, rest.length);
      this.prefix.set(rest.subarray(0, take), this.prefixFilled);
      this.prefixFilled += take;
      rest = rest.subarray(take);
      if (this.prefixFilled < FRAME_PREFIX_BYTES) return undefined;
      const announced = new DataView(this.prefix.buffer).getUint32(0, false);
      if (announced > this.maxPayloadBytes) throw new FrameTooLargeError(announced, this.maxPayloadBytes);
      this.admit?.(announced);
      this.announced = announced;
    }
    const missing = this.announced - this.received;
    if (rest.length > missing) throw new FrameError("bytes after the end of the frame");
    if (rest.length > 0) {
      this.parts.push(rest.slice());
      this.received += rest.length;
    }
    if (this.received < this.announced) return undefined;
    this.done = true;
    const payload = this.allocate(this.announced);
    if (payload.length !== this.announced)
      throw new RangeError(`allocate gave ${payload.length} bytes for a ${this.announced}-byte payload`);
    let at = 0;
    for (const part of this.parts) {
      payload.set(part, at);
      at += part.length;
    }
    this.parts.length = 0;
    return payload;
  }

  /** Call when the stream ends: throws FrameError unless a complete frame was read. */
  finish(): void {
    if (!this.done) {
      const state =
        this.announced === undefined
          ? `${this.prefixFilled} of ${FRAME_PREFIX_BYTES} prefix bytes`
          : `${this.received} of ${this.announced} payload bytes`;
      throw new FrameError(`stream ended inside a frame after ${state}`);
    }
  }
}
