/**
 * A sealed block committed in steps (commitSealedInSteps, what the sequencer does at every block boundary): the
 * block's trie nodes go first, in key order, in SQLite transactions the event loop runs between, and the block last
 * in one transaction. Checked from a second (read-only) connection to the file at every step: the nodes arrive
 * step by step, smallest keys first, while the chain's head stays where it was; the block appears only at the end.
 * A crash between two steps (the process stops inside `between`) leaves the chain as it was, with some nodes no
 * block refers to yet; the block committed again after the restart is complete.
 *
 * In-process: the store of a standalone node that is not started. The block is the head's successor with 500
 * content-addressed nodes (keccak256 of random values) standing for its trie nodes and code.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { type SealedBlock, headerHash, initKeccak, keccak256 } from "../../src/chain/index.js";
import type { ChainNode } from "../../src/node/index.js";
import { commitSealedInSteps } from "../../src/node/block-in-progress.js";
import { openInProcessNode } from "./in-process-node.js";

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A standalone node, not started, on `dataDir`. */
const open = (dataDir: string) =>
  openInProcessNode("seal-steps", {
    blockTimeMs: 1000,
    flashblockIntervalMs: 100,
    devAccountCount: 1,
    dataDir,
  });

/** The successor of `node`'s head with `nodes` as the trie nodes and code it created. */
function successor(node: ChainNode, nodes: Map<string, Uint8Array>): SealedBlock {
  const head = node.producer.head;
  const header = {
    ...head.header,
    number: head.header.number + 1n,
    parentHash: head.hash,
    timestamp: head.header.timestamp + 1n,
  };
  return {
    header,
    blockHash: headerHash(header),
    transactions: [],
    transactionHashes: [],
    receipts: [],
    receiptDetails: [],
    stateRoot: header.stateRoot,
    messagePasserStorageRoot: undefined,
    outputRoot: undefined,
    newNodes: nodes,
  };
}

/** `count` content-addressed nodes as a sealed block lists them: hex keccak256 of the value (no `0x`) → value. */
function contentAddressed(count: number): Map<string, Uint8Array> {
  const nodes = new Map<string, Uint8Array>();
  for (let i = 0; i < count; i++) {
    const value = new Uint8Array(randomBytes(40 + (i % 200)));
    nodes.set(Buffer.from(keccak256(value)).toString("hex"), value);
  }
  return nodes;
}

/** What a second connection sees in the file: the node keys (hex, without 0x) and the highest block. */
function fileView(path: string): { keys: string[]; head: number } {
  const reader = new Database(path, { readonly: true });
  try {
    const keys = (reader.prepare("SELECT key FROM nodes").all() as { key: Buffer }[]).map((r) =>
      r.key.toString("hex"),
    );
    const head = (reader.prepare("SELECT max(number) AS n FROM blocks").get() as { n: number }).n;
    return { keys, head };
  } finally {
    reader.close();
  }
}

/** The node table's key of a hex keccak256 (its 31 bytes after the first). */
const tableKey = (hex: string) => hex.slice(2);

describe("block commit in steps", () => {
  it("writes the nodes in key order over several transactions, the event loop running between, then the block", async () => {
    await initKeccak();
    const dataDir = mkdtempSync(join(tmpdir(), "seal-steps-"));
    dirs.push(dataDir);
    const path = join(dataDir, "chain.sqlite");
    const { node, close } = await open(dataDir);
    try {
      const before = fileView(path);
      const nodes = contentAddressed(500);
      const sealed = successor(node, nodes);
      const sortedKeys = [...nodes.keys()].map(tableKey).sort();
      const views: { keys: string[]; head: number }[] = [];
      let immediateRan = false;
      setImmediate(() => (immediateRan = true));
      let ranBeforeFirstStepEnded: boolean | undefined;
      const stored = await commitSealedInSteps(
        node.store,
        sealed,
        undefined,
        async () => {
          views.push(fileView(path));
          await new Promise<void>((resolve) => setImmediate(resolve));
          ranBeforeFirstStepEnded ??= immediateRan;
        },
        0, // a step ends after its first 63 nodes
      );
      expect(ranBeforeFirstStepEnded).toBe(true);
      // 500 nodes at 63 a step: 8 transactions, the loop run after each of the first 7.
      expect(views).toHaveLength(7);
      const newKeys = (view: { keys: string[] }) => view.keys.filter((k) => !before.keys.includes(k)).sort();
      views.forEach((view, i) => {
        expect(view.head).toBe(before.head);
        expect(newKeys(view)).toEqual(sortedKeys.slice(0, 63 * (i + 1)));
      });
      const after = fileView(path);
      expect(after.head).toBe(before.head + 1);
      // With the block, its header as a preimage (keyed as nodes are).
      const headerKey = Buffer.from(sealed.blockHash.subarray(1)).toString("hex");
      expect(newKeys(after)).toEqual([...sortedKeys, headerKey].sort());
      expect(stored.hash).toEqual(sealed.blockHash);
      expect(node.store.blockByNumber(sealed.header.number)?.hash).toEqual(sealed.blockHash);
      for (const [hex, value] of nodes)
        expect(new Uint8Array(node.store.tryGetByKeccak256Hex(hex)!)).toEqual(value);
    } finally {
      await close();
    }
  }, 120_000);

  it("leaves the chain as it was when the process stops between two steps, and commits the block after", async () => {
    await initKeccak();
    const dataDir = mkdtempSync(join(tmpdir(), "seal-steps-crash-"));
    dirs.push(dataDir);
    const path = join(dataDir, "chain.sqlite");
    const nodes = contentAddressed(200);
    const first = await open(dataDir);
    const node = first.node;
    const headBefore = node.producer.head;
    const sealed = successor(node, nodes);
    try {
      await expect(
        commitSealedInSteps(
          node.store,
          sealed,
          undefined,
          () => Promise.reject(new Error("stopped between steps")),
          0,
        ),
      ).rejects.toThrow("stopped between steps");
    } finally {
      await first.close();
    }
    const firstStep = [...nodes.keys()].map(tableKey).sort().slice(0, 63);
    const view = fileView(path);
    expect(view.head).toBe(Number(headBefore.header.number));
    expect(view.keys).toEqual(expect.arrayContaining(firstStep));

    const again = await open(dataDir);
    try {
      const { store, producer } = again.node;
      expect(producer.head.hash).toEqual(headBefore.hash);
      await commitSealedInSteps(store, sealed, undefined, () => Promise.resolve(), 0);
      expect(store.headNumber()).toBe(headBefore.header.number + 1n);
      for (const [hex, value] of nodes)
        expect(new Uint8Array(store.tryGetByKeccak256Hex(hex)!)).toEqual(value);
    } finally {
      await again.close();
    }
  }, 120_000);
});
