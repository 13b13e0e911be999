/**
 * The Holocene batch stage (specs/protocol/holocene/derivation.md "Span Batches" and "Batch Queue"): it holds at
 * most one span batch, hands out singular batches strictly in order, checks each against the safe head, drops an
 * invalid one together with the rest of its span batch and channel, and derives empty batches once the sequencing
 * window of the current epoch has expired.
 *
 * `l1Blocks` is the window of L1 blocks batches may refer to: from the safe head's L1 origin (the epoch) to the
 * L1 block being read. Batches read while the L1 block being read is not past the safe head's origin can only hold
 * past blocks, so they are skipped unchecked (op-node's "origin behind" drain).
 */
import { bytesEqual } from "../../chain/index.js";
import { CriticalDeriveError, DroppedInputError } from "../errors.js";
import type { DropListener } from "../frames/index.js";
import { type DerivationConfig, type L1BlockRef, type L2BlockRef, type SingularBatchData } from "../types.js";
import {
  type BatchValidity,
  type SafeChainReader,
  checkSingularBatch,
  checkSpanBatchOverlap,
  checkSpanBatchPrefix,
  deriveEmptyBatch,
  spanSingularBatches,
} from "../validation/index.js";
import type { BatchSource } from "./batch-source.js";

export type BatchStageResult =
  | { readonly kind: "batch"; readonly batch: SingularBatchData }
  /** Nothing to hand out yet: call again (the stage consumed input). */
  | { readonly kind: "not-enough-data" }
  /** The current L1 block is used up: advance L1, then call again. */
  | { readonly kind: "eof" };

const NOT_ENOUGH_DATA: BatchStageResult = { kind: "not-enough-data" };
const EOF: BatchStageResult = { kind: "eof" };

export class BatchStage {
  private origin: L1BlockRef | undefined;
  private l1Blocks: L1BlockRef[] = [];
  private span: Omit<SingularBatchData, "parentHash">[] = [];

  constructor(
    private readonly config: DerivationConfig,
    private readonly source: BatchSource,
    private readonly chain: SafeChainReader,
    private readonly onDrop?: DropListener,
  ) {}

  /** Starts at the safe head's L1 origin `epoch` (the traversal itself may start earlier). */
  reset(epoch: L1BlockRef): void {
    this.origin = epoch;
    this.l1Blocks = [epoch];
    this.span = [];
  }

  /** The L1 blocks batches are checked against (for tests and diagnostics). */
  get window(): readonly L1BlockRef[] {
    return this.l1Blocks;
  }

  /** Drops the rest of the span batch and of the channel (an invalid batch, or a deposit-only replacement). */
  flush(): void {
    this.span = [];
    this.source.flushChannel();
  }

  /** The next singular batch for `parent` (the safe head), read at L1 block `origin`. */
  async next(parent: L2BlockRef, origin: L1BlockRef): Promise<BatchStageResult> {
    this.updateOrigins(parent, origin);
    if (origin.number <= parent.l1Origin.number) {
      // Origin behind or at the safe head's origin: its batches can only be past ones.
      return this.source.next() === "eof" ? EOF : NOT_ENOUGH_DATA;
    }
    const epoch = this.l1Blocks[0];
    if (epoch === undefined || this.l1Blocks.length < 2) {
      // Past the safe head's origin, the window holds that origin and the next L1 block at least.
      throw new CriticalDeriveError("validation", "too few L1 blocks buffered for the safe head", {
        origin: origin.number,
        buffered: this.l1Blocks.length,
      });
    }
    if (
      !(epoch.number === parent.l1Origin.number && sameHash(epoch.hash, parent.l1Origin.hash)) &&
      parent.l1Origin.number !== epoch.number - 1n
    ) {
      throw new CriticalDeriveError(
        "validation",
        "the safe head's L1 origin is not the batch stage's epoch",
        {
          safeHeadOrigin: parent.l1Origin.number,
          epoch: epoch.number,
        },
      );
    }

    const candidate = await this.nextCandidate(parent, origin);
    if (candidate === "eof") return this.emptyBatch(parent, origin);
    if (candidate === "not-enough-data") return NOT_ENOUGH_DATA;
    const validity = checkSingularBatch(this.config, this.l1Blocks, parent, candidate, origin);
    return this.apply(validity, "singular batch", candidate.timestamp) ?? { kind: "batch", batch: candidate };
  }

  /** Applies a non-accept validity (undefined when accepted). */
  private apply(validity: BatchValidity, what: string, timestamp: bigint): BatchStageResult | undefined {
    switch (validity.kind) {
      case "accept":
        return undefined;
      case "past":
      case "undecided":
        return NOT_ENOUGH_DATA;
      case "drop":
        this.onDrop?.(
          new DroppedInputError("validation", `${what} dropped: ${validity.reason}`, {
            reason: validity.reason,
            timestamp,
            ...validity.details,
          }),
        );
        this.flush();
        return NOT_ENOUGH_DATA;
    }
  }

  private async nextCandidate(
    parent: L2BlockRef,
    origin: L1BlockRef,
  ): Promise<SingularBatchData | "eof" | "not-enough-data"> {
    const pending = this.span[0];
    if (pending !== undefined) {
      if (pending.timestamp === parent.timestamp + this.config.blockTime) {
        this.span.shift();
        return { ...pending, parentHash: parent.hash };
      }
      // The previous block of the span did not become the safe head: the rest of the span is stale.
      this.span = [];
    }
    const next = this.source.next();
    if (next === "eof") return "eof";
    if (next.kind === "singular") return next.batch;

    const span = next.span;
    const first = span.blocks.at(0)?.timestamp ?? 0n;
    const prefix = await checkSpanBatchPrefix(this.config, this.l1Blocks, parent, span, origin, this.chain);
    let validity = prefix.validity;
    if (validity.kind === "accept" && prefix.parent !== undefined) {
      validity = await checkSpanBatchOverlap(this.config, parent, prefix.parent, span, this.chain);
    }
    const rejected = this.apply(validity, "span batch", first);
    if (rejected !== undefined) return "not-enough-data";

    const singular = spanSingularBatches(span, this.l1Blocks, parent);
    if ("validity" in singular) {
      this.apply(singular.validity, "span batch", first);
      return "not-enough-data";
    }
    this.span = singular.batches;
    const head = this.span.shift();
    if (head === undefined) return "not-enough-data";
    return { ...head, parentHash: parent.hash };
  }

  private emptyBatch(parent: L2BlockRef, origin: L1BlockRef): BatchStageResult {
    const decision = deriveEmptyBatch(this.config, this.l1Blocks, origin, parent);
    switch (decision.kind) {
      case "batch":
        return { kind: "batch", batch: decision.batch };
      case "advance-epoch":
        this.l1Blocks.shift();
        return EOF;
      case "wait":
        return EOF;
    }
  }

  private updateOrigins(parent: L2BlockRef, origin: L1BlockRef): void {
    const behind = origin.number < parent.l1Origin.number;
    if (this.origin === undefined || !sameHash(this.origin.hash, origin.hash)) {
      this.origin = origin;
      if (!behind) this.l1Blocks.push(origin);
      else this.l1Blocks = [];
    }
    const first = this.l1Blocks[0];
    if (first !== undefined && parent.l1Origin.number > first.number) {
      const i = this.l1Blocks.findIndex((b) => b.number === parent.l1Origin.number);
      if (i > 0) this.l1Blocks = this.l1Blocks.slice(i);
    }
  }
}

function sameHash(a: Uint8Array, b: Uint8Array): boolean {
  return bytesEqual(a, b);
}
