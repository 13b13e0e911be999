/**
 * The onchain side of a proposal: turning a prover_prove result into AggregateVerifier.propose and .nullify
 * arguments, and back from a stored proposal to the prover request that would nullify it (docs/proposer.md
 * "Onchain encoding"; the contract is contracts/src/AggregateVerifier.sol, docs/contracts.md "AggregateVerifier").
 * Pure functions: the proposer and challenger services do the reads and writes.
 *
 * - propose(endingBlock, rootClaim, intermediateRoots, proof) with proof = type 0 ‖ l1OriginHash ‖ uint256
 *   l1OriginNumber ‖ r ‖ s ‖ v, v 27/28 (the enclave signs with v 0/1);
 * - intermediate root i is the output root at start + (i + 1) · INTERMEDIATE_BLOCK_INTERVAL, the last one the claim;
 * - nullify(id, proofBytes, index, root) with proofBytes = type 0 ‖ r ‖ s ‖ v over the journal of interval `index`
 *   alone (one intermediate root), signed for the proposal's recorded l1Head.
 */
import { type Hex, bytesToHex, concatHex, hexToBytes, numberToHex } from "viem";
import { aggregateVerifierAbi } from "../../../contracts/index.js";
import type { ProofRequest, ProofResult, Proposal } from "../../../generated/rpc/index.js";
import { OnchainError } from "./errors.js";
import { sampledBlockNumbers } from "./sampling.js";

/** AggregateVerifier's ABI (from the compiled artifact), for the services' reads and writes. */
export { aggregateVerifierAbi };

/** Proof type byte of a TEE proof (AggregateVerifier.PROOF_TYPE_TEE). */
export const PROOF_TYPE_TEE = 0;
/** type ‖ l1OriginHash ‖ uint256 l1OriginNumber ‖ signature (AggregateVerifier.PROPOSAL_PROOF_LENGTH). */
export const PROPOSAL_PROOF_LENGTH = 130;
/** type ‖ signature (AggregateVerifier.NULLIFY_PROOF_LENGTH). */
export const NULLIFY_PROOF_LENGTH = 66;

/** AggregateVerifier.Status. */
export enum ProposalStatus {
  None = 0,
  Proven = 1,
  Nullified = 2,
  ParentNullified = 3,
}

/** AggregateVerifier.getProposal's result, as viem decodes it. */
export interface OnchainProposal {
  readonly proposer: Hex;
  readonly status: number;
  readonly startingBlock: bigint;
  readonly endingBlock: bigint;
  readonly startingRoot: Hex;
  readonly rootClaim: Hex;
  readonly l1OriginHash: Hex;
  readonly l1OriginNumber: bigint;
  readonly l1Head: Hex;
  readonly l1HeadNumber: bigint;
  readonly parentId: bigint;
  readonly intermediateRoots: readonly Hex[];
}

/** The contract's intervals (its immutables). */
export interface VerifierIntervals {
  readonly blockInterval: bigint;
  readonly intermediateBlockInterval: bigint;
}

/** A prover result that cannot become a proposal or a nullification (wrong range, count, signature). */
export class ProposalEncodingError extends OnchainError<"proposal-encoding"> {
  override readonly name = "ProposalEncodingError";
  constructor(
    message: string,
    details: {
      readonly reason:
        "intervals" | "range" | "proposal-count" | "block-number" | "signature" | "index" | "root";
      readonly expected?: bigint | number | string;
      readonly actual?: bigint | number | string;
    },
  ) {
    super(message, { kind: "proposal-encoding", details });
  }
}

/** AggregateVerifier.propose's arguments, in order. */
export interface ProposeArguments {
  readonly endingBlock: bigint;
  readonly rootClaim: Hex;
  readonly intermediateRoots: readonly Hex[];
  readonly proof: Hex;
}

/** AggregateVerifier.nullify's arguments, in order. */
export interface NullifyArguments {
  readonly id: bigint;
  readonly proofBytes: Hex;
  readonly index: bigint;
  readonly root: Hex;
}

function checkIntervals(intervals: VerifierIntervals): void {
  const { blockInterval, intermediateBlockInterval } = intervals;
  if (
    blockInterval <= 0n ||
    intermediateBlockInterval <= 0n ||
    blockInterval % intermediateBlockInterval !== 0n
  )
    throw new ProposalEncodingError(
      `block interval ${blockInterval} is not a positive multiple of the intermediate interval ${intermediateBlockInterval}`,
      { reason: "intervals", expected: blockInterval, actual: intermediateBlockInterval },
    );
}

