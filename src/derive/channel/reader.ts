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
 * node:zlib decompresses synchronously with a flush finish (`Z_SYNC_FLUSH`, `BROTLI_OPERATION_FLUSH`), which
 * keeps the output of a truncated stream. When the decoder fails on the whole input (corrupt data, bad
 * checksum, output past the cap), the reader finds by bisection the longest input prefix it decodes
 * without failing: that prefix's output is the lenient output (the bisection runs only on failure).
 */
import zlib from "node:zlib";
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

type Attempt = { ok: true; output: Buffer } | { ok: false; tooLarge: boolean };

function attempt(algo: CompressionAlgo, input: Uint8Array, maxOutputLength: number): Attempt {
  try {
    const output =
      algo === "zlib"
        ? zlib.inflateSync(input, { finishFlush: zlib.constants.Z_SYNC_FLUSH, maxOutputLength })
        : zlib.brotliDecompressSync(input, {
            finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH,
            maxOutputLength,
          });
    return { ok: true, output };
  } catch (e) {
    const code = (e as { code?: unknown }).code;
    return { ok: false, tooLarge: code === "ERR_BUFFER_TOO_LARGE" || e instanceof RangeError };
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
): { output: Uint8Array; stop?: ChannelStop } {
  const limit = maxOutput + MARGIN[algo];
  const whole = attempt(algo, stream, limit);
  if (whole.ok) {
    if (whole.output.length > maxOutput) {
      return {
        output: whole.output.subarray(0, maxOutput),
        stop: { reason: "output-cap", offset: maxOutput },
      };
    }
    return { output: whole.output };
  }
  // Bisection: `lo` decodes without failing, `hi` fails (the whole input does).
  let lo = 0;
  let hi = stream.length;
  let best: Buffer = Buffer.alloc(0);
  let failure: Attempt = whole;
  while (hi - lo > 1) {
    const mid = lo + Math.floor((hi - lo) / 2);
    const r = attempt(algo, stream.subarray(0, mid), limit);
    if (r.ok) {
      lo = mid;
      best = r.output;
    } else {
      hi = mid;
      failure = r;
    }
  }
  if (best.length > maxOutput) {
    return { output: best.subarray(0, maxOutput), stop: { reason: "output-cap", offset: maxOutput } };
  }
  if (!failure.ok && failure.tooLarge) {
    // Only reachable if one input byte produced more than the margin: keep what we have, flagged as capped.
    return { output: best, stop: { reason: "output-cap", offset: best.length } };
  }
  return { output: best, stop: { reason: "corrupt-stream", offset: hi - 1 } };
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
