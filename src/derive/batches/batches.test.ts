import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import zlib from "node:zlib";
import { decode as rlpDecode } from "@ethereumjs/rlp";
import { keccak256, recoverTransactionAddress, toHex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { beforeAll, describe, expect, it } from "vitest";
import { DeriveError, DroppedInputError } from "../errors.js";
import { decodeBatch, encodeBatch } from "./batch.js";
import { BatchEncodeError } from "./errors.js";
import { buildSpanBatch, spanBatchBlocks, spanBatchToBlockBatches } from "./expand.js";
import { decodeSingularBatch, encodeSingularBatch } from "./singular.js";
import { decodeSpanBatch, encodeSpanBatch } from "./span.js";
import type { SingularBatch, SpanBatch } from "./types.js";

/** The derivation fixtures (../shared/fixtures/derive; override with DERIVE_FIXTURES_DIR). */
const FIXTURES =
  process.env.DERIVE_FIXTURES_DIR ??
  resolve(dirname(fileURLToPath(import.meta.url)), "../../../../shared/fixtures/derive");
const fixture = (name: string) => new Uint8Array(readFileSync(resolve(FIXTURES, name)));

const hex = (s: string) => Uint8Array.from(Buffer.from(s.replace(/^0x/, ""), "hex"));
const cat = (...parts: Uint8Array[]) => Uint8Array.from(Buffer.concat(parts));

/** Runs `fn`, expecting a DroppedInputError of the batches stage naming `field`; returns its details. */
function dropped(fn: () => unknown, field: string): Record<string, unknown> {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(DroppedInputError);
    const err = e as DroppedInputError;
    expect(err.stage).toBe("batches");
    expect(err.kind).toBe("dropped");
    expect(err.details.field).toBe(field);
    return err.details as Record<string, unknown>;
  }
  throw new Error(`expected a refusal of ${field}`);
}

/**
 * The channel of the real OP Mainnet batcher transaction (kona `crates/protocol/derive/testdata/raw_batcher_tx.hex`
 * @ cdb9be247e41, see ../shared/fixtures/derive/README.md), parsed minimally: EIP-1559 envelope, calldata =
 * version 0 + one frame, frame data inflated leniently.
 */
function opMainnetChannel(): Uint8Array {
  const raw = fixture("op-mainnet-batcher-tx.bin");
  expect(raw[0]).toBe(2);
  const fields = rlpDecode(raw.subarray(1)) as Uint8Array[];
  const calldata = fields[7]!;
  expect(calldata[0]).toBe(0); // derivation version 0
  const frame = calldata.subarray(1);
  expect(toHex(frame.subarray(0, 16))).toBe("0xac329933f5efdcc35ccd284232a376d3");
  const len = new DataView(frame.buffer, frame.byteOffset).getUint32(18);
  expect(len).toBe(119_799);
  expect(frame[22 + len]).toBe(1); // is_last
  expect(frame.length).toBe(23 + len);
  const data = frame.subarray(22, 22 + len);
  return new Uint8Array(zlib.inflateSync(data, { finishFlush: zlib.constants.Z_SYNC_FLUSH }));
}

describe("span batch: kona's raw span batch", () => {
  // kona crates/protocol/protocol/src/batch/testdata/raw_batch.hex @ cdb9be247e41 (binary; from op-node).
  const bytes = fixture("raw-span-batch.bin");

  it("decodes 4 blocks with 8, 15, 15 and 1 transactions", () => {
    const batch = decodeSpanBatch(bytes);
    expect(batch.blockTxCounts).toEqual([8, 15, 15, 1]);
    expect(batch.transactions).toHaveLength(39);
    expect(batch.originBits).toHaveLength(4);
    expect(batch.parentCheck).toHaveLength(20);
  });

  it("encodes back to the same bytes, with and without the type byte", () => {
    expect(toHex(encodeSpanBatch(decodeSpanBatch(bytes)))).toBe(toHex(bytes));
    const typed = cat(Uint8Array.of(1), bytes);
    const batch = decodeBatch(typed);
    expect(batch.type).toBe("span");
    expect(toHex(encodeBatch(batch))).toBe(toHex(typed));
  });
});

