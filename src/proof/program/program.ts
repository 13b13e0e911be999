/**
 * The proof program (docs/proof.md "The program"): one range proof from the boot information and a preimage
 * oracle, in kona's three phases, each in its own file. The enclave runs it offline over the verified preimages of
 * a Prove request; the host runs the same code natively over its fetching oracle to collect the witness.
 *
 * - Prologue (prologue.ts): the agreed output root is opened (its keccak256 preimage: version ‖ state root ‖ message passer
 *   storage root ‖ L2 block hash) to the agreed L2 head, whose header must carry that state root and message
 *   passer root; the L1 head header must have the boot's number. The claim must be after the agreed head.
 * - Driver (driver.ts): src/derive's `derive()` from the agreed head to the claimed block over the oracle's providers, each
 *   derived block executed by src/chain (the deposit-only replacement when invalid, Holocene), its output root
 *   collected. Executed blocks' new trie nodes and headers stay in an overlay the next block reads.
 * - Epilogue (epilogue.ts): the last output root must be the claimed one at the claimed block (OutputRootMismatchError).
 *   Nothing is signed here; signing (buildProofResult) comes only after the program returned.
 */
import type { L1ChainConfig, PreimageSource, RollupConfig } from "../../chain/index.js";
import { PreimageTable, type BootInfo } from "../preimages/index.js";
import { type ExecutedRange, UnsupportedChainError } from "../onchain/index.js";
import { checkpoint, driveRange } from "./driver.js";
import { epilogue } from "./epilogue.js";
import { OfflineOracle } from "./oracle.js";
import type { BlockPool } from "./parallel/pool.js";
import { prologue } from "./prologue.js";
import type { ExecutionReport, ProgramInput, ProgramResult } from "./types.js";

/** Runs the program: prologue, derivation and execution up to the claimed block, epilogue. */
export async function runProgram(input: ProgramInput): Promise<ProgramResult> {
  const t0 = performance.now();
  const start = await prologue(input);
  const prologueMs = performance.now() - t0;
  await checkpoint(input.signal);
  const driven = await driveRange(input, start);
  await checkpoint(input.signal);
  return epilogue(input, start.agreed, driven, prologueMs);
}

/** Which chains a program executor proves: the rollup config (and L1 schedule) of a chain id, or undefined. */
export type ChainConfigLookup = (
  chainId: bigint,
) => { readonly rollupConfig: RollupConfig; readonly l1ChainConfig?: L1ChainConfig } | undefined;

/**
 * The program as the enclave's RangeExecutor (enclave/prove.ts): offline over the request's verified preimages.
 * A chain the lookup does not know is refused (UnsupportedChainError).
 */
export function programExecutor(
  chains: ChainConfigLookup,
  options: {
    /** Worker threads for parallel execution (a pool of 1 or none: sequential). */
    readonly pool?: BlockPool;
    /** Told of how each range was executed (logs, metrics). */
    readonly onExecuted?: (report: ExecutionReport) => void;
  } = {},
): {
  execute(boot: BootInfo, preimages: PreimageSource, signal?: AbortSignal): Promise<ExecutedRange>;
} {
  const { pool } = options;
  return {
    async execute(boot, preimages, signal) {
      const chain = chains(boot.chainId);
      if (chain === undefined) throw new UnsupportedChainError(boot.chainId);
      const parallel =
        pool !== undefined && pool.workers > 1 && preimages instanceof PreimageTable
          ? { pool, table: preimages }
          : undefined;
      const result = await runProgram({
        boot,
        oracle: new OfflineOracle(preimages),
        rollupConfig: chain.rollupConfig,
        ...(chain.l1ChainConfig === undefined ? {} : { l1ChainConfig: chain.l1ChainConfig }),
        ...(signal === undefined ? {} : { signal }),
        ...(parallel === undefined ? {} : { parallel }),
        ...(options.onExecuted === undefined ? {} : { onExecuted: options.onExecuted }),
      });
      return { startBlock: result.startBlock, outputRoots: result.outputRoots };
    },
  };
}
