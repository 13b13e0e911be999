/**
 * The real OP Mainnet batcher transaction (kona's testdata, ../shared/fixtures/derive/op-mainnet-batcher-tx.bin,
 * origin in that folder's README) through retrieval (OP Mainnet's batch inbox and batcher), the frame queue, the
 * channel assembler, the lenient channel reader and batch decoding, as the pipeline wires them; then through the
 * batch stage on a synthetic safe head and L1 window built to pass the span's parent and L1 origin checks.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { builtInChain, fromHex } from "../../chain/index.js";
import { DERIVE_FIXTURES_DIR } from "../blob/fixture-paths.test-support.js";
import { findBatcherData } from "../retrieval/retrieval.js";
import { type L1BlockRef, type L2BlockRef, derivationConfig } from "../types.js";
import { fakeHash } from "../validation/chain.test-support.js";
import type { SpanBlock, SpanBlockList } from "../validation/index.js";
import { DataMissingError } from "../errors.js";
import { BatchSource } from "./batch-source.js";
import { BatchStage } from "./batch-stage.js";

const config = derivationConfig(builtInChain(10n).rollupConfig);
const raw = new Uint8Array(readFileSync(join(DERIVE_FIXTURES_DIR, "op-mainnet-batcher-tx.bin")));
const BATCHER = fromHex("0x6887246668a3b87f54deb3b94ba47a6f63f32985");

function items(batcher = BATCHER): Uint8Array[] {
  return findBatcherData([raw], { batchInbox: config.batchInboxAddress, batcher }).map(
    (ref) => (ref as { data: Uint8Array }).data,
  );
}

/** A stand-in L1 block for the inclusion (its number is past the span's origins, within their window). */
const inclusion: L1BlockRef = {
  number: 19_426_590n,
  hash: fakeHash(1, 19_426_590n),
  parentHash: fakeHash(1, 19_426_589n),
  timestamp: 1_710_000_000n,
};

/** Every block of a span, in order. */
function allBlocks(list: SpanBlockList): SpanBlock[] {
  return Array.from({ length: list.length }, (_, i) => list.at(i)!);
}

describe("the real OP Mainnet batcher transaction through the pipeline", () => {
  it("yields one span batch of 27 blocks and 209 transactions", () => {
    const data = items();
    expect(data.length).toBe(1);
    const source = new BatchSource(config);
    source.setBlock(inclusion, data);
    const batch = source.next();
    if (batch === "eof" || batch.kind !== "span") throw new Error("expected a span batch");
    const blocks = allBlocks(batch.span.blocks);
    expect(blocks.length).toBe(27);
    expect(blocks.reduce((n, b) => n + b.transactions.length, 0)).toBe(209);
    expect(blocks[blocks.length - 1]!.epochNumber).toBe(19_426_585n);
    for (let i = 1; i < blocks.length; i++) expect(blocks[i]!.timestamp).toBe(blocks[i - 1]!.timestamp + 2n);
    const types = new Map<number, number>();
    for (const b of blocks)
      for (const tx of b.transactions)
        types.set(tx[0]! >= 0xc0 ? 0 : tx[0]!, (types.get(tx[0]! >= 0xc0 ? 0 : tx[0]!) ?? 0) + 1);
    expect(Object.fromEntries(types)).toEqual({ 0: 36, 2: 173 });
    expect(source.next()).toBe("eof");
  });

  it("is not read when the batcher is another account", () => {
    expect(items(fromHex("0x0000000000000000000000000000000000000001"))).toEqual([]);
  });

  it("goes through the batch stage as 27 singular batches on a safe head that matches its checks", async () => {
    // Peek at the span to build a chain its prefix checks accept: a safe head whose hash starts with the span's
    // parent check, and L1 origins whose last one's hash starts with its L1 origin check.
    const peek = new BatchSource(config);
    peek.setBlock(inclusion, items());
    const peeked = peek.next();
    if (peeked === "eof" || peeked.kind !== "span") throw new Error("expected a span batch");
    const span = peeked.span;
    const first = span.blocks.at(0)!;
    const lastEpoch = span.blocks.at(-1)!.epochNumber;
    const withPrefix = (prefix: Uint8Array, tag: number) => {
      const h = fakeHash(tag, 0);
      h.set(prefix);
      return h;
    };
    const origin = (n: bigint): L1BlockRef => ({
      number: n,
      hash: n === lastEpoch ? withPrefix(span.l1OriginCheck, 1) : fakeHash(1, n),
      parentHash: fakeHash(1, n - 1n),
      timestamp: first.timestamp - 100n,
    });
    let safe: L2BlockRef = {
      number: 117_000_000n,
      hash: withPrefix(span.parentCheck, 2),
      parentHash: fakeHash(2, 0),
      timestamp: first.timestamp - 2n,
      l1Origin: { number: first.epochNumber, hash: origin(first.epochNumber).hash },
      sequenceNumber: 3n,
    };
    const unused = async (n: bigint): Promise<never> => {
      throw new DataMissingError("validation", "the span does not overlap", { n });
    };
    const source = new BatchSource(config);
    const drops: unknown[] = [];
    const stage = new BatchStage(config, source, { blockRef: unused, block: unused }, (e) =>
      drops.push(e.details),
    );
    stage.reset(origin(first.epochNumber));
    for (let n = first.epochNumber + 1n; n < inclusion.number; n++) {
      source.setBlock(origin(n), []);
      expect((await stage.next(safe, origin(n))).kind).toBe("eof");
    }
    source.setBlock(inclusion, items());
    const derived = [];
    for (;;) {
      const r = await stage.next(safe, inclusion);
      if (r.kind === "eof") break;
      if (r.kind !== "batch") continue;
      derived.push(r.batch);
      safe = {
        number: safe.number + 1n,
        hash: fakeHash(2, safe.number + 1n),
        parentHash: safe.hash,
        timestamp: r.batch.timestamp,
        l1Origin: { number: r.batch.epochNumber, hash: r.batch.epochHash },
        sequenceNumber: r.batch.epochNumber === safe.l1Origin.number ? safe.sequenceNumber + 1n : 0n,
      };
    }
    expect(drops).toEqual([]);
    expect(derived.length).toBe(27);
    expect(derived.map((b) => b.transactions)).toEqual(allBlocks(span.blocks).map((b) => b.transactions));
    expect(derived[26]!.epochHash).toEqual(origin(lastEpoch).hash);
  });
});
