/**
 * prover_prove (system-spec "Proof pipeline"): validate the request, route it to an enclave, send the
 * preimages in one Prove frame, and bound the whole call by the proof request timeout. Enclave refusals
 * and transport failures are -32000 with the underlying message; an expired timeout is -32000 naming the
 * L2 block number; NoValidSigner is -32001.
 */
import { bytesToHex } from "viem";
import type {
  ProofResult as WireProofResult,
  Proposal as WireProposal,
} from "../../generated/protocol/index.js";
import { ProofFailedError } from "../../generated/rpc/errors.js";
import type { ProofRequest, ProofResult, Proposal } from "../../generated/rpc/types.js";
import type { Logger } from "../log/logger.js";
import { InvalidParamsError, RpcError } from "../rpc/errors.js";
import { bootPreimages } from "./boot-preimages.js";
import { EnclaveRefusedError } from "./enclave-client.js";
import type { HostMetrics, ProofOutcome } from "./metrics.js";
import type { EnclaveRouter } from "./router.js";

/** system-spec "Limits": default proof request timeout, 1740 s (about 29 minutes). */
export const DEFAULT_PROOF_TIMEOUT_MS = 1_740_000;

export interface ProofServiceOptions {
  readonly router: EnclaveRouter;
  readonly l2ChainId: bigint;
  readonly proofTimeoutMs: number;
  readonly logger: Logger;
  readonly metrics?: HostMetrics;
}

/** Checks what the codecs cannot: the values a proof needs to make sense. */
export function validateProofRequest(request: ProofRequest): void {
  if (request.intermediate_block_interval === 0n)
    throw new InvalidParamsError("invalid request: intermediate_block_interval must be at least 1");
  if (request.claimed_l2_block_number === 0n)
    throw new InvalidParamsError(
      "invalid request: claimed_l2_block_number must be at least 1 (genesis has no proof)",
    );
}

const SIGNATURE_LENGTH = 65;

function toRpcProposal(proposal: WireProposal): Proposal {
  if (proposal.signature.length !== SIGNATURE_LENGTH)
    throw new ProofFailedError(`enclave returned a ${proposal.signature.length}-byte signature, expected 65`);
  return {
    output_root: proposal.outputRoot,
    signature: proposal.signature,
    l1_origin_hash: proposal.l1OriginHash,
    l1_origin_number: proposal.l1OriginNumber,
    l2_block_number: proposal.l2BlockNumber,
    prev_output_root: proposal.prevOutputRoot,
    config_hash: proposal.configHash,
  };
}

/** The enclave's ProofResult (protocol types) as the prover_prove result (RPC types). */
export function toRpcResult(result: WireProofResult): ProofResult {
  return {
    Tee: {
      aggregate_proposal: toRpcProposal(result.aggregateProposal),
      proposals: result.proposals.map(toRpcProposal),
    },
  };
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
      const result = await this.routeAndProve(request, deadline.signal);
      outcome = "ok";
      return result;
    } catch (error) {
      if (timedOut) {
        outcome = "timeout";
        const seconds = this.options.proofTimeoutMs / 1000;
        this.options.logger.warn({ block: block.toString(), seconds }, "proof request timed out");
        throw new ProofFailedError(`proof request for L2 block ${block} timed out after ${seconds} s`, {
          cause: error,
        });
      }
      if (callerSignal.aborted) {
        outcome = "aborted";
        throw new ProofFailedError(`proof request for L2 block ${block} was cancelled`, { cause: error });
      }
      if (error instanceof RpcError) {
        outcome =
          error.code === -32602
            ? "invalid_request"
            : error.code === -32001
              ? "no_valid_signer"
              : "enclave_error";
        throw error;
      }
      if (error instanceof EnclaveRefusedError) {
        outcome = "enclave_error";
        this.options.logger.info(
          { enclave: error.enclave, block: block.toString(), reason: error.enclaveMessage },
          "enclave refused the proof",
        );
        throw new ProofFailedError(error.enclaveMessage, { cause: error });
      }
      outcome = "transport_error";
      const message = error instanceof Error ? error.message : String(error);
      this.options.logger.warn({ block: block.toString(), reason: message }, "proof failed");
      throw new ProofFailedError(message, { cause: error });
    } finally {
      clearTimeout(timer);
      callerSignal.removeEventListener("abort", onCallerAbort);
      metrics?.inFlightProofs.dec();
      metrics?.proofDurations.labels({ outcome }).observe((performance.now() - started) / 1000);
    }
  }

  private async routeAndProve(request: ProofRequest, signal: AbortSignal): Promise<ProofResult> {
    const route = await this.options.router.select(signal);
    this.options.logger.info(
      {
        enclave: route.enclave.name,
        block: request.claimed_l2_block_number.toString(),
        ...(route.signer === undefined ? {} : { signer: bytesToHex(route.signer) }),
      },
      "proving",
    );
    const preimages = bootPreimages(request, this.options.l2ChainId);
    return toRpcResult(await route.enclave.prove(preimages, signal));
  }
}
