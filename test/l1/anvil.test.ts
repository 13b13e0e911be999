/**
 * The devnet L1 (src/devnet/l1/anvil.ts) on real anvil processes: readiness, the pinned chain, a reproducible
 * genesis, and persistent state across a graceful restart and a `kill -9`.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createWalletClient, http, parseEther } from "viem";
import { mnemonicToAccount } from "viem/accounts";
import { afterEach, describe, expect, it } from "vitest";
import {
  ANVIL_STATE_FILE,
  type Anvil,
  DEVNET_L1_CHAIN_ID,
  DEVNET_L1_GENESIS_TIME,
  DEVNET_L1_MNEMONIC,
  startAnvil,
} from "../../src/devnet/l1/anvil.js";
import { ChildExitedError } from "../../src/devnet/errors.js";

const running: Anvil[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((a) => a.stop()));
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function start(options: Parameters<typeof startAnvil>[0]): Promise<Anvil> {
  const anvil = await startAnvil(options);
  running.push(anvil);
  return anvil;
}

async function stop(anvil: Anvil, how: "stop" | "kill"): Promise<void> {
  await (how === "stop" ? anvil.stop() : anvil.kill());
  running.splice(running.indexOf(anvil), 1);
}

const account0 = mnemonicToAccount(DEVNET_L1_MNEMONIC, { addressIndex: 0 });
const account1 = mnemonicToAccount(DEVNET_L1_MNEMONIC, { addressIndex: 1 });

/** Sends 1 ETH from account 0 to account 1 and mines it; returns the transaction hash. */
async function transfer(anvil: Anvil): Promise<`0x${string}`> {
  const wallet = createWalletClient({
    account: account0,
    chain: anvil.chain,
    transport: http(anvil.rpcUrl, { timeout: 60_000 }),
  });
  const hash = await wallet.sendTransaction({ to: account1.address, value: parseEther("1") });
  await anvil.mine();
  const receipt = await anvil.client.waitForTransactionReceipt({ hash, pollingInterval: 50 });
  expect(receipt.status).toBe("success");
  return hash;
}

