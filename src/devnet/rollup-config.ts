/**
 * The rollup config of the L1-backed devnet chain (docs/decisions.md "The devnet's L2 genesis"), written ONCE to
 * `<data-dir>/rollup.json` in op-node's JSON format (what src/chain's parseRollupConfig reads) and read by every
 * component: the node (`--rollup-config`), the batcher, later the prover.
 *
 * First start: an L1 block is mined after the contracts' block and becomes the L2 genesis's L1 anchor
 * (`genesis.l1`); the L2 genesis time is that block's timestamp, so that the L2 starts now and derivation's
 * "timestamp = parent + block time" needs no catching up. The genesis system config is what the SystemConfig
 * contract holds at that block. The L2 genesis hash is computed with the dev chain's genesis builder (predeploys and
 * development accounts) from the config itself, never hard-coded. Later starts read the file back and check it
 * against the L1 (the genesis L1 block is still there, same contracts and chain ids) and the code (the genesis hash
 * recomputes); any difference is a DevnetRollupConfigError naming the field.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { type Address, type Hash, hexToBytes } from "viem";
import { systemConfigAbi } from "../../contracts/index.js";
import {
  DEV_CHAIN_ID,
  DEV_DEFAULT_ACCOUNT_COUNT,
  type GenesisSystemConfig,
  OpFork,
  type RollupConfig,
  type RollupConfigJson,
  bigIntToWord,
  buildRollupGenesis,
  forksActiveFrom,
  parseRollupConfig,
  rollupConfigToJson,
  toHex,
} from "../chain/index.js";
import { DevnetRollupConfigError } from "./errors.js";
import type { DevnetL1 } from "./l1/bootstrap.js";

/** File name of the rollup config in the devnet's data directory. */
export const ROLLUP_CONFIG_FILE = "rollup.json";
/** L2 block time of the devnet (seconds). */
export const DEVNET_L2_BLOCK_TIME = 2;
/** Sequencing window (L1 blocks), op-node's usual 3600. */
export const DEVNET_SEQ_WINDOW_SIZE = 3600;
/** Max sequencer drift (seconds): Fjord's constant, also written for tools that read the field. */
export const DEVNET_MAX_SEQUENCER_DRIFT = 1800;
/** Channel timeout (L1 blocks) from Granite on. */
export const DEVNET_CHANNEL_TIMEOUT = 50;

export interface DevnetRollupOptions {
  /** Directory the file is written to (`<dir>/rollup.json`). */
  readonly dataDir: string;
  /** L2 chain id (default 901). */
  readonly l2ChainId?: bigint;
  /** L2 block time in seconds (default 2; tests use 1). A later start that names another one is refused. */
  readonly blockTime?: number;
  /** Prefunded development accounts in the L2 genesis (default 10, as the node's `--dev-accounts`). */
  readonly devAccountCount?: number;
  readonly seqWindowSize?: number;
  readonly channelTimeout?: number;
  /**
   * Schedules one upgrade of the ladder after the L2 genesis, this many L2 blocks in (a first start only; default
   * none: every fork at genesis). The schedule-id devnet sets it, so the schedule id ProtocolVersions pins changes
   * while the chain runs (`SCHEDULED_UPGRADE`).
   */
  readonly upgradeAfterBlocks?: number;
}

/**
 * The upgrade a schedule-id devnet activates after its genesis: the Pectra blob schedule fix
 * (`pectra_blob_schedule_time`, ladder position 7). It changes only which blob base fee update fraction the L1 info
 * deposit uses for L1 blocks past Prague, and the node's sequencer and derivation (the enclave's too) read it from the
 * same rollup.json, so the chain is built and proven alike on both sides of it; on the devnet's L1 the blob base fee
 * stays 1 (no excess blob gas), so its blocks do not change, while ProtocolVersions' schedule gains a link.
 */
export const SCHEDULED_UPGRADE = "pectra_blob_schedule";

/** L2 blocks after genesis at which a schedule-id devnet's scheduled upgrade activates (npm start). */
export const DEVNET_UPGRADE_AFTER_BLOCKS = 6;

/** The devnet's rollup config, from the file. */
export interface DevnetRollup {
  /** Absolute path of rollup.json: what `--rollup-config` takes. */
  readonly path: string;
  /** The file's content (op-node's rollup.json object). */
  readonly json: RollupConfigJson;
  /** The file parsed by src/chain (what the node and the batcher see); `genesis` is always set. */
  readonly config: RollupConfig & { genesis: NonNullable<RollupConfig["genesis"]> };
  /** True on the start that wrote it. */
  readonly created: boolean;
}

