/**
 * The devnet's L1: an anvil process (npm `@foundry-rs/anvil`, its platform binary run directly) with a pinned
 * hardfork (Prague: blob transactions), chain id 900, the ten development accounts of the public test mnemonic, a
 * fixed genesis timestamp (so block 0's hash is the same on every machine), interval, automatic or manual mining,
 * and optional persistent state: `--state <dir>` loads `<dir>/state.json` at start and writes it on exit, and
 * `--state-interval` writes it periodically too, so that a restart (even after `kill -9`, losing at most one
 * interval) resumes the same chain. anvil writes that file in place, so a `kill -9` during a write leaves it torn,
 * and anvil refuses to start on it; each start that finds a whole state file keeps a copy of it
 * (`state.json.prev`), and a start that finds a torn one sets it aside (`state.json.torn`) and resumes from that
 * copy: the chain as the previous start found it (see `recoverStateFile`). anvil serves the beacon API routes derivation reads blobs from on its JSON-RPC
 * port (`/eth/v1/beacon/blobs/{block}` and `/eth/v1/beacon/genesis`).
 *
 * Time: a fresh anvil started with `--timestamp T` runs its clock from T (T + seconds since start); a resumed one
 * (no `--timestamp`: the genesis comes from the state file) runs on the wall clock, and anvil would give a block the
 * same timestamp as its parent if the wall clock were behind the last block. `clock: "wall"` (the default) moves the
 * clock to max(now, last block + 1) before mining starts; `clock: "genesis"` leaves a fresh anvil on its
 * genesis-relative clock (tests and bootstrap code that mine blocks with explicit timestamps).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, renameSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { createInterface } from "node:readline";
import {
  type Chain,
  type Hex,
  createPublicClient,
  defineChain,
  http,
  type PublicClient,
  type Transport,
} from "viem";
import { ChildExitedError } from "../errors.js";
import { holdsWholeJsonDocument } from "./whole-json.js";

/** The devnet L1's chain id. */
export const DEVNET_L1_CHAIN_ID = 900;
/** The L1 hardfork anvil runs (blob transactions, EIP-7702). */
export const DEVNET_L1_HARDFORK = "prague";
/**
 * Default genesis timestamp of a fresh devnet L1: 2025-12-31T23:59:24Z, three 12-second slots before the dev L2's
 * genesis (2026-01-01T00:00:00Z, DEV_GENESIS_TIME), so that the L1 blocks the L1 contracts are deployed in can
 * precede the L2 genesis.
 */
export const DEVNET_L1_GENESIS_TIME = 1_767_225_564n;
/** L1 slot time of the devnet (seconds). */
export const DEVNET_L1_BLOCK_TIME = 12;
/** The public development mnemonic (Hardhat/Anvil accounts): never use its keys on a real network. */
export const DEVNET_L1_MNEMONIC = "test test test test test test test test test test test junk";
/** Name of the state file anvil writes in the state directory. */
export const ANVIL_STATE_FILE = "state.json";

/** How anvil produces blocks. */
export type AnvilMining =
  /** One block every `blockTimeSeconds` (the devnet: 12). */
  | { readonly mode: "interval"; readonly blockTimeSeconds: number }
  /** One block per transaction. */
  | { readonly mode: "auto" }
  /** Only on `mine()` (tests). */
  | { readonly mode: "manual" };

export interface AnvilOptions {
  /** Port on 127.0.0.1; 0 (the default) picks a free one. */
  readonly port?: number;
  readonly chainId?: number;
  readonly hardfork?: string;
  /** Genesis timestamp of a fresh chain (ignored when state is resumed: the genesis comes from the state file). */
  readonly genesisTimestamp?: bigint;
  /** Default: interval mining every 12 s. */
  readonly mining?: AnvilMining;
  /** "wall" (default): blocks carry wall-clock times from the first mined block on. See the module comment. */
  readonly clock?: "wall" | "genesis";
  /** Development accounts to fund (default 10), each with 10,000 ETH. */
  readonly accounts?: number;
  /** Directory for persistent state (`<dir>/state.json`); none: the chain lives in memory only. */
  readonly stateDir?: string;
  /**
   * Seconds between periodic state dumps when `stateDir` is set (default 12, one slot: a `kill -9` loses at most
   * about one L1 block, which followers see as a reorg). Each dump writes the whole state, blobs included.
   */
  readonly stateIntervalSeconds?: number;
  /** Slots per epoch: anvil's `finalized` block is two epochs behind `latest` (default 32). */
  readonly slotsInAnEpoch?: number;
  /** Every output line of anvil (default: dropped). */
  readonly onLine?: (line: string) => void;
  /** Time allowed from spawn to an answered eth_chainId (default 60 s: a loaded 2-core machine). */
  readonly readyTimeoutMs?: number;
}

