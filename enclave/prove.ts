/**
 * The proof program as the enclave runs it for one Prove request (system-spec "Proof pipeline", steps
 * 3-7): verify every hash-keyed preimage, read the boot information, look up the config hash (refusing
 * unknown chains), derive and execute the range, check the claim, then sign the journals.
 */
import type { Preimage, ProofResult } from "../generated/protocol/index.js";
import type { PreimageSource } from "../src/chain/preimage-store.js";
import { type BootInfo, readBootInfo } from "./boot-info.js";
import { configHashFor } from "./chain-configs.js";
import { loadVerifiedPreimages } from "./preimages.js";
import { buildProofResult, type ExecutedRange, type JournalSigner } from "./proposals.js";

/** Derives the range from L1 data and re-executes it against the verified preimages. */
export interface RangeExecutor {
  execute(boot: BootInfo, preimages: PreimageSource): Promise<ExecutedRange>;
}

/** A pipeline stage that is not part of this build. */
export class StageUnavailableError extends Error {
  override readonly name = "StageUnavailableError";
}

/**
 * The derivation stage arrives with the derivation issue: until then a Prove that gets this far is
 * refused with an error naming the missing stage, and nothing is signed.
 */
export const derivationNotBuilt: RangeExecutor = {
  async execute(boot) {
    throw new StageUnavailableError(
      `derivation stage not available: re-deriving L2 blocks ${boot.claimedL2BlockNumber} and earlier from L1 data is not built into this enclave yet; nothing was signed`,
    );
  },
};

export interface ProofProgram {
  readonly signer: JournalSigner;
  readonly teeImageHash: Uint8Array;
  readonly executor: RangeExecutor;
}

export async function runProof(program: ProofProgram, preimages: readonly Preimage[]): Promise<ProofResult> {
  const store = loadVerifiedPreimages(preimages);
  const boot = readBootInfo(store);
  const configHash = configHashFor(boot.chainId);
  const range = await program.executor.execute(boot, store);
  return buildProofResult({ boot, configHash, teeImageHash: program.teeImageHash }, range, program.signer);
}
