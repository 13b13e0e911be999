/**
 * prover_prove (docs/protocol.md "Proof pipeline"): validate the request, route it to an enclave, send the
 * preimages in one Prove frame (or, for a range longer than `maxBlocksPerFrame`, in several that the enclave then
 * aggregates), and bound the whole call by the proof request timeout. Failures are the
 * host's own errors (an invalid request, NoValidSigner, a timeout, a cancellation, an enclave refusal,
 * a transport failure); the prover_prove handler turns them into JSON-RPC errors (handlers.ts).
 */
import { bytesToHex } from "viem";
import type { ProofRequest, ProofResult } from "../../generated/rpc/index.js";
import type { Logger } from "../log/index.js";
import { MAX_BOOT_BLOCK_NUMBER } from "../proof/preimages/index.js";
import { bootPreimages, scheduleBlockOf } from "./boot-preimages.js";
import { EnclaveRefusedError } from "./enclave-client.js";
import { InvalidProofRequestError, ProofCancelledError, ProofTimeoutError } from "./errors.js";
import type { HostMetrics, ProofOutcome } from "./metrics.js";
import { proofFailure } from "./proof-failures.js";
import { InvalidProofResultError, verifyProofResult } from "./result-check.js";
import { type FrameRange, frameRanges } from "./frames.js";
import type { EnclaveRouter, Route } from "./router.js";
import type { L2Output, SourcedWitness, WitnessRun, WitnessSource } from "./witness/index.js";

/** The L2 node's block hash and output root at a block (the boundaries of a range proved in frames). */
export type L2OutputLookup = (block: bigint, signal: AbortSignal) => Promise<L2Output>;

export { checkProofResult, InvalidProofResultError } from "./result-check.js";
export { InvalidProofRequestError, ProofCancelledError, ProofTimeoutError } from "./errors.js";

/** docs/protocol.md "Limits": default proof request timeout, 1740 s (about 29 minutes). */
export const DEFAULT_PROOF_TIMEOUT_MS = 1_740_000;

export interface ProofServiceOptions {
  readonly router: EnclaveRouter;
  readonly l2ChainId: bigint;
  readonly proofTimeoutMs: number;
  readonly logger: Logger;
  readonly metrics?: HostMetrics;
  /** Collects the Prove preimages (src/host/witness); without it only the boot keys are sent. */
  readonly witness?: WitnessSource;
  /** The most L2 blocks one proof may cover (checked against every result; see `agreedHeadNumber`). */
  readonly maxBlocksPerProof?: bigint;
  /**
   * With enclaves signing schedule-id journals: the schedule id of a claim at a block, which each result's
   * signatures are recovered over.
   */
  readonly scheduleIdFor?: (claimedBlock: bigint) => Uint8Array;
  /**
   * The agreed L2 head's block number (an L2 lookup): with it a range longer than `maxBlocksPerProof` is refused
   * before routing and witness collection.
   */
  readonly agreedHeadNumber?: (hash: Uint8Array, signal: AbortSignal) => Promise<bigint>;
  /**
   * The most blocks one Prove frame covers: with `agreedHeadNumber` and `l2OutputAt`, a longer range is proved in
   * frames the enclave then aggregates (docs/host.md "Ranges in frames"). Absent: one frame whatever the range.
   */
  readonly maxBlocksPerFrame?: bigint;
  /** The L2 node's hash and output root at a block: where the frames of a long range start and end. */
  readonly l2OutputAt?: L2OutputLookup;
}

/** The request's block numbers, each bounded as the enclave bounds its boot values (MAX_BOOT_BLOCK_NUMBER). */
const BLOCK_NUMBER_FIELDS = [
  "claimed_l2_block_number",
  "l1_head_number",
  "schedule_l2_block_number",
] as const;

/** Checks what the codecs cannot: the values a proof needs to make sense. */
export function validateProofRequest(request: ProofRequest): void {
  for (const field of BLOCK_NUMBER_FIELDS) {
    const value = request[field];
    if (value !== undefined && value > MAX_BOOT_BLOCK_NUMBER)
      throw new InvalidProofRequestError(
        `invalid request: ${field} ${value} is past the largest block number a proof may name (${MAX_BOOT_BLOCK_NUMBER})`,
        { field, value, max: MAX_BOOT_BLOCK_NUMBER },
      );
  }
  if (request.intermediate_block_interval === 0n)
    throw new InvalidProofRequestError("invalid request: intermediate_block_interval must be at least 1", {
      field: "intermediate_block_interval",
    });
  if (request.claimed_l2_block_number === 0n)
    throw new InvalidProofRequestError(
      "invalid request: claimed_l2_block_number must be at least 1 (genesis has no proof)",
      { field: "claimed_l2_block_number" },
    );
}