describe("span batch: the real OP Mainnet batcher transaction", () => {
  const channel = opMainnetChannel();
  // OP Mainnet: chain ID 10, L2 genesis time 1686068903, 2 s blocks (superchain registry).
  const ctx = { genesisTimestamp: 1686068903n, blockTime: 2n, chainId: 10n };

  it("inflates to 240,308 bytes holding one RLP string: a span batch", () => {
    expect(channel.length).toBe(240_308);
    const batchBytes = rlpDecode(channel) as Uint8Array;
    expect(batchBytes[0]).toBe(1);
  });

  const batchBytes = rlpDecode(channel) as Uint8Array;
  const batch = decodeBatch(batchBytes) as SpanBatch;

  it("has 27 blocks and 209 transactions (173 type 2, 36 legacy), l1_origin_num 19,426,585", () => {
    expect(batch.type).toBe("span");
    expect(batch.blockTxCounts).toHaveLength(27);
    expect(batch.blockTxCounts.reduce((a, b) => a + b, 0)).toBe(209);
    expect(batch.transactions.filter((t) => t.type === 2)).toHaveLength(173);
    expect(batch.transactions.filter((t) => t.type === 0)).toHaveLength(36);
    expect(batch.l1OriginNumber).toBe(19_426_585n);
    expect(toHex(encodeBatch(batch))).toBe(toHex(batchBytes));
    // Per-block counts as this decoder reads them (their consistency is checked by the nonce and rebuild tests).
    expect(batch.blockTxCounts).toEqual([
      10, 12, 7, 8, 10, 6, 5, 3, 6, 7, 8, 6, 3, 9, 6, 8, 12, 10, 4, 14, 11, 9, 9, 6, 6, 8, 6,
    ]);
    // The span starts at 2024-03-13 13:55:57 UTC, the time of L1 block ~19,426,58x.
    expect(spanBatchBlocks(batch, ctx)[0]!.timestamp).toBe(1_710_338_157n);
  });

  it("rebuilds signed transactions whose senders' nonces run in sequence", async () => {
    const blocks = spanBatchBlocks(batch, ctx);
    expect(blocks).toHaveLength(27);
    expect(blocks[1]!.timestamp - blocks[0]!.timestamp).toBe(2n);
    expect(blocks[26]!.epochNumber).toBe(19_426_585n);
    const lastNonce = new Map<string, bigint>();
    let repeats = 0;
    let t = 0;
    for (const block of blocks) {
      for (const tx of block.transactions) {
        const sender = await recoverTransactionAddress({ serializedTransaction: toHex(tx) as never });
        const nonce = batch.transactions[t++]!.nonce;
        const prev = lastNonce.get(sender);
        if (prev !== undefined) {
          expect(nonce).toBe(prev + 1n);
          repeats++;
        }
        lastNonce.set(sender, nonce);
      }
    }
    // With a wrong chain ID or field order every signature would recover a different random address.
    expect(repeats).toBeGreaterThan(20);
  });

  it("builds the same span batch back from its blocks (the batcher's direction)", () => {
    const blocks = spanBatchBlocks(batch, ctx);
    const pad = (b: Uint8Array) => cat(b, new Uint8Array(12));
    const rebuilt = buildSpanBatch(
      blocks.map((b, i) => ({
        ...b,
        parentHash: i === 0 ? pad(batch.parentCheck) : new Uint8Array(32),
        epochHash: i === blocks.length - 1 ? pad(batch.l1OriginCheck) : new Uint8Array(32),
      })),
      ctx,
      batch.originBits[0] === 1,
    );
    expect(toHex(encodeBatch(rebuilt))).toBe(toHex(batchBytes));
  });

  it("resolves L1 origin hashes and skips blocks at or before a timestamp", () => {
    const blocks = spanBatchBlocks(batch, ctx);
    const hashOf = (n: bigint) => keccak256(toHex(n), "bytes");
    const after = blocks[9]!.timestamp;
    const out = spanBatchToBlockBatches(batch, ctx, hashOf, after);
    expect(out).toHaveLength(17);
    expect(out[0]!.timestamp).toBe(blocks[10]!.timestamp);
    expect(toHex(out[0]!.epochHash)).toBe(toHex(hashOf(blocks[10]!.epochNumber)));
    try {
      spanBatchToBlockBatches(batch, ctx, () => undefined);
      throw new Error("expected a refusal");
    } catch (e) {
      expect(e).toBeInstanceOf(DeriveError);
      expect((e as DeriveError).kind).toBe("data-missing");
    }
  });
});

