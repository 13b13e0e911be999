/**
 * The channel reader (docs/derive.md, "Channel reader"): lenient decompression, then the RLP string items
 * of the decompressed stream, each one batch (type byte ‖ payload).
 *
 * Compression is told by the first byte: zlib when `byte0 & 0x0F` is 8 or 15 (a zlib header), brotli when
 * it is 0x01 (the brotli stream starts at byte 1); anything else drops the channel.
 *
 * Lenient, as op-node's streaming readers are: the output is what the decoder yields before it stops, so an
 * unterminated stream (the real OP Mainnet batcher data ends in a sync flush), a corrupted one or one with
 * a bad checksum still gives the batches decoded before the point of failure. The output is cut off at
 * MAX_RLP_BYTES_PER_CHANNEL: batches wholly inside it still count.
 *
 * A sound stream (terminated or not) is decompressed by one ordinary synchronous decode of the whole input
 * (node:zlib's inflateSync / brotliDecompressSync with a flush finish, output capped at the channel size cap
 * plus a margin). Only when that decode fails (corrupt data, a bad checksum, output past cap and margin) is the
 * input read again in one streaming pass (minizlib: node's zlib and brotli decoders driven synchronously,
 * flushing after every write so a truncated stream's output is kept), in chunks, stopping as soon as the
 * output passes the cap. When a chunk fails, a second decoder replays the input before that chunk in one
 * write, then the failing chunk a byte at a time: the output of the bytes before the one that fails is the
 * lenient output, the same as a byte-at-a-time streaming reader's. Streaming decoders drop their listeners
 * and output chunks when closed: a closed node stream is only released on the next tick, and a caller reading
 * many channels in one synchronous stretch would otherwise keep every channel's output alive until then.
 */
import zlib from "node:zlib";
import { BrotliDecompress, Inflate, constants } from "minizlib";
import { DroppedInputError } from "../errors.js";
import { MAX_RLP_BYTES_PER_CHANNEL } from "./assembler.js";

export type CompressionAlgo = "zlib" | "brotli";

/** First byte of a brotli channel. */
export const CHANNEL_VERSION_BROTLI = 0x01;

/** Why reading a channel stopped before the end of its (decompressed) data. */
export type ChannelStop =
  /** The decoder failed at compressed byte `offset` (an offset into the channel data, type byte included). */
  | { readonly reason: "corrupt-stream"; readonly offset: number }
  /** The decompressed output reached MAX_RLP_BYTES_PER_CHANNEL and was cut off there. */
  | { readonly reason: "output-cap"; readonly offset: number }
  /** The RLP item at decompressed offset `offset` is not a batch string (bad header, list, empty). */
  | {
      readonly reason: "invalid-item";
      readonly offset: number;
      readonly end: number;
      readonly detail: string;
    }
  /** The item at decompressed offset `offset` runs past the decompressed data (`end` is its declared end). */
  | { readonly reason: "truncated-item"; readonly offset: number; readonly end: number };

export interface ChannelReadResult {
  readonly compression: CompressionAlgo;
  /** Raw batches (type byte ‖ payload), views into the decompressed data, in order. */
  readonly batches: Uint8Array[];
  /** Where each batch starts in the decompressed data (after its RLP string header). */
  readonly batchOffsets: number[];
  /** Bytes decompressed (at most MAX_RLP_BYTES_PER_CHANNEL). */
  readonly decompressedSize: number;
  /** Every reason reading stopped early, in the order they apply (decompression, then items). */
  readonly stops: ChannelStop[];
}

export interface ChannelReadOptions {
  /** Defaults to MAX_RLP_BYTES_PER_CHANNEL. */
  readonly maxOutput?: number;
}

/** The compression of a channel, from its first byte; undefined when it is neither zlib nor brotli. */
export function channelCompression(channel: Uint8Array): CompressionAlgo | undefined {
  if (channel.length === 0) return undefined;
  const b = channel[0]!;
  const cm = b & 0x0f;
  if (cm === 8 || cm === 15) return "zlib";
  if (b === CHANNEL_VERSION_BROTLI) return "brotli";
  return undefined;
}

/** How much one input byte may add to the output, beyond the cap, before the decoder is stopped. */
const MARGIN: Record<CompressionAlgo, number> = {
  // A deflate symbol yields at most 258 bytes and a byte completes at most a few symbols.
  zlib: 1 << 16,
  // A brotli meta-block yields at most 2^24 bytes and a byte completes at most one meta-block header.
  brotli: 1 << 25,
};

/** Input bytes written to the decoder at once; a failing chunk is replayed a byte at a time. */
const CHUNK_BYTES = 4096;

/** One decoder over one input: writes, collects the output, and says whether a write failed. */
class StreamingDecoder {
  readonly chunks: Buffer[] = [];
  total = 0;
  private readonly decoder: Inflate | BrotliDecompress;
  private failure: { tooLarge: boolean } | undefined;

