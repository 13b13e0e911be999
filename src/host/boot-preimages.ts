/**
 * The boot information of a proof request as local preimages (docs/decisions.md "Boot information"):
 * keys 1-5 and 8-10. Keys 6 and 7 (rollup and L1 chain config JSON) are only for chains not built into
 * the enclave; the host starts only for built-in chains, so it never sends them.
 *
 * Until witness collection exists (a later issue) these are the only preimages the host sends, so the
 * enclave verifies them, reads the boot information, checks the chain, and then refuses at its missing
 * derivation stage; that refusal comes back to the caller as -32000. No proof is faked.
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
