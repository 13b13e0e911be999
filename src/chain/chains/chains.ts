/**
 * The built-in chains (OP Mainnet, Base, OP Sepolia, Base Sepolia): their rollup configs, genesis facts and the
 * blob-fee schedule of their L1s, in one place for derivation, the node, the host and the enclave's config hash.
 * The data comes from the committed `superchain.generated.ts` (see `generate.ts`).
 */
import { fromHex } from "../hex.js";
import { ChainError } from "../errors.js";
import {
  FORK_TIME_FIELDS,
  InvalidRollupConfigError,
  OpFork,
  OPTIONAL_GENESIS_SYSTEM_CONFIG_FIELDS,
  type GenesisSystemConfig,
  type RollupConfig,
} from "../rollup-config.js";
import { type SuperchainChainData, SuperchainRegistryError } from "./registry.js";
import { SUPERCHAIN_CHAIN_DATA } from "./superchain.generated.js";

/** Channel timeout from Granite on, in L1 blocks (a protocol constant; the registry does not list it). */
export const GRANITE_CHANNEL_TIMEOUT = 50n;

/** The genesis facts the enclave's config hash commits to (same fields as src/proof/onchain/config-hash.ts). */
export interface ChainGenesisFacts {
  readonly chainId: bigint;
  readonly l1GenesisHash: Uint8Array;
  readonly l2GenesisHash: Uint8Array;
  readonly l2GenesisTime: bigint;
  readonly batcherAddress: Uint8Array;
  /** genesis.system_config.scalar, 32 bytes. */
  readonly scalar: Uint8Array;
  readonly gasLimit: bigint;
  /** The OptimismPortal proxy (deposit contract). */
  readonly depositContractAddress: Uint8Array;
  readonly systemConfigAddress: Uint8Array;
}

/** A built-in chain. `rollupConfig` has every optional derivation field set (genesis included). */
export interface BuiltInChain {
  readonly name: string;
  readonly l2ChainId: bigint;
  readonly l1ChainId: bigint;
  readonly rollupConfig: RollupConfig;
  readonly genesisFacts: ChainGenesisFacts;
  /** Every non-null registry address (OptimismPortalProxy, SystemConfigProxy, DisputeGameFactoryProxy, ...). */
  readonly addresses: Readonly<Record<string, Uint8Array>>;
}

/** The requested chain is not built in. */
export class UnknownChainError extends ChainError {
  constructor(readonly chainId: bigint) {
    super(`chain ${chainId} is not a built-in chain`, "unknown-chain", { details: { chainId } });
  }
}

function address(data: SuperchainChainData, name: string): Uint8Array {
  const value = data.addresses[name];
  if (value === undefined)
    throw new SuperchainRegistryError(`built-in chain ${data.l2ChainId} lacks ${name}`);
  return fromHex(value);
}

function genesisSystemConfig(data: SuperchainChainData): GenesisSystemConfig {
  const sc = data.genesis.systemConfig;
  const str = (key: string): string => {
    const v = sc[key];
    if (typeof v !== "string")
      throw new SuperchainRegistryError(`built-in chain ${data.l2ChainId} lacks system_config.${key}`);
    return v;
  };
  const num = (key: string): bigint | undefined =>
    typeof sc[key] === "number" ? BigInt(sc[key]) : undefined;
  const out: GenesisSystemConfig = {
    batcherAddress: fromHex(str("batcherAddr")),
    overhead: fromHex(str("overhead")),
    scalar: fromHex(str("scalar")),
    gasLimit: num("gasLimit") ?? 0n,
  };
  for (const key of OPTIONAL_GENESIS_SYSTEM_CONFIG_FIELDS) {
    const v = num(key);
    if (v !== undefined) out[key] = v;
  }
  return out;
}

