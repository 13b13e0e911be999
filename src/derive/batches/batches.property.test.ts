/**
 * Property tests: random singular and span batches carrying really signed transactions of every type a span
 * batch supports (legacy with and without EIP-155, EIP-2930, EIP-1559, EIP-7702) round trip through
 * encode/decode and the span expansion; random corruption of encoded batches never crashes and never yields
 * a batch other than the one the bytes encode.
 */
import fc from "fast-check";
import { type Hex, toHex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { beforeAll, describe, expect, it } from "vitest";
import { DeriveError } from "../errors.js";
import { decodeBatch, encodeBatch } from "./batch.js";
import { buildSpanBatch, spanBatchBlocks, spanBatchToBlockBatches } from "./expand.js";
import type { Batch, SingularBatch, SpanBatchContext, SpanBatchSourceBlock } from "./types.js";

const KEYS = [
  "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80",
  "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d",
  "0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a",
] as const;
const accounts = KEYS.map((k) => privateKeyToAccount(k));

const U64_MAX = (1n << 64n) - 1n;
const U256_MAX = (1n << 256n) - 1n;
const hexBytes = (min: number, max: number) =>
  fc.uint8Array({ minLength: min, maxLength: max }).map((b) => toHex(b) as Hex);
const address = hexBytes(20, 20);
const word = hexBytes(32, 32);
const quantity = (max: bigint) =>
  fc.oneof(fc.constant(0n), fc.bigInt({ min: 0n, max }), fc.bigInt({ min: 0n, max: 255n }));

type TxKind = "legacy" | "legacy155" | "eip2930" | "eip1559" | "eip7702";
const txParams = fc.record({
  kind: fc.constantFrom<TxKind>("legacy", "legacy155", "eip2930", "eip1559", "eip7702"),
  key: fc.integer({ min: 0, max: KEYS.length - 1 }),
  nonce: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER })),
  gas: quantity(U64_MAX),
  value: quantity(U256_MAX),
  fee: quantity(U256_MAX),
  tipShare: fc.bigInt({ min: 0n, max: 100n }),
  to: fc.option(address, { nil: undefined }),
  data: fc.oneof(hexBytes(0, 80), fc.constantFrom("0x00", "0x7f", "0x80") as fc.Arbitrary<Hex>),
  accessList: fc.array(fc.record({ address, storageKeys: fc.array(word, { maxLength: 3 }) }), {
    maxLength: 2,
  }),
  authorizations: fc.array(
    fc.record({
      address,
      chainId: fc.integer({ min: 0, max: 2 ** 32 }),
      nonce: fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
      r: word,
      s: word,
      yParity: fc.integer({ min: 0, max: 1 }),
    }),
    { maxLength: 2 },
  ),
});
type TxParams = typeof txParams extends fc.Arbitrary<infer T> ? T : never;

/** Signs a transaction described by `p` on chain `chainId` with a real key; returns its EIP-2718 bytes. */
async function sign(p: TxParams, chainId: number): Promise<Uint8Array> {
  const account = accounts[p.key]!;
  const common = { nonce: p.nonce, gas: p.gas, value: p.value, data: p.data };
  const tip = (p.fee * p.tipShare) / 100n;
  let hex: Hex;
  switch (p.kind) {
    case "legacy":
      hex = await account.signTransaction({ ...common, type: "legacy", gasPrice: p.fee, to: p.to ?? null });
      break;
    case "legacy155":
      hex = await account.signTransaction({
        ...common,
        type: "legacy",
        gasPrice: p.fee,
        to: p.to ?? null,
        chainId,
      });
      break;
    case "eip2930":
      hex = await account.signTransaction({
        ...common,
        type: "eip2930",
        chainId,
        gasPrice: p.fee,
        to: p.to ?? null,
        accessList: p.accessList,
      });
      break;
    case "eip1559":
      hex = await account.signTransaction({
        ...common,
        type: "eip1559",
        chainId,
        maxFeePerGas: p.fee,
        maxPriorityFeePerGas: tip,
        to: p.to ?? null,
        accessList: p.accessList,
      });
      break;
    case "eip7702":
      hex = await account.signTransaction({
        ...common,
        type: "eip7702",
        chainId,
        maxFeePerGas: p.fee,
        maxPriorityFeePerGas: tip,
        to: p.to ?? "0x4200000000000000000000000000000000000042",
        accessList: p.accessList,
        authorizationList: p.authorizations,
      });
      break;
  }
  return Uint8Array.from(Buffer.from(hex.slice(2), "hex"));
}

