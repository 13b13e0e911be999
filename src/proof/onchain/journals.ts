/**
 * Per-block and aggregate journals and their signed proposals (docs/protocol.md "Proposal", "Signed journal";
 * docs/decisions.md "Journal details"). Nothing is signed unless the range ends at the claimed block with the claimed root.
 */
import { keccak_256 } from "@noble/hashes/sha3.js";
import { bytesEqual } from "../../chain/index.js";
import { type Journal, packJournal } from "../../../generated/journal/index.js";
import type { ProofResult, Proposal } from "../../../generated/rpc/index.js";
import type { BootInfo } from "../preimages/index.js";
import { OnchainError } from "./errors.js";
import { sampleIntermediateRoots } from "./sampling.js";
import { recoverSignerAddress } from "./signer-address.js";

/** Signs packed journals (the enclave signer). */
export interface JournalSigner {
  signJournal(journal: Uint8Array): Uint8Array;
}

/** The outcome of re-executing a range: the agreed (parent) block and the output root after each block. */
export interface ExecutedRange {
  readonly startBlock: bigint;
  readonly outputRoots: readonly Uint8Array[];
}

/** What of the boot information a proposal's journals carry (a range proved in frames has no single claim). */
export type ProposalBoot = Pick<
  BootInfo,
  "proposer" | "l1Head" | "l1HeadNumber" | "agreedOutputRoot" | "intermediateBlockInterval"
>;

export interface ProposalContext {
  readonly boot: ProposalBoot;
  readonly configHash: Uint8Array;
  readonly teeImageHash: Uint8Array;
  /**
   * The upgrade schedule id (upgrade-schedule.ts) for verifiers of the schedule-id journal version: appended
   * after teeImageHash (228 + 32·N bytes). Absent for the spec's version (196 + 32·N bytes).
   */
  readonly scheduleId?: Uint8Array;
}

/** The context of one Prove: its whole boot information, whose claim is checked before anything is signed. */
export interface ClaimContext extends ProposalContext {
  readonly boot: BootInfo;
}

/**
 * Which journal the verifier checks: the spec's nine fields, or those followed by the 32-byte upgrade schedule id
 * (the AggregateVerifier that pins ProtocolVersions.activatedScheduleId of the claim's timestamp).
 */
export type JournalVersion = "spec" | "schedule-id";

export const JOURNAL_VERSIONS: readonly JournalVersion[] = ["spec", "schedule-id"];

/** The bytes a proposal signature covers: the packed journal, then the schedule id when there is one. */
export function packSignedJournal(journal: Journal, scheduleId?: Uint8Array): Uint8Array {
  const packed = packJournal(journal);
  if (scheduleId === undefined) return packed;
  if (scheduleId.length !== 32) throw new RangeError(`a schedule id is 32 bytes, got ${scheduleId.length}`);
  const out = new Uint8Array(packed.length + 32);
  out.set(packed, 0);
  out.set(scheduleId, packed.length);
  return out;
}

/** The re-executed range does not end with the claimed output root at the claimed block: nothing is signed. */
export class OutputRootMismatchError extends OnchainError<"output-root-mismatch"> {
  override readonly name = "OutputRootMismatchError";
  constructor(message: string, details: { readonly claimedBlock: bigint; readonly lastBlock?: bigint }) {
    super(message, { kind: "output-root-mismatch", details });
  }
}

/**
 * The digest a proposal signature covers: keccak256 of the packed journal (docs/protocol.md "Signed journal"),
 * with the schedule id appended for the schedule-id version.
 */
export function journalDigest(journal: Journal, scheduleId?: Uint8Array): Uint8Array {
  return keccak_256(packSignedJournal(journal, scheduleId));
}

/** The address whose key signed `journal` with the 65-byte r‖s‖v `signature` (throws when unrecoverable). */
export function recoverJournalSigner(
  journal: Journal,
  signature: Uint8Array,
  scheduleId?: Uint8Array,
): Uint8Array {
  return recoverSignerAddress(journalDigest(journal, scheduleId), signature);
}

