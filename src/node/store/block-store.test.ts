/**
 * The block store's pool journal when a write fails: a sender waiting on it is answered with the error, a failure no
 * sender waits on reaches the node's handler (it is logged, not dropped), and close() closes the database even when
 * its last flush fails.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { BlockStore } from "./block-store.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A store whose journal table another connection dropped: every journal write fails from now on. */
function storeWithBrokenJournal(onUnheard: (e: unknown) => void): BlockStore {
  const dir = mkdtempSync(join(tmpdir(), "block-store-"));
  dirs.push(dir);
  const path = join(dir, "chain.sqlite");
  const store = new BlockStore(path, onUnheard);
  const other = new Database(path);
  other.exec("DROP TABLE pool_journal");
  other.close();
  return store;
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));
const tx = (byte: number) => ({ hash: new Uint8Array(32).fill(byte), raw: new Uint8Array([byte, 1, 2]) });

describe("block store pool journal write failures", () => {
  it("answers a waiting sender with the error, and hands a failure nobody waits on to the node", async () => {
    const unheard: unknown[] = [];
    const store = storeWithBrokenJournal((e) => unheard.push(e));
    try {
      // Nobody waits: the flush at the end of the turn fails and only the handler hears of it.
      const a = tx(1);
      store.journalTransaction(a.hash, a.raw);
      await turn();
      await turn();
      expect(unheard).toHaveLength(1);
      expect(String(unheard[0])).toMatch(/pool_journal/);

      // A sender waits: it gets the error, and the handler is not called again.
      const b = tx(2);
      store.journalTransaction(b.hash, b.raw);
      await expect(store.journalDurable()).rejects.toThrow(/pool_journal/);
      await turn();
      expect(unheard).toHaveLength(1);
    } finally {
      expect(() => store.close()).not.toThrow(); // nothing buffered: close flushes nothing
    }
  });

  it("closes the database even when the last flush fails", () => {
    const store = storeWithBrokenJournal(() => undefined);
    const c = tx(3);
    store.journalTransaction(c.hash, c.raw);
    expect(() => store.close()).toThrow(/pool_journal/);
    expect(() => store.headNumber()).toThrow(/not open/);
  });
});
