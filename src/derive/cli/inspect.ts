/**
 * `derive inspect`: what a batcher posted, from an L1 batcher transaction (EIP-2718 bytes), a batcher payload
 * (version byte + frames), a compressed channel or one batch (type byte + payload), down to the batches.
 * Application-level (used by src/derive/cli/main.ts); the library never imports it.
 */
import { parseTransaction } from "viem";
import { isSuiteError } from "../../errors/index.js";
import { toHex, toHexRaw } from "../../chain/index.js";
import {
  type Batch,
  ChannelAssembler,
  type ChannelStop,
  type Frame,
  FrameQueue,
  channelCompression,
  decodeBatch,
  parseFrames,
  readChannel,
} from "../index.js";

export type InputKind = "tx" | "frames" | "channel" | "batch";
export const INPUT_KINDS: readonly InputKind[] = ["tx", "frames", "channel", "batch"];

/** A refusal: which stage, why, and the first invalid byte range of the input (`where` says what the offsets count). */
export interface InspectProblem {
  readonly stage: string;
  readonly message: string;
  readonly offset: number;
  readonly end: number;
  /** "input": bytes of the file; "decompressed": bytes of the decompressed channel `channelIndex`. */
  readonly where: "input" | "decompressed";
  readonly channelIndex?: number;
}

type Json = string | number | boolean | null | Json[] | { [k: string]: Json };

export interface InspectReport {
  kind: InputKind;
  tx?: {
    type: string;
    to: string | null;
    dataLength: number;
    dataOffset: number;
    blobVersionedHashes?: number;
  };
  frames: { channelId: string; number: number; dataLength: number; isLast: boolean }[];
  channels: {
    channelId: string | null;
    compression: string;
    compressedSize: number;
    decompressedSize: number;
    batchCount: number;
  }[];
  incompleteChannels: string[];
  batches: { [k: string]: Json }[];
  decompressedSize: number;
  problem?: InspectProblem;
}

const TX_TYPE_NAMES: Record<number, string> = {
  0: "legacy",
  1: "eip2930",
  2: "eip1559",
  3: "eip4844",
  4: "eip7702",
};

function num(v: bigint): number | string {
  return v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v.toString();
}

function txTypeOf(tx: Uint8Array): string {
  const b = tx[0];
  if (b === undefined) return "empty";
  if (b >= 0xc0) return "legacy";
  return TX_TYPE_NAMES[b] ?? `type-${b}`;
}

function countTypes(types: string[]): { [k: string]: number } {
  const out: { [k: string]: number } = {};
  for (const t of types) out[t] = (out[t] ?? 0) + 1;
  return out;
}

/** The JSON summary of a decoded batch. */
export function summarizeBatch(batch: Batch, size: number): { [k: string]: Json } {
  if (batch.type === "singular") {
    return {
      type: "singular",
      size,
      parentHash: toHex(batch.parentHash),
      epochNum: num(batch.epochNumber),
      epochHash: toHex(batch.epochHash),
      timestamp: num(batch.timestamp),
      blockCount: 1,
      txCount: batch.transactions.length,
      txTypes: countTypes(batch.transactions.map(txTypeOf)),
    };
  }
  return {
    type: "span",
    size,
    blockCount: batch.blockTxCounts.length,
    txCount: batch.transactions.length,
    txCountsPerBlock: [...batch.blockTxCounts],
    txTypes: countTypes(batch.transactions.map((t) => TX_TYPE_NAMES[t.type] ?? `type-${t.type}`)),
    relTimestamp: num(batch.relTimestamp),
    l1OriginNum: num(batch.l1OriginNumber),
    parentCheck: toHex(batch.parentCheck),
    l1OriginCheck: toHex(batch.l1OriginCheck),
    newEpochs: batch.originBits.reduce((a, b) => a + b, 0),
  };
}

class InspectFailure extends Error {
  constructor(readonly problem: InspectProblem) {
    super(problem.message);
  }
}

