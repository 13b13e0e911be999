/**
 * Rebuilds the journals an enclave must have signed for a proof result (docs/protocol.md "Signed journal",
 * docs/decisions.md "Journal details") with the expected `teeImageHash`, and checks that every signature recovers to the
 * enclave's signer. A signature that recovers to the signer only over a journal with another image hash
 * (or another layout) is reported as a problem.
 */
import type { Journal } from "../generated/journal/index.js";
import type { Preimage } from "../generated/protocol/index.js";
import type { Proposal, ProofResult } from "../generated/rpc/index.js";
import { PCR0_LENGTH, teeImageHashOf } from "../src/attestation/index.js";
import { bytesEqual } from "../src/chain/index.js";
import { recoverJournalSigner, sampleIntermediateRoots } from "../src/proof/onchain/index.js";
import { BootKey } from "../src/proof/preimages/index.js";
import { bootValue } from "./witness.js";

function hex(bytes: Uint8Array): string {
  return `0x${Buffer.from(bytes).toString("hex")}`;
}

function readU64(bytes: Uint8Array | undefined): bigint | undefined {
  if (bytes?.length !== 8) return undefined;
  return new DataView(bytes.buffer, bytes.byteOffset, 8).getBigUint64(0, false);
}

export interface JournalExpectations {
  /** The witness the proof answered (its boot keys give the proposer and the interval). */
  readonly witness: readonly Preimage[];
  /** 20-byte address of the enclave's signer key. */
  readonly signerAddress: Uint8Array;
  /** keccak256(PCR0), or 32 zero bytes for a local-mode enclave. */
  readonly teeImageHash: Uint8Array;
  /**
   * The schedule-id journal version: the upgrade schedule id a verifier pins for a claim at a block; every
   * journal of the proof must then end with it. Absent: the spec's journal.
   */
  readonly scheduleIdAt?: (claimedBlock: bigint) => Uint8Array;
}

function recoverOrUndefined(
  journal: Journal,
  signature: Uint8Array,
  scheduleId: Uint8Array | undefined,
): Uint8Array | undefined {
  try {
    return recoverJournalSigner(journal, signature, scheduleId);
  } catch {
    return undefined;
  }
}

function checkSigned(
  what: string,
  journal: Journal,
  proposal: Proposal,
  expected: JournalExpectations,
  scheduleId: Uint8Array | undefined,
): string[] {
  if (proposal.signature.length !== 65)
    return [`${what}: signature is ${proposal.signature.length} bytes, not 65`];
  const recovered = recoverOrUndefined(journal, proposal.signature, scheduleId);
  if (recovered !== undefined && bytesEqual(recovered, expected.signerAddress)) return [];
  return [
    `${what}: the signature does not recover to the enclave signer ${hex(expected.signerAddress)} over the journal with teeImageHash ${hex(expected.teeImageHash)}` +
      (scheduleId === undefined ? "" : ` and scheduleId ${hex(scheduleId)}`) +
      (recovered === undefined ? " (unrecoverable signature)" : ` (recovers to ${hex(recovered)})`),
  ];
}

/** Problems found in `result`; empty when every journal embeds the image hash and is signed by the enclave. */
export function journalProblems(result: ProofResult, expected: JournalExpectations): string[] {
  const proposer = bootValue(expected.witness, BootKey.Proposer);
  const interval = readU64(bootValue(expected.witness, BootKey.IntermediateBlockInterval));
  if (proposer?.length !== 20) return ["the witness has no 20-byte proposer boot value"];
  if (result.Tee.proposals.length === 0) return ["the proof result has no per-block proposals"];
  // The schedule is pinned at the witness's schedule block (boot key 11) when it names one, else at the claim.
  const scheduleBlock = readU64(bootValue(expected.witness, BootKey.ScheduleL2BlockNumber));
  const scheduleId = expected.scheduleIdAt?.(
    scheduleBlock === undefined || scheduleBlock === 0n
      ? result.Tee.aggregate_proposal.l2_block_number
      : scheduleBlock,
  );
  const journalOf = (proposal: Proposal, start: bigint, prev: Uint8Array, roots: Uint8Array[]): Journal => ({
    proposer,
    l1OriginHash: proposal.l1_origin_hash,
    prevOutputRoot: prev,
    startingL2Block: start,
    outputRoot: proposal.output_root,
    endingL2Block: proposal.l2_block_number,
    intermediateRoots: roots,
    configHash: proposal.config_hash,
    teeImageHash: expected.teeImageHash,
  });
  const problems: string[] = [];
  result.Tee.proposals.forEach((proposal, i) => {
    if (proposal.l2_block_number === 0n) {
      problems.push(`proposal ${i}: l2_block_number 0 has no parent`);
      return;
    }
    const journal = journalOf(proposal, proposal.l2_block_number - 1n, proposal.prev_output_root, []);
    problems.push(
      ...checkSigned(
        `proposal ${i} (block ${proposal.l2_block_number})`,
        journal,
        proposal,
        expected,
        scheduleId,
      ),
    );
  });
  const aggregate = result.Tee.aggregate_proposal;
  const first = result.Tee.proposals[0] as Proposal;
  if (result.Tee.proposals.length === 1) {
    if (
      !bytesEqual(aggregate.signature, first.signature) ||
      !bytesEqual(aggregate.output_root, first.output_root)
    ) {
      problems.push("a one-block range's aggregate proposal differs from its per-block proposal");
    }
    return problems;
  }
  if (interval === undefined || interval === 0n)
    return [...problems, "the witness has no usable interval boot value"];
  const start = first.l2_block_number - 1n;
  const roots = sampleIntermediateRoots(
    start,
    result.Tee.proposals.map((proposal) => proposal.output_root),
    interval,
  );
  const journal = journalOf(aggregate, start, aggregate.prev_output_root, roots);
  problems.push(...checkSigned("aggregate proposal", journal, aggregate, expected, scheduleId));
  return problems;
}

/** keccak256(PCR0) for a document with PCR0, zero (local mode) for one without PCRs. */
export function imageHashFromPcrs(pcrs: ReadonlyMap<number, Uint8Array>): Uint8Array | undefined {
  const pcr0 = pcrs.get(0);
  if (pcr0 === undefined) return pcrs.size === 0 ? new Uint8Array(32) : undefined;
  return pcr0.length === PCR0_LENGTH ? teeImageHashOf(pcr0) : undefined;
}
