/**
 * A read replica keeps witness records as the sequencer does (src/node/witness-record.ts): a real leader node in
 * process, serving its websocket on 127.0.0.1, and a replica (`follow`) in the same process. Blocks sealed before the
 * replica starts reach it by catch-up (each fetched and re-executed); blocks after it are rebuilt from the leader's
 * flashblocks and sealed. Either way every block the replica holds has a record, and each record alone executes its
 * block to the hash and holds what executing the block from its parent reads (trie deletions included: the
 * transactions set and clear storage slots).
 */
import { type Hex, getContractAddress, hexToBytes, toHex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signEip1559 } from "../../src/load/signer.js";
import { createLogger } from "../../src/log/index.js";
import { admitTransaction } from "../../src/node/admission.js";
import type { ChainNode } from "../../src/node/index.js";
import { DEFAULT_NODE_RPC_LIMITS } from "../../src/node/rpc/limits.js";
import { createWitnessService } from "../../src/node/rpc/witness-handlers.js";
import { createNodeServer } from "../../src/node/server.js";
import type { StoredBlock } from "../../src/node/store/block-store.js";
import { witnessFromRecord } from "../../src/node/witness-record.js";
import type { RpcServer } from "../../src/rpc/index.js";
import { type InProcessNode, openInProcessNode } from "./in-process-node.js";
import { STORAGE_INIT, expectRecordCovers, storageCall } from "./witness-checks.js";

const SLOTS = 12;
/** Transactions sent before the replica starts, and after. */
const BEFORE = 24;
const AFTER = 40;

let leader: InProcessNode;
let server: RpcServer;
let leaderWsUrl: string;
let replica: InProcessNode | undefined;

beforeAll(async () => {
  leader = await openInProcessNode("replica-record-leader", {
    blockTimeMs: 500,
    flashblockIntervalMs: 100,
    devAccountCount: 1,
  });
  server = createNodeServer(leader.node, {
    host: "127.0.0.1",
    port: 0,
    logger: createLogger({ name: "replica-record-leader-rpc", level: "silent" }),
  });
  leaderWsUrl = `ws://127.0.0.1:${await server.listen()}`;
  leader.node.start();
}, 120_000);

afterAll(async () => {
  await replica?.close();
  await server?.close({ drainMs: 0 });
  await leader?.close();
});

/** Resolves with the first block `node` seals that includes the transaction `hashHex` (unprefixed). */
function sealedWith(node: ChainNode, hashHex: string): Promise<StoredBlock> {
  return new Promise((resolve) => {
    const off = node.producer.onSealed((b) => {
      if (b.transactionHashes.some((h) => Buffer.from(h).toString("hex") === hashHex)) {
        off();
        resolve(b);
      }
    });
  });
}

/** Resolves at the leader's next pending snapshot (the next flashblock). */
function nextFlashblock(node: ChainNode): Promise<void> {
  return new Promise((resolve) => {
    const off = node.producer.onSnapshot(() => {
      off();
      resolve();
    });
  });
}

describe("a replica's witness records", () => {
  it("record every block it holds, caught up or rebuilt from flashblocks, each covering the block's execution", async () => {
    const node = leader.node;
    const key = node.devAccounts[0]!.privateKey as Hex;
    let nonce = 0n;
    const send = async (to: Hex | undefined, data: Hex): Promise<string> => {
      const tx = await signEip1559(key, {
        chainId: 901,
        nonce: nonce++,
        maxPriorityFeePerGas: 1_000_000n,
        maxFeePerGas: 100_000_000_000n,
        gas: 200_000n,
        to,
        value: 0n,
        data,
      });
      return admitTransaction(node, hexToBytes(tx.raw)).hashHex;
    };
    const contract = getContractAddress({ from: node.devAccounts[0]!.address as Hex, nonce: 0n });
    let seed = 7;
    const random = (n: number): number => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    /** `count` storage writes, two per flashblock, a third of them clearing a slot; answers the last one's hash. */
    const storageWrites = async (count: number): Promise<string> => {
      let last = "";
      for (let i = 0; i < count; i++) {
        const value = random(3) === 0 ? 0n : BigInt(1 + random(1000));
        last = await send(contract, storageCall(BigInt(random(SLOTS)), value));
        if (i % 2 === 1) await nextFlashblock(node);
      }
      return last;
    };

    await send(undefined, STORAGE_INIT);
    const before = await sealedWith(node, await storageWrites(BEFORE)).then((b) => b.header.number);

    // The replica starts behind: blocks 1..`before` reach it by catch-up.
    replica = await openInProcessNode("replica-record-replica", {
      blockTimeMs: 500,
      flashblockIntervalMs: 100,
      devAccountCount: 1,
      witnessWindow: 10_000,
      follow: { leaderUrl: leaderWsUrl },
    });
    const follower = replica.node;
    /** Blocks the replica rebuilt from flashblocks (it published a pending view of them). */
    const rebuilt = new Set<bigint>();
    follower.producer.onSnapshot((p) => rebuilt.add(p.snapshot.header.number));
    const caughtUp = new Promise<void>((resolve) => {
      const off = follower.producer.onSealed((b) => {
        if (b.header.number >= before) {
          off();
          resolve();
        }
      });
    });
    follower.start();
    await caughtUp;

    // Then blocks with transactions the replica follows by their flashblocks.
    const lastHash = await storageWrites(AFTER);
    const last = await sealedWith(follower, lastHash);
    await follower.producer.stop();

    const head = follower.store.headNumber()!;
    expect(head).toBeGreaterThanOrEqual(last.header.number);
    // Some blocks after the catch-up, with transactions in them, were rebuilt from flashblocks.
    const rebuiltWithTxs = [...rebuilt].filter(
      (n) => n > before && n <= head && follower.store.blockByNumber(n)!.transactions.length > 1,
    );
    expect(rebuiltWithTxs.length).toBeGreaterThan(0);

    const service = createWitnessService(follower, DEFAULT_NODE_RPC_LIMITS);
    for (let n = 1n; n <= head; n++) {
      const parent = follower.store.blockByNumber(n - 1n)!;
      const block = follower.store.blockByNumber(n)!;
      const witness = witnessFromRecord(follower.store, parent.header, block.hash);
      expect(witness, `the replica's record of block ${n} (${toHex(block.hash)})`).toBeDefined();
      await expectRecordCovers(follower.config, follower.store, n, witness!);
    }
    // debug_executionWitness on the replica answers from its records.
    expect((await service.executionWitness(before)).recorded).toBe(true);
    expect((await service.executionWitness(rebuiltWithTxs[0]!)).recorded).toBe(true);
  }, 180_000);
});