describe("singular batch", () => {
  const batch: SingularBatch = {
    type: "singular",
    parentHash: new Uint8Array(32).fill(0x11),
    epochNumber: 19_426_585n,
    epochHash: new Uint8Array(32).fill(0x22),
    timestamp: 1_710_000_000n,
    transactions: [hex("02f86b0a"), Uint8Array.of(0x05), new Uint8Array(60).fill(0xab)],
  };

  it("round trips and matches a hand-built RLP encoding", () => {
    const enc = encodeBatch(batch);
    // 0x00 ++ rlp([0x11.., 19426585 = 0x01286d19, 0x22.., 1710000000 = 0x65ec8780, [0x02f86b0a, 0x05, 0xab*60]])
    const txs = cat(hex("8402f86b0a"), hex("05"), hex("b83c"), new Uint8Array(60).fill(0xab));
    const body = cat(
      hex("a0"),
      batch.parentHash,
      hex("8401286d19"),
      hex("a0"),
      batch.epochHash,
      hex("8465ec8780"),
      hex("f8"),
      Uint8Array.of(txs.length),
      txs,
    );
    const expected = cat(hex("00"), hex("f8"), Uint8Array.of(body.length), body);
    expect(toHex(enc)).toBe(toHex(expected));
    expect(decodeBatch(enc)).toEqual(batch);
    expect(decodeSingularBatch(encodeSingularBatch(batch))).toEqual(batch);
  });

  it("ignores bytes after the batch list, as op-node and kona do", () => {
    expect(decodeBatch(cat(encodeBatch(batch), hex("c0")))).toEqual(batch);
  });

  it("refuses non-canonical and malformed encodings with the field and offset", () => {
    const enc = encodeBatch(batch);
    // parent hash of 31 bytes
    const short = encodeBatch({ ...batch, parentHash: new Uint8Array(32) }).slice();
    short[3] = 0x9f; // a0 -> 9f
    expect(dropped(() => decodeBatch(short), "singular.parent_hash").offset).toBe(3);
    // epoch number with a leading zero: 84 01 2a 6e 19 -> 85 00 01 2a 6e 19
    const at = 3 + 33;
    const lead = cat(enc.subarray(0, at), hex("8500012a6e19"), enc.subarray(at + 5));
    lead[2]! += 1;
    expect(dropped(() => decodeBatch(lead), "singular.epoch_number").offset).toBe(at);
    // a single byte below 0x80 behind a 0x81 header
    const fields = (rlpDecode(enc.subarray(1)) as unknown as Uint8Array[]).slice(0, 4).map(encodeString);
    const wrapped = encodeList([...fields, encodeList([hex("8402f86b0a"), hex("8105")])]);
    dropped(() => decodeBatch(cat(hex("00"), wrapped)), "singular.transactions");
    // a long-form header for a short string
    const longForm = encodeList([...fields, encodeList([hex("b8020102")])]);
    dropped(() => decodeBatch(cat(hex("00"), longForm)), "singular.transactions");
    // a sixth field
    const body = rlpDecode(enc.subarray(1)) as unknown as Uint8Array[];
    expect(body).toHaveLength(5);
    const six = encodeList([
      ...body.slice(0, 4).map(encodeString),
      encodeList(batch.transactions.map(encodeString)),
      hex("80"),
    ]);
    dropped(() => decodeBatch(cat(hex("00"), six)), "singular.batch");
    // unknown batch type, empty batch
    expect(dropped(() => decodeBatch(hex("02c0")), "batch.type").batchType).toBe(2);
    dropped(() => decodeBatch(new Uint8Array(0)), "batch.type");
    // transactions as a string instead of a list
    const str = encodeList([...body.slice(0, 4).map(encodeString), hex("80")]);
    dropped(() => decodeBatch(cat(hex("00"), str)), "singular.transactions");
  });

  it("refuses to encode hashes that are not 32 bytes", () => {
    expect(() => encodeBatch({ ...batch, parentHash: new Uint8Array(31) })).toThrow(BatchEncodeError);
  });
});

/** Minimal RLP encoders for hand-built vectors (test only). */
function encodeString(b: Uint8Array | unknown): Uint8Array {
  const bytes = b as Uint8Array;
  if (bytes.length === 1 && bytes[0]! < 0x80) return bytes;
  return cat(header(bytes.length, 0x80), bytes);
}
function encodeList(items: Uint8Array[]): Uint8Array {
  const body = cat(...items);
  return cat(header(body.length, 0xc0), body);
}
function header(len: number, base: number): Uint8Array {
  if (len < 56) return Uint8Array.of(base + len);
  const l = Buffer.from(
    len.toString(16).padStart(len.toString(16).length + (len.toString(16).length % 2), "0"),
    "hex",
  );
  return cat(Uint8Array.of(base + 55 + l.length), l);
}

