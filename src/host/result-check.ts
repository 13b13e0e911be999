/**
 * The host's check of an enclave's proof result before prover_prove returns it (docs/protocol.md "Proof pipeline"):
 * the enclave is trusted to sign only what it derived, but the host still refuses to hand out a result that cannot
 * be the answer to the request. A mismatch is an enclave fault (the result is never returned):
 *
 * - every signature is 65 bytes;
 * - the per-block proposals cover consecutive blocks ending at the claimed block, chained from the agreed output
 *   root to the claimed one, within the host's range bound;
 * - every proposal names the request's L1 head (hash and number) and one config hash; the aggregate covers the
 *   whole range (the single proposal itself for a one-block range);
 * - with a routed signer (the one a registry validated, or without a registry the key the enclave reported when
 *   the proof was routed to it), the result's `tee_signer` (Base's message form stamps it) is that signer, and
 *   every signature recovers to it over the journal rebuilt from the request, the proposals and
 *   the enclave's image hash.
 */
import { bytesToHex } from "viem";
import type { ProofRequest, ProofResult, Proposal } from "../../generated/rpc/index.js";
import { bytesEqual } from "../chain/index.js";
import {
  aggregateJournal,
  perBlockJournals,
  type ProposalContext,
  recoverJournalSigner,
  SIGNATURE_LENGTH,
} from "../proof/onchain/index.js";
import { bootInfoOf } from "./boot-preimages.js";
import { HostError } from "./errors.js";

/** Which check a result failed (the metric's label). */
export type ResultCheck =
  | "signature-length"
  | "range"
  | "chain"
  | "l1-origin"
  | "config-hash"
  | "aggregate"
  | "tee-signer"
  | "signer";

/** The enclave's result cannot be the answer to the request: an enclave fault, never returned to the caller. */
export class InvalidProofResultError extends HostError<"invalid-proof-result"> {
  override readonly name = "InvalidProofResultError";
  constructor(
    message: string,
    readonly check: ResultCheck,
    details: Readonly<Record<string, unknown>> = {},
  ) {
    super(message, { kind: "invalid-proof-result", details });
  }
}

/** What the host expects of a result besides the request. */
export interface ResultExpectations {
  readonly l2ChainId: bigint;
  /** The signer the router chose (see EnclaveRouter.select); without one, signatures are not recovered. */
  readonly signer?: Uint8Array;
  /** keccak256(PCR0) of the routed enclave, from its attestation (zero in local mode). */
  readonly teeImageHash?: Uint8Array;
  /** The most blocks one proof may cover. */
  readonly maxBlocks?: bigint;
  /**
   * The schedule id the enclave appends to each journal it signs (`--journal-version schedule-id`): the one a
   * schedule-id verifier pins for the claim. Absent for the spec's journal.
   */
  readonly scheduleId?: Uint8Array;
}

/** Every signature of the result is 65 bytes (the JSON form pins it; the bincode form does not). */
export function checkProofResult(result: ProofResult): ProofResult {
  for (const proposal of [result.Tee.aggregate_proposal, ...result.Tee.proposals]) {
    if (proposal.signature.length !== SIGNATURE_LENGTH)
      throw new InvalidProofResultError(
        `enclave returned a ${proposal.signature.length}-byte signature, expected 65`,
        "signature-length",
        { signatureLength: proposal.signature.length },
      );
  }
  return result;
}

function fail(check: ResultCheck, message: string): never {
  throw new InvalidProofResultError(`the enclave's result does not match the request: ${message}`, check);
}

function sameProposal(a: Proposal, b: Proposal): boolean {
  return (
    bytesEqual(a.output_root, b.output_root) &&
    bytesEqual(a.signature, b.signature) &&
    bytesEqual(a.l1_origin_hash, b.l1_origin_hash) &&
    a.l1_origin_number === b.l1_origin_number &&
    a.l2_block_number === b.l2_block_number &&
    bytesEqual(a.prev_output_root, b.prev_output_root) &&
    bytesEqual(a.config_hash, b.config_hash)
  );
}