/** A running anvil. */
export interface Anvil {
  /** `http://127.0.0.1:<port>`: JSON-RPC, and the beacon API under `/eth/v1/beacon/…`. */
  readonly rpcUrl: string;
  readonly beaconUrl: string;
  readonly port: number;
  readonly chainId: number;
  readonly chain: Chain;
  readonly process: ChildProcess;
  /** True when the chain was loaded from `stateDir` (a restart), false for a fresh genesis. */
  readonly resumed: boolean;
  /** A viem client on the L1 (polling every 50 ms). */
  readonly client: PublicClient<Transport, Chain>;
  /** One JSON-RPC call (anvil_*, evm_* and the rest). */
  request<T = unknown>(method: string, params?: readonly unknown[]): Promise<T>;
  /** Mines one block now; with `timestamp`, the block carries it (it must be after the parent's). */
  mine(timestamp?: bigint): Promise<void>;
  /** Switches the mining mode. */
  setMining(mining: AnvilMining): Promise<void>;
  /** Moves anvil's clock to max(wall clock, latest block + 1 s); later blocks follow the wall clock. */
  syncClock(): Promise<void>;
  /** Resolves when the process has exited. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGTERM (anvil writes its state file), then SIGKILL after `graceMs`; resolves once it has exited. */
  stop(graceMs?: number): Promise<void>;
  /** SIGKILL: a crash (the state file keeps what the last periodic dump wrote). */
  kill(): Promise<void>;
}

/** Path of the anvil binary of this platform, from its npm package (`@foundry-rs/anvil-<os>-<arch>`). */
export function anvilBinaryPath(): string {
  const arch = ({ x64: "amd64", arm64: "arm64" } as Record<string, string | undefined>)[process.arch];
  const os = process.platform;
  const name = os === "win32" ? "anvil.exe" : "anvil";
  if (arch === undefined || !["linux", "darwin", "win32"].includes(os)) {
    throw new ChildExitedError(`anvil has no binary for ${os}/${process.arch}`, "child-failed", {
      name: "anvil",
      platform: os,
      arch: process.arch,
    });
  }
  const require = createRequire(import.meta.url);
  try {
    return require.resolve(`@foundry-rs/anvil-${os}-${arch}/bin/${name}`);
  } catch (e) {
    throw new ChildExitedError(
      `the anvil binary package @foundry-rs/anvil-${os}-${arch} is not installed (run npm ci)`,
      "child-failed",
      { name: "anvil", package: `@foundry-rs/anvil-${os}-${arch}` },
      { cause: e },
    );
  }
}

/** The command-line arguments for `options` (`fresh`: no state file to resume). */
export function anvilArguments(options: AnvilOptions, fresh: boolean): string[] {
  const args = [
    "--host",
    "127.0.0.1",
    "--port",
    String(options.port ?? 0),
    "--chain-id",
    String(options.chainId ?? DEVNET_L1_CHAIN_ID),
    "--hardfork",
    options.hardfork ?? DEVNET_L1_HARDFORK,
    "--mnemonic",
    DEVNET_L1_MNEMONIC,
    "--accounts",
    String(options.accounts ?? 10),
    "--balance",
    "10000",
    "--slots-in-an-epoch",
    String(options.slotsInAnEpoch ?? 32),
    // Mining starts once the clock is set (see startAnvil).
    "--no-mining",
    "--color",
    "never",
  ];
  if (fresh) args.push("--timestamp", String(options.genesisTimestamp ?? DEVNET_L1_GENESIS_TIME));
  if (options.stateDir !== undefined) {
    args.push(
      "--state",
      options.stateDir,
      "--state-interval",
      String(options.stateIntervalSeconds ?? DEVNET_L1_BLOCK_TIME),
    );
  }
  return args;
}