/** How far a proof got: the witness stage decides a failure's outcome, the enclave is named in the log. */
interface Progress {
  stage: "validate" | "witness" | "enclave";
  enclave?: string;
}

/** The enclave refused for a preimage its witness lacked (the program's MissingWitnessError, by its message). */
function missedAWitnessValue(error: unknown): error is EnclaveRefusedError {
  return error instanceof EnclaveRefusedError && error.enclaveMessage.startsWith("MissingWitnessError:");
}

export class ProofService {
  constructor(private readonly options: ProofServiceOptions) {}

  async prove(request: ProofRequest, callerSignal: AbortSignal): Promise<ProofResult> {
    const metrics = this.options.metrics;
    const started = performance.now();
    let outcome: ProofOutcome = "transport_error";
    metrics?.inFlightProofs.inc();
    const deadline = new AbortController();
    let timedOut = false;
    const progress: Progress = { stage: "validate" };
    const timer = setTimeout(() => {
      timedOut = true;
      deadline.abort();
    }, this.options.proofTimeoutMs);
    const onCallerAbort = (): void => deadline.abort();
    callerSignal.addEventListener("abort", onCallerAbort, { once: true });
    if (callerSignal.aborted) deadline.abort();
    const block = request.claimed_l2_block_number;
    try {
      validateProofRequest(request);
      if (request.image_hash !== undefined) {
        this.options.logger.debug(
          { imageHash: bytesToHex(request.image_hash), block: block.toString() },
          "proof request names an image hash (informational; routing uses onchain signer validity)",
        );
      }
      const result = await this.routeAndProve(request, deadline.signal, progress);
      outcome = "ok";
      return result;
    } catch (error) {
      const failed = timedOut
        ? new ProofTimeoutError(block, this.options.proofTimeoutMs / 1000, { cause: error })
        : callerSignal.aborted
          ? new ProofCancelledError(block, { cause: error })
          : error;
      const failure = proofFailure(failed, progress.stage === "witness");
      outcome = failure.outcome;
      if (failure.log !== undefined) {
        const fields: Record<string, unknown> = { block: block.toString() };
        if (progress.enclave !== undefined) fields.enclave = progress.enclave;
        if (failed instanceof InvalidProofResultError) fields.check = failed.check;
        fields.reason = failed instanceof Error ? `${failed.name}: ${failed.message}` : String(failed);
        this.options.logger[failure.log.level](fields, failure.log.msg);
      }
      throw failed;
    } finally {
      clearTimeout(timer);
      callerSignal.removeEventListener("abort", onCallerAbort);
      metrics?.inFlightProofs.dec();
      metrics?.proofDurations.labels({ outcome }).observe((performance.now() - started) / 1000);
    }
  }

  /**
   * The agreed head's number when the host can look it up (an L2 endpoint), after refusing a range longer than the
   * bound before anything is collected; undefined without a lookup or when it failed (the range is then bounded on
   * the result only, and proved in one frame).
   */
  private async agreedNumber(request: ProofRequest, signal: AbortSignal): Promise<bigint | undefined> {
    const { maxBlocksPerProof: maxBlocks, agreedHeadNumber } = this.options;
    if (agreedHeadNumber === undefined) return undefined;
    let agreed: bigint;
    try {
      agreed = await agreedHeadNumber(request.agreed_l2_head_hash, signal);
    } catch (error) {
      signal.throwIfAborted();
      // The witness reads the same endpoint first: its own error (the one the caller is told) follows at once.
      const reason = error instanceof Error ? error.message.split("\n")[0] : String(error);
      this.options.logger.warn(
        { block: request.claimed_l2_block_number.toString(), reason },
        "agreed L2 head lookup failed; the range is bounded on the result only",
      );
      return undefined;
    }
    const blocks = request.claimed_l2_block_number - agreed;
    if (blocks < 1n)
      throw new InvalidProofRequestError(
        `invalid request: the claimed block ${request.claimed_l2_block_number} is not after the agreed L2 head ${agreed}`,
        { field: "claimed_l2_block_number" },
      );
    if (maxBlocks !== undefined && blocks > maxBlocks)
      throw new InvalidProofRequestError(
        `invalid request: the range covers ${blocks} L2 blocks (${agreed} to ${request.claimed_l2_block_number}), more than the ${maxBlocks} one proof may cover (--max-blocks-per-proof)`,
        { field: "claimed_l2_block_number" },
      );
    return agreed;
  }