function fail(stage: string, message: string, offset: number, end: number): never {
  throw new InspectFailure({ stage, message, offset, end, where: "input" });
}

/** A DeriveError's message without its "stage: " prefix (the problem names the stage). */
function bare(e: { message: string; stage?: unknown }): string {
  const prefix = typeof e.stage === "string" ? `${e.stage}: ` : "";
  return prefix && e.message.startsWith(prefix) ? e.message.slice(prefix.length) : e.message;
}

/**
 * Offset and end from a DeriveError's details (the stages put the invalid range there); without an `end`,
 * the one byte at `offset` (none when the data ends there).
 */
function rangeOf(e: unknown, length: number): { offset: number; end: number } {
  const d = isSuiteError(e) ? (e.details as { offset?: unknown; end?: unknown }) : {};
  const offset = typeof d.offset === "number" ? d.offset : 0;
  const end = typeof d.end === "number" ? d.end : Math.min(offset + 1, Math.max(offset, length));
  return { offset, end };
}

/** Minimal RLP header walk of a transaction, to find the calldata item and the first malformed byte. */
function rlpHeader(
  buf: Uint8Array,
  pos: number,
  limit: number,
): { list: boolean; start: number; end: number } {
  if (pos >= limit) fail("tx", "transaction ends early", pos, limit);
  const b = buf[pos]!;
  if (b < 0x80) return { list: false, start: pos, end: pos + 1 };
  let len: number;
  let start: number;
  const list = b >= 0xc0;
  if (b <= 0xb7 || (b >= 0xc0 && b <= 0xf7)) {
    len = b - (list ? 0xc0 : 0x80);
    start = pos + 1;
  } else {
    const lol = b - (list ? 0xf7 : 0xb7);
    if (pos + 1 + lol > limit) fail("tx", "RLP length runs past the transaction", pos, limit);
    len = 0;
    for (let i = 0; i < lol; i++) len = len * 256 + buf[pos + 1 + i]!;
    start = pos + 1 + lol;
  }
  if (start + len > limit) fail("tx", `RLP item of ${len} bytes runs past its container`, pos, limit);
  return { list, start, end: start + len };
}

/** The calldata of an EIP-2718 transaction (types 0-3, 4 too) and where it sits in `raw`. */
function txCalldata(raw: Uint8Array): {
  data: Uint8Array;
  dataOffset: number;
  report: NonNullable<InspectReport["tx"]>;
} {
  if (raw.length === 0) fail("tx", "empty input", 0, 0);
  const type = raw[0]! >= 0xc0 ? 0 : raw[0]!;
  if (type > 4) fail("tx", `unknown transaction type ${type}`, 0, 1);
  const envelope = rlpHeader(raw, type === 0 ? 0 : 1, raw.length);
  if (!envelope.list) fail("tx", "transaction body is not an RLP list", type === 0 ? 0 : 1, raw.length);
  if (envelope.end !== raw.length) fail("tx", "bytes after the transaction", envelope.end, raw.length);
  const dataIndex = type === 0 ? 5 : type === 1 ? 6 : 7;
  let pos = envelope.start;
  let item = rlpHeader(raw, pos, envelope.end);
  for (let i = 0; i < dataIndex; i++) {
    pos = item.end;
    item = rlpHeader(raw, pos, envelope.end);
  }
  if (item.list) fail("tx", "calldata field is a list", pos, item.end);
  let parsed;
  try {
    parsed = parseTransaction(toHex(raw));
  } catch (e) {
    fail("tx", `not a valid transaction: ${(e as Error).message.split("\n")[0]}`, 0, raw.length);
  }
  const data = raw.subarray(item.start, item.end);
  const hashes = (parsed as { blobVersionedHashes?: readonly unknown[] }).blobVersionedHashes;
  return {
    data,
    dataOffset: item.start,
    report: {
      type: TX_TYPE_NAMES[type]!,
      to: parsed.to ?? null,
      dataLength: data.length,
      dataOffset: item.start,
      ...(hashes ? { blobVersionedHashes: hashes.length } : {}),
    },
  };
}

