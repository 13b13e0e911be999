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
import { type Address, type Hash, getAddress, pad, toHex as viemToHex } from "viem";
import { systemConfigAbi } from "../../contracts/index.js";
import {
  DEV_CHAIN_ID,
  DEV_DEFAULT_ACCOUNT_COUNT,
  type RollupConfig,
  buildGenesis,
  devAccounts,
  genesisAccounts,
  parseRollupConfig,
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
/** Pre-Granite channel timeout op-node's format carries next to the Granite one. */
const PRE_GRANITE_CHANNEL_TIMEOUT = 300;
/** OP's EIP-1559 defaults (the chain_op_config block). */
const CHAIN_OP_CONFIG = { eip1559Elasticity: 6, eip1559Denominator: 50, eip1559DenominatorCanyon: 250 };

export interface DevnetRollupOptions {
  /** Directory the file is written to (`<dir>/rollup.json`). */
  readonly dataDir: string;
  /** L2 chain id (default 901). */
  readonly l2ChainId?: bigint;
  /** L2 block time in seconds (default 2; tests use 1). */
  readonly blockTime?: number;
  /** Prefunded development accounts in the L2 genesis (default 10, as the node's `--dev-accounts`). */
  readonly devAccountCount?: number;
  readonly seqWindowSize?: number;
  readonly channelTimeout?: number;
}

/** The genesis system config as the file states it (kona's field names, which src/chain reads, plus op-node's). */
export interface RollupSystemConfigJson {
  batcherAddr: Address;
  overhead: Hash;
  scalar: Hash;
  gasLimit: number;
  eip1559Denominator: number;
  eip1559Elasticity: number;
  /** op-node's encoding of the two values above: denominator ‖ elasticity, 4 bytes each. */
  eip1559Params: `0x${string}`;
  operatorFeeScalar: number;
  operatorFeeConstant: number;
  /** op-node's encoding: scalar in bytes 20-23, constant in bytes 24-31. */
  operatorFeeParams: Hash;
  minBaseFee: number;
  daFootprintGasScalar: number;
}

/** op-node's rollup.json, as the devnet writes it. */
export interface RollupConfigJson {
  genesis: {
    l1: { hash: Hash; number: number };
    l2: { hash: Hash; number: number };
    l2_time: number;
    system_config: RollupSystemConfigJson;
  };
  block_time: number;
  max_sequencer_drift: number;
  seq_window_size: number;
  channel_timeout: number;
  granite_channel_timeout: number;
  l1_chain_id: number;
  l2_chain_id: number;
  batch_inbox_address: Address;
  deposit_contract_address: Address;
  l1_system_config_address: Address;
  chain_op_config: typeof CHAIN_OP_CONFIG;
  [forkTime: string]: unknown;
}

/** The devnet's rollup config, from the file. */
export interface DevnetRollup {
  /** Absolute path of rollup.json: what `--rollup-config` takes. */
  readonly path: string;
  /** The file's content. */
  readonly json: RollupConfigJson;
  /** The file parsed by src/chain (what the node and the batcher see). */
  readonly config: RollupConfig;
  /** True on the start that wrote it. */
  readonly created: boolean;
}

/** The genesis system config the SystemConfig contract holds at `blockNumber`. */
async function systemConfigAt(l1: DevnetL1, blockNumber: bigint): Promise<RollupSystemConfigJson> {
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
  const eip1559Params = new Uint8Array(8);
  new DataView(eip1559Params.buffer).setUint32(0, denominator);
  new DataView(eip1559Params.buffer).setUint32(4, elasticity);
  const operatorFeeParams = new Uint8Array(32);
  new DataView(operatorFeeParams.buffer).setUint32(20, operatorFeeScalar);
  new DataView(operatorFeeParams.buffer).setBigUint64(24, operatorFeeConstant);
  return {
    batcherAddr: getAddress(batcher),
    overhead: pad(viemToHex(overhead), { size: 32 }),
    scalar: pad(viemToHex(scalar), { size: 32 }),
    gasLimit: Number(gasLimit),
    eip1559Denominator: denominator,
    eip1559Elasticity: elasticity,
    eip1559Params: toHex(eip1559Params),
    operatorFeeScalar,
    operatorFeeConstant: Number(operatorFeeConstant),
    operatorFeeParams: toHex(operatorFeeParams),
    minBaseFee: Number(minBaseFee),
    daFootprintGasScalar: daFootprint,
  };
}

/** The L2 genesis hash of `json` (its l2.hash ignored): the dev chain's genesis over the config's time and id. */
export async function computeL2GenesisHash(json: RollupConfigJson, devAccountCount: number): Promise<Hash> {
  const config = parseRollupConfig(json);
  const genesis = await buildGenesis(config, genesisAccounts(devAccounts(devAccountCount)));
  return toHex(genesis.hash);
}

/** Every fork field of op-node's format, up to and including Jovian, active from time 0 (genesis). */
function forkTimes(): Record<string, number> {
  const forks = [
    "regolith",
    "canyon",
    "delta",
    "ecotone",
    "fjord",
    "granite",
    "holocene",
    "isthmus",
    "jovian",
  ];
  return Object.fromEntries(forks.map((fork) => [`${fork}_time`, 0]));
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
    const json = readRollupConfigFile(path);
    await checkRollupConfig(path, json, l1, options, devAccountCount);
    return { path, json, config: parseRollupConfig(json), created: false };
  }
  const json = await newRollupConfig(l1, options, devAccountCount);
  mkdirSync(dirname(path), { recursive: true });
  // Written whole or not at all: a crash mid-write leaves no half file to refuse later.
  const partial = `${path}.partial`;
  writeFileSync(partial, `${JSON.stringify(json, null, 2)}\n`);
  renameSync(partial, path);
  return { path, json, config: parseRollupConfig(json), created: true };
}

