/**
 * The program's epilogue (docs/proof.md "The program"): the last output root must be the claimed one at the
 * claimed block (src/proof/onchain's checkClaim, OutputRootMismatchError), and the result the journal is built
 * from. Nothing is signed here; signing (buildProofResult) comes only after the program returned.
 */
import { type ExecutedRange, checkClaim } from "../onchain/index.js";
import type { DriverOutcome } from "./driver.js";
import type { AgreedHead, ProgramInput, ProgramResult, ProgramTimings } from "./types.js";

/** The claim check over the executed blocks, and the result (`onExecuted` is told first). */
export function epilogue(
  input: Pick<ProgramInput, "boot" | "onExecuted">,
  agreed: AgreedHead,
  driven: DriverOutcome,
  prologueMs: ProgramTimings["prologueMs"],
): ProgramResult {
  input.onExecuted?.(driven.execution);
  const t = performance.now();
  const range: ExecutedRange = {
    startBlock: agreed.number,
    outputRoots: driven.blocks.map((b) => b.outputRoot),
  };
  checkClaim(input.boot, range);
  return {
    ...range,
    agreedHead: { number: agreed.number, hash: agreed.hash },
    blocks: driven.blocks,
    timings: { prologueMs, ...driven.timings, epilogueMs: performance.now() - t },
    execution: driven.execution,
    ...(driven.chainWitness === undefined ? {} : { chainWitness: driven.chainWitness }),
  };
}
