/**
 * The proof program as the enclave runs it for one Prove request (docs/protocol.md "Proof pipeline", steps
 * 3-7): verify every hash-keyed preimage, read the boot information, look up the config hash (refusing
 * unknown chains), derive and execute the range, check the claim, then sign the journals.
 */
import type { Preimage, ProofResult } from "../generated/protocol/index.js";
import type { PreimageSource } from "../src/chain/index.js";
import {
  type BootInfo,
  buildProofResult,
  configHashFor,
  type ExecutedRange,
  type JournalSigner,
  loadVerifiedPreimages,
  readBootInfo,
  refusePrecompileKeys,
} from "../src/proof/index.js";
import { EnclaveError } from "./errors.js";

/** Derives the range from L1 data and re-executes it against the verified preimages. */
export interface RangeExecutor {
  execute(boot: BootInfo, preimages: PreimageSource): Promise<ExecutedRange>;
}

/** A pipeline stage that is not part of this build. */
export class StageUnavailableError extends EnclaveError<"stage-unavailable"> {
  override readonly name = "StageUnavailableError";
  constructor(message: string, details: { readonly stage: string }) {
    super(message, { kind: "stage-unavailable", details });
  }
}

/**
 * The derivation stage arrives with the derivation issue: until then a Prove that gets this far is
 * refused with an error naming the missing stage, and nothing is signed.
 */
export const derivationNotBuilt: RangeExecutor = {
  async execute(boot) {
    throw new StageUnavailableError(
      `derivation stage not available: re-deriving L2 blocks ${boot.claimedL2BlockNumber} and earlier from L1 data is not built into this enclave yet; nothing was signed`,
      { stage: "derivation" },
    );
  },
};

export interface ProofProgram {
  readonly signer: JournalSigner;
  readonly teeImageHash: Uint8Array;
  readonly executor: RangeExecutor;
}

export async function runProof(program: ProofProgram, preimages: readonly Preimage[]): Promise<ProofResult> {
  refusePrecompileKeys(preimages);
  const store = loadVerifiedPreimages(preimages);
  const boot = readBootInfo(store);
  const configHash = configHashFor(boot.chainId);
  const range = await program.executor.execute(boot, store);
  return buildProofResult({ boot, configHash, teeImageHash: program.teeImageHash }, range, program.signer);
}
