/**
 * The dev chain's rollup configuration: every OP fork up to Isthmus active from genesis (Jovian
 * off: the engine supports it, but its L1 attributes format and minimum base fee are not needed
 * here), OP's EIP-1559 defaults, 30M gas per block.
 */
import { OpFork, type RollupConfig } from "../chain/rollup-config.js";

export const DEV_GAS_LIMIT = 30_000_000n;
/** Genesis base fee (wei); later blocks follow OP's EIP-1559 rules (Holocene extraData, defaults). */
export const DEV_GENESIS_BASE_FEE = 1_000_000_000n;

export function devRollupConfig(chainId: bigint, genesisTime: bigint): RollupConfig {
  return {
    l2ChainId: chainId,
    blockTime: 2n,
    genesisL2Time: genesisTime,
    forkTimes: {
      [OpFork.Bedrock]: 0n,
      [OpFork.Regolith]: 0n,
      [OpFork.Canyon]: 0n,
      [OpFork.Delta]: 0n,
      [OpFork.Ecotone]: 0n,
      [OpFork.Fjord]: 0n,
      [OpFork.Granite]: 0n,
      [OpFork.Holocene]: 0n,
      [OpFork.Isthmus]: 0n,
    },
    eip1559Elasticity: 6n,
    eip1559Denominator: 50n,
    eip1559DenominatorCanyon: 250n,
  };
}
