/**
 * The genesis config of the project's dev chain (defined in src/chain: chain 901 with the default dev
 * accounts), from which the build script computes its row of the enclave's config-hash table. Build time
 * only: the enclave never runs this.
 *
 * The dev chain has no L1 deployment, so its L1 facts are the node's synthetic ones: the L1 genesis is the
 * synthetic L1 block 0, there is no batcher, deposit contract or system config contract (zero addresses),
 * and the scalar is the Ecotone encoding of the fee scalars every L1 attributes deposit carries.
 */
import {
  buildGenesis,
  DEV_CHAIN_ID,
  DEV_DEFAULT_ACCOUNT_COUNT,
  DEV_FEE_SCALARS,
  DEV_GAS_LIMIT,
  DEV_GENESIS_TIME,
  devAccounts,
  devRollupConfig,
  encodeEcotoneScalar,
  genesisAccounts,
  syntheticL1Origin,
} from "../../chain/index.js";
import type { ChainGenesisConfig } from "./config-hash.js";

/** The dev chain's genesis config: the same genesis a fresh `npm start` / `npm run node` creates. */
export async function devChainGenesisConfig(): Promise<ChainGenesisConfig> {
  const config = devRollupConfig(DEV_CHAIN_ID, DEV_GENESIS_TIME);
  const genesis = await buildGenesis(config, genesisAccounts(devAccounts(DEV_DEFAULT_ACCOUNT_COUNT)));
  return {
    chainId: DEV_CHAIN_ID,
    l1GenesisHash: syntheticL1Origin(DEV_GENESIS_TIME, DEV_GENESIS_TIME).hash,
    l2GenesisHash: genesis.hash,
    l2GenesisTime: DEV_GENESIS_TIME,
    batcherAddress: new Uint8Array(20),
    scalar: encodeEcotoneScalar(
      Number(DEV_FEE_SCALARS.baseFeeScalar),
      Number(DEV_FEE_SCALARS.blobBaseFeeScalar),
    ),
    gasLimit: DEV_GAS_LIMIT,
    depositContractAddress: new Uint8Array(20),
    systemConfigAddress: new Uint8Array(20),
  };
}