describe("span batch refusals", () => {
  const good = fixture("raw-span-batch.bin");
  const ctxHeader = (relTs: string, origin: string) => cat(hex(relTs), hex(origin), new Uint8Array(40));

  it("refuses an empty span and too many blocks before allocating", () => {
    dropped(() => decodeSpanBatch(cat(ctxHeader("00", "00"), hex("00"))), "span.block_count");
    // 10,000,001 blocks: varint 0x81 0xad 0xe2 0x04
    const d = dropped(() => decodeSpanBatch(cat(ctxHeader("00", "00"), hex("81ade204"))), "span.block_count");
    expect(d.offset).toBe(42);
    // 10,000,000 blocks but no data behind: refused as truncated, not allocated
    dropped(() => decodeSpanBatch(cat(ctxHeader("00", "00"), hex("80ade204"))), "span.origin_bits");
  });

  it("refuses non-minimal and overflowing varints", () => {
    dropped(
      () => decodeSpanBatch(cat(hex("8000"), hex("00"), new Uint8Array(40), hex("01"))),
      "span.rel_timestamp",
    );
    const over = cat(hex("ffffffffffffffffff02"), hex("00"), new Uint8Array(40), hex("01"));
    dropped(() => decodeSpanBatch(over), "span.rel_timestamp");
    // 2^64 - 1 is fine
    const max = cat(hex("ffffffffffffffffff01"), hex("00"), new Uint8Array(40), hex("0100"), hex("00"));
    expect(decodeSpanBatch(max).relTimestamp).toBe((1n << 64n) - 1n);
  });

  it("refuses bits set past a bitlist's length", () => {
    // 3 blocks, origin bits 0b1000 (bit 3 set)
    dropped(
      () => decodeSpanBatch(cat(ctxHeader("00", "00"), hex("03"), hex("08"), hex("000000"))),
      "span.origin_bits",
    );
    expect(
      decodeSpanBatch(cat(ctxHeader("00", "05"), hex("03"), hex("04"), hex("000000"))).originBits,
    ).toEqual(Uint8Array.of(0, 0, 1));
  });

  it("refuses too many transactions in total and a span too short for its count", () => {
    // 2 blocks of 5,000,000 + 5,000,001 txs
    const counts = cat(hex("c096b102"), hex("c196b102"));
    dropped(
      () => decodeSpanBatch(cat(ctxHeader("00", "00"), hex("02"), hex("00"), counts)),
      "span.block_tx_counts",
    );
    dropped(
      () => decodeSpanBatch(cat(ctxHeader("00", "00"), hex("01"), hex("00"), hex("c096b102"))),
      "span.txs",
    );
  });

  it("refuses truncation anywhere", () => {
    for (let cut = 0; cut < good.length; cut += Math.max(1, Math.floor(good.length / 400))) {
      expect(() => decodeSpanBatch(good.subarray(0, cut))).toThrow(DroppedInputError);
    }
  });

  it("refuses a tx_datas element of type 3 or an unknown type, and a type 4 contract creation", () => {
    const batch = decodeSpanBatch(good);
    const withData = (data: Uint8Array, extra: Partial<SpanBatch["transactions"][number]> = {}) => ({
      ...batch,
      blockTxCounts: [1, 0, 0, 0],
      transactions: [{ ...batch.transactions[0]!, data, ...extra }],
    });
    // Build valid bytes with a type 2 tx_datas element, then switch its type byte.
    const type2 = cat(hex("02"), encodeList([hex("80"), hex("01"), hex("02"), hex("80"), hex("c0")]));
    const enc = encodeSpanBatch(withData(type2, { type: 2 }));
    const at = enc.indexOf(0x02, enc.length - type2.length - 20);
    for (const t of [3, 5, 0x7e]) {
      const bad = enc.slice();
      bad[at] = t;
      dropped(() => decodeSpanBatch(bad), "span.tx_datas");
    }
    const type4 = cat(
      hex("04"),
      encodeList([hex("80"), hex("01"), hex("02"), hex("80"), hex("c0"), hex("c0")]),
    );
    expect(() => encodeSpanBatch(withData(type4, { type: 4, to: null }))).toThrow(BatchEncodeError);
    const ok = encodeSpanBatch(withData(type4, { type: 4, to: new Uint8Array(20).fill(9) }));
    expect(decodeSpanBatch(ok).transactions[0]!.type).toBe(4);
    // flip the contract creation bit of the only transaction
    const creation = decodeSpanBatchCreationBitOffset(ok);
    const bad = ok.slice();
    bad[creation] = 1;
    // the `to` is then read as part of tx_datas; whichever refusal comes first, the batch is dropped
    expect(() => decodeSpanBatch(bad)).toThrow(DroppedInputError);
  });

  it("refuses an extra field in a tx_datas element and an access list entry of the wrong shape", () => {
    const batch = decodeSpanBatch(good);
    const one = (data: Uint8Array) =>
      encodeSpanBatch({
        ...batch,
        blockTxCounts: [1, 0, 0, 0],
        transactions: [{ ...batch.transactions[0]!, type: 2, data }],
      });
    const list = [hex("80"), hex("01"), hex("02"), hex("80"), hex("c0")];
    const ok = one(cat(hex("02"), encodeList(list)));
    const extra = ok.slice();
    // Replace the tx_datas element by one with a sixth field, same length budget not needed: rebuild bytes.
    const good2 = cat(hex("02"), encodeList(list));
    const bad2 = cat(hex("02"), encodeList([...list, hex("80")]));
    const i = indexOfSeq(extra, good2);
    const replaced = cat(extra.subarray(0, i), bad2, extra.subarray(i + good2.length));
    dropped(() => decodeSpanBatch(replaced), "span.tx_datas");
    const badAccess = cat(
      hex("02"),
      encodeList([
        ...list.slice(0, 4),
        encodeList([encodeList([new Uint8Array(20).fill(1)].map(encodeString))]),
      ]),
    );
    const replaced2 = cat(extra.subarray(0, i), badAccess, extra.subarray(i + good2.length));
    dropped(() => decodeSpanBatch(replaced2), "span.tx.access_list");
  });

  it("drops a span whose origin bits go below L1 block 0", () => {
    const batch = decodeSpanBatch(cat(ctxHeader("00", "00"), hex("02"), hex("02"), hex("0000")));
    expect(() => spanBatchBlocks(batch, { genesisTimestamp: 0n, blockTime: 2n, chainId: 1n })).toThrow(
      DroppedInputError,
    );
  });
});

