/**
 * The host's forwarded run (docs/host.md "Forwarded witnesses", `--witness-run forward`): the program's RangeRunner for
 * a host that does not execute the range itself. Derivation still runs here, over the main fetching oracle; the range's
 * headers are the L2 node's (node-headers.ts); each block's witness is fetched with the chosen strategy (for
 * execute-payload, of the payload derivation gave), as the node answered it, and forwarded whole to the enclave, which
 * executes every block on it and verifies every value by its hash. The outcome of each block is the node's own claim
 * (its header's hash and the output root its header commits to), so the program's check of the claimed output root here
 * compares the claim with the node's chain, which is what the host's own execution would have computed from the node's
 * state. What the host skips is its copy of the execution; what the enclave does is unchanged. A block witness the node
 * cannot give, a range before Isthmus (whose headers do not commit to the message passer's storage root) or a strategy
 * without block witnesses (db-get) is a fallback: the program then executes the range here, as without this run.
 */
import {
  ByteArena,
  Bytes32Map,
  PreimageKeyType,
  headerHash,
  headerMessagePasserRoot,
  keccak256,
  outputRootPreimageV0,
} from "../../chain/index.js";
import type { JsonRpcClient } from "../../chain-rpc/index.js";
import type { Preimage } from "../../../generated/protocol/index.js";
import type { BlockOutcome, HeaderChain, RangeBlock, RangeRunner } from "../../proof/program/index.js";
import { WitnessBudget, type WitnessLimits } from "./limits.js";
import { nodeHeaderChain } from "./node-headers.js";
import { BoundedRunner, withRetries } from "./requests.js";
import type { L2StateSource } from "./strategies.js";

export interface ForwardRunOptions {
  /** The L2 node the headers are asked of (the main oracle's client, so its requests count in the metrics). */
  readonly l2: JsonRpcClient;
  /** The strategy the block witnesses come from (asked for once, at the first header chain). */
  readonly source: () => Promise<L2StateSource>;
  /** The claimed block: the range is the agreed head's successor up to it. */
  readonly claimedL2BlockNumber: bigint;
  /** Block witnesses fetched at once (default 3, Base's node's limit for the witness methods). */
  readonly concurrency?: number;
  /** What the forwarded values may hold (default: the enclave's caps); charged as they arrive. */
  readonly witnessLimits?: WitnessLimits;
  /** Told of every block witness fetched (its values, bytes and time). */
  readonly onFetched?: (values: number, bytes: number, ms: number) => void;
  readonly signal?: AbortSignal;
}

export class ForwardedWitnessRun implements RangeRunner {
  /** Nothing executes here: one "worker" in the program's report. */
  readonly workers = 1;
  readonly peakWorkerHeapBytes = 0;
  private headerValues: readonly Uint8Array[] = [];
  private headers: HeaderChain | undefined;
  /**
   * Every block witness's values by preimage key, in arrival order (each value once), copied into shared chunks: a
   * block witness's values are views of its answer's buffer, which is dropped once the new ones are copied out.
   */
  private readonly values = new Bytes32Map<Uint8Array>();
  private readonly arena = new ByteArena();
  private readonly budget: WitnessBudget;
  private source: L2StateSource | undefined;

  constructor(private readonly options: ForwardRunOptions) {
    this.budget = new WitnessBudget(options.witnessLimits);
  }

  /** The node's headers of the range, or why the range is not forwarded. */
  async headerChain(agreed: {
    readonly number: bigint;
    readonly hash: Uint8Array;
  }): Promise<HeaderChain | string> {
    this.source = await this.options.source();
    if (!this.source.prefetches) return `the ${this.source.name} strategy has no block witnesses to forward`;
    const found = await nodeHeaderChain(
      this.options.l2,
      agreed,
      this.options.claimedL2BlockNumber,
      1n,
      this.options.signal,
    );
    if (typeof found === "string") return found;
    const before = found.chain.headers.find((header) => headerMessagePasserRoot(header) === undefined);
    if (before !== undefined)
      return `L2 block ${before.number} is before Isthmus: its header does not commit to the message passer's storage root`;
    this.headerValues = found.values;
    this.headers = found.chain;
    return found.chain;
  }

