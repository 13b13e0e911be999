/**
 * The boot information of a proof request as local preimages (docs/decisions.md "Boot information"):
 * keys 1-5 and 8-10. Keys 6 and 7 (rollup and L1 chain config JSON) are only for chains not built into
 * the enclave; the host starts only for built-in chains, so it never sends them.
 *
 * With a rollup config (--rollup-config) the host adds the witness it collects by running the proof program
 * natively (src/host/witness); without one these are the only preimages it sends, and the enclave refuses
 * the request at the first preimage it misses (MissingWitnessError, -32000 to the caller). No proof is faked.
 */
import type { Preimage } from "../../generated/protocol/index.js";
import type { ProofRequest } from "../../generated/rpc/index.js";
import { type BootInfo, bootInfoPreimages } from "../proof/preimages/index.js";

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
  };
}

export function bootPreimages(request: ProofRequest, l2ChainId: bigint): Preimage[] {
  return bootInfoPreimages(bootInfoOf(request, l2ChainId));
}
