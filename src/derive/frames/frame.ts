/**
 * Frames: the pieces of a channel that a batcher transaction carries (docs/derive.md, "Frames").
 *
 *   payload = version(1) ‖ frame ‖ frame ‖ …          version 0x00; any other version: the tx is ignored
 *   frame   = channel_id(16) ‖ frame_number(u16 BE) ‖ data_len(u32 BE) ‖ data ‖ is_last(1)
 *
 * data_len is at most 1,000,000; is_last must be 0 or 1 (any other value invalidates the frame, unlike
 * kona, which reads it as 0); a payload whose frames do not parse with no bytes left over is dropped whole.
 */
import { DroppedInputError } from "../errors.js";

/** The only batcher payload version derivation reads (0x01 is alt-DA, out of scope). */
export const DERIVATION_VERSION_0 = 0;
export const CHANNEL_ID_LENGTH = 16;
/** Largest data_len a frame may declare. */
export const MAX_FRAME_DATA_LENGTH = 1_000_000;
/** Bytes a frame adds around its data: channel id, number, data length and is_last. */
export const FRAME_HEADER_OVERHEAD = CHANNEL_ID_LENGTH + 2 + 4 + 1;

export interface Frame {
  /** 16 bytes. Parsed frames hold views into the payload they came from (no copy). */
  readonly channelId: Uint8Array;
  /** u16. */
  readonly number: number;
  readonly data: Uint8Array;
  readonly isLast: boolean;
}

/** Why a payload was dropped; `offset`/`end` is the first invalid byte range of the payload. */
export type FrameParseReason =
  "empty-payload" | "unknown-version" | "no-frames" | "truncated-frame" | "data-too-long" | "invalid-is-last";

function dropped(
  reason: FrameParseReason,
  message: string,
  offset: number,
  end: number,
  frameIndex: number,
  extra?: Record<string, unknown>,
): DroppedInputError {
  return new DroppedInputError("frames", message, { reason, offset, end, frameIndex, ...extra });
}

/**
 * Parses a batcher payload (version byte then frames). Throws DroppedInputError("frames") with `reason`,
 * `offset` and `end` (the first invalid byte range of the payload) and `frameIndex` in its details.
 */
export function parseFrames(payload: Uint8Array): Frame[] {
  if (payload.length === 0) throw dropped("empty-payload", "empty batcher payload", 0, 0, 0);
  if (payload[0] !== DERIVATION_VERSION_0) {
    throw dropped("unknown-version", `unknown derivation version ${payload[0]}`, 0, 1, 0, {
      version: payload[0],
    });
  }
  const frames: Frame[] = [];
  const view = new DataView(payload.buffer, payload.byteOffset, payload.byteLength);
  const n = payload.length;
  let pos = 1;
  while (pos < n) {
    const start = pos;
    const index = frames.length;
    if (n - pos < CHANNEL_ID_LENGTH + 6) {
      throw dropped("truncated-frame", `frame ${index}: truncated header`, start, n, index);
    }
    const channelId = payload.subarray(pos, pos + CHANNEL_ID_LENGTH);
    pos += CHANNEL_ID_LENGTH;
    const number = view.getUint16(pos);
    pos += 2;
    const dataLength = view.getUint32(pos);
    if (dataLength > MAX_FRAME_DATA_LENGTH) {
      throw dropped(
        "data-too-long",
        `frame ${index}: data_len ${dataLength} exceeds ${MAX_FRAME_DATA_LENGTH}`,
        pos,
        pos + 4,
        index,
        { dataLength },
      );
    }
    pos += 4;
    if (n - pos < dataLength + 1) {
      throw dropped(
        "truncated-frame",
        `frame ${index}: declares ${dataLength} data bytes but ${Math.max(0, n - pos - 1)} remain before is_last`,
        start,
        n,
        index,
        { dataLength },
      );
    }
    const data = payload.subarray(pos, pos + dataLength);
    pos += dataLength;
    const isLastByte = payload[pos]!;
    if (isLastByte > 1) {
      throw dropped(
        "invalid-is-last",
        `frame ${index}: is_last byte ${isLastByte} is neither 0 nor 1`,
        pos,
        pos + 1,
        index,
        {
          isLastByte,
        },
      );
    }
    pos += 1;
    frames.push({ channelId, number, data, isLast: isLastByte === 1 });
  }
  if (frames.length === 0) throw dropped("no-frames", "batcher payload holds no frame", 1, 1, 0);
  return frames;
}