/** Throws OutputRootMismatchError unless the range reproduces the claim. */
export function checkClaim(boot: BootInfo, range: ExecutedRange): void {
  const count = range.outputRoots.length;
  if (count === 0)
    throw new OutputRootMismatchError("the executed range holds no block", {
      claimedBlock: boot.claimedL2BlockNumber,
    });
  const last = range.startBlock + BigInt(count);
  if (last !== boot.claimedL2BlockNumber) {
    throw new OutputRootMismatchError(
      `range ends at block ${last}, claimed block is ${boot.claimedL2BlockNumber}`,
      { claimedBlock: boot.claimedL2BlockNumber, lastBlock: last },
    );
  }
  if (!bytesEqual(range.outputRoots[count - 1] as Uint8Array, boot.claimedOutputRoot)) {
    throw new OutputRootMismatchError(
      `re-executed output root at block ${last} differs from the claimed root`,
      { claimedBlock: boot.claimedL2BlockNumber, lastBlock: last },
    );
  }
}

/** One journal per block: N = 0, start = end − 1, chained through prevOutputRoot from the agreed root. */
export function perBlockJournals(ctx: ProposalContext, range: ExecutedRange): Journal[] {
  let prev = ctx.boot.agreedOutputRoot;
  return range.outputRoots.map((outputRoot, i) => {
    const end = range.startBlock + BigInt(i) + 1n;
    const journal: Journal = {
      proposer: ctx.boot.proposer,
      l1OriginHash: ctx.boot.l1Head,
      prevOutputRoot: prev,
      startingL2Block: end - 1n,
      outputRoot,
      endingL2Block: end,
      intermediateRoots: [],
      configHash: ctx.configHash,
      teeImageHash: ctx.teeImageHash,
    };
    prev = outputRoot;
    return journal;
  });
}

/** The aggregate journal: start = first − 1, end = last, agreed root, sampled intermediate roots. */
export function aggregateJournal(ctx: ProposalContext, range: ExecutedRange): Journal {
  const count = range.outputRoots.length;
  return {
    proposer: ctx.boot.proposer,
    l1OriginHash: ctx.boot.l1Head,
    prevOutputRoot: ctx.boot.agreedOutputRoot,
    startingL2Block: range.startBlock,
    outputRoot: range.outputRoots[count - 1] as Uint8Array,
    endingL2Block: range.startBlock + BigInt(count),
    intermediateRoots: sampleIntermediateRoots(
      range.startBlock,
      range.outputRoots,
      ctx.boot.intermediateBlockInterval,
    ),
    configHash: ctx.configHash,
    teeImageHash: ctx.teeImageHash,
  };
}

/** Signs `journal` and names it as a proposal (its L1 origin and config hash the context's). */
export function signProposal(ctx: ProposalContext, signer: JournalSigner, journal: Journal): Proposal {
  return {
    output_root: journal.outputRoot,
    signature: signer.signJournal(packSignedJournal(journal, ctx.scheduleId)),
    l1_origin_hash: ctx.boot.l1Head,
    l1_origin_number: ctx.boot.l1HeadNumber,
    l2_block_number: journal.endingL2Block,
    prev_output_root: journal.prevOutputRoot,
    config_hash: ctx.configHash,
  };
}

/**
 * Checks the claim, then signs every per-block journal and the aggregate. A one-block range's aggregate
 * is its per-block proposal.
 */
export function buildProofResult(
  ctx: ClaimContext,
  range: ExecutedRange,
  signer: JournalSigner,
): ProofResult {
  checkClaim(ctx.boot, range);
  const aggregate = aggregateJournal(ctx, range); // validates the interval before anything is signed
  const proposals = perBlockJournals(ctx, range).map((journal) => signProposal(ctx, signer, journal));
  const aggregate_proposal =
    proposals.length === 1 ? (proposals[0] as Proposal) : signProposal(ctx, signer, aggregate);
  return { Tee: { aggregate_proposal, proposals } };
}
