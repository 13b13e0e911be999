/**
 * The host's parallel witness run (docs/host.md "Parallel witness collection"): the program's RangeRunner for a
 * native run. Derivation runs once, on the main thread (it is sequential by nature); the range's headers are
 * asked of the L2 node by number; the derived blocks are split into consecutive runs, one per worker thread
 * (block-worker.ts), each executing its blocks in order on the node's parent headers over its own fetching oracle
 * and recording what they read. The program accepts the range only when every computed hash is the header the
 * next block was executed on (src/proof/program's executeRangeInParallel); the workers' values are kept only
 * then (`witness()`), otherwise the program executes the range sequentially over the main oracle.
 */
import { Worker } from "node:worker_threads";
import type { JsonRpcClient } from "../../chain-rpc/index.js";
import { workerEntryUrl } from "../../bundles/index.js";
import type { Preimage } from "../../../generated/protocol/index.js";
import {
  type BlockOutcome,
  type HeaderChain,
  type RangeBlock,
  type RangeRunner,
} from "../../proof/program/index.js";
import type { HostBlockJob, HostBlockReply, FetchFigures, WorkerOracleOptions } from "./block-protocol.js";
import { nodeHeaderChain } from "./node-headers.js";

/** The host block worker: its bundle, or from source the .mjs that loads block-worker.ts under tsx. */
const ENTRY = workerEntryUrl(
  "src/host/witness/block-worker.ts",
  new URL("./block-worker-entry.mjs", import.meta.url),
);

/** Default V8 old-generation limit of one host block worker (MiB): its blocks' fetched state and their execution. */
export const DEFAULT_HOST_WORKER_HEAP_MB = 2048;

export interface ParallelRunOptions {
  /** Worker threads (at least 2; each gets one run of consecutive blocks). */
  readonly workers: number;
  /** The L2 node the headers are asked of (the main oracle's client, so its requests count in the metrics). */
  readonly l2: JsonRpcClient;
  /** What each worker's fetching oracle is built from. */
  readonly oracle: WorkerOracleOptions;
  readonly rollupConfig: HostBlockJob["rollupConfig"];
  /** Old-generation heap limit of each worker, MiB (default DEFAULT_HOST_WORKER_HEAP_MB). */
  readonly maxHeapMb?: number;
  readonly signal?: AbortSignal;
}

/** `blocks` split into at most `parts` runs of consecutive blocks, as even as can be. */
export function splitRuns<T>(blocks: readonly T[], parts: number): T[][] {
  const runs: T[][] = [];
  const count = Math.min(parts, blocks.length);
  let start = 0;
  for (let i = 0; i < count; i++) {
    const end = start + Math.ceil((blocks.length - start) / (count - i));
    runs.push(blocks.slice(start, end));
    start = end;
  }
  return runs;
}

export class ParallelWitnessRun implements RangeRunner {
  readonly workers: number;
  peakWorkerHeapBytes = 0;
  /** The encoded headers of the agreed head and the range, as the node answered them. */
  private headerValues: Uint8Array[] = [];
  private readonly parts: { preimages: readonly Preimage[]; figures: FetchFigures }[] = [];
  private readonly outputPreimages = new Map<number, Uint8Array>();

  constructor(private readonly options: ParallelRunOptions) {
    if (!Number.isInteger(options.workers) || options.workers < 2)
      throw new RangeError(`a parallel run needs at least 2 workers, got ${options.workers}`);
    this.workers = options.workers;
  }

  /**
   * The range's headers as the L2 node has them, each checked to be its number's; nothing else is trusted:
   * the program accepts them only when each block's computed hash is the next one's parent.
   */
  async headerChain(agreed: {
    readonly number: bigint;
    readonly hash: Uint8Array;
  }): Promise<HeaderChain | string> {
    const headers = await nodeHeaderChain(
      this.options.l2,
      agreed,
      this.options.oracle.boot.claimedL2BlockNumber,
      2n,
      this.options.signal,
    );
    if (typeof headers === "string") return headers;
    this.headerValues = [...headers.values];
    return headers.chain;
  }