const chainIdArb = fc.constantFrom(10, 8453, 901, 11155420, 2 ** 40 + 1);
const spanShape = fc.record({
  chainId: chainIdArb,
  genesis: fc.bigInt({ min: 0n, max: 1n << 40n }),
  blockTime: fc.constantFrom(1n, 2n, 12n),
  rel: fc.bigInt({ min: 0n, max: 1n << 40n }),
  firstEpoch: fc.bigInt({ min: 0n, max: 1n << 50n }),
  firstStartsEpoch: fc.boolean(),
  parentHash: fc.uint8Array({ minLength: 32, maxLength: 32 }),
  blocks: fc.array(
    fc.record({ step: fc.integer({ min: 0, max: 1 }), txs: fc.array(txParams, { maxLength: 4 }) }),
    { minLength: 1, maxLength: 6 },
  ),
});
type SpanShape = typeof spanShape extends fc.Arbitrary<infer T> ? T : never;

const epochHash = (n: bigint) => {
  const h = new Uint8Array(32);
  new DataView(h.buffer).setBigUint64(0, n ^ 0x5a5a5a5a5a5a5a5an);
  h[31] = 0xee;
  return h;
};

/** Materializes a random span: blocks with signed transactions and the context they belong to. */
async function makeSpan(
  shape: SpanShape,
): Promise<{ ctx: SpanBatchContext; blocks: SpanBatchSourceBlock[] }> {
  const ctx = { genesisTimestamp: shape.genesis, blockTime: shape.blockTime, chainId: BigInt(shape.chainId) };
  const blocks: SpanBatchSourceBlock[] = [];
  let epoch = shape.firstEpoch;
  for (let i = 0; i < shape.blocks.length; i++) {
    const b = shape.blocks[i]!;
    if (i > 0) epoch += BigInt(b.step);
    const transactions: Uint8Array[] = [];
    for (const p of b.txs) transactions.push(await sign(p, shape.chainId));
    blocks.push({
      parentHash: i === 0 ? shape.parentHash : new Uint8Array(32),
      epochNumber: epoch,
      epochHash: epochHash(epoch),
      timestamp: shape.genesis + shape.rel + BigInt(i) * shape.blockTime,
      transactions,
    });
  }
  return { ctx, blocks };
}

const singularArb = fc.record({
  parentHash: fc.uint8Array({ minLength: 32, maxLength: 32 }),
  epochNumber: quantity(U64_MAX),
  epochHash: fc.uint8Array({ minLength: 32, maxLength: 32 }),
  timestamp: quantity(U64_MAX),
  opaque: fc.array(fc.uint8Array({ maxLength: 70 }), { maxLength: 3 }),
  txs: fc.array(txParams, { maxLength: 3 }),
  chainId: chainIdArb,
});

async function makeSingular(
  s: typeof singularArb extends fc.Arbitrary<infer T> ? T : never,
): Promise<SingularBatch> {
  const signed: Uint8Array[] = [];
  for (const p of s.txs) signed.push(await sign(p, s.chainId));
  return {
    type: "singular",
    parentHash: s.parentHash,
    epochNumber: s.epochNumber,
    epochHash: s.epochHash,
    timestamp: s.timestamp,
    transactions: [...s.opaque, ...signed],
  };
}

