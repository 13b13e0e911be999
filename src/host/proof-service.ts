/**
 * prover_prove (docs/protocol.md "Proof pipeline"): validate the request, route it to an enclave, send the
 * preimages in one Prove frame, and bound the whole call by the proof request timeout. Failures are the
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
import type { EnclaveRouter } from "./router.js";
import type { WitnessSource } from "./witness/collect.js";

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

  /** Refuses a range longer than the bound before anything is collected (needs the agreed head's number). */
  private async checkRangeBound(request: ProofRequest, signal: AbortSignal): Promise<void> {
    const { maxBlocksPerProof: maxBlocks, agreedHeadNumber } = this.options;
    if (maxBlocks === undefined || agreedHeadNumber === undefined) return;
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
      return;
    }
    const blocks = request.claimed_l2_block_number - agreed;
    if (blocks < 1n)
      throw new InvalidProofRequestError(
        `invalid request: the claimed block ${request.claimed_l2_block_number} is not after the agreed L2 head ${agreed}`,
        { field: "claimed_l2_block_number" },
      );
    if (blocks > maxBlocks)
      throw new InvalidProofRequestError(
        `invalid request: the range covers ${blocks} L2 blocks (${agreed} to ${request.claimed_l2_block_number}), more than the ${maxBlocks} one proof may cover (--max-blocks-per-proof)`,
        { field: "claimed_l2_block_number" },
      );
  }

  private async routeAndProve(
    request: ProofRequest,
    signal: AbortSignal,
    progress: Progress,
  ): Promise<ProofResult> {
    // Routing first: with no registry-valid signer nothing is looked up or collected.
    const route = await this.options.router.select(signal);
    await this.checkRangeBound(request, signal);
    progress.stage = "witness";
    // Then the witness: a request the program refuses never reaches an enclave.
    const { witness } = this.options;
    const sourced =
      witness === undefined
        ? { preimages: bootPreimages(request, this.options.l2ChainId), forwarded: false }
        : await witness(request, this.options.l2ChainId, signal);
    progress.stage = "enclave";
    progress.enclave = route.enclave.name;
    const block = request.claimed_l2_block_number.toString();
    this.options.logger.info(
      { enclave: route.enclave.name, block, signer: bytesToHex(route.signer) },
      "proving",
    );
    let result: ProofResult;
    try {
      result = await route.enclave.prove(sourced.preimages, signal);
    } catch (error) {
      // Forwarded block witnesses are the L2 node's: one that lacked a value the enclave's execution read is
      // replaced once by the program's own run here, which fetches what it misses (or names what the node lacks).
      if (witness === undefined || !sourced.forwarded || !missedAWitnessValue(error)) throw error;
      this.options.logger.warn(
        { enclave: route.enclave.name, block, reason: error.enclaveMessage },
        "the enclave missed a value of the forwarded block witnesses; collecting the witness with the program",
      );
      progress.stage = "witness";
      const collected = await witness(request, this.options.l2ChainId, signal, "program");
      progress.stage = "enclave";
      result = await route.enclave.prove(collected.preimages, signal);
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
