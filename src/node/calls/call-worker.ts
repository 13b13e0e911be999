/**
 * A call worker thread: runs eth_call, eth_estimateGas and eth_createAccessList jobs, eth_getProof reads
 * and block reads (full blocks, receipts, logs, fee history: answered as JSON text), off the node's event loop. It reads sealed state from the node's SQLite file (read-only; WAL readers never block
 * the sequencer's writer) and pending state from the overlay of the block being built, which the main
 * thread sends as deltas. One job at a time; a job that overruns its deadline is ended by terminating
 * this thread.
 */
import { readlinkSync } from "node:fs";
import { setPriority } from "node:os";
import { inspect } from "node:util";
import { parentPort, workerData } from "node:worker_threads";
import { commonFor, OpFork } from "../../chain/index.js";
import { NodeLimitExceededError } from "../rpc/limits.js";
import { WITNESS_NODE_CACHE_BYTES, WitnessNodeCache } from "../execution-witness.js";
import { witnessFor } from "../witness-record.js";
import { ReadonlyBlockStore } from "../store/block-store.js";
import {
  CallRunner,
  createAccessList,
  estimateGas,
  IntrinsicGasError,
  type MessageRunner,
} from "../state/call.js";
import { type HashSource, OverlaySource } from "../state/sources.js";
import type { CallJob, CallWorkerData, OverlayDelta, WorkerReply } from "./protocol.js";
import { blockReadJson } from "./block-reads.js";
import { proofJson } from "./reads.js";

/**
 * Nice value of a call worker thread: when the cores are busy, the node's main thread (the sequencer's
 * snapshots and seals) is scheduled ahead of calls and reads (docs/node/limits.md "Block production under load").
 */
export const CALL_WORKER_NICE = 5;

/** Lowers this thread's priority (Linux: setpriority on the thread id); elsewhere it keeps the process's. */
function lowerPriority(): void {
  try {
    const tid = Number(readlinkSync("/proc/thread-self").split("/").at(-1));
    if (Number.isInteger(tid) && tid > 0) setPriority(tid, CALL_WORKER_NICE);
  } catch {
    // No /proc/thread-self (not Linux) or not permitted: the worker runs at the process's priority.
  }
}

const port = parentPort;
if (port === null) throw new Error("call-worker.ts runs as a worker thread only");
const { dbPath, chainId } = workerData as CallWorkerData;
const store = new ReadonlyBlockStore(dbPath);
/** Trie nodes this worker's witness executions keep between them (created at the first witness job). */
let witnessNodes: WitnessNodeCache | undefined;
const common = commonFor(chainId, OpFork.Isthmus);

/** The nodes of the block being built that this worker has received, by unprefixed hex keccak256. */
let overlay: { blockId: string; nodes: Map<string, Uint8Array> } | undefined;

function sourceFor(delta: OverlayDelta | undefined): HashSource {
  if (delta === undefined) return store;
  // A new block, or a delta from the start (the main thread resends everything after a failure).
  if (overlay === undefined || overlay.blockId !== delta.blockId || delta.from === 0) {
    overlay = { blockId: delta.blockId, nodes: new Map() };
  }
  if (delta.from !== overlay.nodes.size) {
    throw new Error(`overlay delta starts at ${delta.from}, the worker holds ${overlay.nodes.size} nodes`);
  }
  for (const [key, value] of delta.entries) overlay.nodes.set(key, value);
  return new OverlaySource(store, overlay.nodes);
}

const reply = (message: WorkerReply): void => port.postMessage(message);

async function runJob(job: CallJob): Promise<void> {
  if (job.kind === "witness") {
    // No deadline: the block's own gas limit bounds it, as on the event loop (the caller bounds how many run).
    witnessNodes ??= new WitnessNodeCache(WITNESS_NODE_CACHE_BYTES);
    const { blockHash, witness, recorded } = await witnessFor({
      config: job.config,
      store,
      parent: job.parent,
      attributes: job.attributes,
      transactions: job.transactions,
      nodeCache: witnessNodes,
      ...(job.sealed === undefined ? {} : { sealed: job.sealed }),
    });
    reply({ kind: "witness-result", id: job.id, blockHash, witness, recorded });
    return;
  }
  if (job.kind === "block-read") {
    // No deadline: the work is bounded by the limits the main thread checked (ranges, block counts).
    reply({ kind: "json-result", id: job.id, json: blockReadJson(job.read, store, common) });
    return;
  }
  if (job.kind === "proof") {
    const source = sourceFor(job.overlay);
    // The deadline also bounds a read (its work is bounded by the key limits; this is a safety net).
    reply({ kind: "run-started", id: job.id });
    const keys = Array.from({ length: job.storageKeys.length / 32 }, (_, i) =>
      job.storageKeys.subarray(i * 32, i * 32 + 32),
    );
    const json = proofJson(source, job.stateRoot, job.address, keys);
    reply({ kind: "json-result", id: job.id, json });
    return;
  }
  const runner = await CallRunner.create(sourceFor(job.overlay), job.env);
  // The main thread's deadline counts per EVM execution (an estimate runs several).
  const counted: MessageRunner = {
    run: (msg) => {
      reply({ kind: "run-started", id: job.id });
      return runner.run(msg);
    },
  };
  if (job.kind === "call") {
    reply({ kind: "call-result", id: job.id, outcome: await counted.run(job.msg) });
  } else if (job.kind === "estimate") {
    reply({
      kind: "estimate-result",
      id: job.id,
      result: await estimateGas(counted, job.msg, job.cap),
    });
  } else {
    reply({ kind: "access-list-result", id: job.id, result: await createAccessList(counted, job.msg) });
  }
}

port.on("message", (job: CallJob) => {
  runJob(job).catch((error: unknown) => {
    if (error instanceof NodeLimitExceededError) {
      reply({
        kind: "limit-exceeded",
        id: job.id,
        limit: error.limit,
        max: error.max,
        requested: error.requested,
        what: error.what,
      });
    } else if (error instanceof IntrinsicGasError) {
      reply({ kind: "intrinsic-gas", id: job.id, gas: error.gas, intrinsic: error.intrinsic });
    } else {
      // Not every library throws Errors: a plain object becomes its readable form, never "[object Object]".
      if (error instanceof Error)
        reply({ kind: "failed", id: job.id, name: error.name, message: error.message });
      else
        reply({
          kind: "failed",
          id: job.id,
          name: typeof error,
          message: inspect(error, { breakLength: Infinity }),
        });
    }
  });
});
lowerPriority();
reply({ kind: "ready" });
