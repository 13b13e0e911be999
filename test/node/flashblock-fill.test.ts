/**
 * The sequencer under a backlog larger than a block (a real node in a temporary directory, 2 s blocks, 200 ms
 * flashblocks, its pool filled in one go): a flashblock carries what could be executed in its interval, not the
 * whole backlog, so a block sealed with a backlog left got its pool transactions over several flashblocks;
 * every transaction lands exactly once; and each sealed block is exactly what its flashblocks said (their
 * transactions concatenated, the last one's hash, consecutive indices from 0).
 */
import { type Hex, hexToBytes } from "viem";
import { describe, expect, it } from "vitest";
import { toHex, toHexRaw } from "../../src/chain/index.js";
import { signEip1559 } from "../../src/load/signer.js";
import { admitTransaction } from "../../src/node/admission.js";
import type { FlashblockMessage } from "../../src/node/flashblocks.js";
import type { ChainNode } from "../../src/node/index.js";
import { inProcessNodeForFile } from "./in-process-node.js";
import type { StoredBlock } from "../../src/node/store/block-store.js";

const SENDERS = 48;
const PER_SENDER = 60;
const RECIPIENT = "0x000000000000000000000000000000000000dEaD";

let node: ChainNode;
inProcessNodeForFile(
  "flashblock-fill",
  {
    blockTimeMs: 2000,
    flashblockIntervalMs: 200,
    devAccountCount: SENDERS,
  },
  (opened) => (node = opened),
);

describe("filling flashblocks from a backlog", () => {
  it("spreads a full block over several flashblocks, lands every transaction once, and seals what it streamed", async () => {
    const raws: Uint8Array[] = [];
    for (const account of node.devAccounts)
      for (let nonce = 0n; nonce < BigInt(PER_SENDER); nonce++) {
        const signed = await signEip1559(account.privateKey as Hex, {
          chainId: 901,
          nonce,
          maxPriorityFeePerGas: 1_000_000n,
          maxFeePerGas: 100_000_000_000n,
          gas: 21_000n,
          to: RECIPIENT,
          value: 1n,
          data: "0x",
        });
        raws.push(hexToBytes(signed.raw));
      }
    const wanted = new Set<string>();
    const messages: FlashblockMessage[] = [];
    const sealed: StoredBlock[] = [];
    node.producer.onSnapshot((p) => messages.push(p.message));
    const allSealed = new Promise<void>((resolve) =>
      node.producer.onSealed((b) => {
        sealed.push(b);
        for (const h of b.transactionHashes) wanted.delete(toHexRaw(h));
        if (wanted.size === 0) resolve();
      }),
    );
    node.start();
    await new Promise<void>((resolve) => {
      const off = node.producer.onSnapshot(() => {
        off();
        resolve();
      });
    });
    // All admitted in one synchronous run: the whole backlog is in the pool before the next flashblock's fill.
    for (const raw of raws) wanted.add(admitTransaction(node, raw).hashHex);
    expect(wanted.size).toBe(SENDERS * PER_SENDER);
    const hashes = new Set(wanted);
    await allSealed;

    const seen = new Map<string, number>();
    for (const b of sealed)
      for (const h of b.transactionHashes) seen.set(toHexRaw(h), (seen.get(toHexRaw(h)) ?? 0) + 1);
    for (const h of hashes) expect(seen.get(h), h).toBe(1);
    expect([...node.producer.dropped.keys()]).toEqual([]);

    // Blocks sealed while the backlog was not yet all included: the old one-shot fill put their pool
    // transactions (as many as the block's gas allowed) in a single flashblock.
    const withBacklog = sealed
      .filter((b) => b.transactionHashes.some((h) => hashes.has(toHexRaw(h))))
      .slice(0, -1);
    expect(withBacklog.length).toBeGreaterThan(0);
    for (const b of sealed) {
      const own = messages.filter((m) => m.metadata.block_number === Number(b.header.number));
      expect(own.map((m) => m.index)).toEqual(own.map((_, i) => i));
      expect(own.flatMap((m) => m.diff.transactions)).toEqual(b.transactions.map(toHex));
      expect(own.at(-1)!.diff.block_hash).toBe(toHex(b.hash));
      if (withBacklog.includes(b)) {
        const carrying = own.filter((m) => m.index > 0 && m.diff.transactions.length > 0);
        expect(carrying.length, `block ${b.header.number}`).toBeGreaterThan(1);
      }
    }
  }, 300_000);
});