/** The typed rollup config of one generated chain entry. */
export function rollupConfigOf(data: SuperchainChainData): RollupConfig {
  const forkTimes: RollupConfig["forkTimes"] = { [OpFork.Bedrock]: 0n, [OpFork.Regolith]: 0n };
  for (const [fork, field] of FORK_TIME_FIELDS) {
    const t = data.hardforks[field];
    if (t !== undefined) forkTimes[fork] = BigInt(t);
  }
  const pectra = data.hardforks.pectra_blob_schedule_time;
  return {
    l2ChainId: BigInt(data.l2ChainId),
    blockTime: BigInt(data.blockTime),
    genesisL2Time: BigInt(data.genesis.l2Time),
    forkTimes,
    eip1559Elasticity: BigInt(data.optimism.eip1559Elasticity),
    eip1559Denominator: BigInt(data.optimism.eip1559Denominator),
    eip1559DenominatorCanyon: BigInt(data.optimism.eip1559DenominatorCanyon),
    depositContractAddress: address(data, "OptimismPortalProxy"),
    l1SystemConfigAddress: address(data, "SystemConfigProxy"),
    l1ChainId: BigInt(data.l1ChainId),
    batchInboxAddress: fromHex(data.batchInboxAddress),
    seqWindowSize: BigInt(data.seqWindowSize),
    maxSequencerDrift: BigInt(data.maxSequencerDrift),
    channelTimeout: GRANITE_CHANNEL_TIMEOUT,
    pectraBlobScheduleTime: pectra === undefined ? undefined : BigInt(pectra),
    genesis: {
      l1: { hash: fromHex(data.genesis.l1.hash), number: BigInt(data.genesis.l1.number) },
      l2: { hash: fromHex(data.genesis.l2.hash), number: BigInt(data.genesis.l2.number) },
      l2Time: BigInt(data.genesis.l2Time),
      systemConfig: genesisSystemConfig(data),
    },
  };
}

/** The config-hash facts of a rollup config that has its genesis and contract addresses. */
export function genesisFactsOf(config: RollupConfig): ChainGenesisFacts {
  const { genesis, depositContractAddress, l1SystemConfigAddress } = config;
  if (genesis === undefined || depositContractAddress === undefined || l1SystemConfigAddress === undefined)
    throw new InvalidRollupConfigError(
      `rollup config of chain ${config.l2ChainId} lacks its genesis or contract addresses`,
    );
  return {
    chainId: config.l2ChainId,
    l1GenesisHash: genesis.l1.hash,
    l2GenesisHash: genesis.l2.hash,
    l2GenesisTime: genesis.l2Time,
    batcherAddress: genesis.systemConfig.batcherAddress,
    scalar: genesis.systemConfig.scalar,
    gasLimit: genesis.systemConfig.gasLimit,
    depositContractAddress,
    systemConfigAddress: l1SystemConfigAddress,
  };
}

function builtInChainOf(data: SuperchainChainData): BuiltInChain {
  const rollupConfig = rollupConfigOf(data);
  const addresses: Record<string, Uint8Array> = {};
  for (const [name, value] of Object.entries(data.addresses)) addresses[name] = fromHex(value);
  return {
    name: data.name,
    l2ChainId: rollupConfig.l2ChainId,
    l1ChainId: BigInt(data.l1ChainId),
    rollupConfig,
    genesisFacts: genesisFactsOf(rollupConfig),
    addresses,
  };
}

let chains: readonly BuiltInChain[] | undefined;

/** Every built-in chain (OP Mainnet 10, Base 8453, OP Sepolia 11155420, Base Sepolia 84532). */
export function builtInChains(): readonly BuiltInChain[] {
  chains ??= SUPERCHAIN_CHAIN_DATA.map(builtInChainOf);
  return chains;
}

/** The built-in chain with L2 chain id `chainId`, or undefined. */
export function findBuiltInChain(chainId: bigint): BuiltInChain | undefined {
  return builtInChains().find((c) => c.l2ChainId === chainId);
}

/** The built-in chain with L2 chain id `chainId`; UnknownChainError when it is not built in. */
export function builtInChain(chainId: bigint): BuiltInChain {
  const chain = findBuiltInChain(chainId);
  if (chain === undefined) throw new UnknownChainError(chainId);
  return chain;
}