/** The genesis system config the SystemConfig contract holds at `blockNumber`. */
async function systemConfigAt(l1: DevnetL1, blockNumber: bigint): Promise<GenesisSystemConfig> {
  const read = <T>(functionName: string): Promise<T> =>
    l1.anvil.client.readContract({
      address: l1.deployment.systemConfig,
      abi: systemConfigAbi,
      functionName,
      blockNumber,
    } as never) as Promise<T>;
  const [
    batcher,
    overhead,
    scalar,
    gasLimit,
    denominator,
    elasticity,
    operatorFeeScalar,
    operatorFeeConstant,
    minBaseFee,
    daFootprint,
  ] = await Promise.all([
    read<Address>("batcher"),
    read<bigint>("overhead"),
    read<bigint>("scalar"),
    read<bigint>("gasLimit"),
    read<number>("eip1559Denominator"),
    read<number>("eip1559Elasticity"),
    read<number>("operatorFeeScalar"),
    read<bigint>("operatorFeeConstant"),
    read<bigint>("minBaseFee"),
    read<number>("daFootprintGasScalar"),
  ]);
  return {
    batcherAddress: hexToBytes(batcher),
    overhead: bigIntToWord(overhead),
    scalar: bigIntToWord(scalar),
    gasLimit,
    eip1559Denominator: BigInt(denominator),
    eip1559Elasticity: BigInt(elasticity),
    operatorFeeScalar: BigInt(operatorFeeScalar),
    operatorFeeConstant,
    minBaseFee,
    daFootprintGasScalar: BigInt(daFootprint),
  };
}

/** The L2 genesis hash of `config` (its genesis.l2.hash ignored): the dev chain's genesis at the config's time. */
export async function computeL2GenesisHash(config: RollupConfig, devAccountCount: number): Promise<Hash> {
  // The node builds and checks its genesis with the same function (src/chain buildRollupGenesis, H1).
  const genesis = await buildRollupGenesis(config, devAccountCount);
  return toHex(genesis.hash);
}

/**
 * Writes `<dataDir>/rollup.json` for the devnet L1 `l1` on the first start (mining the genesis L1 block) and reads
 * it back on later ones, checking it against the L1 and the code. Throws DevnetRollupConfigError when the file
 * cannot be used.
 */
export async function ensureDevnetRollupConfig(
  l1: DevnetL1,
  options: DevnetRollupOptions,
): Promise<DevnetRollup> {
  const path = join(options.dataDir, ROLLUP_CONFIG_FILE);
  const devAccountCount = options.devAccountCount ?? DEV_DEFAULT_ACCOUNT_COUNT;
  if (existsSync(path)) {
    const { json, config } = readRollupConfigFile(path);
    await checkRollupConfig(path, config, l1, options, devAccountCount);
    return { path, json, config, created: false };
  }
  const config = await newRollupConfig(l1, options, devAccountCount);
  const json = rollupConfigToJson(config);
  mkdirSync(dirname(path), { recursive: true });
  // Written whole or not at all: a crash mid-write leaves no half file to refuse later.
  const partial = `${path}.partial`;
  writeFileSync(partial, `${JSON.stringify(json, null, 2)}\n`);
  renameSync(partial, path);
  return { path, json, config, created: true };
}

async function newRollupConfig(
  l1: DevnetL1,
  options: DevnetRollupOptions,
  devAccountCount: number,
): Promise<DevnetRollup["config"]> {
  // The L2 genesis's L1 anchor: a block mined now, after the contracts' block (anvil's clock is the wall clock).
  await l1.anvil.mine();
  const anchor = await l1.anvil.client.getBlock({ blockTag: "latest" });
  if (anchor.number <= l1.deployBlock.number) {
    throw new DevnetRollupConfigError(
      `the L1 head ${anchor.number} is not after the contracts' block ${l1.deployBlock.number}`,
      "rollup-config-mismatch",
      { path: join(options.dataDir, ROLLUP_CONFIG_FILE), field: "genesis.l1.number" },
    );
  }
  return devnetRollupConfigAt(l1, anchor, { ...options, devAccountCount });
}

/**
 * The devnet's rollup config with its L2 genesis anchored at L1 block `anchor` (genesis time = its timestamp, the
 * system config SystemConfig holds there, the L2 genesis hash computed). `ensureDevnetRollupConfig` anchors at a
 * block it mines; tests that need another anchor (e.g. a genesis in the past) call this directly.
 */