  /** The request's Prove preimages: the witness source's, or the boot keys alone. */
  private collect(request: ProofRequest, signal: AbortSignal, run?: WitnessRun): Promise<SourcedWitness> {
    const { witness } = this.options;
    return witness === undefined
      ? Promise.resolve({ preimages: bootPreimages(request, this.options.l2ChainId), forwarded: false })
      : witness(request, this.options.l2ChainId, signal, run);
  }

  /**
   * One Prove frame over collected preimages, collected once more with the program if a forwarded value was missed.
   * The frame is encoded before this returns its promise, and nothing waiting on the enclave keeps `sourced`: the
   * preimages are freed while the enclave proves (with frames, while the next frame's are collected).
   */
  private proveCollected(
    request: ProofRequest,
    sourced: SourcedWitness,
    route: Route,
    signal: AbortSignal,
    progress: Progress,
  ): Promise<ProofResult> {
    return this.settleProve(
      request,
      route.enclave.prove(sourced.preimages, signal),
      sourced.forwarded,
      route,
      signal,
      progress,
    );
  }

  private async settleProve(
    request: ProofRequest,
    proving: Promise<ProofResult>,
    forwarded: boolean,
    route: Route,
    signal: AbortSignal,
    progress: Progress,
  ): Promise<ProofResult> {
    const block = request.claimed_l2_block_number.toString();
    try {
      return await proving;
    } catch (error) {
      // Forwarded block witnesses are the L2 node's: one that lacked a value the enclave's execution read is
      // replaced once by the program's own run here, which fetches what it misses (or names what the node lacks).
      if (!forwarded || !missedAWitnessValue(error)) throw error;
      this.options.logger.warn(
        { enclave: route.enclave.name, block, reason: error.enclaveMessage },
        "the enclave missed a value of the forwarded block witnesses; collecting the witness with the program",
      );
      progress.stage = "witness";
      const collected = await this.collect(request, signal, "program");
      progress.stage = "enclave";
      return route.enclave.prove(collected.preimages, signal);
    }
  }

