/**
 * Channel encoding for the batcher: raw batches (type byte ‖ payload) as RLP strings, concatenated and
 * compressed with zlib or brotli (brotli channels start with the version byte 0x01).
 */
import zlib from "node:zlib";
import { CHANNEL_VERSION_BROTLI, type CompressionAlgo } from "./reader.js";
import { MAX_RLP_BYTES_PER_CHANNEL } from "./assembler.js";

export interface CompressChannelOptions {
  /** zlib level 0-9 (default 9) or brotli quality 0-11 (default 10, op-batcher's brotli-10). */
  readonly level?: number;
  /** brotli window, log2 bytes (default 22). */
  readonly brotliWindowBits?: number;
}

function rlpStringHeaderLength(item: Uint8Array): number {
  const n = item.length;
  if (n === 1 && item[0]! < 0x80) return 0;
  if (n < 56) return 1;
  let lenOfLen = 0;
  for (let v = n; v > 0; v = Math.floor(v / 256)) lenOfLen++;
  return 1 + lenOfLen;
}

/** The RLP encoding of batches as consecutive strings (the channel's decompressed content). */
export function encodeBatchItems(batches: readonly Uint8Array[]): Uint8Array {
  let total = 0;
  for (const b of batches) total += rlpStringHeaderLength(b) + b.length;
  if (total > MAX_RLP_BYTES_PER_CHANNEL) {
    throw new RangeError(
      `batches take ${total} bytes, more than a channel may hold (${MAX_RLP_BYTES_PER_CHANNEL})`,
    );
  }
  const out = new Uint8Array(total);
  let pos = 0;
  for (const b of batches) {
    const n = b.length;
    const header = rlpStringHeaderLength(b);
    if (header === 1) out[pos] = 0x80 + n;
    else if (header > 1) {
      const lenOfLen = header - 1;
      out[pos] = 0xb7 + lenOfLen;
      for (let i = lenOfLen, v = n; i >= 1; i--, v = Math.floor(v / 256)) out[pos + i] = v & 0xff;
    }
    pos += header;
    out.set(b, pos);
    pos += n;
  }
  return out;
}

/** Compresses batches into a channel (the bytes the frames carry). */
export function compressChannel(
  batches: readonly Uint8Array[],
  algo: CompressionAlgo,
  options: CompressChannelOptions = {},
): Uint8Array {
  const raw = encodeBatchItems(batches);
  if (algo === "zlib") {
    const z = zlib.deflateSync(raw, { level: options.level ?? 9 });
    return new Uint8Array(z.buffer, z.byteOffset, z.byteLength);
  }
  const br = zlib.brotliCompressSync(raw, {
    params: {
      [zlib.constants.BROTLI_PARAM_QUALITY]: options.level ?? 10,
      [zlib.constants.BROTLI_PARAM_LGWIN]: options.brotliWindowBits ?? 22,
      [zlib.constants.BROTLI_PARAM_SIZE_HINT]: raw.length,
    },
  });
  const out = new Uint8Array(br.length + 1);
  out[0] = CHANNEL_VERSION_BROTLI;
  out.set(br, 1);
  return out;
}