function devnetL1Chain(chainId: number, rpcUrl: string): Chain {
  return defineChain({
    id: chainId,
    name: "devnet L1",
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
}

/**
 * The anvils this process started and that still run: sent SIGTERM (anvil then writes its state and exits) when
 * this process exits normally, so that a test runner or devnet that ends without stopping them leaves no L1
 * running (anvil is a separate binary: it does not die with its parent). Best effort: a parent killed by a signal
 * emits no "exit" event.
 */
const live = new Set<ChildProcess>();
process.once("exit", () => {
  for (const child of live) child.kill("SIGTERM");
});

const LISTENING = /Listening on 127\.0\.0\.1:(\d+)/;

/**
 * Makes `<stateDir>/state.json` one anvil can load, before anvil reads it: a whole file is kept as
 * `state.json.prev` (the state this start resumes); a torn one (a `kill -9` during anvil's periodic write) is moved
 * to `state.json.torn` and replaced by `state.json.prev`. Returns what it did; throws ChildExitedError when the file
 * is torn and no whole copy exists (starting fresh would be another chain).
 */
export function recoverStateFile(stateDir: string): "none" | "kept" | "recovered" {
  const file = join(stateDir, ANVIL_STATE_FILE);
  if (!existsSync(file)) return "none";
  const prev = `${file}.prev`;
  if (holdsWholeJsonDocument(file)) {
    copyFileSync(file, prev);
    return "kept";
  }
  if (!existsSync(prev) || !holdsWholeJsonDocument(prev))
    throw new ChildExitedError(
      `anvil's state file ${file} is torn (not whole JSON) and there is no whole copy (${prev}) to resume from`,
      "child-failed",
      { name: "anvil", stateFile: file },
    );
  renameSync(file, `${file}.torn`);
  copyFileSync(prev, file);
  return "recovered";
}

/** Starts anvil and resolves once it answers `eth_chainId` and its mining mode is set. */
export async function startAnvil(options: AnvilOptions = {}): Promise<Anvil> {
  const chainId = options.chainId ?? DEVNET_L1_CHAIN_ID;
  let fresh = true;
  if (options.stateDir !== undefined) {
    mkdirSync(options.stateDir, { recursive: true });
    const state = recoverStateFile(options.stateDir);
    if (state === "recovered")
      options.onLine?.(
        `state file torn (kill -9 during a write): set aside as ${ANVIL_STATE_FILE}.torn, resuming from ${ANVIL_STATE_FILE}.prev`,
      );
    fresh = state === "none";
  }
  const timeoutMs = options.readyTimeoutMs ?? 60_000;
  const child = spawn(anvilBinaryPath(), anvilArguments(options, fresh), {
    stdio: ["ignore", "pipe", "pipe"],
  });
  live.add(child);
  child.once("close", () => live.delete(child));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("close", (code, signal) => resolve({ code, signal })),
  );
  const tail: string[] = [];
  let onPort: ((port: number) => void) | undefined;
  const portSeen = new Promise<number>((resolve) => (onPort = resolve));
  for (const stream of [child.stdout, child.stderr]) {
    createInterface({ input: stream }).on("line", (line) => {
      options.onLine?.(line);
      tail.push(line);
      if (tail.length > 20) tail.shift();
      const match = LISTENING.exec(line);
      if (match !== null) onPort?.(Number(match[1]));
    });
  }
  const spawnFailed = new Promise<never>((_, reject) =>
    child.once("error", (e) =>
      reject(
        new ChildExitedError(
          `anvil failed to start: ${e.message}`,
          "child-exited",
          { name: "anvil" },
          { cause: e },
        ),
      ),
    ),
  );
  const exitedEarly: Promise<never> = exited.then(({ code, signal }) => {
    throw new ChildExitedError(
      `anvil exited before it was ready (code ${code}, signal ${signal}): ${tail.slice(-3).join(" | ")}`,
      "child-exited",
      {
        name: "anvil",
        code,
        signal,
        output: tail.join("\n"),
      },
    );
  });
  // Observed by the race below; after a successful start the eventual exit is not an error.
  exitedEarly.catch(() => undefined);
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new ChildExitedError(
            `anvil did not answer eth_chainId within ${timeoutMs} ms`,
            "child-ready-timeout",
            {
              name: "anvil",
              timeoutMs,
              output: tail.join("\n"),
            },
          ),
        ),
      timeoutMs,
    );
  });
  const stop = async (graceMs = 10_000): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill("SIGTERM");
    const grace = setTimeout(() => child.kill("SIGKILL"), graceMs);
    await exited;
    clearTimeout(grace);
  };
  try {
    const ready = (async () => {
      const port = await portSeen;
      const rpcUrl = `http://127.0.0.1:${port}`;
      await waitForChainId(rpcUrl, chainId, () => child.exitCode !== null || child.signalCode !== null);
      return port;
    })();
    ready.catch(() => undefined); // a loser of the race below may still reject
    const port = await Promise.race([ready, exitedEarly, spawnFailed, timedOut]);
    const rpcUrl = `http://127.0.0.1:${port}`;
    const chain = devnetL1Chain(chainId, rpcUrl);
    // 60 s per request, not viem's 10 s: anvil checks blob proofs and writes state dumps inline, slow on a loaded machine.
    const client = createPublicClient({
      chain,
      transport: http(rpcUrl, { timeout: 60_000 }),
      pollingInterval: 50,
    });
    const request = <T>(method: string, params: readonly unknown[] = []): Promise<T> =>
      client.request({ method, params } as never) as Promise<T>;
    const anvil: Anvil = {
      rpcUrl,
      beaconUrl: rpcUrl,
      port,
      chainId,
      chain,
      process: child,
      resumed: !fresh,
      client,
      request,
      async mine(timestamp?: bigint): Promise<void> {
        await request("evm_mine", timestamp === undefined ? [] : [Number(timestamp)]);
      },
      async setMining(mining: AnvilMining): Promise<void> {
        await request("evm_setIntervalMining", [mining.mode === "interval" ? mining.blockTimeSeconds : 0]);
        await request("evm_setAutomine", [mining.mode === "auto"]);
      },
      async syncClock(): Promise<void> {
        const latest = await client.getBlock({ blockTag: "latest" });
        const now = BigInt(Math.floor(Date.now() / 1000));
        const target = now > latest.timestamp ? now : latest.timestamp + 1n;
        await request("anvil_setTime", [Number(target)]);
      },
      exited,
      stop,
      async kill(): Promise<void> {
        if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
        await exited;
      },
    };
    if ((options.clock ?? "wall") === "wall") await anvil.syncClock();
    await anvil.setMining(options.mining ?? { mode: "interval", blockTimeSeconds: DEVNET_L1_BLOCK_TIME });
    return anvil;
  } catch (e) {
    child.kill("SIGKILL");
    await exited;
    throw e;
  } finally {
    clearTimeout(timer);
  }
}

/** Polls eth_chainId until it answers `chainId` (anvil prints its address before it serves requests). */
async function waitForChainId(rpcUrl: string, chainId: number, gone: () => boolean): Promise<void> {
  for (;;) {
    if (gone())
      throw new ChildExitedError("anvil exited before it was ready", "child-exited", { name: "anvil" });
    try {
      const response = await fetch(rpcUrl, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_chainId", params: [] }),
      });
      const body = (await response.json()) as { result?: Hex };
      if (body.result !== undefined && Number(body.result) === chainId) return;
      throw new ChildExitedError(
        `anvil answers chain id ${body.result}, expected ${chainId}`,
        "child-failed",
        {
          name: "anvil",
          chainId: body.result,
          expected: chainId,
        },
      );
    } catch (e) {
      if (e instanceof ChildExitedError) throw e;
      // Not serving yet: ask again shortly.
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}