interface Ctx {
  report: InspectReport;
}

function addBatches(
  ctx: Ctx,
  items: Uint8Array[],
  channelIndex: number | undefined,
  itemOffsets: number[],
): void {
  for (let i = 0; i < items.length; i++) {
    const item = items[i]!;
    let batch: Batch;
    try {
      batch = decodeBatch(item);
    } catch (e) {
      if (!isSuiteError(e)) throw e;
      const r = rangeOf(e, item.length);
      const base = itemOffsets[i] ?? 0;
      throw new InspectFailure({
        stage: "batches",
        message: bare(e),
        offset: base + r.offset,
        end: base + Math.max(r.end, r.offset + 1),
        where: channelIndex === undefined ? "input" : "decompressed",
        ...(channelIndex === undefined ? {} : { channelIndex }),
      });
    }
    ctx.report.batches.push(summarizeBatch(batch, item.length));
  }
}

function stopProblem(
  stop: ChannelStop,
  channelIndex: number,
  toInput: (o: number) => number,
): InspectProblem {
  switch (stop.reason) {
    case "corrupt-stream":
      return {
        stage: "channel",
        message:
          "the compressed stream is corrupt: the decoder fails at this byte (batches before it are kept)",
        offset: toInput(stop.offset),
        end: toInput(stop.offset) + 1,
        where: "input",
      };
    case "output-cap":
      return {
        stage: "channel",
        message: "decompressed data exceed MAX_RLP_BYTES_PER_CHANNEL and were cut off",
        offset: stop.offset,
        end: stop.offset,
        where: "decompressed",
        channelIndex,
      };
    case "invalid-item":
      return {
        stage: "channel",
        message: `invalid batch item: ${stop.detail}`,
        offset: stop.offset,
        end: stop.end,
        where: "decompressed",
        channelIndex,
      };
    case "truncated-item":
      return {
        stage: "channel",
        message: "batch item runs past the decompressed data",
        offset: stop.offset,
        end: stop.end,
        where: "decompressed",
        channelIndex,
      };
  }
}

function inspectChannel(
  ctx: Ctx,
  channel: Uint8Array,
  channelId: string | null,
  toInput: (o: number) => number,
): void {
  const channelIndex = ctx.report.channels.length;
  let result;
  try {
    result = readChannel(channel);
  } catch (e) {
    if (!isSuiteError(e)) throw e;
    const r = rangeOf(e, channel.length);
    fail("channel", bare(e), toInput(r.offset), toInput(r.offset) + Math.max(1, r.end - r.offset));
  }
  ctx.report.channels.push({
    channelId,
    compression: result.compression,
    compressedSize: channel.length,
    decompressedSize: result.decompressedSize,
    batchCount: result.batches.length,
  });
  ctx.report.decompressedSize += result.decompressedSize;
  addBatches(ctx, result.batches, channelIndex, result.batchOffsets);
  const stop = result.stops[0];
  if (stop !== undefined) throw new InspectFailure(stopProblem(stop, channelIndex, toInput));
}

