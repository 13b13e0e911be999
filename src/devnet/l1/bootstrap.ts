/**
 * The devnet's L1 brought up with its contracts: anvil, then the TEEProverRegistry, DepositPortal and SystemConfig
 * created by development account 0 at nonces 0-2. On a fresh L1 they are created in block 1, mined at the genesis
 * time + 12 s, so block 1 (the natural L1 origin of the L2 genesis) has the same hash on every machine; the clock
 * then moves to the wall clock and mining starts. On a resumed L1 the contracts are found at their addresses.
 *
 * With `slots` (the devnet's `npm start`) the L1 behaves like a beacon chain: blocks only at
 * `genesis + slot × secondsPerSlot`, block 1 in slot 1, mined by the slot miner (slots.ts) on a grid kept in the
 * state directory, and a standard beacon API served beside anvil (beacon-server.ts).
 */
import { createWalletClient, http, type Hash } from "viem";
import { mnemonicToAccount } from "viem/accounts";
import { loadKzg } from "../../derive/index.js";
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
import { type BeaconServer, startBeaconServer } from "./beacon-server.js";
import { type SlotGrid, type SlotMiner, loadSlotGrid, slotAt, slotTime, startSlotMiner } from "./slots.js";

export interface DevnetL1Options extends Omit<AnvilOptions, "clock"> {
  readonly systemConfig: SystemConfigInit;
  /**
   * Beacon-chain slots of `secondsPerSlot` (then `mining` is ignored) and a beacon API on `beaconPort` (default:
   * any free port); the grid is kept in `stateDir` when there is one.
   */
  readonly slots?: { readonly secondsPerSlot: number; readonly beaconPort?: number };
  /** Hears a slot the miner failed to mine (default: ignored; the next slot is tried). */
  readonly onMineError?: (e: unknown) => void;
}

/** The beacon side of a slotted devnet L1. */
export interface DevnetBeacon {
  readonly grid: SlotGrid;
  /** The standard beacon API (anything else under /eth/ is anvil's). */
  readonly url: string;
  /** Stops the slot miner and the beacon API (anvil keeps running). */
  stop(): Promise<void>;
}

export interface DevnetL1 {
  readonly anvil: Anvil;
  readonly deployment: L1Deployment;
  /** The L1 block the contracts were created in (block 1 of a devnet L1 bootstrapped here). */
  readonly deployBlock: { readonly number: bigint; readonly hash: Hash; readonly timestamp: bigint };
  /** With `slots`: the slot grid, its miner and the beacon API. */
  readonly beacon?: DevnetBeacon;
}

/** Starts anvil, makes sure the L1 contracts are deployed, then starts mining (`options.mining`, default 12 s). */
export async function startDevnetL1(options: DevnetL1Options): Promise<DevnetL1> {
  const mining: AnvilMining = options.mining ?? { mode: "interval", blockTimeSeconds: DEVNET_L1_BLOCK_TIME };
  const anvil = await startAnvil({ ...options, mining: { mode: "manual" }, clock: "genesis" });
  try {
    const genesisTime = options.genesisTimestamp ?? DEVNET_L1_GENESIS_TIME;
    const grid =
      options.slots === undefined
        ? undefined
        : loadSlotGrid(options.stateDir, genesisTime, options.slots.secondsPerSlot, anvil.resumed);
    const firstBlockTime =
      grid === undefined ? genesisTime + BigInt(DEVNET_L1_BLOCK_TIME) : slotTime(grid, 1n);
    /** A resumed slotted L1 that lacks its contracts mines them in the current slot (or the next free one). */
    const nextSlotTime = async (g: SlotGrid): Promise<bigint> => {
      const latest = await anvil.client.getBlock({ blockTag: "latest" });
      const now = slotAt(g, BigInt(Math.floor(Date.now() / 1000)));
      const free = slotAt(g, latest.timestamp) + 1n;
      return slotTime(g, now > free ? now : free);
    };
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
        mine: async () =>
          !anvil.resumed
            ? anvil.mine(firstBlockTime)
            : grid === undefined
              ? anvil.mine()
              : anvil.mine(await nextSlotTime(grid)),
        pollingIntervalMs: 50,
      },
    );
    const block = await anvil.client.getBlock({ blockNumber: deployment.systemConfigStartBlock });
    await anvil.syncClock();
    const deployBlock = { number: block.number, hash: block.hash, timestamp: block.timestamp };
    if (grid === undefined) {
      await anvil.setMining(mining);
      return { anvil, deployment, deployBlock };
    }
    const beacon = await startBeacon(anvil, grid, options);
    return { anvil, deployment, deployBlock, beacon };
  } catch (e) {
    await anvil.stop();
    throw e;
  }
}

/** The slot miner and the beacon API of a slotted L1 (anvil stays on manual mining). */
async function startBeacon(anvil: Anvil, grid: SlotGrid, options: DevnetL1Options): Promise<DevnetBeacon> {
  const miner: SlotMiner = startSlotMiner(anvil, grid, options.onMineError);
  let server: BeaconServer;
  try {
    server = await startBeaconServer({
      anvil,
      grid,
      kzg: await loadKzg(),
      ...(options.slots?.beaconPort === undefined ? {} : { port: options.slots.beaconPort }),
    });
  } catch (e) {
    await miner.stop();
    throw e;
  }
  return {
    grid,
    url: server.url,
    async stop(): Promise<void> {
      await miner.stop();
      await server.close();
    },
  };
}