  async executeAll(
    blocks: readonly RangeBlock[],
    keep: (index: number, outcome: BlockOutcome) => boolean,
    signal?: AbortSignal,
  ): Promise<(BlockOutcome | undefined)[]> {
    signal?.throwIfAborted();
    const outcomes = new Array<BlockOutcome | undefined>(blocks.length);
    const runs = splitRuns(
      blocks.map((block, index) => ({ ...block, index })),
      this.workers,
    );
    const workers: { readonly first: number; readonly worker: Worker }[] = [];
    const stopAll = () => {
      for (const { worker } of workers) void worker.terminate();
    };
    // A block that did not chain makes the runs after it useless; the runs before it go on (the blocks that
    // chained before the break are counted).
    const stopAfter = (index: number) => {
      for (const { first, worker } of workers) if (first > index) void worker.terminate();
    };
    const onAbort = () => stopAll();
    signal?.addEventListener("abort", onAbort, { once: true });
    try {
      await Promise.all(
        runs.map(
          (run) =>
            new Promise<void>((resolve) => {
              const worker = new Worker(ENTRY, {
                name: "host-block-worker",
                resourceLimits: {
                  maxOldGenerationSizeMb: this.options.maxHeapMb ?? DEFAULT_HOST_WORKER_HEAP_MB,
                },
              });
              worker.unref();
              workers.push({ first: run[0]!.index, worker });
              let over = false;
              const fail = (reason: string) => {
                if (over) return;
                over = true;
                for (const block of run)
                  if (outcomes[block.index] === undefined) {
                    outcomes[block.index] = { kind: "failed", reason };
                    if (!keep(block.index, outcomes[block.index]!)) stopAfter(block.index);
                  }
                resolve();
              };
              worker.on("message", (reply: HostBlockReply) => {
                if (reply.type === "failed") return fail(reply.reason);
                this.peakWorkerHeapBytes = Math.max(this.peakWorkerHeapBytes, reply.heapUsed);
                if (reply.type === "done") {
                  over = true;
                  this.parts.push({ preimages: reply.preimages, figures: reply.figures });
                  void worker.terminate();
                  return resolve();
                }
                outcomes[reply.index] = reply.outcome;
                if (reply.outputRootPreimage !== undefined)
                  this.outputPreimages.set(reply.index, reply.outputRootPreimage);
                if (!keep(reply.index, reply.outcome)) stopAfter(reply.index);
              });
              worker.on("error", (error) => fail(`the host's block worker failed: ${error.message}`));
              worker.on("exit", (code) => fail(`the host's block worker exited with code ${code}`));
              const job: HostBlockJob = {
                oracle: this.options.oracle,
                rollupConfig: this.options.rollupConfig,
                headers: this.headerValues,
                blocks: run.map(({ index, number, parent, attributes, transactions }) => ({
                  index,
                  number,
                  parent,
                  attributes,
                  transactions,
                })),
              };
              worker.postMessage(job);
            }),
        ),
      );
    } finally {
      signal?.removeEventListener("abort", onAbort);
      stopAll();
    }
    signal?.throwIfAborted();
    return outcomes;
  }

  /** Every value the workers' blocks read (each worker's boot keys first); meaningful once the range chained. */
  witness(): Preimage[] {
    return this.parts.flatMap((part) => part.preimages);
  }

  /**
   * The chain witness of an accepted run: the range's headers and the claimed block's output root preimage
   * (every value a block read from an earlier block is in `witness()`: the workers fetched it from the node).
   */
  chainWitnessValues(): Uint8Array[] {
    const last = this.outputPreimages.get(this.headerValues.length - 2);
    return [...this.headerValues.slice(1), ...(last === undefined ? [] : [last])];
  }

  /** What the workers' fetches cost, summed. */
  figures(): FetchFigures {
    const sum = (pick: (f: FetchFigures) => number) =>
      this.parts.reduce((total, part) => total + pick(part.figures), 0);
    const merge = (pick: (f: FetchFigures) => Readonly<Record<string, number>>) => {
      const out: Record<string, number> = {};
      for (const part of this.parts)
        for (const [key, n] of Object.entries(pick(part.figures))) out[key] = (out[key] ?? 0) + n;
      return out;
    };
    return {
      fetches: merge((f) => f.fetches),
      fetchMs: sum((f) => f.fetchMs),
      prefetchMs: sum((f) => f.prefetchMs),
      prefetchBytes: sum((f) => f.prefetchBytes),
      requests: sum((f) => f.requests),
      requestsByMethod: merge((f) => f.requestsByMethod),
      responseBytes: sum((f) => f.responseBytes),
      requestBytes: sum((f) => f.requestBytes),
    };
  }
}
