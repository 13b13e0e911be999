/**
 * The boot information of a proof request as local preimages (docs/decisions.md "Boot information"):
 * keys 1-5 and 8-10, and 11 when the request names a schedule block. Keys 6 and 7 (rollup and L1 chain config JSON) are only for chains not built into
 * the enclave; the host starts only for built-in chains, so it never sends them.
 *
 * With a rollup config (--rollup-config) the host adds the witness it collects by running the proof program
 * natively (src/host/witness); without one these are the only preimages it sends, and the enclave refuses
 * the request at the first preimage it misses (MissingWitnessError, -32000 to the caller). No proof is faked.
 */
import type { Preimage } from "../../generated/protocol/index.js";
import type { ProofRequest } from "../../generated/rpc/index.js";
import { type BootInfo, bootInfoPreimages } from "../proof/preimages/index.js";

/**
 * The block whose timestamp pins the upgrade schedule of a request: its schedule block, or its claimed block when
 * that is absent or 0 (as Base's boot loader reads it).
 */
export function scheduleBlockOf(request: ProofRequest): bigint {
  const given = request.schedule_l2_block_number;
  return given === undefined || given === 0n ? request.claimed_l2_block_number : given;
}

/** The boot information of a proof request for chain `l2ChainId`. */
export function bootInfoOf(request: ProofRequest, l2ChainId: bigint): BootInfo {
  return {
    l1Head: request.l1_head,
    l1HeadNumber: request.l1_head_number,
    agreedOutputRoot: request.agreed_l2_output_root,
    claimedOutputRoot: request.claimed_l2_output_root,
    claimedL2BlockNumber: request.claimed_l2_block_number,
    chainId: l2ChainId,
    proposer: request.proposer,
    intermediateBlockInterval: request.intermediate_block_interval,
    ...(scheduleBlockOf(request) === request.claimed_l2_block_number
      ? {}
      : { scheduleL2BlockNumber: scheduleBlockOf(request) }),
  };
}

export function bootPreimages(request: ProofRequest, l2ChainId: bigint): Preimage[] {
  return bootInfoPreimages(bootInfoOf(request, l2ChainId));
}
