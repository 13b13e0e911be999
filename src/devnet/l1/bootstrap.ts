/**
 * The devnet's L1 brought up with its contracts: anvil, then the TEEProverRegistry, DepositPortal and SystemConfig
 * created by development account 0 at nonces 0-2. On a fresh L1 they are created in block 1, mined at the genesis
 * time + 12 s, so block 1 (the natural L1 origin of the L2 genesis) has the same hash on every machine; the clock
 * then moves to the wall clock and mining starts. On a resumed L1 the contracts are found at their addresses.
 */
import { createWalletClient, http, type Hash } from "viem";
import { mnemonicToAccount } from "viem/accounts";
import { deployL1Contracts, type L1Deployment, type SystemConfigInit } from "../../../contracts/index.js";
import {
  type Anvil,
  type AnvilMining,
  type AnvilOptions,
  DEVNET_L1_BLOCK_TIME,
  DEVNET_L1_GENESIS_TIME,
  DEVNET_L1_MNEMONIC,
  startAnvil,
} from "./anvil.js";

export interface DevnetL1Options extends Omit<AnvilOptions, "clock"> {
  readonly systemConfig: SystemConfigInit;
}

export interface DevnetL1 {
  readonly anvil: Anvil;
  readonly deployment: L1Deployment;
  /** The L1 block the contracts were created in (block 1 of a devnet L1 bootstrapped here). */
  readonly deployBlock: { readonly number: bigint; readonly hash: Hash; readonly timestamp: bigint };
}

/** Starts anvil, makes sure the L1 contracts are deployed, then starts mining (`options.mining`, default 12 s). */
export async function startDevnetL1(options: DevnetL1Options): Promise<DevnetL1> {
  const mining: AnvilMining = options.mining ?? { mode: "interval", blockTimeSeconds: DEVNET_L1_BLOCK_TIME };
  const anvil = await startAnvil({ ...options, mining: { mode: "manual" }, clock: "genesis" });
  try {
    const genesisTime = options.genesisTimestamp ?? DEVNET_L1_GENESIS_TIME;
    const account = mnemonicToAccount(DEVNET_L1_MNEMONIC, { addressIndex: 0 });
    const walletClient = createWalletClient({
      account,
      chain: anvil.chain,
      transport: http(anvil.rpcUrl, { timeout: 60_000 }),
    });
    const deployment = await deployL1Contracts(
      { publicClient: anvil.client, walletClient },
      {
        systemConfig: options.systemConfig,
        // A fresh L1 gets its contracts in block 1 at a fixed time; a resumed one that lacks them mines now.
        mine: () => (anvil.resumed ? anvil.mine() : anvil.mine(genesisTime + BigInt(DEVNET_L1_BLOCK_TIME))),
        pollingIntervalMs: 50,
      },
    );
    const block = await anvil.client.getBlock({ blockNumber: deployment.systemConfigStartBlock });
    await anvil.syncClock();
    await anvil.setMining(mining);
    return {
      anvil,
      deployment,
      deployBlock: { number: block.number, hash: block.hash, timestamp: block.timestamp },
    };
  } catch (e) {
    await anvil.stop();
    throw e;
  }
}
