/**
 * The devnet's rollup config (src/devnet/rollup-config.ts) over a real anvil: written once on the first start with
 * the genesis L1 block mined after the contracts, read back unchanged on later starts (the same L1 and a restarted
 * one), accepted by src/chain's parseRollupConfig, its L2 genesis hash recomputable with the dev chain's genesis
 * builder, and refused with a named mismatch when it does not fit the L1 or the code.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { l1ContractAddresses } from "../../contracts/index.js";
import {
  DEV_DEFAULT_ACCOUNT_COUNT,
  OpFork,
  type RollupConfigJson,
  buildGenesis,
  buildRollupGenesis,
  devAccounts,
  devRollupConfig,
  genesisAccounts,
  parseRollupConfig,
  toHex,
} from "../../src/chain/index.js";
import { DevnetRollupConfigError } from "../../src/devnet/errors.js";
import { type DevnetL1, startDevnetL1 } from "../../src/devnet/l1/bootstrap.js";
import {
  ROLLUP_CONFIG_FILE,
  devnetRollupConfigAt,
  ensureDevnetRollupConfig,
} from "../../src/devnet/rollup-config.js";
import { devAccount, testSystemConfig } from "../l1/support.js";

const root = mkdtempSync(join(tmpdir(), "devnet-rollup-"));
const running: DevnetL1[] = [];
afterAll(async () => {
  await Promise.all(running.map((l1) => l1.anvil.stop()));
  rmSync(root, { recursive: true, force: true });
});

async function startL1(stateDir?: string): Promise<DevnetL1> {
  const l1 = await startDevnetL1({
    systemConfig: testSystemConfig(),
    mining: { mode: "manual" },
    ...(stateDir === undefined ? {} : { stateDir }),
  });
  running.push(l1);
  return l1;
}

async function stop(l1: DevnetL1): Promise<void> {
  await l1.anvil.stop();
  running.splice(running.indexOf(l1), 1);
}

async function rejection(promise: Promise<unknown>): Promise<DevnetRollupConfigError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DevnetRollupConfigError);
  return error as DevnetRollupConfigError;
}

describe("the devnet's rollup.json", () => {
  it("is written once on the first start and read back unchanged on the same and a restarted L1", async () => {
    const dataDir = join(root, "once");
    const l1 = await startL1(join(dataDir, "l1"));
    const before = BigInt(Math.floor(Date.now() / 1000));
    const first = await ensureDevnetRollupConfig(l1, { dataDir });
    expect(first.created).toBe(true);
    expect(first.path).toBe(join(dataDir, ROLLUP_CONFIG_FILE));
    const onDisk = JSON.parse(readFileSync(first.path, "utf8")) as RollupConfigJson;
    expect(onDisk).toEqual(first.json);

    // The genesis L1 block is mined after the contracts' block, now; the L2 starts at its timestamp.
    const anchor = await l1.anvil.client.getBlock({ blockTag: "latest" });
    expect(anchor.number).toBeGreaterThan(l1.deployBlock.number);
    // What every component sees through src/chain.
    const config = parseRollupConfig(onDisk);
    expect(config).toEqual(first.config);
    expect(toHex(config.genesis!.l1.hash)).toBe(anchor.hash);
    expect(config.genesis!.l1.number).toBe(anchor.number);
    expect(config.genesis!.l2Time).toBe(anchor.timestamp);
    expect(anchor.timestamp).toBeGreaterThanOrEqual(before);
    const addresses = l1ContractAddresses(devAccount(0).address, 0);
    expect(config.l2ChainId).toBe(901n);
    expect(config.l1ChainId).toBe(900n);
    expect(config.blockTime).toBe(2n);
    expect(config.genesisL2Time).toBe(anchor.timestamp);
    expect(config.seqWindowSize).toBe(3600n);
    expect(config.maxSequencerDrift).toBe(1800n);
    expect(config.channelTimeout).toBe(50n);
    expect(toHex(config.batchInboxAddress!)).toBe("0xff00000000000000000000000000000000000901");
    expect(toHex(config.depositContractAddress!)).toBe(addresses.depositPortal.toLowerCase());
    expect(toHex(config.l1SystemConfigAddress!)).toBe(addresses.systemConfig.toLowerCase());
    for (let fork = OpFork.Bedrock as number; fork <= OpFork.Jovian; fork++) {
      expect(config.forkTimes[fork as OpFork]).toBe(0n);
    }
    expect(config.eip1559DenominatorCanyon).toBe(250n);

    // The genesis system config is the SystemConfig's initial values.
    const init = testSystemConfig();
    const sc = config.genesis!.systemConfig;
    expect(toHex(sc.batcherAddress)).toBe(init.batcher.toLowerCase());
    expect(sc.gasLimit).toBe(init.gasLimit);
    expect(sc.overhead).toEqual(new Uint8Array(32));
    const scalar = new DataView(sc.scalar.buffer, sc.scalar.byteOffset, 32);
    expect(sc.scalar[0]).toBe(1);
    expect(scalar.getUint32(24)).toBe(init.blobbasefeeScalar);
    expect(scalar.getUint32(28)).toBe(init.basefeeScalar);
    expect(sc.eip1559Denominator).toBe(BigInt(init.eip1559Denominator));
    expect(sc.eip1559Elasticity).toBe(BigInt(init.eip1559Elasticity));
    expect(sc.operatorFeeScalar).toBe(0n);
    expect(sc.minBaseFee).toBe(0n);

    // The L2 genesis hash recomputes with the dev chain's genesis builder over the config's genesis time.
    const genesis = await buildRollupGenesis(config, DEV_DEFAULT_ACCOUNT_COUNT);
    expect(toHex(genesis.hash)).toBe(toHex(config.genesis!.l2.hash));
    expect(genesis.header.timestamp).toBe(anchor.timestamp);
    // It is not the standalone dev chain's genesis (another time), so it cannot be a constant.
    const standalone = await buildGenesis(
      devRollupConfig(901n, 1_767_225_600n),
      genesisAccounts(devAccounts(DEV_DEFAULT_ACCOUNT_COUNT)),
    );
    expect(toHex(standalone.hash)).not.toBe(toHex(genesis.hash));

    // Again on the same L1: nothing is mined or written.
    const head = await l1.anvil.client.getBlockNumber();
    const again = await ensureDevnetRollupConfig(l1, { dataDir });
    expect(again.created).toBe(false);
    expect(again.json).toEqual(onDisk);
    expect(await l1.anvil.client.getBlockNumber()).toBe(head);

    // After an L1 restart on its state: the same file, accepted.
    await stop(l1);
    const resumed = await startL1(join(dataDir, "l1"));
    expect(resumed.anvil.resumed).toBe(true);
    const third = await ensureDevnetRollupConfig(resumed, { dataDir });
    expect(third.created).toBe(false);
    expect(third.json).toEqual(onDisk);
    expect(readFileSync(third.path, "utf8")).toBe(`${JSON.stringify(onDisk, null, 2)}\n`);
    await stop(resumed);
  }, 120_000);

  it("takes the block time and windows it is given on the first start", async () => {
    const dataDir = join(root, "fast");
    const l1 = await startL1();
    const rollup = await ensureDevnetRollupConfig(l1, {
      dataDir,
      blockTime: 1,
      channelTimeout: 10,
      seqWindowSize: 100,
    });
    expect(rollup.config.blockTime).toBe(1n);
    expect(rollup.config.channelTimeout).toBe(10n);
    expect(rollup.config.seqWindowSize).toBe(100n);
    // A later start asking for another block time is refused, naming the field.
    const error = await rejection(ensureDevnetRollupConfig(l1, { dataDir, blockTime: 2 }));
    expect(error.kind).toBe("rollup-config-mismatch");
    expect(error.details).toMatchObject({ field: "block_time", expected: "2", found: "1" });

    // Anchored at another L1 block (here the contracts' block, in the past), for tests that need it.
    const past = await devnetRollupConfigAt(l1, l1.deployBlock, { blockTime: 1 });
    expect(past.genesisL2Time).toBe(l1.deployBlock.timestamp);
    expect(toHex(past.genesis.l1.hash)).toBe(l1.deployBlock.hash);
    const pastGenesis = await buildRollupGenesis(past, DEV_DEFAULT_ACCOUNT_COUNT);
    expect(toHex(past.genesis.l2.hash)).toBe(toHex(pastGenesis.hash));
    expect(toHex(past.genesis.l2.hash)).not.toBe(toHex(rollup.config.genesis.l2.hash));
    await stop(l1);
  }, 120_000);

  it("is refused when the L1 lacks its genesis L1 block, when the L2 genesis does not recompute, or when unreadable", async () => {
    const dataDir = join(root, "refused");
    const l1 = await startL1();
    const rollup = await ensureDevnetRollupConfig(l1, { dataDir });
    const { genesis } = rollup.config;
    await stop(l1);

    // Another fresh L1 (no state): the anchor's number exists there but with another hash (another time).
    const other = await startL1();
    await other.anvil.mine(genesis.l2Time + 60n);
    const error = await rejection(ensureDevnetRollupConfig(other, { dataDir }));
    expect(error.kind).toBe("rollup-config-mismatch");
    expect(error.details.field).toBe(`genesis.l1 (block ${genesis.l1.number})`);
    expect(error.details.expected).toBe(toHex(genesis.l1.hash));

    // A file whose genesis L1 block is on this L1 but whose L2 hash is not this code's genesis.
    const anchor = await other.anvil.client.getBlock({ blockTag: "latest" });
    const tampered: RollupConfigJson = {
      ...rollup.json,
      genesis: {
        ...(rollup.json.genesis as RollupConfigJson),
        l1: { hash: anchor.hash, number: Number(anchor.number) },
        l2: { hash: `0x${"11".repeat(32)}`, number: 0 },
      },
    };
    writeFileSync(rollup.path, JSON.stringify(tampered));
    const hashError = await rejection(ensureDevnetRollupConfig(other, { dataDir }));
    expect(hashError.kind).toBe("rollup-config-mismatch");
    expect(hashError.details).toMatchObject({
      field: "genesis.l2.hash",
      expected: toHex(genesis.l2.hash),
    });

    // Another chain id in the file.
    writeFileSync(rollup.path, JSON.stringify({ ...tampered, l2_chain_id: 902 }));
    const idError = await rejection(ensureDevnetRollupConfig(other, { dataDir }));
    expect(idError.details).toMatchObject({ field: "l2_chain_id", expected: "901", found: "902" });

    writeFileSync(rollup.path, "{ not json");
    const invalid = await rejection(ensureDevnetRollupConfig(other, { dataDir }));
    expect(invalid.kind).toBe("rollup-config-invalid");
    expect(invalid.details.path).toBe(rollup.path);
    await stop(other);
  }, 120_000);
});