function inspectFrames(ctx: Ctx, payload: Uint8Array, payloadOffset: number): void {
  let frames: Frame[];
  try {
    frames = parseFrames(payload);
  } catch (e) {
    if (!isSuiteError(e)) throw e;
    const r = rangeOf(e, payload.length);
    fail("frames", bare(e), payloadOffset + r.offset, payloadOffset + r.end);
  }
  // Where each frame's data sits in the input, to map channel offsets back to it.
  const dataOffsets = new Map<Uint8Array, number>();
  for (const f of frames) {
    ctx.report.frames.push({
      channelId: toHexRaw(f.channelId),
      number: f.number,
      dataLength: f.data.length,
      isLast: f.isLast,
    });
    dataOffsets.set(f.data, payloadOffset + (f.data.byteOffset - payload.byteOffset));
  }
  const queue = new FrameQueue();
  queue.push(frames, 0n);
  const assembler = new ChannelAssembler();
  // Per channel id, the latest frame seen for each number: a ready channel is frames 0..last of its id.
  const byChannel = new Map<string, Frame[]>();
  for (let q = queue.next(); q !== undefined; q = queue.next()) {
    const id = toHexRaw(q.frame.channelId);
    if (q.frame.number === 0 || !byChannel.has(id)) byChannel.set(id, []);
    byChannel.get(id)![q.frame.number] = q.frame;
    const ready = assembler.addFrame(q.frame, 0n);
    if (ready === undefined) continue;
    const parts = byChannel.get(id)!.slice(0, q.frame.number + 1);
    const toInput = (o: number): number => {
      let acc = 0;
      for (const p of parts) {
        if (o < acc + p.data.length) return (dataOffsets.get(p.data) ?? 0) + (o - acc);
        acc += p.data.length;
      }
      const last = parts[parts.length - 1];
      return last ? (dataOffsets.get(last.data) ?? 0) + last.data.length : 0;
    };
    inspectChannel(ctx, ready.data, id, toInput);
  }
  const open = assembler.stagingChannel;
  if (open !== undefined) ctx.report.incompleteChannels.push(toHexRaw(open.channelId));
}

function looksLikeTx(input: Uint8Array): boolean {
  const b0 = input[0];
  if (b0 === undefined) return false;
  if (b0 >= 0xc0) return true;
  return b0 >= 1 && b0 <= 4 && (input[1] ?? 0) >= 0xc0;
}

/** Decides the kind of an input when it was not given. */
export function detectKind(input: Uint8Array): InputKind {
  if (looksLikeTx(input)) {
    try {
      txCalldata(input);
      return "tx";
    } catch {
      // not a transaction after all: fall through
    }
  }
  const b0 = input[0];
  if (b0 === 0) {
    try {
      parseFrames(input);
      return "frames";
    } catch {
      try {
        decodeBatch(input);
        return "batch";
      } catch {
        return "frames";
      }
    }
  }
  if (b0 === 1) {
    try {
      decodeBatch(input);
      return "batch";
    } catch {
      return "channel";
    }
  }
  if (channelCompression(input) !== undefined) return "channel";
  if (looksLikeTx(input)) return "tx";
  return "channel";
}

/** Inspects `input` as `kind` (detected when undefined). Never throws for invalid input: see `problem`. */
export function inspect(input: Uint8Array, kind?: InputKind): InspectReport {
  const report: InspectReport = {
    kind: kind ?? detectKind(input),
    tx: undefined,
    frames: [],
    channels: [],
    incompleteChannels: [],
    batches: [],
    decompressedSize: 0,
  };
  const ctx: Ctx = { report };
  try {
    switch (report.kind) {
      case "tx": {
        const { data, dataOffset, report: tx } = txCalldata(input);
        report.tx = tx;
        if (data.length === 0) {
          fail(
            "tx",
            "the transaction has no calldata (a blob transaction's frames are in its blobs)",
            dataOffset,
            dataOffset,
          );
        }
        inspectFrames(ctx, data, dataOffset);
        break;
      }
      case "frames":
        inspectFrames(ctx, input, 0);
        break;
      case "channel":
        inspectChannel(ctx, input, null, (o) => o);
        break;
      case "batch":
        addBatches(ctx, [input], undefined, [0]);
        break;
    }
  } catch (e) {
    if (!(e instanceof InspectFailure)) throw e;
    report.problem = e.problem;
  }
  return report;
}

/** One line naming the problem and its byte range. */
export function describeProblem(p: InspectProblem): string {
  const where = p.where === "input" ? "input bytes" : `decompressed bytes of channel ${p.channelIndex ?? 0}`;
  return `${p.stage}: ${p.message} (${where} [${p.offset}, ${p.end}))`;
}
