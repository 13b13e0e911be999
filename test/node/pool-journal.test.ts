/**
 * The pool journal of a real node process: an accepted transaction survives kill -9 whether it was
 * still pooled (a nonce gap keeps it queued) or already pre-confirmed in the block being built, and a
 * graceful restart keeps the pool too. A journaled transaction that is no longer admissible after a
 * restart is forgotten with the reason logged, and the node starts normally.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { type Hex, hexToBytes, keccak256 } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, describe, expect, it } from "vitest";
import { call, rpc, signTransfer, waitFor } from "./helpers.js";
import { type NodeProcess, startNodeProcess } from "./spawn-node.js";

const dataDir = mkdtempSync(join(tmpdir(), "op-node-pool-journal-"));
let node: NodeProcess | undefined;
afterAll(async () => {
  await node?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

/** Slow blocks keep what is pre-confirmed unsealed long enough to kill the node before the seal. */
// No call workers: their start-up is seconds of CPU per node on a loaded CI machine, and nothing here depends on
// where eth_call runs (the worker path is tested in calls, isolation, offloaded and call-pool).
const startSlow = () =>
  startNodeProcess({ dataDir, blockTimeMs: 60_000, flashblockIntervalMs: 100, callWorkers: 0 });
const startFast = () =>
  startNodeProcess({ dataDir, blockTimeMs: 300, flashblockIntervalMs: 50, callWorkers: 0 });

type Receipt = { blockNumber: Hex; blockHash: Hex; status: Hex } | null;
type Transaction = { hash: Hex; blockNumber: Hex | null; nonce: Hex } | null;

const sealedHead = async (n: NodeProcess) => BigInt(await call<Hex>(n.url, "eth_blockNumber", []));

describe("pool journal", () => {
  it("keeps pooled and pre-confirmed transactions across kill -9 and a graceful restart", async () => {
    node = await startSlow();
    const recipient = privateKeyToAccount(generatePrivateKey()).address;
    const headAtStart = await sealedHead(node);

    // Pre-confirmed in the block being built (receipt at pending), never sealed before the kill.
    const preconfirmed = await signTransfer(node, 1, 0, recipient, 1111n);
    const preconfirmedHash = await call<Hex>(node.url, "eth_sendRawTransaction", [preconfirmed]);
    await waitFor(
      async () =>
        (await call<Receipt>(node!.url, "eth_getTransactionReceipt", [preconfirmedHash])) ?? undefined,
      "the pre-confirmed receipt",
    );
    expect(BigInt(await call<Hex>(node.url, "eth_getBalance", [recipient, "pending"]))).toBe(1111n);
    // Queued behind a nonce gap: pooled, never executable until nonce 1 arrives.
    const queued = await signTransfer(node, 1, 2, recipient, 3333n);
    const queuedHash = await call<Hex>(node.url, "eth_sendRawTransaction", [queued]);
    expect(await sealedHead(node)).toBe(headAtStart);

    await node.kill();
    node = await startFast();
    expect(node.output()).toMatch(/"restored":2,"forgotten":0/);
    // The pre-confirmed transfer is sealed in a new block.
    const receipt = await waitFor(async () => {
      const r = await call<Receipt>(node!.url, "eth_getTransactionReceipt", [preconfirmedHash]);
      return r !== null && BigInt(r.blockNumber) <= (await sealedHead(node!)) ? r : undefined;
    }, "the restored transfer sealed");
    expect(receipt.status).toBe("0x1");
    expect(BigInt(await call<Hex>(node.url, "eth_getBalance", [recipient, "latest"]))).toBe(1111n);
    // The queued one is still pooled: known by hash, refused as a duplicate.
    const pooled = await call<Transaction>(node.url, "eth_getTransactionByHash", [queuedHash]);
    expect(pooled?.blockNumber).toBeNull();
    expect((await rpc(node.url, "eth_sendRawTransaction", [queued])).body?.error?.message).toBe(
      "already known",
    );
    expect(
      BigInt(await call<Hex>(node.url, "eth_getTransactionCount", [node.accounts[1]!.address, "pending"])),
    ).toBe(1n);

    // A graceful restart keeps it as well; filling the gap then lets both go through.
    await node.stop();
    node = await startFast();
    expect(node.output()).toMatch(/"restored":1,"forgotten":0/);
    expect((await call<Transaction>(node.url, "eth_getTransactionByHash", [queuedHash]))?.hash).toBe(
      queuedHash,
    );
    const gap = await call<Hex>(node.url, "eth_sendRawTransaction", [
      await signTransfer(node, 1, 1, recipient, 2222n),
    ]);
    for (const hash of [gap, queuedHash]) {
      await waitFor(async () => {
        const r = await call<Receipt>(node!.url, "eth_getTransactionReceipt", [hash]);
        return r !== null && BigInt(r.blockNumber) <= (await sealedHead(node!)) ? r : undefined;
      }, "the gap and the queued transfer sealed");
    }
    expect(BigInt(await call<Hex>(node.url, "eth_getBalance", [recipient, "latest"]))).toBe(6666n);

    // Sealed transactions left the journal with their block: nothing is restored after this restart.
    await node.stop();
    const db = new Database(join(dataDir, "chain.sqlite"), { readonly: true });
    try {
      expect(db.prepare("SELECT count(*) AS n FROM pool_journal").get()).toEqual({ n: 0 });
    } finally {
      db.close();
    }
    node = await startFast();
    expect(node.output()).not.toMatch(/restored the transaction pool/);
  });

  it("forgets a journaled transaction that is no longer admissible and starts normally", async () => {
    const previous = node!;
    await previous.stop();
    node = undefined;
    // Nonce 0 of account 1 was used above: written into the journal while the node is down, it can
    // never be admitted again.
    const stale = await signTransfer(previous, 1, 0, "0x000000000000000000000000000000000000dEaD", 1n);
    const db = new Database(join(dataDir, "chain.sqlite"));
    try {
      db.prepare("INSERT INTO pool_journal (hash, raw) VALUES (?, ?)").run(
        Buffer.from(hexToBytes(keccak256(stale))),
        Buffer.from(hexToBytes(stale)),
      );
    } finally {
      db.close();
    }
    node = await startFast();
    expect(node.output()).toMatch(/journaled transaction no longer admissible, forgotten/);
    expect(node.output()).toMatch(/nonce too low/);
    expect(node.output()).toMatch(/"restored":0,"forgotten":1/);
    expect(await call<Transaction>(node.url, "eth_getTransactionByHash", [keccak256(stale)])).toBeNull();
    await node.stop();
    node = undefined;
    const check = new Database(join(dataDir, "chain.sqlite"), { readonly: true });
    try {
      expect(check.prepare("SELECT count(*) AS n FROM pool_journal").get()).toEqual({ n: 0 });
    } finally {
      check.close();
    }
  });
});
