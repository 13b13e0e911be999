/**
 * The node's L1 mode configuration (docs/node/l1.md "L1 mode"): the flags and their environment twins, the rollup
 * config overriding chain id and block time (and refusing explicit flags that contradict it), and the checks
 * ChainNode.open makes against a real anvil: the rollup config's L2 genesis must be the one the node builds, a
 * data directory must hold that chain (and a standalone one is not reused), and the genesis L1 block must exist.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RollupConfig, buildRollupGenesis, rollupConfigToJson } from "../../src/chain/index.js";
import { type DevnetL1, startDevnetL1 } from "../../src/devnet/l1/bootstrap.js";
import { createLogger } from "../../src/log/index.js";
import {
  ChainNode,
  type ChainNodeOptions,
  ConfigError,
  GenesisMismatchError,
  L1OriginUnavailableError,
  type NodeConfig,
  StoreMismatchError,
  applyRollupConfig,
  loadRollupConfig,
  parseConfig,
} from "../../src/node/index.js";
import { testSystemConfig } from "../l1/support.js";
import { writeRollupConfig } from "./l1-chain.js";

function parsed(argv: string[], env: NodeJS.ProcessEnv = {}): NodeConfig {
  const c = parseConfig(argv, env);
  if (c === "help") throw new Error("help");
  return c;
}

describe("L1 mode flags", () => {
  it("need --l1-rpc and --rollup-config together, default the beacon URL to the L1 RPC, and have env twins", () => {
    expect(parsed([]).l1).toBeUndefined();
    expect(() => parsed(["--l1-rpc", "http://127.0.0.1:8546"])).toThrow(ConfigError);
    expect(() => parsed(["--rollup-config", "r.json"])).toThrow(ConfigError);
    expect(() => parsed(["--l1-beacon-url", "http://127.0.0.1:1"])).toThrow(ConfigError);
    expect(() => parsed(["--l1-rpc", "ftp://x", "--rollup-config", "r.json"])).toThrow(ConfigError);
    const c = parsed(["--l1-rpc", "http://127.0.0.1:8546", "--rollup-config", "/tmp/r.json"]);
    expect(c.l1).toEqual({
      rpcUrl: "http://127.0.0.1:8546",
      beaconUrl: "http://127.0.0.1:8546",
      rollupConfigPath: "/tmp/r.json",
      confirmations: 2,
      pollIntervalMs: 500,
    });
    const e = parsed([], {
      NODE_L1_RPC: "http://a:1",
      NODE_L1_BEACON_URL: "http://b:2",
      NODE_ROLLUP_CONFIG: "/tmp/x.json",
      NODE_L1_CONFIRMATIONS: "0",
      NODE_L1_POLL_INTERVAL_MS: "50",
    });
    expect(e.l1).toEqual({
      rpcUrl: "http://a:1",
      beaconUrl: "http://b:2",
      rollupConfigPath: "/tmp/x.json",
      confirmations: 0,
      pollIntervalMs: 50,
    });
    // The depth flags are gone: standalone safe = finalized = latest, L1 mode derives them.
    expect(() => parsed(["--safe-depth", "2"])).toThrow(ConfigError);
    expect(() => parsed(["--finalized-depth", "2"])).toThrow(ConfigError);
  });

  it("take chain id and block time from the rollup config and refuse explicit flags that contradict it", () => {
    const rollup = { l2ChainId: 901n, blockTime: 1n } as RollupConfig;
    const base = ["--l1-rpc", "http://127.0.0.1:8546", "--rollup-config", "/tmp/r.json"];
    const applied = applyRollupConfig(parsed(base), rollup);
    expect(applied.chainId).toBe(901n);
    expect(applied.blockTimeMs).toBe(1000);
    expect(() => applyRollupConfig(parsed([...base, "--chain-id", "7"]), rollup)).toThrow(ConfigError);
    expect(() => applyRollupConfig(parsed([...base, "--block-time-ms", "2000"]), rollup)).toThrow(
      ConfigError,
    );
    expect(
      applyRollupConfig(parsed([...base, "--chain-id", "901", "--block-time-ms", "1000"]), rollup).chainId,
    ).toBe(901n);
    expect(() => loadRollupConfig("/nonexistent/rollup.json")).toThrow(ConfigError);
  });
});

describe("ChainNode.open in L1 mode", () => {
  let l1: DevnetL1;
  let dir: string;
  let rollup: RollupConfig;
  const logger = createLogger({ name: "l1-config-test", level: "silent" });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "l1-config-"));
    l1 = await startDevnetL1({ systemConfig: testSystemConfig(), mining: { mode: "manual" } });
    rollup = await writeRollupConfig(l1, l1.deployBlock, join(dir, "rollup.json"), 1);
  }, 120_000);

  afterAll(async () => {
    await l1?.anvil.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const options = (dataDir: string, config: RollupConfig | undefined): ChainNodeOptions => ({
    dataDir,
    chainId: 901n,
    blockTimeMs: 1000,
    flashblockIntervalMs: 200,
    devAccountCount: 10,
    preconfirmedReceipts: true,
    callWorkers: 0,
    callTimeoutMs: 5000,
    logger,
    ...(config === undefined
      ? {}
      : {
          l1: {
            rollupConfig: config,
            l1RpcUrl: l1.anvil.rpcUrl,
            l1BeaconUrl: l1.anvil.rpcUrl,
            confirmations: 0,
            pollIntervalMs: 100,
          },
        }),
  });

  it("builds the rollup config's genesis, binds the data dir to it and refuses what does not match", async () => {
    const dataDir = join(dir, "node");
    const node = await ChainNode.open(options(dataDir, rollup));
    expect(node.mode.kind).toBe("l1-sequencer");
    expect(node.head.header.number).toBe(0n);
    expect(node.head.hash).toEqual(rollup.genesis!.l2.hash);
    expect(node.head.header.timestamp).toBe(rollup.genesisL2Time);
    expect(node.head.header.gasLimit).toBe(testSystemConfig().gasLimit);
    // Until derived heads are set, safe and finalized are the genesis.
    const safe = node.resolveTag("safe");
    expect(safe?.kind === "sealed" ? safe.block.header.number : -1n).toBe(0n);
    node.setDerivedHeads({ safe: () => 5n, finalized: () => 3n });
    const clamped = node.resolveTag("safe");
    expect(clamped?.kind === "sealed" ? clamped.block.header.number : -1n).toBe(0n); // clamped to the head
    await node.close();

    // The same dir: standalone refuses it; another rollup config (another genesis) too.
    await expect(ChainNode.open(options(dataDir, undefined))).rejects.toBeInstanceOf(StoreMismatchError);
    const later = {
      ...rollup,
      genesisL2Time: rollup.genesisL2Time + 1n,
      genesis: { ...rollup.genesis!, l2Time: rollup.genesisL2Time + 1n },
    };
    later.genesis.l2 = { number: 0n, hash: (await buildRollupGenesis(later, 10)).hash };
    await expect(ChainNode.open(options(dataDir, later))).rejects.toBeInstanceOf(StoreMismatchError);
    // Reopened with its own config, it resumes.
    const again = await ChainNode.open(options(dataDir, rollup));
    expect(again.head.hash).toEqual(rollup.genesis!.l2.hash);
    await again.close();
  }, 60_000);

  it("refuses a rollup config whose L2 genesis hash is not the one it builds, or whose L1 genesis is unknown", async () => {
    const wrongHash = {
      ...rollup,
      genesis: { ...rollup.genesis!, l2: { number: 0n, hash: new Uint8Array(32).fill(1) } },
    };
    const e = await ChainNode.open(options(join(dir, "wrong"), wrongHash)).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(GenesisMismatchError);
    expect((e as GenesisMismatchError).kind).toBe("genesis-mismatch");
    // Fewer dev accounts: another genesis state.
    const fewer = await ChainNode.open({ ...options(join(dir, "fewer"), rollup), devAccountCount: 3 }).catch(
      (x: unknown) => x,
    );
    expect(fewer).toBeInstanceOf(GenesisMismatchError);

    const unknownL1 = {
      ...rollup,
      genesis: { ...rollup.genesis!, l1: { number: 1n, hash: new Uint8Array(32).fill(7) } },
    };
    unknownL1.genesis.l2 = { number: 0n, hash: (await buildRollupGenesis(unknownL1, 10)).hash };
    await expect(ChainNode.open(options(join(dir, "unknown-l1"), unknownL1))).rejects.toBeInstanceOf(
      L1OriginUnavailableError,
    );
    // The file form goes through the same parser the node's --rollup-config uses.
    const file = join(dir, "wrong.json");
    writeFileSync(file, JSON.stringify(rollupConfigToJson(wrongHash)));
    expect(loadRollupConfig(file).genesis!.l2.hash).toEqual(new Uint8Array(32).fill(1));
  }, 60_000);
});