/** Encoded length of one frame. */
export function frameEncodedLength(frame: Frame): number {
  return FRAME_HEADER_OVERHEAD + frame.data.length;
}

function checkFrame(frame: Frame): void {
  if (frame.channelId.length !== CHANNEL_ID_LENGTH) {
    throw new RangeError(`channel id must be ${CHANNEL_ID_LENGTH} bytes, got ${frame.channelId.length}`);
  }
  if (!Number.isInteger(frame.number) || frame.number < 0 || frame.number > 0xffff) {
    throw new RangeError(`frame number ${frame.number} is not a u16`);
  }
  if (frame.data.length > MAX_FRAME_DATA_LENGTH) {
    throw new RangeError(`frame data of ${frame.data.length} bytes exceeds ${MAX_FRAME_DATA_LENGTH}`);
  }
}

function writeFrame(out: Uint8Array, view: DataView, pos: number, frame: Frame): number {
  out.set(frame.channelId, pos);
  pos += CHANNEL_ID_LENGTH;
  view.setUint16(pos, frame.number);
  pos += 2;
  view.setUint32(pos, frame.data.length);
  pos += 4;
  out.set(frame.data, pos);
  pos += frame.data.length;
  out[pos] = frame.isLast ? 1 : 0;
  return pos + 1;
}

/** Encodes one frame (without the version byte). */
export function encodeFrame(frame: Frame): Uint8Array {
  checkFrame(frame);
  const out = new Uint8Array(frameEncodedLength(frame));
  writeFrame(out, new DataView(out.buffer), 0, frame);
  return out;
}

/** Encodes a batcher payload: version byte 0 then the frames. */
export function encodeFrames(frames: readonly Frame[]): Uint8Array {
  if (frames.length === 0) throw new RangeError("a batcher payload needs at least one frame");
  let total = 1;
  for (const f of frames) {
    checkFrame(f);
    total += frameEncodedLength(f);
  }
  const out = new Uint8Array(total);
  const view = new DataView(out.buffer);
  out[0] = DERIVATION_VERSION_0;
  let pos = 1;
  for (const f of frames) pos = writeFrame(out, view, pos, f);
  return out;
}

/**
 * Splits a compressed channel into frames of at most `maxDataLength` data bytes each, numbered from 0,
 * the last one marked is_last (an empty channel gives one empty last frame). The frames' data are views
 * into `channel`.
 */
export function channelToFrames(
  channelId: Uint8Array,
  channel: Uint8Array,
  maxDataLength: number = MAX_FRAME_DATA_LENGTH,
): Frame[] {
  if (channelId.length !== CHANNEL_ID_LENGTH) {
    throw new RangeError(`channel id must be ${CHANNEL_ID_LENGTH} bytes, got ${channelId.length}`);
  }
  if (!Number.isInteger(maxDataLength) || maxDataLength < 1 || maxDataLength > MAX_FRAME_DATA_LENGTH) {
    throw new RangeError(`maxDataLength must be in [1, ${MAX_FRAME_DATA_LENGTH}]`);
  }
  const count = Math.max(1, Math.ceil(channel.length / maxDataLength));
  if (count > 0x10000)
    throw new RangeError(`channel needs ${count} frames, more than a u16 frame number allows`);
  const frames: Frame[] = [];
  for (let i = 0; i < count; i++) {
    const data = channel.subarray(i * maxDataLength, Math.min(channel.length, (i + 1) * maxDataLength));
    frames.push({ channelId, number: i, data, isLast: i === count - 1 });
  }
  return frames;
}