describe("anvil as the devnet L1", () => {
  it("starts on 127.0.0.1 with chain id 900, Prague and the funded development accounts", async () => {
    const anvil = await start({ mining: { mode: "manual" } });
    expect(anvil.rpcUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(anvil.resumed).toBe(false);
    expect(await anvil.client.getChainId()).toBe(DEVNET_L1_CHAIN_ID);
    expect(await anvil.client.getBalance({ address: account0.address })).toBe(parseEther("10000"));
    const genesis = await anvil.client.getBlock({ blockNumber: 0n });
    expect(genesis.timestamp).toBe(DEVNET_L1_GENESIS_TIME);
    // Prague headers carry the requests hash (EIP-7685) and Cancun's blob gas fields.
    const raw = await anvil.request<Record<string, unknown>>("eth_getBlockByNumber", ["0x0", false]);
    expect(raw.requestsHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(raw.excessBlobGas).toBe("0x0");
    // The beacon genesis route answers on the JSON-RPC port with the L1 genesis time.
    const beacon = (await (await fetch(`${anvil.beaconUrl}/eth/v1/beacon/genesis`)).json()) as {
      data: { genesis_time: string };
    };
    expect(beacon.data.genesis_time).toBe(String(DEVNET_L1_GENESIS_TIME));
    // Wall clock (the default): the first block after genesis carries the time it is mined at.
    const before = BigInt(Math.floor(Date.now() / 1000));
    await anvil.mine();
    const first = await anvil.client.getBlock({ blockNumber: 1n });
    expect(first.timestamp).toBeGreaterThanOrEqual(before);
    expect(first.parentHash).toBe(genesis.hash);
  });

  it("has the same genesis hash on every start with the same flags, another with another genesis time", async () => {
    const first = await start({ mining: { mode: "manual" } });
    const hashA = (await first.client.getBlock({ blockNumber: 0n })).hash;
    await stop(first, "stop");
    const second = await start({ mining: { mode: "manual" } });
    expect((await second.client.getBlock({ blockNumber: 0n })).hash).toBe(hashA);
    await stop(second, "stop");
    const other = await start({ mining: { mode: "manual" }, genesisTimestamp: DEVNET_L1_GENESIS_TIME + 1n });
    expect((await other.client.getBlock({ blockNumber: 0n })).hash).not.toBe(hashA);
  });

  it("interval mining produces blocks by itself, one per block time, with increasing timestamps", async () => {
    const anvil = await start({ mining: { mode: "interval", blockTimeSeconds: 1 } });
    const blocks = await new Promise<bigint[]>((resolve) => {
      const seen: bigint[] = [];
      const unwatch = anvil.client.watchBlockNumber({
        pollingInterval: 100,
        onBlockNumber: (n) => {
          seen.push(n);
          if (seen.length === 3) {
            unwatch();
            resolve(seen);
          }
        },
      });
    });
    expect(blocks[2]! > blocks[0]!).toBe(true);
    const a = await anvil.client.getBlock({ blockNumber: blocks[1]! });
    const b = await anvil.client.getBlock({ blockNumber: blocks[2]! });
    expect(b.timestamp > a.timestamp).toBe(true);
  });

  it("resumes the same chain from its state directory after a graceful stop and after kill -9", async () => {
    const stateDir = mkdtempSync(join(tmpdir(), "anvil-state-"));
    dirs.push(stateDir);
    // No periodic dump during this run: what the restart finds was written on SIGTERM.
    const first = await start({ mining: { mode: "manual" }, stateDir, stateIntervalSeconds: 3600 });
    expect(first.resumed).toBe(false);
    const txHash = await transfer(first);
    const head = await first.client.getBlock({ blockTag: "latest" });
    const genesisHash = (await first.client.getBlock({ blockNumber: 0n })).hash;
    await stop(first, "stop");

    const second = await start({ mining: { mode: "manual" }, stateDir, stateIntervalSeconds: 1 });
    expect(second.resumed).toBe(true);
    expect((await second.client.getBlock({ blockNumber: 0n })).hash).toBe(genesisHash);
    expect((await second.client.getBlock({ blockTag: "latest" })).hash).toBe(head.hash);
    const receipt = await second.client.getTransactionReceipt({ hash: txHash });
    expect(receipt.blockHash).toBe(head.hash);
    expect(await second.client.getBalance({ address: account1.address })).toBe(parseEther("10001"));
    // The chain goes on from the loaded head, timestamps increasing.
    await second.mine();
    const next = await second.client.getBlock({ blockTag: "latest" });
    expect(next.number).toBe(head.number + 1n);
    expect(next.parentHash).toBe(head.hash);
    expect(next.timestamp > head.timestamp).toBe(true);

    // A crash keeps what the periodic dump wrote: wait until the state file holds the new block, then kill -9.
    await transfer(second);
    const crashedHead = await second.client.getBlock({ blockTag: "latest" });
    await waitForStateFile(stateDir, crashedHead.number, 30_000);
    await stop(second, "kill");
    const third = await start({ mining: { mode: "manual" }, stateDir });
    expect(third.resumed).toBe(true);
    expect((await third.client.getBlock({ blockTag: "latest" })).hash).toBe(crashedHead.hash);
    expect(await third.client.getBalance({ address: account1.address })).toBe(parseEther("10002"));
  });

  it("resumes from the copy its last start kept when a kill -9 tore the state file during a write", async () => {
    const stateDir = mkdtempSync(join(tmpdir(), "anvil-torn-"));
    dirs.push(stateDir);
    const file = join(stateDir, ANVIL_STATE_FILE);
    const first = await start({ mining: { mode: "manual" }, stateDir, stateIntervalSeconds: 3600 });
    await transfer(first);
    const head = await first.client.getBlock({ blockTag: "latest" });
    await stop(first, "stop");
    // This start finds a whole file and keeps a copy of it; its own (later) state is then torn mid-write.
    const second = await start({ mining: { mode: "manual" }, stateDir, stateIntervalSeconds: 3600 });
    expect(second.resumed).toBe(true);
    await transfer(second);
    await stop(second, "stop");
    const whole = readFileSync(file, "utf8");
    writeFileSync(file, whole.slice(0, Math.floor(whole.length / 2)));
    const lines: string[] = [];
    const third = await start({ mining: { mode: "manual" }, stateDir, onLine: (line) => lines.push(line) });
    expect(third.resumed).toBe(true);
    expect(lines.some((line) => line.startsWith("state file torn"))).toBe(true);
    expect(existsSync(`${file}.torn`)).toBe(true);
    // The chain as the second start found it: the first start's head, its balances.
    expect((await third.client.getBlock({ blockTag: "latest" })).hash).toBe(head.hash);
    expect(await third.client.getBalance({ address: account1.address })).toBe(parseEther("10001"));
    await stop(third, "stop");
    // Torn with no whole copy: a clear refusal, never a fresh chain under the old data directory.
    rmSync(`${file}.prev`);
    writeFileSync(file, "{");
    await expect(startAnvil({ mining: { mode: "manual" }, stateDir })).rejects.toBeInstanceOf(
      ChildExitedError,
    );
  });
});

/** Resolves once `<dir>/state.json` records block `number` as its head (anvil dumps it every state interval). */
async function waitForStateFile(dir: string, number: bigint, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const state = JSON.parse(readFileSync(join(dir, ANVIL_STATE_FILE), "utf8")) as {
        best_block_number?: number;
      };
      if (BigInt(state.best_block_number ?? -1) >= number) return;
    } catch {
      // Being written: read it again.
    }
    if (Date.now() > deadline)
      throw new Error(`the state file did not reach block ${number} in ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
