/**
 * The pool journal's group commit: the transactions accepted in one turn of the event loop are written to SQLite
 * together, and a transaction is answered only once written.
 *
 * In-process (the store of a node that is not started, a second read-only connection looking at the file): a
 * recorded transaction is not in the file until `journalDurable()` resolves, then is, in the order accepted; a
 * transaction forgotten, a block committed or the store closed while others wait in memory writes them first,
 * so a forget or a seal never runs before the insert it undoes and a graceful stop loses none; one recorded after
 * the store closed is refused rather than left waiting.
 * A real node process (60 s blocks, so nothing is sealed): a JSON-RPC batch of 100 `eth_sendRawTransaction`, the
 * process killed with SIGKILL the moment the answer arrives, and every acknowledged transaction is restored by the
 * next start.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { type Hex, keccak256 } from "viem";
import { afterAll, describe, expect, it } from "vitest";
import { initKeccak } from "../../src/chain/index.js";
import { createLogger } from "../../src/log/index.js";
import { ChainNode } from "../../src/node/index.js";
import { signTransfer } from "./helpers.js";
import { type NodeProcess, startNodeProcess } from "./spawn-node.js";

const dirs: string[] = [];
let proc: NodeProcess | undefined;
afterAll(async () => {
  await proc?.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const hashOf = (i: number) => Uint8Array.from({ length: 32 }, (_, j) => (i * 7 + j) & 0xff);
const rawOf = (i: number) => Uint8Array.of(0x02, i, i, i);

describe("pool journal group commit", () => {
  it("writes a turn's transactions together, before any forget, seal or close", async () => {
    await initKeccak();
    const dataDir = mkdtempSync(join(tmpdir(), "seq-journal-group-"));
    dirs.push(dataDir);
    const node = await ChainNode.open({
      dataDir,
      chainId: 901n,
      blockTimeMs: 1000,
      flashblockIntervalMs: 100,
      devAccountCount: 1,
      preconfirmedReceipts: true,
      callWorkers: 0,
      callTimeoutMs: 5000,
      logger: createLogger({ name: "seq-journal-group-test", level: "silent" }),
    });
    const reader = new Database(join(dataDir, "chain.sqlite"), { readonly: true });
    const inFile = () =>
      (reader.prepare("SELECT hash FROM pool_journal ORDER BY seq").all() as { hash: Buffer }[]).map((r) =>
        r.hash.toString("hex"),
      );
    const hex = (i: number) => Buffer.from(hashOf(i)).toString("hex");
    const store = node.store;
    try {
      for (let i = 0; i < 3; i++) store.journalTransaction(hashOf(i), rawOf(i));
      expect(inFile()).toEqual([]);
      await store.journalDurable();
      expect(inFile()).toEqual([hex(0), hex(1), hex(2)]);
      await store.journalDurable(); // nothing waiting: resolves at once

      // Forgetting one still in memory: the insert goes first, then the delete (nothing left behind).
      store.journalTransaction(hashOf(3), rawOf(3));
      store.journalTransaction(hashOf(4), rawOf(4));
      const durable = store.journalDurable();
      store.forgetTransaction(hashOf(3));
      expect(inFile()).toEqual([hex(0), hex(1), hex(2), hex(4)]);
      await durable;

      // A block sealed while a transaction it contains is still in memory: the seal's own transaction writes the
      // journal first and then takes the block's transactions out of it.
      store.journalTransaction(hashOf(5), rawOf(5));
      store.journalTransaction(hashOf(6), rawOf(6));
      const head = node.producer.head;
      store.commitBlock(
        {
          header: { ...head.header, number: head.header.number + 1n },
          hash: hashOf(99),
          transactions: [],
          transactionHashes: [hashOf(0), hashOf(5)],
          receipts: [],
          details: [],
        },
        new Map(),
      );
      expect(inFile()).toEqual([hex(1), hex(2), hex(4), hex(6)]);
      await store.journalDurable();

      // Closing writes what is still in memory.
      store.journalTransaction(hashOf(7), rawOf(7));
    } finally {
      await node.close();
    }
    expect(inFile()).toEqual([hex(1), hex(2), hex(4), hex(6), hex(7)]);
    reader.close();
    // Recorded after the close: the wait is refused (the sender gets an error), never left hanging.
    store.journalTransaction(hashOf(8), rawOf(8));
    await expect(store.journalDurable()).rejects.toThrow(/not open/);
  }, 120_000);

  it("restores every transaction a batch acknowledged when the node is killed at the answer", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "seq-journal-group-proc-"));
    dirs.push(dataDir);
    const start = () =>
      startNodeProcess({ dataDir, blockTimeMs: 60_000, flashblockIntervalMs: 200, callWorkers: 0 });
    proc = await start();
    const recipient = "0x000000000000000000000000000000000000dEaD";
    const raws: Hex[] = [];
    for (let account = 1; account <= 4; account++)
      for (let nonce = 0; nonce < 25; nonce++)
        raws.push(await signTransfer(proc, account, nonce, recipient, BigInt(1000 + nonce)));
    const body = JSON.stringify(
      raws.map((raw, id) => ({ jsonrpc: "2.0", id, method: "eth_sendRawTransaction", params: [raw] })),
    );
    const response = await fetch(proc.url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    });
    const answers = (await response.json()) as { id: number; result?: Hex; error?: unknown }[];
    await proc.kill();
    proc = undefined;
    expect(answers.map((a) => a.result)).toEqual(raws.map((raw) => keccak256(raw)));

    const check = new Database(join(dataDir, "chain.sqlite"), { readonly: true });
    try {
      expect(check.prepare("SELECT count(*) AS n FROM pool_journal").get()).toEqual({ n: raws.length });
    } finally {
      check.close();
    }
    proc = await start();
    expect(proc.output()).toMatch(new RegExp(`"restored":${raws.length},"forgotten":0`));
  }, 240_000);
});