async function newRollupConfig(
  l1: DevnetL1,
  options: DevnetRollupOptions,
  devAccountCount: number,
): Promise<RollupConfigJson> {
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
  const systemConfig = await systemConfigAt(l1, anchor.number);
  const json: RollupConfigJson = {
    genesis: {
      l1: { hash: anchor.hash, number: Number(anchor.number) },
      l2: { hash: `0x${"00".repeat(32)}`, number: 0 },
      l2_time: Number(anchor.timestamp),
      system_config: systemConfig,
    },
    block_time: options.blockTime ?? DEVNET_L2_BLOCK_TIME,
    max_sequencer_drift: DEVNET_MAX_SEQUENCER_DRIFT,
    seq_window_size: options.seqWindowSize ?? DEVNET_SEQ_WINDOW_SIZE,
    channel_timeout: PRE_GRANITE_CHANNEL_TIMEOUT,
    granite_channel_timeout: options.channelTimeout ?? DEVNET_CHANNEL_TIMEOUT,
    l1_chain_id: l1.anvil.chainId,
    l2_chain_id: Number(options.l2ChainId ?? DEV_CHAIN_ID),
    ...forkTimes(),
    batch_inbox_address: getAddress(l1.deployment.batchInbox),
    deposit_contract_address: getAddress(l1.deployment.depositPortal),
    l1_system_config_address: getAddress(l1.deployment.systemConfig),
    chain_op_config: { ...CHAIN_OP_CONFIG },
  };
  json.genesis.l2.hash = await computeL2GenesisHash(json, devAccountCount);
  return json;
}

/** Reads and parses a rollup.json the devnet wrote (DevnetRollupConfigError "rollup-config-invalid" otherwise). */
export function readRollupConfigFile(path: string): RollupConfigJson {
  let json: RollupConfigJson;
  try {
    json = JSON.parse(readFileSync(path, "utf8")) as RollupConfigJson;
    parseRollupConfig(json);
  } catch (e) {
    throw new DevnetRollupConfigError(
      `${path} is not a readable rollup config: ${e instanceof Error ? e.message : String(e)}`,
      "rollup-config-invalid",
      { path },
      { cause: e },
    );
  }
  if (typeof json.genesis?.l1?.hash !== "string" || typeof json.genesis.l2?.hash !== "string") {
    throw new DevnetRollupConfigError(`${path} has no genesis anchors`, "rollup-config-invalid", {
      path,
      field: "genesis",
    });
  }
  return json;
}

async function checkRollupConfig(
  path: string,
  json: RollupConfigJson,
  l1: DevnetL1,
  options: DevnetRollupOptions,
  devAccountCount: number,
): Promise<void> {
  const advice = `it belongs to another devnet: remove the data directory ${options.dataDir} to start afresh`;
  const mismatch = (field: string, expected: unknown, found: unknown): DevnetRollupConfigError =>
    new DevnetRollupConfigError(
      `${path}: ${field} is ${String(found)}, expected ${String(expected)}; ${advice}`,
      "rollup-config-mismatch",
      { path, field, expected: String(expected), found: String(found) },
    );
  const same = (a: string, b: string): boolean => a.toLowerCase() === b.toLowerCase();
  const expectations: [string, string | number, string | number][] = [
    ["l1_chain_id", l1.anvil.chainId, json.l1_chain_id],
    ["l2_chain_id", Number(options.l2ChainId ?? DEV_CHAIN_ID), json.l2_chain_id],
    ["deposit_contract_address", l1.deployment.depositPortal, json.deposit_contract_address],
    ["l1_system_config_address", l1.deployment.systemConfig, json.l1_system_config_address],
    ["batch_inbox_address", l1.deployment.batchInbox, json.batch_inbox_address],
  ];
  if (options.blockTime !== undefined) expectations.push(["block_time", options.blockTime, json.block_time]);
  for (const [field, expected, found] of expectations) {
    if (!same(String(expected), String(found))) throw mismatch(field, expected, found);
  }
  const block = await l1.anvil.client
    .getBlock({ blockNumber: BigInt(json.genesis.l1.number) })
    .catch(() => undefined);
  if (block === undefined || !same(block.hash, json.genesis.l1.hash)) {
    throw mismatch(
      `genesis.l1 (block ${json.genesis.l1.number})`,
      json.genesis.l1.hash,
      block === undefined ? "absent from the L1" : block.hash,
    );
  }
  const l2Hash = await computeL2GenesisHash(json, devAccountCount);
  if (!same(l2Hash, json.genesis.l2.hash)) {
    throw new DevnetRollupConfigError(
      `${path}: genesis.l2.hash is ${json.genesis.l2.hash} but this code's L2 genesis for it is ${l2Hash} ` +
        `(the predeploys or the development accounts changed); remove the data directory ${options.dataDir} to start afresh`,
      "rollup-config-mismatch",
      { path, field: "genesis.l2.hash", expected: l2Hash, found: json.genesis.l2.hash },
    );
  }
}
