/**
 * fast-check over the whole pipeline: random corruption of a batcher transaction's calldata never makes
 * derivation fail (corrupt input is dropped, never an error), and derivation still reaches the target through
 * empty batches once the sequencing window runs out. Corruption of the frame layer (version byte, channel id,
 * frame number, length, is_last) never yields a transaction that was not sent. (Inside the compressed data a
 * flipped bit can decode to other valid bytes: zlib's checksum comes at the end of a stream that derivation reads
 * leniently, as op-node does, and brotli has none; so no such claim is made there.)
 */
import { toHex } from "../chain/index.js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { derive } from "./driver.js";
import { DeriveError } from "./errors.js";
import {
  L1_CHAIN,
  SyntheticL1,
  agreedL2Block,
  channelPayloads,
  genesisSystemConfig,
  l2Provider,
  l2Transactions,
  singularBatch,
  spanBatch,
  syntheticRollupConfig,
} from "./pipeline/synthetic.test-support.js";
import { fakeHash } from "./validation/chain.test-support.js";

const executedHash = (n: bigint) => fakeHash(0x99, n);

describe("derive() under corrupted batcher data", () => {
  it("drops what it cannot read, reaches the target, and derives no unsent transaction from frame-layer corruption", async () => {
    const txs = await l2Transactions(11, 6);
    const sent = new Set(txs.map(toHex));
    // Window 4: epoch 3 expires at L1 block 7, so the target is reached whatever happens to the batches.
    const rollup = syntheticRollupConfig(4n);
    const base = new SyntheticL1(rollup);
    base.fillTo(3n);
    const head = agreedL2Block(base, 20n, 3n, 2n, genesisSystemConfig(rollup));
    const batch = (n: bigint, t: Uint8Array[]) => ({
      parentHash: n === 21n ? head.hash : executedHash(n - 1n),
      epochNumber: 3n,
      epochHash: base.hashes[3]!,
      timestamp: 1_000n + 2n * n,
      transactions: t,
    });
    const payload = channelPayloads(1, [
      singularBatch(batch(21n, [txs[0]!])),
      spanBatch([batch(22n, [txs[1]!, txs[2]!]), batch(23n, []), batch(24n, [txs[3]!])], false),
      singularBatch(batch(25n, [txs[4]!, txs[5]!])),
    ])[0]!;

    // Frame layer: version (1), channel id (16), frame number (2), data length (4); is_last is the last byte.
    const headerOffset = fc.oneof(fc.nat(22), fc.constant(payload.length - 1));
    const anyOffset = fc.nat(payload.length - 1);
    const flips = (offset: fc.Arbitrary<number>) =>
      fc.array(fc.tuple(offset, fc.integer({ min: 1, max: 255 })), { minLength: 1, maxLength: 6 });

    const check = (onlyHeader: boolean) =>
      fc.asyncProperty(flips(onlyHeader ? headerOffset : anyOffset), async (flips) => {
        const corrupt = payload.slice();
        for (const [at, xor] of flips) corrupt[at]! ^= xor;
        const l1 = new SyntheticL1(syntheticRollupConfig(4n));
        l1.fillTo(3n);
        l1.addBlock({ transactions: [await l1.calldataTx(corrupt)] });
        l1.fillTo(12n);
        const gen = derive({
          rollupConfig: l1.rollup,
          l1ChainConfig: L1_CHAIN,
          l1: l1.provider,
          l2: l2Provider([head]),
          blobs: l1.blobs,
          agreedL2Head: 20n,
          l1Head: l1.head,
          target: 27n,
        });
        let derived = 0;
        try {
          let step = await gen.next();
          while (!step.done) {
            const b = step.value;
            if (onlyHeader) {
              for (const tx of b.transactions.slice(b.attributes.depositCount)) {
                expect(sent.has(toHex(tx)), `block ${b.number} holds a transaction that was not sent`).toBe(
                  true,
                );
              }
            }
            derived++;
            step = await gen.next({ hash: executedHash(b.number), depositOnly: false });
          }
          expect(step.value).toMatchObject({ reachedTarget: true });
        } catch (e) {
          // Corrupt batcher data is dropped input, never a failure of derivation.
          expect(e).not.toBeInstanceOf(DeriveError);
          throw e;
        }
        expect(derived).toBe(7);
      });
    await fc.assert(check(true), { numRuns: 25 });
    await fc.assert(check(false), { numRuns: 25 });
  });
});
