/**
 * A block worker of the host's parallel witness run (parallel-run.ts): executes its consecutive blocks of a range
 * in order, each on the parent header it is given, over its own fetching oracle (its own L1, beacon and L2
 * clients; the block witnesses of its blocks fetched ahead), and answers each block's hash and output root, then
 * every value its blocks read. The worker decides nothing: the main thread keeps its values only when each
 * computed hash is the header the next block was executed on (docs/host.md "Parallel witness collection").
 */
import { parentPort } from "node:worker_threads";
import {
  InvalidBlockError,
  MissingPreimageError,
  executeBlock,
  initKeccak,
  outputRootPreimageV0,
} from "../../chain/index.js";
import { MissingWitnessError, readWithFetch } from "../../proof/program/index.js";
import type { BlockOutcome } from "../../proof/program/index.js";
import type { HostBlockJob, HostBlockReply } from "./block-protocol.js";
import { FetchingOracle } from "./oracle.js";
import { stateSource } from "./strategies.js";

const port = parentPort;
if (port === null) throw new Error("the host's block worker runs in a worker thread");
const send = (reply: HostBlockReply) => port.postMessage(reply);

function oracleOf(job: HostBlockJob): FetchingOracle {
  const { strategy, ...options } = job.oracle;
  return new FetchingOracle({
    ...options,
    l2State: async (client) => stateSource(strategy, { client, rollupConfig: job.rollupConfig }),
  });
}

async function executeOne(
  oracle: FetchingOracle,
  job: HostBlockJob,
  block: HostBlockJob["blocks"][number],
): Promise<{ outcome: BlockOutcome; outputRootPreimage?: Uint8Array }> {
  try {
    const sealed = await readWithFetch(oracle, `state for L2 block ${block.number}`, () =>
      executeBlock({
        config: job.rollupConfig,
        parent: block.parent,
        attributes: block.attributes,
        transactions: block.transactions,
        source: oracle,
        betweenTransactions: () => oracle.yieldPoint(),
      }),
    );
    if (sealed.outputRoot === undefined || sealed.messagePasserStorageRoot === undefined)
      return { outcome: { kind: "failed", reason: "no message passer account" } };
    return {
      outcome: { kind: "sealed", hash: sealed.blockHash, outputRoot: sealed.outputRoot },
      outputRootPreimage: outputRootPreimageV0(
        sealed.stateRoot,
        sealed.messagePasserStorageRoot,
        sealed.blockHash,
      ),
    };
  } catch (error) {
    if (error instanceof InvalidBlockError) return { outcome: { kind: "invalid", reason: error.message } };
    if (error instanceof MissingWitnessError || error instanceof MissingPreimageError)
      return { outcome: { kind: "missing", key: error.key } };
    return { outcome: { kind: "failed", reason: error instanceof Error ? error.message : String(error) } };
  }
}

async function run(job: HostBlockJob): Promise<void> {
  // The WebAssembly keccak before the first value is stored: every fetched value is hashed once on arrival.
  await initKeccak();
  const oracle = oracleOf(job);
  try {
    oracle.preload(job.headers);
    const first = job.blocks[0];
    const last = job.blocks.at(-1);
    if (first !== undefined && last !== undefined) await oracle.prefetchBlocks(first.number, last.number);
    for (const block of job.blocks) {
      const { outcome, outputRootPreimage } = await executeOne(oracle, job, block);
      send({
        type: "block",
        index: block.index,
        outcome,
        ...(outputRootPreimage === undefined ? {} : { outputRootPreimage }),
        heapUsed: process.memoryUsage().heapUsed,
      });
      // A block that did not seal breaks the chain of hashes: the later blocks' values would not be kept.
      if (outcome.kind !== "sealed") break;
    }
    const { stats } = oracle;
    send({
      type: "done",
      preimages: oracle.witness(),
      figures: {
        fetches: { ...stats.fetches },
        fetchMs: stats.fetchMs,
        prefetchMs: stats.prefetchMs,
        prefetchBytes: stats.prefetchBytes,
        requests: stats.requests.requests,
        requestsByMethod: { ...stats.requests.byMethod },
        responseBytes: stats.requests.responseBytes,
        requestBytes: stats.requests.requestBytes,
      },
      heapUsed: process.memoryUsage().heapUsed,
    });
  } finally {
    oracle.close();
  }
}

port.on("message", (job: HostBlockJob) => {
  run(job).catch((error: unknown) =>
    send({ type: "failed", reason: error instanceof Error ? error.message : String(error) }),
  );
});