export async function devnetRollupConfigAt(
  l1: DevnetL1,
  anchor: { readonly number: bigint; readonly hash: Hash; readonly timestamp: bigint },
  options: Omit<DevnetRollupOptions, "dataDir"> = {},
): Promise<DevnetRollup["config"]> {
  const config: DevnetRollup["config"] = {
    l2ChainId: options.l2ChainId ?? DEV_CHAIN_ID,
    blockTime: BigInt(options.blockTime ?? DEVNET_L2_BLOCK_TIME),
    genesisL2Time: anchor.timestamp,
    forkTimes: forksActiveFrom(OpFork.Jovian),
    ...(options.upgradeAfterBlocks === undefined
      ? {}
      : {
          pectraBlobScheduleTime:
            anchor.timestamp +
            BigInt(options.upgradeAfterBlocks) * BigInt(options.blockTime ?? DEVNET_L2_BLOCK_TIME),
        }),
    eip1559Elasticity: 6n,
    eip1559Denominator: 50n,
    eip1559DenominatorCanyon: 250n,
    depositContractAddress: hexToBytes(l1.deployment.depositPortal),
    l1SystemConfigAddress: hexToBytes(l1.deployment.systemConfig),
    l1ChainId: BigInt(l1.anvil.chainId),
    batchInboxAddress: hexToBytes(l1.deployment.batchInbox),
    seqWindowSize: BigInt(options.seqWindowSize ?? DEVNET_SEQ_WINDOW_SIZE),
    maxSequencerDrift: BigInt(DEVNET_MAX_SEQUENCER_DRIFT),
    channelTimeout: BigInt(options.channelTimeout ?? DEVNET_CHANNEL_TIMEOUT),
    genesis: {
      l1: { hash: hexToBytes(anchor.hash), number: anchor.number },
      l2: { hash: new Uint8Array(32), number: 0n },
      l2Time: anchor.timestamp,
      systemConfig: await systemConfigAt(l1, anchor.number),
    },
  };
  const genesisHash = await computeL2GenesisHash(
    config,
    options.devAccountCount ?? DEV_DEFAULT_ACCOUNT_COUNT,
  );
  config.genesis.l2.hash = hexToBytes(genesisHash);
  return config;
}

/** Reads and parses a rollup.json with genesis anchors (DevnetRollupConfigError "rollup-config-invalid" otherwise). */
export function readRollupConfigFile(path: string): Pick<DevnetRollup, "json" | "config"> {
  let json: RollupConfigJson;
  let config: RollupConfig;
  try {
    json = JSON.parse(readFileSync(path, "utf8")) as RollupConfigJson;
    config = parseRollupConfig(json);
  } catch (e) {
    throw new DevnetRollupConfigError(
      `${path} is not a readable rollup config: ${e instanceof Error ? e.message : String(e)}`,
      "rollup-config-invalid",
      { path },
      { cause: e },
    );
  }
  const { genesis } = config;
  if (genesis === undefined) {
    throw new DevnetRollupConfigError(`${path} has no genesis anchors`, "rollup-config-invalid", {
      path,
      field: "genesis",
    });
  }
  return { json, config: { ...config, genesis } };
}

async function checkRollupConfig(
  path: string,
  config: DevnetRollup["config"],
  l1: DevnetL1,
  options: DevnetRollupOptions,
  devAccountCount: number,
): Promise<void> {
  const advice = `remove the data directory ${options.dataDir} to start afresh`;
  const mismatch = (field: string, expected: unknown, found: unknown): DevnetRollupConfigError =>
    new DevnetRollupConfigError(
      `${path}: ${field} is ${String(found)}, expected ${String(expected)}; it belongs to another devnet: ${advice}`,
      "rollup-config-mismatch",
      { path, field, expected: String(expected), found: String(found) },
    );
  const hex = (bytes: Uint8Array | undefined): string => (bytes === undefined ? "none" : toHex(bytes));
  const expectations: [string, string, string][] = [
    ["l1_chain_id", String(l1.anvil.chainId), String(config.l1ChainId)],
    ["l2_chain_id", String(options.l2ChainId ?? DEV_CHAIN_ID), String(config.l2ChainId)],
    ["deposit_contract_address", l1.deployment.depositPortal, hex(config.depositContractAddress)],
    ["l1_system_config_address", l1.deployment.systemConfig, hex(config.l1SystemConfigAddress)],
    ["batch_inbox_address", l1.deployment.batchInbox, hex(config.batchInboxAddress)],
  ];
  if (options.blockTime !== undefined)
    expectations.push(["block_time", String(options.blockTime), String(config.blockTime)]);
  for (const [field, expected, found] of expectations) {
    if (expected.toLowerCase() !== found.toLowerCase()) throw mismatch(field, expected, found);
  }
  const { l1: anchor, l2 } = config.genesis;
  const block = await l1.anvil.client.getBlock({ blockNumber: anchor.number }).catch(() => undefined);
  if (block === undefined || block.hash !== toHex(anchor.hash)) {
    throw mismatch(
      `genesis.l1 (block ${anchor.number})`,
      toHex(anchor.hash),
      block === undefined ? "absent from the L1" : block.hash,
    );
  }
  const l2Hash = await computeL2GenesisHash(config, devAccountCount);
  if (l2Hash !== toHex(l2.hash)) {
    throw new DevnetRollupConfigError(
      `${path}: genesis.l2.hash is ${toHex(l2.hash)} but this code's L2 genesis for it is ${l2Hash} ` +
        `(the predeploys or the development accounts changed); ${advice}`,
      "rollup-config-mismatch",
      { path, field: "genesis.l2.hash", expected: l2Hash, found: toHex(l2.hash) },
    );
  }
}
