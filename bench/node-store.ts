/**
 * The node store's trie-node reads (src/node/store/node-table.ts): a point lookup by hash in the nodes table, what a
 * witness answered from its record does ~2 000 times per Base-sized block and what the sequencer's and the call
 * workers' state reads do. Builds a database of the store's schema with `--rows` random 31-byte keys (the table's
 * key: a keccak256 without its first byte) and 100-499-byte values, then times `--lookups` random reads of existing
 * keys through the call workers' read-only store (`ReadonlyBlockStore`: the file memory-mapped, NODE_STORE_MMAP_BYTES)
 * and through a plain connection without the map (the node before), in turn, `--rounds` times each. The file is in
 * the OS page cache either way after the first round. Prints µs per lookup (median over the rounds) with the machine.
 *
 * Usage: npm run bench:node-store [-- --rows 2000000 --lookups 200000 --rounds 5]
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import Database from "better-sqlite3";
import { BlockStore, ReadonlyBlockStore } from "../src/node/index.js";
import { BenchResultError, BenchUsageError } from "./errors.js";
import { machineLine } from "./prove-stages.js";

const { values } = parseArgs({
  options: {
    rows: { type: "string", default: "2000000" },
    lookups: { type: "string", default: "200000" },
    rounds: { type: "string", default: "5" },
  },
});
const rows = Number(values.rows);
const lookups = Number(values.lookups);
const rounds = Number(values.rounds);
for (const [flag, n] of [
  ["--rows", rows],
  ["--lookups", lookups],
  ["--rounds", rounds],
] as const)
  if (!Number.isInteger(n) || n < 1) throw new BenchUsageError(`${flag}: a positive integer`, { [flag]: n });

const dir = mkdtempSync(join(tmpdir(), "bench-node-store-"));
const path = join(dir, "chain.sqlite");
try {
  const built = performance.now();
  // The node's schema, then the rows written directly (a node commits them with its blocks).
  new BlockStore(path).close();
  const writer = new Database(path);
  const put = writer.prepare("INSERT OR IGNORE INTO nodes (key, value) VALUES (?, ?)");
  /** The keys looked up, as the store's reads name them: the full hash as unprefixed hex (its first byte any). */
  const sample: string[] = [];
  const every = Math.max(1, Math.floor(rows / lookups));
  for (let start = 0; start < rows; start += 10_000) {
    writer.transaction(() => {
      for (let i = start; i < Math.min(rows, start + 10_000); i++) {
        const key = randomBytes(31);
        put.run(key, randomBytes(100 + (i % 400)));
        if (i % every === 0 && sample.length < lookups) sample.push(`00${key.toString("hex")}`);
      }
    })();
  }
  writer.pragma("wal_checkpoint(TRUNCATE)");
  writer.close();
  // The lookups in random order, not the order the keys were written in.
  for (let i = sample.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [sample[i], sample[j]] = [sample[j]!, sample[i]!];
  }
  console.log(machineLine());
  console.log(
    `${rows} rows, ${(statSync(path).size / 2 ** 20).toFixed(0)} MiB, built in ${((performance.now() - built) / 1000).toFixed(0)} s; ` +
      `${sample.length} random lookups per round, ${rounds} rounds each, in turn`,
  );

  const mapped = new ReadonlyBlockStore(path);
  const plain = new Database(path, { readonly: true, fileMustExist: true });
  const plainGet = plain.prepare<[Uint8Array], { value: Uint8Array }>(
    "SELECT value FROM nodes WHERE key = ?",
  );
  const readers: [string, (hashHex: string) => Uint8Array | undefined][] = [
    ["without the map (before)", (hashHex) => plainGet.get(Buffer.from(hashHex.slice(2), "hex"))?.value],
    ["ReadonlyBlockStore (memory-mapped)", (hashHex) => mapped.tryGetByKeccak256Hex(hashHex)],
  ];
  const figures = new Map<string, number[]>();
  for (let round = 0; round <= rounds; round++) {
    for (const [name, read] of readers) {
      const started = performance.now();
      for (const hashHex of sample)
        if (read(hashHex) === undefined)
          throw new BenchResultError(`${name}: ${hashHex} not found`, { hashHex });
      const us = ((performance.now() - started) * 1000) / sample.length;
      // Round 0 brings the file into the OS page cache and is not recorded.
      if (round > 0) figures.set(name, [...(figures.get(name) ?? []), us]);
    }
  }
  mapped.close();
  plain.close();
  console.log("| reader | µs per lookup (median) | rounds |\n| --- | --- | --- |");
  for (const [name, samples] of figures) {
    const sorted = [...samples].sort((a, b) => a - b);
    console.log(
      `| ${name} | ${sorted[sorted.length >> 1]!.toFixed(1)} | ${samples.map((x) => x.toFixed(1)).join(", ")} |`,
    );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