function indexOfSeq(hay: Uint8Array, needle: Uint8Array): number {
  const i = Buffer.from(hay).indexOf(Buffer.from(needle));
  expect(i).toBeGreaterThanOrEqual(0);
  return i;
}

/** Offset of the contract creation bits in a span batch whose prefix checks are 20 bytes each (test helper). */
function decodeSpanBatchCreationBitOffset(data: Uint8Array): number {
  let p = 0;
  const skipVarint = () => {
    while (data[p]! >= 0x80) p++;
    p++;
  };
  skipVarint(); // rel timestamp
  skipVarint(); // l1 origin num
  p += 40;
  const blocks = data[p]!;
  skipVarint();
  p += Math.ceil(blocks / 8);
  for (let i = 0; i < blocks; i++) skipVarint();
  return p;
}

describe("building span batches (the batcher's side)", () => {
  const ctx = { genesisTimestamp: 1000n, blockTime: 2n, chainId: 10n };
  const account = privateKeyToAccount("0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d");
  const to = "0x4200000000000000000000000000000000000042" as const;
  const bytesOf = (h: string) => hex(h);
  let tx1559: Uint8Array, tx155: Uint8Array, txOtherChain: Uint8Array, txLegacyOtherChain: Uint8Array;
  const block = (i: number, epoch: bigint, transactions: Uint8Array[] = []) => ({
    parentHash: new Uint8Array(32).fill(i + 1),
    epochNumber: epoch,
    epochHash: new Uint8Array(32).fill(0xe0 + Number(epoch % 16n)),
    timestamp: 1000n + 10n + 2n * BigInt(i),
    transactions,
  });
  const refusedField = (fn: () => unknown): string => {
    try {
      fn();
    } catch (e) {
      expect(e).toBeInstanceOf(BatchEncodeError);
      expect((e as BatchEncodeError).kind).toBe("critical");
      return (e as BatchEncodeError).field;
    }
    throw new Error("expected a BatchEncodeError");
  };

  beforeAll(async () => {
    const base = { nonce: 7, gas: 21000n, to, value: 1n };
    tx1559 = bytesOf(
      await account.signTransaction({ ...base, chainId: 10, maxFeePerGas: 9n, maxPriorityFeePerGas: 1n }),
    );
    tx155 = bytesOf(await account.signTransaction({ ...base, type: "legacy", chainId: 10, gasPrice: 5n }));
    txOtherChain = bytesOf(
      await account.signTransaction({ ...base, chainId: 11, maxFeePerGas: 9n, maxPriorityFeePerGas: 1n }),
    );
    txLegacyOtherChain = bytesOf(
      await account.signTransaction({ ...base, type: "legacy", chainId: 11, gasPrice: 5n }),
    );
  });

  it("sets origin bits from epoch steps and the first block's flag, and the checks from the ends", () => {
    const blocks = [block(0, 5n, [tx1559]), block(1, 5n), block(2, 6n, [tx155, tx1559]), block(3, 7n)];
    const span = buildSpanBatch(blocks, ctx, true);
    expect(Array.from(span.originBits)).toEqual([1, 0, 1, 1]);
    expect(span.relTimestamp).toBe(10n);
    expect(span.l1OriginNumber).toBe(7n);
    expect(toHex(span.parentCheck)).toBe(toHex(blocks[0]!.parentHash.subarray(0, 20)));
    expect(toHex(span.l1OriginCheck)).toBe(toHex(blocks[3]!.epochHash.subarray(0, 20)));
    expect(span.blockTxCounts).toEqual([1, 0, 2, 0]);
    expect(span.transactions.map((t) => [t.type, t.protected])).toEqual([
      [2, true],
      [0, true],
      [2, true],
    ]);
    const out = spanBatchBlocks(decodeBatch(encodeBatch(span)) as SpanBatch, ctx);
    expect(out.map((b) => b.epochNumber)).toEqual([5n, 5n, 6n, 7n]);
    expect(out.map((b) => b.timestamp)).toEqual([1010n, 1012n, 1014n, 1016n]);
    expect(toHex(out[2]!.transactions[0]!)).toBe(toHex(tx155));
    expect(Array.from(buildSpanBatch(blocks, ctx, false).originBits)).toEqual([0, 0, 1, 1]);
  });

  it("refuses blocks a span batch cannot express", () => {
    expect(refusedField(() => buildSpanBatch([], ctx, false))).toBe("blocks");
    expect(
      refusedField(() => buildSpanBatch([block(0, 5n), { ...block(1, 5n), timestamp: 1013n }], ctx, false)),
    ).toBe("timestamp");
    expect(refusedField(() => buildSpanBatch([block(0, 5n), block(1, 7n)], ctx, false))).toBe("epochNumber");
    expect(refusedField(() => buildSpanBatch([block(0, 5n), block(1, 4n)], ctx, false))).toBe("epochNumber");
    expect(refusedField(() => buildSpanBatch([{ ...block(0, 5n), timestamp: 999n }], ctx, false))).toBe(
      "timestamp",
    );
  });

  it("refuses transactions a span batch cannot carry", () => {
    const one = (tx: Uint8Array) => buildSpanBatch([block(0, 5n, [tx])], ctx, false);
    expect(refusedField(() => one(txOtherChain))).toBe("transaction");
    expect(refusedField(() => one(txLegacyOtherChain))).toBe("transaction");
    // a deposit (0x7e) and a blob transaction (0x03) type byte
    expect(refusedField(() => one(cat(hex("7e"), tx1559.subarray(1))))).toBe("transaction");
    expect(refusedField(() => one(cat(hex("03"), tx1559.subarray(1))))).toBe("transaction");
    // bytes after the transaction, an empty one
    expect(refusedField(() => one(cat(tx1559, hex("00"))))).toBe("transaction");
    expect(refusedField(() => one(new Uint8Array(0)))).toBe("transaction");
    // a legacy v that is neither 27/28 nor EIP-155 (v = 30)
    const fields = rlpDecode(tx155) as Uint8Array[];
    const badV = encodeList([
      ...fields.slice(0, 6).map(encodeString),
      hex("1e"),
      ...fields.slice(7).map(encodeString),
    ]);
    expect(refusedField(() => one(badV))).toBe("transaction");
    // the unprotected legacy form is accepted and rebuilt exactly
    const v27 = encodeList([
      ...fields.slice(0, 6).map(encodeString),
      hex("1b"),
      ...fields.slice(7).map(encodeString),
    ]);
    const span = one(v27);
    expect(span.transactions[0]!.protected).toBe(false);
    expect(toHex(spanBatchBlocks(span, ctx)[0]!.transactions[0]!)).toBe(toHex(v27));
  });
});
