/**
 * What an enclave does with a Prove frame before the program starts (docs/enclave.md "Parallel execution"): decode the
 * preimage table, check every hash-keyed value against its key, and share the table with the block workers. On a
 * synthetic frame of keccak256-keyed values (default 550 000 of 32-351 bytes, about a 100-block frame at Base's
 * target gas, README "At Base's target gas"), medians of wall milliseconds:
 * - decode: the index over an ordinary payload, and over one on a SharedArrayBuffer with the index there too (what an
 *   enclave with workers does, so that sharing copies nothing);
 * - share: `toShared` of the ordinary table (copies the payload and the index), and of the shared one (copies nothing);
 * - verify: on this thread (`verifyContent`, an enclave with one worker), and on a BlockPool of each `--workers`
 *   count (`verifyAll`, an enclave with that many);
 * - blobs (`--blobs`, default 30, each 4097 more preimages): derivation reading every blob on this thread, each
 *   checked in full (`readBlob`: its KZG commitment computed), against the blobs checked on a BlockPool of each
 *   `--workers` count first (`checkBlobsOnPool`, what an enclave with workers does) and then read, each on its
 *   sha256. Every round starts from a Kzg that remembers nothing.
 * Usage: npm run bench:preimages [-- --preimages 550000 --blobs 30 --workers 1,2 --rounds 5]
 */
import { randomBytes } from "node:crypto";
import { encodeRequest, type Preimage } from "../generated/protocol/index.js";
import { initKeccak, keccak256, loadEthKzg, PreimageKeyType } from "../src/chain/index.js";
import { encodeBlob, Kzg, loadKzg, versionedHash } from "../src/derive/index.js";
import { PreimageTable } from "../src/proof/preimages/index.js";
import { blobPreimages, BlockPool, checkBlobsOnPool, readBlob } from "../src/proof/program/index.js";
import { BenchResultError, BenchUsageError } from "./errors.js";
import { machineLine } from "./prove-stages.js";

function parseArgs(): { preimages: number; blobs: number; workers: number[]; rounds: number } {
  const args = process.argv.slice(2);
  const value = (flag: string, fallback: string) => {
    const at = args.indexOf(flag);
    return at === -1 ? fallback : args[at + 1]!;
  };
  const preimages = Number(value("--preimages", "550000"));
  const workers = value("--workers", "1,2").split(",").map(Number);
  const rounds = Number(value("--rounds", "5"));
  const blobs = Number(value("--blobs", "30"));
  if (!Number.isInteger(preimages) || preimages < 1)
    throw new BenchUsageError("--preimages: a positive integer");
  if (!Number.isInteger(blobs) || blobs < 0) throw new BenchUsageError("--blobs: a non-negative integer");
  if (workers.some((n) => !Number.isInteger(n) || n < 1))
    throw new BenchUsageError("--workers: positive integers, comma-separated");
  if (!Number.isInteger(rounds) || rounds < 1) throw new BenchUsageError("--rounds: a positive integer");
  return { preimages, blobs, workers, rounds };
}

function median(xs: readonly number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[sorted.length >> 1]!;
}

async function timed(fn: () => unknown): Promise<number> {
  const started = performance.now();
  await fn();
  return performance.now() - started;
}

const { preimages: count, blobs, workers, rounds } = parseArgs();
await initKeccak();
const preimages: Preimage[] = [];
for (let i = 0; i < count; i++) {
  const value = randomBytes(32 + ((i * 7919) % 320));
  const key = keccak256(value);
  key[0] = PreimageKeyType.Keccak256;
  preimages.push([key, value]);
}
// Blobs of random batcher data (OP-encoded: 130 044 bytes each), with their commitments.
const kzg = await loadKzg();
const versionedHashes: Uint8Array[] = [];
for (let i = 0; i < blobs; i++) {
  const blob = encodeBlob(randomBytes(130_044));
  const commitment = kzg.commitment(blob);
  const hash = versionedHash(commitment);
  versionedHashes.push(hash);
  preimages.push(...blobPreimages(hash, commitment, blob));
}
const backend = await loadEthKzg();
/** Derivation's reads of every blob, with `memo` (a Kzg that remembers what it or `checkBlobsOnPool` checked). */
const readAll = (table: PreimageTable, memo: Kzg) => {
  for (const hash of versionedHashes) readBlob(table, hash, memo);
};
const payload = encodeRequest({ kind: "Prove", preimages });
preimages.length = 0;
const sharedPayload = new Uint8Array(new SharedArrayBuffer(payload.length));
sharedPayload.set(payload);
const pools = workers.map((n) => new BlockPool({ workers: n }));
await Promise.all(pools.map((pool) => pool.start()));

const figures = new Map<string, number[]>();
const record = (name: string, ms: number) => figures.set(name, [...(figures.get(name) ?? []), ms]);
for (let round = 0; round <= rounds; round++) {
  // Round 0 warms up (the WebAssembly hash, the workers' first table, V8's code) and is not recorded.
  const keep = (name: string, ms: number) => round > 0 && record(name, ms);
  let table: PreimageTable | undefined;
  keep("decode, ordinary payload", await timed(() => (table = PreimageTable.decode(payload))));
  keep("share, copied (ordinary table)", await timed(() => table!.toShared()));
  keep("verify on this thread", await timed(() => table!.verifyContent()));
  let shared: PreimageTable | undefined;
  keep(
    "decode, shared payload and index",
    await timed(() => (shared = PreimageTable.decode(sharedPayload, { shared: true }))),
  );
  keep("share, in place (shared table)", await timed(() => shared!.toShared()));
  for (const pool of pools)
    keep(
      `verify on ${pool.workers} worker${pool.workers === 1 ? "" : "s"}`,
      await timed(() => pool.verifyAll(shared!.toShared())),
    );
  if (blobs === 0) continue;
  keep(
    "blobs, each checked as derivation reads it (this thread)",
    await timed(() => readAll(shared!, new Kzg(backend))),
  );
  for (const pool of pools) {
    const memo = new Kzg(backend);
    keep(
      `blobs checked on ${pool.workers} worker${pool.workers === 1 ? "" : "s"}, then read`,
      await timed(async () => {
        const checked = await checkBlobsOnPool(pool, shared!, undefined, memo);
        if (checked.checked !== blobs)
          throw new BenchResultError(`${checked.checked} of ${blobs} blobs checked`, { ...checked });
        readAll(shared!, memo);
      }),
    );
  }
}
await Promise.all(pools.map((pool) => pool.close()));

console.log(machineLine());
console.log(
  `${count} preimages and ${blobs} blobs (${count + blobs * 4097} in all), ${(payload.length / 2 ** 20).toFixed(0)} MiB payload; ` +
    `KZG on ${kzg.backend}; medians of ${rounds} rounds after a warm-up`,
);
console.log("| step | ms |\n| --- | --- |");
for (const [name, samples] of figures) console.log(`| ${name} | ${median(samples).toFixed(0)} |`);
console.log(`peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`);