/**
 * The 65-byte r ‖ s ‖ v the contract's ecrecover takes: the enclave's v 0/1 becomes 27/28 (27/28 are kept).
 * ProposalEncodingError for any other length or v.
 */
export function contractSignature(signature: Uint8Array): Hex {
  if (signature.length !== 65)
    throw new ProposalEncodingError(`a signature is 65 bytes, got ${signature.length}`, {
      reason: "signature",
      expected: 65,
      actual: signature.length,
    });
  const v = signature[64] as number;
  if (v !== 0 && v !== 1 && v !== 27 && v !== 28)
    throw new ProposalEncodingError(`signature v must be 0, 1, 27 or 28, got ${v}`, {
      reason: "signature",
      actual: v,
    });
  const out = Uint8Array.from(signature);
  out[64] = v < 27 ? v + 27 : v;
  return bytesToHex(out);
}

/** The L2 blocks whose output roots a proposal of (start, start + blockInterval] lists, in order. */
export function intermediateBlocks(startingBlock: bigint, intervals: VerifierIntervals): bigint[] {
  checkIntervals(intervals);
  return sampledBlockNumbers(
    startingBlock,
    Number(intervals.blockInterval),
    intervals.intermediateBlockInterval,
  );
}

/**
 * propose()'s arguments from prover_prove's result over (startingBlock, startingBlock + blockInterval] requested
 * with `intermediate_block_interval` = the contract's intermediate interval. The intermediate roots are the
 * per-block proposals' roots at the sampled blocks (the aggregate journal signed them); the aggregate proposal's
 * L1 origin and signature make the proof. ProposalEncodingError when the result does not cover that range.
 */
export function proposeArguments(
  result: ProofResult,
  startingBlock: bigint,
  intervals: VerifierIntervals,
): ProposeArguments {
  const endingBlock = startingBlock + intervals.blockInterval;
  const { proposals, aggregate_proposal: aggregate } = result.Tee;
  if (proposals.length !== Number(intervals.blockInterval))
    throw new ProposalEncodingError(
      `expected ${intervals.blockInterval} per-block proposals, got ${proposals.length}`,
      { reason: "proposal-count", expected: intervals.blockInterval, actual: proposals.length },
    );
  if (aggregate.l2_block_number !== endingBlock)
    throw new ProposalEncodingError(
      `the aggregate proposal ends at ${aggregate.l2_block_number}, not ${endingBlock}`,
      { reason: "range", expected: endingBlock, actual: aggregate.l2_block_number },
    );
  const byBlock = new Map<bigint, Proposal>(proposals.map((p) => [p.l2_block_number, p]));
  const intermediateRoots = intermediateBlocks(startingBlock, intervals).map((block) => {
    const proposal = byBlock.get(block);
    if (proposal === undefined)
      throw new ProposalEncodingError(`no per-block proposal for block ${block}`, {
        reason: "block-number",
        expected: block,
      });
    return bytesToHex(proposal.output_root);
  });
  const rootClaim = bytesToHex(aggregate.output_root);
  if (intermediateRoots.at(-1) !== rootClaim)
    throw new ProposalEncodingError("the last intermediate root is not the aggregate's root", {
      reason: "root",
      expected: rootClaim,
      actual: intermediateRoots.at(-1) ?? "",
    });
  const proof = concatHex([
    numberToHex(PROOF_TYPE_TEE, { size: 1 }),
    bytesToHex(aggregate.l1_origin_hash),
    numberToHex(aggregate.l1_origin_number, { size: 32 }),
    contractSignature(aggregate.signature),
  ]);
  return { endingBlock, rootClaim, intermediateRoots, proof };
}

/**
 * The index of the first intermediate root that differs from the true one, or undefined when every root is
 * right. `trueRoots[i]` is the output root at the proposal's i-th intermediate block (intermediateBlocks).
 */
export function firstWrongIntermediateRoot(
  proposal: Pick<OnchainProposal, "intermediateRoots">,
  trueRoots: readonly Hex[],
): number | undefined {
  if (trueRoots.length !== proposal.intermediateRoots.length)
    throw new ProposalEncodingError(
      `${trueRoots.length} true roots for ${proposal.intermediateRoots.length} intermediate roots`,
      { reason: "index", expected: proposal.intermediateRoots.length, actual: trueRoots.length },
    );
  const index = proposal.intermediateRoots.findIndex(
    (root, i) => root.toLowerCase() !== trueRoots[i]!.toLowerCase(),
  );
  return index < 0 ? undefined : index;
}

