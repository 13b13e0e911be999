/**
 * The boot information of a proof request as local preimages (notes/prover.md "Boot information"):
 * keys 1-5 and 8-10. Keys 6 and 7 (rollup and L1 chain config JSON) are only for chains not built into
 * the enclave; the host starts only for built-in chains, so it never sends them.
 *
 * Until witness collection exists (a later issue) these are the only preimages the host sends, so the
 * enclave verifies them, reads the boot information, checks the chain, and then refuses at its missing
 * derivation stage; that refusal comes back to the caller as -32000. No proof is faked.
 */
import { BootKey, localBootKey } from "../../enclave/boot-info.js";
import type { Preimage, PreimageKey } from "../../generated/protocol/index.js";
import type { ProofRequest } from "../../generated/rpc/types.js";

function localKey(index: number): PreimageKey {
  return { data: localBootKey(index).slice(1), keyType: "Local" };
}

function u64(value: bigint): Uint8Array {
  const bytes = new Uint8Array(8);
  new DataView(bytes.buffer).setBigUint64(0, value, false);
  return bytes;
}

export function bootPreimages(request: ProofRequest, l2ChainId: bigint): Preimage[] {
  return [
    [localKey(BootKey.L1Head), request.l1_head.slice()],
    [localKey(BootKey.AgreedOutputRoot), request.agreed_l2_output_root.slice()],
    [localKey(BootKey.ClaimedOutputRoot), request.claimed_l2_output_root.slice()],
    [localKey(BootKey.ClaimedL2BlockNumber), u64(request.claimed_l2_block_number)],
    [localKey(BootKey.L2ChainId), u64(l2ChainId)],
    [localKey(BootKey.Proposer), request.proposer.slice()],
    [localKey(BootKey.IntermediateBlockInterval), u64(request.intermediate_block_interval)],
    [localKey(BootKey.L1HeadNumber), u64(request.l1_head_number)],
  ];
}
