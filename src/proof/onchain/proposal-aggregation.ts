/**
 * One aggregate proposal over per-block proposals an enclave signed in several Prove frames (the enclave's
 * Aggregate request; docs/enclave.md "Aggregating sub-ranges"). A range too large for one frame is proved in
 * consecutive sub-ranges on the same L1 head; each per-block proposal already states "from this previous root, this
 * block ends at this root", so their chain states what one Prove over the whole range would: the aggregate signed
 * here is byte for byte the one that Prove would sign. Nothing is signed unless every proposal carries this
 * signer's signature over the journal rebuilt from it, the blocks are consecutive, each starts from the root the one
 * before it ended at, and all share one L1 origin and the chain's config hash.
 */
import type { Proposal } from "../../../generated/rpc/index.js";
import { bytesEqual } from "../../chain/index.js";
import { OnchainError } from "./errors.js";
import {
  aggregateJournal,
  type ExecutedRange,
  type JournalSigner,
  perBlockJournals,
  type ProposalContext,
  recoverJournalSigner,
  signProposal,
} from "./journals.js";

/** Which check refused an aggregation. */
export type AggregationCheck = "empty" | "config-hash" | "l1-origin" | "block-number" | "chain" | "signature";

/** The proposals do not chain into one range this signer proved: nothing is signed. */
export class AggregationRefusedError extends OnchainError<"aggregation"> {
  override readonly name = "AggregationRefusedError";
  constructor(
    message: string,
    readonly check: AggregationCheck,
    readonly index?: number,
  ) {
    super(message, { kind: "aggregation", details: { check, ...(index === undefined ? {} : { index }) } });
  }
}

export interface AggregationRequest {
  readonly proposer: Uint8Array;
  readonly intermediateBlockInterval: bigint;
  /** The chain's config hash, from the signer's own table (never from the request). */
  readonly configHash: Uint8Array;
  /** The signer's image hash. */
  readonly teeImageHash: Uint8Array;
  /** The schedule id the per-block signatures cover (schedule-id journals). */
  readonly scheduleId?: Uint8Array;
  /** Per-block proposals in block order. */
  readonly proposals: readonly Proposal[];
}

/** Checks that the proposals chain into one range on one L1 origin; returns that range. */
function chainedRange(request: AggregationRequest): ExecutedRange {
  const { proposals, configHash } = request;
  const first = proposals[0];
  if (first === undefined) throw new AggregationRefusedError("no proposals to aggregate", "empty");
  if (first.l2_block_number < 1n)
    throw new AggregationRefusedError("proposal 0 names block 0 (genesis has no proof)", "block-number", 0);
  for (const [index, proposal] of proposals.entries()) {
    if (!bytesEqual(proposal.config_hash, configHash))
      throw new AggregationRefusedError(
        `proposal ${index} names another config hash than the chain's`,
        "config-hash",
        index,
      );
    if (
      !bytesEqual(proposal.l1_origin_hash, first.l1_origin_hash) ||
      proposal.l1_origin_number !== first.l1_origin_number
    )
      throw new AggregationRefusedError(
        `proposal ${index} names another L1 origin than proposal 0`,
        "l1-origin",
        index,
      );
    const expected = first.l2_block_number + BigInt(index);
    if (proposal.l2_block_number !== expected)
      throw new AggregationRefusedError(
        `proposal ${index} is for block ${proposal.l2_block_number}, expected ${expected}`,
        "block-number",
        index,
      );
    const previous = proposals[index - 1];
    if (previous !== undefined && !bytesEqual(proposal.prev_output_root, previous.output_root))
      throw new AggregationRefusedError(
        `proposal ${index} does not start from the output root proposal ${index - 1} ends at`,
        "chain",
        index,
      );
  }
  return { startBlock: first.l2_block_number - 1n, outputRoots: proposals.map((p) => p.output_root) };
}

/**
 * The aggregate proposal over `request.proposals` (a single proposal is answered as it is), signed by `signer`
 * only after every per-block signature recovers to `signerAddress`. Throws AggregationRefusedError otherwise.
 */
export function aggregateProposals(
  request: AggregationRequest,
  signer: JournalSigner,
  signerAddress: Uint8Array,
): Proposal {
  const range = chainedRange(request);
  const first = request.proposals[0] as Proposal;
  const ctx: ProposalContext = {
    boot: {
      proposer: request.proposer,
      l1Head: first.l1_origin_hash,
      l1HeadNumber: first.l1_origin_number,
      agreedOutputRoot: first.prev_output_root,
      intermediateBlockInterval: request.intermediateBlockInterval,
    },
    configHash: request.configHash,
    teeImageHash: request.teeImageHash,
    ...(request.scheduleId === undefined ? {} : { scheduleId: request.scheduleId }),
  };
  const aggregate = aggregateJournal(ctx, range); // validates the interval before anything is checked or signed
  for (const [index, journal] of perBlockJournals(ctx, range).entries()) {
    const signature = (request.proposals[index] as Proposal).signature;
    let recovered: Uint8Array | undefined;
    try {
      recovered = recoverJournalSigner(journal, signature, request.scheduleId);
    } catch {
      recovered = undefined;
    }
    if (recovered === undefined || !bytesEqual(recovered, signerAddress))
      throw new AggregationRefusedError(
        `proposal ${index} (block ${journal.endingL2Block}) is not signed by this enclave over its journal`,
        "signature",
        index,
      );
  }
  return request.proposals.length === 1 ? first : signProposal(ctx, signer, aggregate);
}