  /**
   * A range longer than a frame (docs/host.md "Ranges in frames"): consecutive sub-ranges on the request's L1 head,
   * each bounded by the L2 node's block hash and output root, the next one's witness collected while the enclave
   * proves the one before; then the enclave's Aggregate over all their per-block proposals. Every frame and the
   * aggregate go to the routed enclave: it aggregates only proposals it signed itself.
   */
  private async proveInFrames(
    request: ProofRequest,
    frames: readonly FrameRange[],
    outputAt: L2OutputLookup,
    route: Route,
    signal: AbortSignal,
    progress: Progress,
  ): Promise<ProofResult> {
    const scheduleBlock = scheduleBlockOf(request);
    this.options.logger.info(
      {
        enclave: route.enclave.name,
        block: request.claimed_l2_block_number.toString(),
        blocks: (frames.at(-1)!.claimed - frames[0]!.agreed).toString(),
        frames: frames.length,
      },
      "proving the range in frames",
    );
    // Aborted when the proof ends or a frame fails, so the collection running beside a failed frame stops too.
    const frameAbort = new AbortController();
    const onAbort = (): void => frameAbort.abort(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    if (signal.aborted) frameAbort.abort(signal.reason);
    const results: ProofResult[] = [];
    let inFlight: Promise<ProofResult> | undefined;
    let start: L2Output = { hash: request.agreed_l2_head_hash, outputRoot: request.agreed_l2_output_root };
    try {
      for (const [index, frame] of frames.entries()) {
        progress.stage = "witness";
        const end: L2Output | undefined =
          index === frames.length - 1 ? undefined : await outputAt(frame.claimed, frameAbort.signal);
        const part: ProofRequest = {
          ...request,
          agreed_l2_head_hash: start.hash,
          agreed_l2_output_root: start.outputRoot,
          claimed_l2_output_root: end?.outputRoot ?? request.claimed_l2_output_root,
          claimed_l2_block_number: frame.claimed,
          schedule_l2_block_number: scheduleBlock,
        };
        // Dropped once handed to the enclave client (proveCollected), so a frame's preimages live only until sent.
        let sourced: SourcedWitness | undefined = await this.collect(part, frameAbort.signal);
        if (inFlight !== undefined) {
          progress.stage = "enclave";
          results.push(await inFlight);
        }
        progress.stage = "enclave";
        progress.enclave = route.enclave.name;
        inFlight = this.proveCollected(part, sourced, route, frameAbort.signal, progress);
        sourced = undefined;
        inFlight.catch(() => frameAbort.abort(new Error("a frame of the range failed")));
        if (end !== undefined) start = end;
      }
      progress.stage = "enclave";
      results.push(await inFlight!);
    } catch (error) {
      frameAbort.abort(error);
      // A collection stopped because the frame proving beside it failed: the frame's failure is the cause.
      if (inFlight !== undefined && !signal.aborted) {
        const frameFailure = await inFlight.then(
          () => undefined,
          (failure: unknown) => failure,
        );
        if (frameFailure !== undefined) {
          progress.stage = "enclave";
          throw frameFailure;
        }
      }
      throw error;
    } finally {
      signal.removeEventListener("abort", onAbort);
    }
    progress.stage = "enclave";
    const proposals = results.flatMap((result) => result.Tee.proposals);
    const aggregate_proposal = await route.enclave.aggregate(
      {
        chain_id: this.options.l2ChainId,
        proposer: request.proposer,
        intermediate_block_interval: request.intermediate_block_interval,
        schedule_l2_block_number: scheduleBlock,
        proposals,
      },
      signal,
    );
    const signer = results.at(-1)?.Tee.tee_signer;
    return {
      Tee: { aggregate_proposal, proposals, ...(signer === undefined ? {} : { tee_signer: signer }) },
    };
  }

  private async routeAndProve(
    request: ProofRequest,
    signal: AbortSignal,
    progress: Progress,
  ): Promise<ProofResult> {
    // Routing first: with no registry-valid signer nothing is looked up or collected.
    const route = await this.options.router.select(signal);
    const agreed = await this.agreedNumber(request, signal);
    const { maxBlocksPerFrame, l2OutputAt } = this.options;
    const frames =
      agreed === undefined || maxBlocksPerFrame === undefined || l2OutputAt === undefined
        ? undefined
        : frameRanges(agreed, request.claimed_l2_block_number, maxBlocksPerFrame);
    let result: ProofResult;
    if (frames !== undefined && frames.length > 1) {
      result = await this.proveInFrames(request, frames, l2OutputAt!, route, signal, progress);
    } else {
      progress.stage = "witness";
      // Then the witness: a request the program refuses never reaches an enclave.
      let sourced: SourcedWitness | undefined = await this.collect(request, signal);
      progress.stage = "enclave";
      progress.enclave = route.enclave.name;
      this.options.logger.info(
        {
          enclave: route.enclave.name,
          block: request.claimed_l2_block_number.toString(),
          signer: bytesToHex(route.signer),
        },
        "proving",
      );
      const proving = this.proveCollected(request, sourced, route, signal, progress);
      // Read by nothing: it lets the collector free the preimages while the enclave proves (proveCollected).
      // eslint-disable-next-line no-useless-assignment
      sourced = undefined;
      result = await proving;
    }
    try {
      return verifyProofResult(request, result, {
        l2ChainId: this.options.l2ChainId,
        signer: route.signer,
        teeImageHash: route.teeImageHash,
        ...(this.options.maxBlocksPerProof === undefined
          ? {}
          : { maxBlocks: this.options.maxBlocksPerProof }),
        ...(this.options.scheduleIdFor === undefined
          ? {}
          : { scheduleId: this.options.scheduleIdFor(scheduleBlockOf(request)) }),
      });
    } catch (error) {
      if (error instanceof InvalidProofResultError)
        this.options.metrics?.recordEnclaveFault(route.enclave.name, error.check);
      throw error;
    }
  }
}
