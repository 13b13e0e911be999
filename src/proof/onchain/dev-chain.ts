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
  genesisAccounts,
  syntheticL1Origin,
} from "../../chain/index.js";
import type { ChainGenesisConfig } from "./config-hash.js";

/** Ecotone system-config scalar: version byte 1, then blobBaseFeeScalar and baseFeeScalar as the last 8 bytes. */
export function ecotoneScalar(baseFeeScalar: bigint, blobBaseFeeScalar: bigint): Uint8Array {
  const scalar = new Uint8Array(32);
  const view = new DataView(scalar.buffer);
  scalar[0] = 1;
  view.setUint32(24, Number(blobBaseFeeScalar));
  view.setUint32(28, Number(baseFeeScalar));
  return scalar;
}

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
    scalar: ecotoneScalar(DEV_FEE_SCALARS.baseFeeScalar, DEV_FEE_SCALARS.blobBaseFeeScalar),
    gasLimit: DEV_GAS_LIMIT,
    depositContractAddress: new Uint8Array(20),
    systemConfigAddress: new Uint8Array(20),
  };
}