function checkRange(
  request: ProofRequest,
  proposals: readonly Proposal[],
  maxBlocks: bigint | undefined,
): void {
  const count = BigInt(proposals.length);
  if (count === 0n) fail("range", "no per-block proposal");
  if (maxBlocks !== undefined && count > maxBlocks)
    fail("range", `${count} blocks, more than the ${maxBlocks} one proof may cover`);
  const first = request.claimed_l2_block_number - count + 1n;
  let prev = request.agreed_l2_output_root;
  proposals.forEach((proposal, i) => {
    if (proposal.l2_block_number !== first + BigInt(i))
      fail("range", `proposal ${i} is for block ${proposal.l2_block_number}, expected ${first + BigInt(i)}`);
    if (!bytesEqual(proposal.prev_output_root, prev))
      fail(
        "chain",
        `proposal ${i} (block ${proposal.l2_block_number}) does not start from the previous root`,
      );
    prev = proposal.output_root;
  });
  if (!bytesEqual(prev, request.claimed_l2_output_root))
    fail("chain", `the last proposal's root ${bytesToHex(prev)} is not the claimed output root`);
}

function checkCommonFields(request: ProofRequest, all: readonly Proposal[]): void {
  const configHash = all[0]!.config_hash;
  for (const proposal of all) {
    if (
      !bytesEqual(proposal.l1_origin_hash, request.l1_head) ||
      proposal.l1_origin_number !== request.l1_head_number
    )
      fail("l1-origin", `a proposal for block ${proposal.l2_block_number} names another L1 origin`);
    if (!bytesEqual(proposal.config_hash, configHash))
      fail("config-hash", "the proposals name different config hashes");
  }
}

function checkAggregate(request: ProofRequest, proposals: readonly Proposal[], aggregate: Proposal): void {
  if (proposals.length === 1) {
    if (!sameProposal(aggregate, proposals[0]!))
      fail("aggregate", "a one-block range's aggregate is not its proposal");
    return;
  }
  if (
    aggregate.l2_block_number !== request.claimed_l2_block_number ||
    !bytesEqual(aggregate.output_root, request.claimed_l2_output_root) ||
    !bytesEqual(aggregate.prev_output_root, request.agreed_l2_output_root)
  )
    fail("aggregate", "the aggregate proposal does not span the agreed root to the claimed one");
}

/** The signer the enclave stamped on its result, when it did, is the routed one. */
function checkTeeSigner(result: ProofResult, signer: Uint8Array): void {
  const stamped = result.Tee.tee_signer;
  if (stamped !== undefined && !bytesEqual(stamped, signer))
    fail("tee-signer", `tee_signer ${bytesToHex(stamped)} is not the routed signer ${bytesToHex(signer)}`);
}

function checkSignatures(
  request: ProofRequest,
  result: ProofResult,
  expectations: ResultExpectations & { readonly signer: Uint8Array },
): void {
  const { proposals, aggregate_proposal: aggregate } = result.Tee;
  const ctx: ProposalContext = {
    boot: bootInfoOf(request, expectations.l2ChainId),
    configHash: aggregate.config_hash,
    teeImageHash: expectations.teeImageHash ?? new Uint8Array(32),
  };
  const range = {
    startBlock: request.claimed_l2_block_number - BigInt(proposals.length),
    outputRoots: proposals.map((proposal) => proposal.output_root),
  };
  const signed: [string, Uint8Array][] = perBlockJournals(ctx, range).map((journal, i) => [
    `block ${proposals[i]!.l2_block_number}`,
    recoverOrZero(journal, proposals[i]!.signature, expectations.scheduleId),
  ]);
  if (proposals.length > 1)
    signed.push([
      "the aggregate",
      recoverOrZero(aggregateJournal(ctx, range), aggregate.signature, expectations.scheduleId),
    ]);
  for (const [what, recovered] of signed) {
    if (!bytesEqual(recovered, expectations.signer))
      fail(
        "signer",
        `the signature of ${what} recovers to ${bytesToHex(recovered)}, not the routed signer ${bytesToHex(expectations.signer)}`,
      );
  }
}

function recoverOrZero(
  journal: Parameters<typeof recoverJournalSigner>[0],
  signature: Uint8Array,
  scheduleId: Uint8Array | undefined,
): Uint8Array {
  try {
    return recoverJournalSigner(journal, signature, scheduleId);
  } catch {
    return new Uint8Array(20);
  }
}

/** Returns `result` when it answers `request`; throws InvalidProofResultError (naming the check) otherwise. */
export function verifyProofResult(
  request: ProofRequest,
  result: ProofResult,
  expectations: ResultExpectations,
): ProofResult {
  checkProofResult(result);
  const { proposals, aggregate_proposal: aggregate } = result.Tee;
  checkRange(request, proposals, expectations.maxBlocks);
  checkCommonFields(request, [...proposals, aggregate]);
  checkAggregate(request, proposals, aggregate);
  if (expectations.signer !== undefined) {
    checkTeeSigner(result, expectations.signer);
    checkSignatures(request, result, { ...expectations, signer: expectations.signer });
  }
  return result;
}
