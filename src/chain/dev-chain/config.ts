/**
 * The dev chain's rollup configuration: every OP fork up to Isthmus active from genesis (Jovian
 * off: the engine supports it, but its L1 attributes format and minimum base fee are not needed
 * here), OP's EIP-1559 defaults, 30M gas per block.
 */
import type { L1ChainConfig } from "../chains/l1-chains.js";
import { OpFork, type RollupConfig, forksActiveFrom } from "../rollup-config.js";

export const DEV_GAS_LIMIT = 30_000_000n;
/** The project's dev chain id (the default of `--chain-id`). */
export const DEV_CHAIN_ID = 901n;
/** Prefunded accounts of a default dev chain (the default of `--dev-accounts`). */
export const DEV_DEFAULT_ACCOUNT_COUNT = 10;
/**
 * Genesis time of every new dev chain: 2026-01-01T00:00:00Z. Fixed, not the time of first start, so that a
 * chain with the default id and accounts has one genesis hash everywhere and the enclave can carry its
 * config hash in its build-time table (src/proof/onchain/dev-chain.ts). Blocks after genesis carry wall-clock times.
 */
export const DEV_GENESIS_TIME = 1_767_225_600n;
/** Genesis base fee (wei); later blocks follow OP's EIP-1559 rules (Holocene extraData, defaults). */
export const DEV_GENESIS_BASE_FEE = 1_000_000_000n;

export function devRollupConfig(chainId: bigint, genesisTime: bigint): RollupConfig {
  return {
    l2ChainId: chainId,
    blockTime: 2n,
    genesisL2Time: genesisTime,
    forkTimes: forksActiveFrom(OpFork.Isthmus),
    eip1559Elasticity: 6n,
    eip1559Denominator: 50n,
    eip1559DenominatorCanyon: 250n,
  };
}

/**
 * The blob-fee schedule of a development L1 (the devnet's anvil, `--hardfork prague`): Cancun and Prague from
 * its genesis, no blob-parameter-only forks. Derivation and the sequencer need it for an L1 chain id that is not
 * a built-in one (src/chain/chains/l1-chains.ts).
 */
export function devL1ChainConfig(chainId: bigint): L1ChainConfig {
  return { chainId, cancunTime: 0n, pragueTime: 0n, blobSchedule: [] };
}
