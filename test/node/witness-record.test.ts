/**
 * Witness records (src/node/witness-record.ts) against the execution they stand in for, on a real in-process node
 * (0.5 s blocks, 50 ms flashblocks, a window of 4 blocks): four senders set and clear storage slots of one contract
 * and pay fresh recipients, a few transactions per flashblock, so a block's slots are written in one flashblock and
 * cleared in a later one (trie deletions, branch collapses) while the sequencer computes a root at every flashblock.
 * For every block, taken as it is sealed: the recorded witness alone executes the block to its hash, and it holds
 * every trie node, code and header the block's execution from its parent reads (debug_executionWitness without a
 * record). The window keeps the latest blocks only; a block outside it is executed again, to the same answer.
 */
import { type Hex, getContractAddress, hexToBytes, toHex } from "viem";
import { describe, expect, it } from "vitest";
import { toHexRaw } from "../../src/chain/index.js";
import { signEip1559 } from "../../src/load/signer.js";
import { admitTransaction } from "../../src/node/admission.js";
import type { BlockWitness } from "../../src/node/execution-witness.js";
import type { ChainNode } from "../../src/node/index.js";
import { attributesOf } from "../../src/node/replica/leader-data.js";
import { DEFAULT_NODE_RPC_LIMITS } from "../../src/node/rpc/limits.js";
import { createWitnessService } from "../../src/node/rpc/witness-handlers.js";
import { witnessFromRecord } from "../../src/node/witness-record.js";
import { inProcessNodeForFile } from "./in-process-node.js";
import {
  STORAGE_INIT,
  executeFromWitness,
  expectRecordCovers,
  hexSet,
  storageCall,
} from "./witness-checks.js";

const WINDOW = 4;
const SENDERS = 4;
const ROUNDS = 100;
const SLOTS = 24;

let node: ChainNode;
inProcessNodeForFile(
  "witness-record",
  { blockTimeMs: 500, flashblockIntervalMs: 50, devAccountCount: SENDERS, witnessWindow: WINDOW },
  (opened) => (node = opened),
);

describe("witness records", () => {
  it("hold at least what executing each block reads, within the window", async () => {
    /** Each sealed block's recorded witness, taken as it is sealed (the window deletes it four blocks later). */
    const recorded = new Map<bigint, BlockWitness>();
    const missing: bigint[] = [];
    node.producer.onSealed((b) => {
      const parent = node.store.blockByNumber(b.header.number - 1n)!;
      const witness = witnessFromRecord(node.store, parent.header, b.hash);
      if (witness === undefined) missing.push(b.header.number);
      else recorded.set(b.header.number, witness);
    });
    const wanted = new Set<string>();
    const sealedTxs = new Set<string>();
    const allSealed = new Promise<void>((resolve) =>
      node.producer.onSealed((b) => {
        for (const h of b.transactionHashes) sealedTxs.add(toHexRaw(h));
        if (wanted.size === SENDERS * ROUNDS + 1 && [...wanted].every((h) => sealedTxs.has(h))) resolve();
      }),
    );
    const nextSnapshot = (): Promise<void> =>
      new Promise((resolve) => {
        const off = node.producer.onSnapshot(() => {
          off();
          resolve();
        });
      });
    node.start();

    const sign = (i: number, nonce: bigint, to: Hex | undefined, data: Hex, value = 0n) =>
      signEip1559(node.devAccounts[i]!.privateKey as Hex, {
        chainId: 901,
        nonce,
        maxPriorityFeePerGas: 1_000_000n,
        maxFeePerGas: 100_000_000_000n,
        gas: 200_000n,
        to,
        value,
        data,
      });
    const deployer = node.devAccounts[0]!.address as Hex;
    const contract = getContractAddress({ from: deployer, nonce: 0n });
    wanted.add(admitTransaction(node, hexToBytes((await sign(0, 0n, undefined, STORAGE_INIT)).raw)).hashHex);
    const nonces = Array.from({ length: SENDERS }, (_, i) => (i === 0 ? 1n : 0n));
    // The slots' values as the transactions leave them (a model to count the clears that delete a slot).
    const slots = new Array<bigint>(SLOTS).fill(0n);
    let deletions = 0;
    let seed = 12345;
    const random = (n: number): number => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    for (let round = 0; round < ROUNDS; round++) {
      for (let i = 0; i < SENDERS; i++) {
        let tx;
        if (random(5) === 0) {
          // A payment to a fresh account (an account-trie insertion).
          const recipient = toHex(0xfeed0000 + round * SENDERS + i, { size: 20 });
          tx = await sign(i, nonces[i]!, recipient, "0x", 1000n);
        } else {
          const slot = random(SLOTS);
          const value = random(3) === 0 ? 0n : BigInt(1 + random(1000));
          if (value === 0n && slots[slot] !== 0n) deletions++;
          slots[slot] = value;
          tx = await sign(i, nonces[i]!, contract, storageCall(BigInt(slot), value));
        }
        nonces[i]!++;
        wanted.add(admitTransaction(node, hexToBytes(tx.raw)).hashHex);
      }
      // The next round goes into a later flashblock (and now and then a later block).
      await nextSnapshot();
    }
    await allSealed;
    // Stopped here (the block in progress sealed), so the window no longer moves under the checks below.
    await node.producer.stop();
    expect(deletions).toBeGreaterThan(10);
    expect(missing).toEqual([]);

    const service = createWitnessService(node, DEFAULT_NODE_RPC_LIMITS);
    for (const [number, witness] of recorded) {
      await expectRecordCovers(node.config, node.store, number, witness);
      const parent = node.store.blockByNumber(number - 1n)!;
      const block = node.store.blockByNumber(number)!;

      // Answered from the record inside the window, by executing the block outside it: the same block either way.
      const head = node.store.headNumber()!;
      const answer = await service.executionWitness(number);
      expect(answer.recorded, `block ${number} of head ${head}`).toBe(number > head - BigInt(WINDOW));
      expect(await executeFromWitness(node.config, parent.header, block, answer.witness)).toBe(
        toHexRaw(block.hash),
      );

      // The block's own payload (what Base's proposer asks for) is answered from the record too; another payload on
      // the same parent (the last transaction left out) is executed.
      const payload = {
        ...attributesOf(node.config, number, block.header),
        transactions: block.transactions,
        noTxPool: true,
        withdrawals: [],
      };
      const own = await service.executePayload(parent.hash, payload);
      expect(own.recorded, `block ${number} of head ${head}`).toBe(number > head - BigInt(WINDOW));
      expect(hexSet(own.witness.state)).toEqual(hexSet(answer.witness.state));
      const shorter = { ...payload, transactions: block.transactions.slice(0, -1) };
      expect((await service.executePayload(parent.hash, shorter)).recorded).toBe(false);
    }
    expect(recorded.size).toBeGreaterThan(5);

    // The window: the latest blocks keep their records, older ones are deleted.
    const head = node.store.headNumber()!;
    for (let n = 1n; n <= head; n++)
      expect(node.store.witnessRecord(n) !== undefined, `block ${n} of head ${head}`).toBe(
        n > head - BigInt(WINDOW),
      );
  }, 180_000);
});
