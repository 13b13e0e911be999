/**
 * A block worker thread (pool.ts): executes one derived block at a time on the parent header it is given, over
 * the request's verified preimage table (shared, read in place), and answers the block's hash and output root.
 * Sender recovery, execution and sealing all run here. The worker decides nothing: the main thread accepts a
 * block only when its hash is the header the next block was executed on (docs/proof.md "Parallel execution").
 */
import { parentPort } from "node:worker_threads";
import { InvalidBlockError, MissingPreimageError, executeBlock } from "../../../chain/index.js";
import { PreimageTable } from "../../preimages/index.js";
import type { BlockJob, BlockOutcome, BlockReply } from "./protocol.js";

let current: { run: number; table: PreimageTable } | undefined;

function tableOf(job: BlockJob): PreimageTable {
  if (current?.run !== job.run) current = { run: job.run, table: PreimageTable.fromShared(job.table) };
  return current.table;
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
    return { kind: "failed", reason: error instanceof Error ? error.message : String(error) };
  }
}

const port = parentPort;
if (port === null) throw new Error("the block worker runs in a worker thread");
port.postMessage({ ready: true });
port.on("message", (job: BlockJob) => {
  void execute(job).then((outcome) => {
    const reply: BlockReply = { id: job.id, outcome, heapUsed: process.memoryUsage().heapUsed };
    port.postMessage(reply);
  });
});