  /** Each block's witness fetched, in block order on the node; its outcome the node's header (see the file). */
  async executeAll(
    blocks: readonly RangeBlock[],
    keep: (index: number, outcome: BlockOutcome) => boolean,
    signal?: AbortSignal,
  ): Promise<(BlockOutcome | undefined)[]> {
    const source = this.source;
    const chain = this.headers;
    if (source === undefined || chain === undefined) throw new Error("executeAll before headerChain");
    const outcomes = new Array<BlockOutcome | undefined>(blocks.length);
    const runner = new BoundedRunner(this.options.concurrency ?? 3);
    let stopped = false;
    const settle = (index: number, outcome: BlockOutcome): void => {
      outcomes[index] = outcome;
      if (!keep(index, outcome)) stopped = true;
    };
    await Promise.all(
      blocks.map((block, index) =>
        runner.run(async () => {
          if (stopped) return;
          signal?.throwIfAborted();
          const t = performance.now();
          let values: Uint8Array[];
          try {
            values = await withRetries(() => this.blockWitness(source, block), signal);
          } catch (error) {
            if (signal?.aborted) throw signal.reason;
            const reason = error instanceof Error ? error.message : String(error);
            return settle(index, { kind: "failed", reason: `its block witness: ${reason}` });
          }
          if (values.length === 0)
            return settle(index, { kind: "failed", reason: `the L2 node gave no witness for it` });
          let bytes = 0;
          for (const value of values) {
            bytes += value.length;
            // Looked up by the hash with the key type in place of its first byte (no key built per value).
            const hash = keccak256(value);
            if (this.values.has(hash, PreimageKeyType.Keccak256)) continue;
            try {
              this.budget.addPreimage(value.length);
            } catch (error) {
              // The program's own run records only what it reads: it may still fit one frame.
              const reason = error instanceof Error ? error.message : String(error);
              return settle(index, { kind: "failed", reason: `the forwarded block witnesses: ${reason}` });
            }
            this.values.set(hash, this.arena.copy(value), PreimageKeyType.Keccak256);
          }
          this.options.onFetched?.(values.length, bytes, performance.now() - t);
          const header = chain.headers[index]!;
          const hash = chain.hashes[index]!;
          settle(index, {
            kind: "sealed",
            hash,
            outputRoot: keccak256(
              outputRootPreimageV0(header.stateRoot, headerMessagePasserRoot(header)!, hash),
            ),
          });
        }),
      ),
    );
    return outcomes;
  }

  /**
   * The witness of a block of the range: with a strategy that takes a payload (execute-payload), the derived
   * payload built on the node's header of its parent, so the node's block is not fetched only to be sent back (and
   * the witness is of the block the enclave executes); otherwise the node's block by its number.
   */
  private blockWitness(source: L2StateSource, block: RangeBlock): Promise<Uint8Array[]> {
    if (source.payloadWitness === undefined) return source.blockWitness(block.number);
    return source.payloadWitness(headerHash(block.parent), block.attributes, block.transactions);
  }

  /** Every value of the forwarded block witnesses, keyed by its keccak256 (meaningful once the range was accepted). */
  witness(): Preimage[] {
    return [...this.values.entryViews()].map(([key, value]): Preimage => [key, value]);
  }

  /**
   * The chain witness of an accepted run: the range's headers and the claimed block's output root preimage, as the
   * node's headers commit to them (what an enclave executing in parallel walks back from the claim).
   */
  chainWitnessValues(): Uint8Array[] {
    const chain = this.headers;
    if (chain === undefined || chain.headers.length === 0) return [];
    const last = chain.headers.at(-1)!;
    return [
      ...this.headerValues.slice(1),
      outputRootPreimageV0(last.stateRoot, headerMessagePasserRoot(last)!, chain.hashes.at(-1)!),
    ];
  }
}