/** The interval (agreed block, its root as the proposal states it, claimed block) nullify(index) proves. */
export interface NullifyInterval {
  readonly agreedBlock: bigint;
  readonly agreedRoot: Hex;
  readonly claimedBlock: bigint;
}

/**
 * Interval `index` of a stored proposal: it starts at startingBlock + index · INTERMEDIATE_BLOCK_INTERVAL from the
 * proposal's startingRoot (index 0) or intermediate root index − 1, as the contract rebuilds the journal.
 */
export function nullifyInterval(
  proposal: Pick<OnchainProposal, "startingBlock" | "startingRoot" | "intermediateRoots">,
  index: number,
  intervals: VerifierIntervals,
): NullifyInterval {
  checkIntervals(intervals);
  if (!Number.isInteger(index) || index < 0 || index >= proposal.intermediateRoots.length)
    throw new ProposalEncodingError(`no intermediate root ${index}`, {
      reason: "index",
      actual: index,
      expected: proposal.intermediateRoots.length,
    });
  const agreedBlock = proposal.startingBlock + BigInt(index) * intervals.intermediateBlockInterval;
  return {
    agreedBlock,
    agreedRoot: index === 0 ? proposal.startingRoot : proposal.intermediateRoots[index - 1]!,
    claimedBlock: agreedBlock + intervals.intermediateBlockInterval,
  };
}

/**
 * The prover request whose result nullifies interval `index` of a proposal: L1 head = the proposal's recorded
 * l1Head, agreed = the interval's start (its L2 block hash from the caller's node), claimed = the true root at its
 * end, one intermediate root (interval = the contract's intermediate interval), proposer = the challenger.
 */
export function nullifyRequest(
  proposal: Pick<
    OnchainProposal,
    "startingBlock" | "startingRoot" | "intermediateRoots" | "l1Head" | "l1HeadNumber"
  >,
  index: number,
  intervals: VerifierIntervals,
  chain: { readonly agreedL2HeadHash: Hex; readonly trueRoot: Hex; readonly challenger: Hex },
): ProofRequest {
  const interval = nullifyInterval(proposal, index, intervals);
  return {
    l1_head: hexToBytes(proposal.l1Head),
    l1_head_number: proposal.l1HeadNumber,
    agreed_l2_head_hash: hexToBytes(chain.agreedL2HeadHash),
    agreed_l2_output_root: hexToBytes(interval.agreedRoot),
    claimed_l2_output_root: hexToBytes(chain.trueRoot),
    claimed_l2_block_number: interval.claimedBlock,
    proposer: hexToBytes(chain.challenger),
    intermediate_block_interval: intervals.intermediateBlockInterval,
  };
}

/**
 * nullify()'s arguments from prover_prove's result over interval `index` of proposal `id` (nullifyRequest): the
 * aggregate proposal's root and signature. ProposalEncodingError when the result ends elsewhere or its root is
 * the proposed one (the contract would refuse IntermediateRootSameAsProposed).
 */
export function nullifyArguments(
  id: bigint,
  proposal: Pick<OnchainProposal, "startingBlock" | "startingRoot" | "intermediateRoots">,
  index: number,
  intervals: VerifierIntervals,
  result: ProofResult,
): NullifyArguments {
  const interval = nullifyInterval(proposal, index, intervals);
  // A one-block range's aggregate is its per-block proposal, whose journal holds no intermediate root: the
  // contract's one-root nullification journal cannot match it.
  if (intervals.intermediateBlockInterval < 2n)
    throw new ProposalEncodingError("nullification needs an intermediate interval of at least 2 blocks", {
      reason: "intervals",
      actual: intervals.intermediateBlockInterval,
    });
  const aggregate = result.Tee.aggregate_proposal;
  if (aggregate.l2_block_number !== interval.claimedBlock)
    throw new ProposalEncodingError(
      `the proof ends at ${aggregate.l2_block_number}, interval ${index} ends at ${interval.claimedBlock}`,
      { reason: "range", expected: interval.claimedBlock, actual: aggregate.l2_block_number },
    );
  const root = bytesToHex(aggregate.output_root);
  if (root.toLowerCase() === proposal.intermediateRoots[index]!.toLowerCase())
    throw new ProposalEncodingError(`the proven root of interval ${index} is the proposed one`, {
      reason: "root",
      actual: root,
    });
  const proofBytes = concatHex([
    numberToHex(PROOF_TYPE_TEE, { size: 1 }),
    contractSignature(aggregate.signature),
  ]);
  return { id, proofBytes, index: BigInt(index), root };
}