  constructor(algo: CompressionAlgo, maxWriteOutput: number) {
    // minizlib hands its options to node's decoder, which caps the output of one write at maxOutputLength
    // (minizlib's typings omit the option).
    const cap = { maxOutputLength: maxWriteOutput };
    this.decoder =
      algo === "zlib"
        ? new Inflate({ flush: constants.Z_SYNC_FLUSH, ...cap })
        : new BrotliDecompress({ flush: constants.BROTLI_OPERATION_FLUSH, ...cap });
    this.decoder.on("data", (chunk: Buffer) => {
      this.chunks.push(chunk);
      this.total += chunk.length;
    });
    this.decoder.on("error", (error: unknown) => {
      const { code, cause } = error as { code?: unknown; cause?: unknown };
      this.failure = { tooLarge: code === "ERR_BUFFER_TOO_LARGE" || cause instanceof RangeError };
    });
  }

  /** Decodes `bytes`; false (and `failed` set) when the decoder refuses them. */
  write(bytes: Uint8Array): boolean {
    if (this.failure !== undefined) return false;
    if (bytes.length > 0) this.decoder.write(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    return this.failure === undefined;
  }

  get failed(): { tooLarge: boolean } | undefined {
    return this.failure;
  }

  /** The output so far, at most `max` bytes. */
  output(max: number): Uint8Array {
    const whole = Buffer.concat(this.chunks, Math.min(this.total, max));
    return new Uint8Array(whole.buffer, whole.byteOffset, whole.byteLength);
  }

  /** Closes the decoder and lets go of its output (see the module comment: a closed stream lingers a tick). */
  close(): void {
    this.decoder.removeAllListeners();
    this.decoder.close();
    this.chunks.length = 0;
    this.total = 0;
  }
}

export interface LenientOutput {
  readonly output: Uint8Array;
  readonly stop?: ChannelStop;
  /**
   * Decoders run over the input: 1 when the whole-input decode succeeds; otherwise 1 plus the streaming
   * passes (one, or two when a chunk failed and was replayed).
   */
  readonly passes: number;
}

/**
 * One ordinary decode of the whole input, its output capped at `maxOutputLength`; undefined when the decoder
 * fails anywhere (or the output passes the cap), which sends the input to the streaming reader.
 */
function decompressWhole(
  algo: CompressionAlgo,
  stream: Uint8Array,
  maxOutputLength: number,
): Buffer | undefined {
  try {
    return algo === "zlib"
      ? zlib.inflateSync(stream, { finishFlush: zlib.constants.Z_SYNC_FLUSH, maxOutputLength })
      : zlib.brotliDecompressSync(stream, {
          finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH,
          maxOutputLength,
        });
  } catch {
    return undefined;
  }
}

/**
 * Lenient decompression of a channel's stream (`stream` excludes the brotli version byte). Returns the
 * output, capped at `maxOutput`, and why it stopped early (offsets relative to `stream`).
 */
export function decompressLenient(
  algo: CompressionAlgo,
  stream: Uint8Array,
  maxOutput: number = MAX_RLP_BYTES_PER_CHANNEL,
): LenientOutput {
  const maxWriteOutput = maxOutput + MARGIN[algo];
  const whole = decompressWhole(algo, stream, maxWriteOutput);
  if (whole === undefined) {
    const streamed = decompressStreaming(algo, stream, maxOutput, maxWriteOutput);
    return { ...streamed, passes: streamed.passes + 1 };
  }
  const output = new Uint8Array(whole.buffer, whole.byteOffset, Math.min(whole.byteLength, maxOutput));
  if (whole.byteLength > maxOutput)
    return { output, stop: { reason: "output-cap", offset: maxOutput }, passes: 1 };
  return { output, passes: 1 };
}

/** The streaming reader (see the module comment), for an input whose whole-input decode failed. */
function decompressStreaming(
  algo: CompressionAlgo,
  stream: Uint8Array,
  maxOutput: number,
  maxWriteOutput: number,
): LenientOutput {
  const capped = (decoder: StreamingDecoder, passes: number): LenientOutput => ({
    output: decoder.output(maxOutput),
    stop: { reason: "output-cap", offset: maxOutput },
    passes,
  });
  const first = new StreamingDecoder(algo, maxWriteOutput);
  let failedAt = -1;
  try {
    for (let at = 0; at < stream.length; at += CHUNK_BYTES) {
      if (!first.write(stream.subarray(at, at + CHUNK_BYTES))) {
        failedAt = at;
        break;
      }
      if (first.total > maxOutput) return capped(first, 1);
    }
    if (failedAt < 0) return { output: first.output(maxOutput), passes: 1 };
  } finally {
    first.close();
  }

  // The chunk at `failedAt` failed: replay the input before it, then that chunk a byte at a time.
  const replay = new StreamingDecoder(algo, maxWriteOutput);
  try {
    // The prefix decoded without failing in the first pass, and gives the same output again.
    replay.write(stream.subarray(0, failedAt));
    const end = Math.min(failedAt + CHUNK_BYTES, stream.length);
    for (let at = failedAt; at < end; at++) {
      const before = replay.total;
      if (!replay.write(stream.subarray(at, at + 1))) {
        if (before > maxOutput) return capped(replay, 2);
        if (replay.failed?.tooLarge === true) {
          // One input byte produced more than the margin: keep what came before, flagged as capped.
          return { output: replay.output(before), stop: { reason: "output-cap", offset: before }, passes: 2 };
        }
        return { output: replay.output(before), stop: { reason: "corrupt-stream", offset: at }, passes: 2 };
      }
      if (replay.total > maxOutput) return capped(replay, 2);
    }
    // Not reached: the same bytes failed in the first pass.
    return {
      output: replay.output(maxOutput),
      stop: { reason: "corrupt-stream", offset: end - 1 },
      passes: 2,
    };
  } finally {
    replay.close();
  }
}

/**
 * Reads the RLP string items of decompressed channel data (go-ethereum's canonical rules: a single byte
 * below 0x80 must be encoded as itself, long lengths must need their length-of-length form and have no
 * leading zero). Stops at the first item that is not a non-empty string or that runs past the data.
 */
export function readBatchItems(data: Uint8Array): {
  batches: Uint8Array[];
  offsets: number[];
  stop?: ChannelStop;
} {
  const batches: Uint8Array[] = [];
  const offsets: number[] = [];
  const n = data.length;
  const stopped = (stop: ChannelStop) => ({ batches, offsets, stop });
  let pos = 0;
  while (pos < n) {
    const start = pos;
    const b = data[pos]!;
    let payloadStart: number;
    let size: number;
    if (b < 0x80) {
      // A one-byte string: a type byte with no payload, which no batch decoder accepts (op-node stops there).
      return stopped({
        reason: "invalid-item",
        offset: start,
        end: start + 1,
        detail: "a one-byte item (no batch payload)",
      });
    } else if (b <= 0xb7) {
      size = b - 0x80;
      payloadStart = pos + 1;
      if (size === 1) {
        if (payloadStart >= n) return stopped({ reason: "truncated-item", offset: start, end: start + 2 });
        if (data[payloadStart]! < 0x80) {
          return stopped({
            reason: "invalid-item",
            offset: start,
            end: start + 2,
            detail: "non-canonical single byte",
          });
        }
      }
    } else if (b <= 0xbf) {
      const lenOfLen = b - 0xb7;
      if (pos + 1 + lenOfLen > n) {
        return stopped({ reason: "truncated-item", offset: start, end: start + 1 + lenOfLen });
      }
      if (data[pos + 1] === 0) {
        return stopped({
          reason: "invalid-item",
          offset: start,
          end: start + 1 + lenOfLen,
          detail: "leading zero in size",
        });
      }
      size = 0;
      for (let i = 0; i < lenOfLen; i++) size = size * 256 + data[pos + 1 + i]!;
      if (size < 56) {
        return stopped({
          reason: "invalid-item",
          offset: start,
          end: start + 1 + lenOfLen,
          detail: "non-canonical size (below 56 in long form)",
        });
      }
      payloadStart = pos + 1 + lenOfLen;
    } else {
      return stopped({
        reason: "invalid-item",
        offset: start,
        end: start + 1,
        detail: "a list where a batch string is expected",
      });
    }
    if (size === 0) {
      return stopped({
        reason: "invalid-item",
        offset: start,
        end: start + 1,
        detail: "empty string (no batch type)",
      });
    }
    const end = payloadStart + size;
    if (end > n) return stopped({ reason: "truncated-item", offset: start, end });
    batches.push(data.subarray(payloadStart, end));
    offsets.push(payloadStart);
    pos = end;
  }
  return { batches, offsets };
}

/**
 * Reads a compressed channel into raw batches (type byte ‖ payload). Throws DroppedInputError("channel")
 * when its first byte names no known compression; otherwise returns whatever the lenient reading yields
 * (possibly no batch) and why it stopped early. The caller decodes the batches in order and stops at the
 * first one that does not decode, as op-node's channel reader does.
 */
export function readChannel(channel: Uint8Array, options: ChannelReadOptions = {}): ChannelReadResult {
  const compression = channelCompression(channel);
  if (compression === undefined) {
    throw new DroppedInputError(
      "channel",
      channel.length === 0
        ? "empty channel"
        : `unknown compression byte 0x${channel[0]!.toString(16).padStart(2, "0")}`,
      { reason: "unknown-compression", offset: 0, end: Math.min(1, channel.length) },
    );
  }
  const skip = compression === "brotli" ? 1 : 0;
  const { output: buf, stop } = decompressLenient(compression, channel.subarray(skip), options.maxOutput);
  const output = new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
  const stops: ChannelStop[] = [];
  if (stop !== undefined)
    stops.push(stop.reason === "corrupt-stream" ? { ...stop, offset: stop.offset + skip } : stop);
  const items = readBatchItems(output);
  if (items.stop !== undefined) stops.push(items.stop);
  return {
    compression,
    batches: items.batches,
    batchOffsets: items.offsets,
    decompressedSize: output.length,
    stops,
  };
}
