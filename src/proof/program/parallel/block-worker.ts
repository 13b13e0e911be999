/**
 * What a block worker thread (pool.ts) does: executes one derived block at a time on the parent header it is given, over
 * the request's preimage table (shared, read in place), and answers the block's hash and output root. Sender
 * recovery, execution and sealing all run here. It also checks a share of a request's preimages against their
 * keys before any block runs (`VerifyJob`), and a blob's field elements against its KZG commitment (`BlobJob`). The
 * worker decides nothing: the main thread accepts the preimages only when every share verified, remembers a blob as
 * checked only when a worker computed its commitment (derivation checks any other in full), and accepts a block only
 * when its hash is the header the next block was executed on (docs/proof.md "Parallel execution").
 */
import { parentPort } from "node:worker_threads";
import { sha256 } from "@noble/hashes/sha2.js";
import {
  InvalidBlockError,
  bytesEqual,
  initKeccak,
  MissingPreimageError,
  PreimageMismatchError,
  executeBlock,
} from "../../../chain/index.js";
import { loadKzg } from "../../../derive/index.js";
import { PreimageTable } from "../../preimages/index.js";
import { assembleBlob } from "../blob.js";
import type {
  BlobJob,
  BlobOutcome,
  BlockJob,
  BlockOutcome,
  BlockReply,
  VerifyJob,
  VerifyOutcome,
} from "./protocol.js";

let current: { run: number; table: PreimageTable } | undefined;

type Job = BlockJob | VerifyJob | BlobJob;

function tableOf(job: Job): PreimageTable {
  if (current?.run !== job.run) current = { run: job.run, table: PreimageTable.fromShared(job.table) };
  return current.table;
}

function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

async function execute(job: BlockJob): Promise<BlockOutcome> {
  try {
    const sealed = await executeBlock({
      config: job.rollupConfig,
      parent: job.parent,
      attributes: job.attributes,
      transactions: job.transactions,
      source: tableOf(job),
    });
    if (sealed.outputRoot === undefined) return { kind: "failed", reason: "no message passer account" };
    return { kind: "sealed", hash: sealed.blockHash, outputRoot: sealed.outputRoot };
  } catch (error) {
    if (error instanceof InvalidBlockError) return { kind: "invalid", reason: error.message };
    if (error instanceof MissingPreimageError) return { kind: "missing", key: error.key };
    return { kind: "failed", reason: reasonOf(error) };
  }
}

async function verify(job: VerifyJob): Promise<VerifyOutcome> {
  try {
    // The WebAssembly keccak, as the main thread's check uses (the same digests as the pure-JS one).
    await initKeccak();
    tableOf(job).verifyContent(undefined, job.from, job.to);
    return { kind: "verified" };
  } catch (error) {
    if (error instanceof PreimageMismatchError)
      return { kind: "mismatch", key: error.key, actualHash: error.actualHash };
    return { kind: "failed", reason: reasonOf(error) };
  }
}

async function checkBlob(job: BlobJob): Promise<BlobOutcome> {
  try {
    // This thread's own KZG backend (c-kzg's setup is loaded per thread, once).
    const kzg = await loadKzg();
    const blob = assembleBlob(tableOf(job), job.commitment, "blob");
    if (!bytesEqual(kzg.commitment(blob), job.commitment))
      return { kind: "failed", reason: "the field elements have another KZG commitment" };
    return { kind: "blob-checked", digest: sha256(blob) };
  } catch (error) {
    return { kind: "failed", reason: reasonOf(error) };
  }
}

function run(job: Job): Promise<BlockOutcome | VerifyOutcome | BlobOutcome> {
  switch (job.kind) {
    case "verify":
      return verify(job);
    case "blob":
      return checkBlob(job);
    case "block":
      return execute(job);
  }
}

/**
 * Serves the pool's jobs on this worker thread: says it is ready, then answers each job it is sent. worker.ts (the
 * worker's entry) calls it; so does the enclave image's one file when it is started as a block worker.
 */
export function serveBlockJobs(): void {
  const port = parentPort;
  if (port === null) throw new Error("the block worker runs in a worker thread");
  port.postMessage({ ready: true });
  port.on("message", (job: Job) => {
    void run(job).then((outcome) => {
      const reply: BlockReply = { id: job.id, outcome, heapUsed: process.memoryUsage().heapUsed };
      port.postMessage(reply);
    });
  });
}
