/**
 * The devnet L1's beacon-chain clock: one block per slot at `genesis + slot × secondsPerSlot`, empty slots
 * allowed, as on a beacon chain. anvil (started with --no-mining) mines only when told: the slot miner asks it for
 * a block with the slot's timestamp at each slot boundary of the wall clock. The grid is the L1 genesis block's
 * time and the slot length, kept in `<stateDir>/beacon.json`, so a restarted devnet (after a stop or a `kill -9`)
 * mines on the same grid; a restart with another slot length is refused (the chain's slots would not line up).
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SlotGridError } from "../errors.js";
import type { Anvil } from "./anvil.js";

/** The file in the L1 state directory that keeps the slot grid. */
export const BEACON_GRID_FILE = "beacon.json";

/** Where slots fall: slot n starts at `genesisTime + n × secondsPerSlot` (seconds). */
export interface SlotGrid {
  readonly genesisTime: bigint;
  readonly secondsPerSlot: number;
}

/** The slot a timestamp falls in (the slot whose start is at or before it). */
export function slotAt(grid: SlotGrid, timestamp: bigint): bigint {
  return timestamp < grid.genesisTime ? 0n : (timestamp - grid.genesisTime) / BigInt(grid.secondsPerSlot);
}

/** The start time of `slot`. */
export function slotTime(grid: SlotGrid, slot: bigint): bigint {
  return grid.genesisTime + slot * BigInt(grid.secondsPerSlot);
}

/**
 * The slot grid of the L1 in `stateDir`. A resumed L1 keeps the grid saved in `<stateDir>/beacon.json` (anvil does
 * not keep block 0's timestamp across a second restart, so the saved genesis time is the one to trust); a fresh L1
 * (or one from before the file existed) gets `genesisTime`, which is saved. A saved grid with another slot length is
 * a SlotGridError: the chain's blocks would not sit on the new grid. No `stateDir`: nothing is saved.
 */
export function loadSlotGrid(
  stateDir: string | undefined,
  genesisTime: bigint,
  secondsPerSlot: number,
  resumed: boolean,
): SlotGrid {
  if (stateDir === undefined) return { genesisTime, secondsPerSlot };
  const path = join(stateDir, BEACON_GRID_FILE);
  if (resumed && existsSync(path)) {
    let saved: { genesisTime?: unknown; secondsPerSlot?: unknown };
    try {
      saved = JSON.parse(readFileSync(path, "utf8")) as typeof saved;
      if (typeof saved.genesisTime !== "string" || !/^\d+$/.test(saved.genesisTime))
        throw new Error("no genesisTime");
    } catch (e) {
      throw new SlotGridError(
        `${path} is not the devnet's slot grid: ${(e as Error).message}`,
        { path },
        { cause: e },
      );
    }
    if (saved.secondsPerSlot !== secondsPerSlot)
      throw new SlotGridError(
        `the devnet L1 in ${stateDir} runs ${String(saved.secondsPerSlot)} s slots, not ${secondsPerSlot} s: ` +
          `start it with --l1-block-time ${String(saved.secondsPerSlot)}, or remove the data directory for a new chain`,
        { path, saved: String(saved.secondsPerSlot), asked: secondsPerSlot },
      );
    return { genesisTime: BigInt(saved.genesisTime), secondsPerSlot };
  }
  writeFileSync(path, `${JSON.stringify({ genesisTime: String(genesisTime), secondsPerSlot }, null, 2)}\n`);
  return { genesisTime, secondsPerSlot };
}

/** A running slot miner. */
export interface SlotMiner {
  readonly grid: SlotGrid;
  /** Stops mining (the block of a slot being mined is finished first). */
  stop(): Promise<void>;
}

/**
 * Mines one block at each slot boundary of the wall clock, timestamped with the slot's start; a slot whose start
 * is not after the latest block (the chain is ahead, e.g. blocks mined by hand) is left empty. After a pause (a
 * restart) the missed slots stay empty and the next block takes the current slot. `onError` hears a failed mine
 * (anvil gone); the miner keeps trying at the next slot.
 */
export function startSlotMiner(
  anvil: Pick<Anvil, "mine" | "client">,
  grid: SlotGrid,
  onError: (e: unknown) => void = () => undefined,
  now: () => number = Date.now,
): SlotMiner {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const tick = async (): Promise<void> => {
    const nowSeconds = BigInt(Math.floor(now() / 1000));
    const slot = slotAt(grid, nowSeconds);
    const start = slotTime(grid, slot);
    const latest = await anvil.client.getBlock({ blockTag: "latest" });
    if (start > latest.timestamp) await anvil.mine(start);
  };
  const schedule = (): void => {
    if (stopped) return;
    const nowMs = now();
    const next = slotTime(grid, slotAt(grid, BigInt(Math.floor(nowMs / 1000))) + 1n);
    timer = setTimeout(
      () => {
        running = tick().catch(onError).finally(schedule);
      },
      Math.max(0, Number(next) * 1000 - nowMs),
    );
  };
  running = tick().catch(onError).finally(schedule);
  return {
    grid,
    async stop(): Promise<void> {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