describe("batches: random round trips", () => {
  it("span batches: blocks -> span batch -> bytes -> span batch -> the same blocks and signed transactions", async () => {
    await fc.assert(
      fc.asyncProperty(spanShape, async (shape) => {
        const { ctx, blocks } = await makeSpan(shape);
        const span = buildSpanBatch(blocks, ctx, shape.firstStartsEpoch);
        const bytes = encodeBatch(span);
        const decoded = decodeBatch(bytes);
        expect(decoded).toEqual(span);
        expect(toHex(encodeBatch(decoded))).toBe(toHex(bytes));
        if (decoded.type !== "span") throw new Error("expected a span batch");
        expect(decoded.originBits[0]).toBe(shape.firstStartsEpoch ? 1 : 0);
        const out = spanBatchBlocks(decoded, ctx);
        expect(out).toHaveLength(blocks.length);
        for (let i = 0; i < blocks.length; i++) {
          expect(out[i]!.timestamp).toBe(blocks[i]!.timestamp);
          expect(out[i]!.epochNumber).toBe(blocks[i]!.epochNumber);
          expect(out[i]!.transactions.map((t) => toHex(t))).toEqual(
            blocks[i]!.transactions.map((t) => toHex(t)),
          );
        }
        const withHashes = spanBatchToBlockBatches(decoded, ctx, epochHash);
        expect(withHashes.map((b) => toHex(b.epochHash))).toEqual(blocks.map((b) => toHex(b.epochHash)));
      }),
      { numRuns: 60 },
    );
  });

  it("singular batches: batch -> bytes -> the same batch", async () => {
    await fc.assert(
      fc.asyncProperty(singularArb, async (s) => {
        const batch = await makeSingular(s);
        const bytes = encodeBatch(batch);
        expect(decodeBatch(bytes)).toEqual(batch);
      }),
      { numRuns: 80 },
    );
  });
});

describe("batches: random corruption", () => {
  const pool: { bytes: Uint8Array; ctx: SpanBatchContext }[] = [];

  beforeAll(async () => {
    const spans = fc.sample(spanShape, { numRuns: 12, seed: 11 });
    for (const shape of spans) {
      const { ctx, blocks } = await makeSpan(shape);
      pool.push({ bytes: encodeBatch(buildSpanBatch(blocks, ctx, shape.firstStartsEpoch)), ctx });
    }
    const ctx = { genesisTimestamp: 0n, blockTime: 2n, chainId: 10n };
    for (const s of fc.sample(singularArb, { numRuns: 6, seed: 12 }))
      pool.push({ bytes: encodeBatch(await makeSingular(s)), ctx });
  });

  const mutation = fc.record({
    op: fc.constantFrom("set", "flip", "truncate", "insert", "delete"),
    at: fc.nat(),
    value: fc.integer({ min: 0, max: 255 }),
    bit: fc.integer({ min: 0, max: 7 }),
  });

  function corrupt(
    src: Uint8Array,
    muts: { op: string; at: number; value: number; bit: number }[],
  ): Uint8Array {
    let b = src.slice();
    for (const m of muts) {
      const at = b.length === 0 ? 0 : m.at % b.length;
      if (m.op === "set") b[at] = m.value;
      else if (m.op === "flip") b[at]! ^= 1 << m.bit;
      else if (m.op === "truncate") b = b.slice(0, at);
      else if (m.op === "insert") b = Uint8Array.from([...b.subarray(0, at), m.value, ...b.subarray(at)]);
      else b = Uint8Array.from([...b.subarray(0, at), ...b.subarray(at + 1)]);
    }
    return b;
  }

  it("never crashes and never yields a batch other than the one the bytes encode", () => {
    fc.assert(
      fc.property(fc.nat(), fc.array(mutation, { minLength: 1, maxLength: 3 }), (pick, muts) => {
        const { bytes, ctx } = pool[pick % pool.length]!;
        const bad = corrupt(bytes, muts);
        let batch: Batch;
        try {
          batch = decodeBatch(bad);
        } catch (e) {
          expect(e).toBeInstanceOf(DeriveError);
          return;
        }
        // What was decoded is exactly what the bytes say: it re-encodes to a prefix of them (bytes after a
        // batch are ignored), so no field was invented, dropped or normalized.
        const again = encodeBatch(batch);
        expect(toHex(bad.subarray(0, again.length))).toBe(toHex(again));
        if (batch.type === "span") {
          try {
            for (const block of spanBatchBlocks(batch, ctx))
              for (const tx of block.transactions) expect(tx.length).toBeGreaterThan(0);
          } catch (e) {
            expect(e).toBeInstanceOf(DeriveError);
          }
        }
      }),
      { numRuns: 3000 },
    );
  });
});
