/** OP Stack rollup configuration: the parts block execution needs, parsed from op-node's JSON. */
import { fromHex } from "./hex.js";
import { ChainError, type ChainErrorOptions } from "./errors.js";

export const OpFork = {
  Bedrock: 0,
  Regolith: 1,
  Canyon: 2,
  Delta: 3,
  Ecotone: 4,
  Fjord: 5,
  Granite: 6,
  Holocene: 7,
  Isthmus: 8,
  Jovian: 9,
} as const;
export type OpFork = (typeof OpFork)[keyof typeof OpFork];

export const OP_FORK_NAMES: Record<OpFork, string> = {
  0: "bedrock",
  1: "regolith",
  2: "canyon",
  3: "delta",
  4: "ecotone",
  5: "fjord",
  6: "granite",
  7: "holocene",
  8: "isthmus",
  9: "jovian",
};

/** Fork times with every fork up to and including `last` active from `time` (genesis by default): dev and test chains. */
export function forksActiveFrom(last: OpFork, time = 0n): Partial<Record<OpFork, bigint>> {
  const forkTimes: Partial<Record<OpFork, bigint>> = {};
  for (let fork = OpFork.Bedrock as OpFork; fork <= last; fork = (fork + 1) as OpFork) forkTimes[fork] = time;
  return forkTimes;
}

export interface RollupConfig {
  l2ChainId: bigint;
  blockTime: bigint;
  genesisL2Time: bigint;
  /** Activation timestamps (undefined = not scheduled). Bedrock is active from genesis. */
  forkTimes: Partial<Record<OpFork, bigint>>;
  /** Pre-Canyon and Canyon+ EIP-1559 parameters (used until Holocene puts them in extraData). */
  eip1559Elasticity: bigint;
  eip1559Denominator: bigint;
  eip1559DenominatorCanyon: bigint;
  depositContractAddress?: Uint8Array;
  l1SystemConfigAddress?: Uint8Array;
  /** Derivation (optional: block execution does not need them). L1 chain id. */
  l1ChainId?: bigint;
  /** Where batchers post: `to` of batcher transactions. */
  batchInboxAddress?: Uint8Array;
  /** Sequencing window in L1 blocks. */
  seqWindowSize?: bigint;
  /** Registry value; Fjord and later use the constant 1800 s instead. */
  maxSequencerDrift?: bigint;
  /** Channel timeout in L1 blocks from Granite on (op-node's granite_channel_timeout, 50). */
  channelTimeout?: bigint;
  /** Sepolia-only: before this L1 time the L1 info deposit keeps Cancun's blob base fee fraction. */
  pectraBlobScheduleTime?: bigint;
  /** Genesis anchors and the system config at genesis. */
  genesis?: RollupGenesis;
}

/** The system config at genesis, as the rollup config states it (bytes and bigints). */
export interface GenesisSystemConfig {
  batcherAddress: Uint8Array;
  /** 32-byte word. */
  overhead: Uint8Array;
  /** 32-byte word (Ecotone: version byte, blob base fee scalar, base fee scalar). */
  scalar: Uint8Array;
  gasLimit: bigint;
  eip1559Denominator?: bigint;
  eip1559Elasticity?: bigint;
  operatorFeeScalar?: bigint;
  operatorFeeConstant?: bigint;
  minBaseFee?: bigint;
  daFootprintGasScalar?: bigint;
}

/**
 * The genesis system config's optional integer fields, named as they are both in the TypeScript type and in the
 * rollup.json `genesis.system_config` object (kona's split form).
 */
export const OPTIONAL_GENESIS_SYSTEM_CONFIG_FIELDS = [
  "eip1559Denominator",
  "eip1559Elasticity",
  "operatorFeeScalar",
  "operatorFeeConstant",
  "minBaseFee",
  "daFootprintGasScalar",
] as const satisfies readonly (keyof GenesisSystemConfig)[];

export interface RollupGenesis {
  l1: { hash: Uint8Array; number: bigint };
  l2: { hash: Uint8Array; number: bigint };
  l2Time: bigint;
  systemConfig: GenesisSystemConfig;
}

export class InvalidRollupConfigError extends ChainError {
  constructor(message: string, options?: ChainErrorOptions) {
    super(message, "invalid-rollup-config", options);
  }
}

function optionalTime(value: unknown, field: string): bigint | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === "number" && Number.isSafeInteger(value) && value >= 0) return BigInt(value);
  if (typeof value === "string" && /^(0x[0-9a-fA-F]+|[0-9]+)$/.test(value)) return BigInt(value);
  throw new InvalidRollupConfigError(`${field} must be a non-negative integer`);
}

function requiredInt(value: unknown, field: string): bigint {
  const v = optionalTime(value, field);
  if (v === undefined) throw new InvalidRollupConfigError(`${field} is required`);
  return v;
}

function optionalAddress(value: unknown, field: string): Uint8Array | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string" || !/^0x[0-9a-fA-F]{40}$/.test(value)) {
    throw new InvalidRollupConfigError(`${field} must be a 0x-prefixed 20-byte address`);
  }
  return fromHex(value);
}

function requiredWord(value: unknown, field: string): Uint8Array {
  if (typeof value !== "string" || !/^0x[0-9a-fA-F]{64}$/.test(value)) {
    throw new InvalidRollupConfigError(`${field} must be a 0x-prefixed 32-byte word`);
  }
  return fromHex(value);
}

/** The `genesis` object of op-node's rollup config JSON (undefined when it lacks the anchors). */
export function parseRollupGenesis(value: unknown): RollupGenesis | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const g = value as Record<string, unknown>;
  const l1 = g.l1 as Record<string, unknown> | undefined;
  const l2 = g.l2 as Record<string, unknown> | undefined;
  const sc = g.system_config as Record<string, unknown> | undefined;
  if (typeof l1 !== "object" || l1 === null || typeof l2 !== "object" || l2 === null) return undefined;
  if (typeof sc !== "object" || sc === null) return undefined;
  const systemConfig: GenesisSystemConfig = {
    batcherAddress:
      optionalAddress(sc.batcherAddr, "genesis.system_config.batcherAddr") ?? new Uint8Array(20),
    overhead: requiredWord(sc.overhead, "genesis.system_config.overhead"),
    scalar: requiredWord(sc.scalar, "genesis.system_config.scalar"),
    gasLimit: requiredInt(sc.gasLimit, "genesis.system_config.gasLimit"),
  };
  for (const key of OPTIONAL_GENESIS_SYSTEM_CONFIG_FIELDS) {
    const v = optionalTime(sc[key], `genesis.system_config.${key}`);
    if (v !== undefined) systemConfig[key] = v;
  }
  return {
    l1: {
      hash: requiredWord(l1.hash, "genesis.l1.hash"),
      number: requiredInt(l1.number, "genesis.l1.number"),
    },
    l2: {
      hash: requiredWord(l2.hash, "genesis.l2.hash"),
      number: requiredInt(l2.number, "genesis.l2.number"),
    },
    l2Time: requiredInt(g.l2_time, "genesis.l2_time"),
    systemConfig,
  };
}

/** op-node's JSON field of each fork's activation time (the superchain registry uses the same names). */
export const FORK_TIME_FIELDS: readonly (readonly [OpFork, string])[] = [
  [OpFork.Regolith, "regolith_time"],
  [OpFork.Canyon, "canyon_time"],
  [OpFork.Delta, "delta_time"],
  [OpFork.Ecotone, "ecotone_time"],
  [OpFork.Fjord, "fjord_time"],
  [OpFork.Granite, "granite_time"],
  [OpFork.Holocene, "holocene_time"],
  [OpFork.Isthmus, "isthmus_time"],
  [OpFork.Jovian, "jovian_time"],
];

/** Parses op-node's rollup config JSON (snake_case, as in the fixtures and superchain registry). */
export function parseRollupConfig(json: unknown): RollupConfig {
  if (typeof json !== "object" || json === null)
    throw new InvalidRollupConfigError("rollup config must be an object");
  const c = json as Record<string, unknown>;
  const genesis = (c.genesis ?? {}) as Record<string, unknown>;
  const op = (c.chain_op_config ?? {}) as Record<string, unknown>;
  const forkTimes: Partial<Record<OpFork, bigint>> = { [OpFork.Bedrock]: 0n };
  for (const [fork, field] of FORK_TIME_FIELDS) {
    const t = optionalTime(c[field], field);
    if (t !== undefined) forkTimes[fork] = t;
  }
  // A chain whose genesis is after Regolith (all current chains) has Regolith at 0 when unset.
  if (forkTimes[OpFork.Regolith] === undefined) forkTimes[OpFork.Regolith] = 0n;
  return {
    l2ChainId: requiredInt(c.l2_chain_id, "l2_chain_id"),
    blockTime: requiredInt(c.block_time, "block_time"),
    genesisL2Time: requiredInt(genesis.l2_time ?? 0, "genesis.l2_time"),
    forkTimes,
    eip1559Elasticity: requiredInt(op.eip1559Elasticity ?? 6, "chain_op_config.eip1559Elasticity"),
    eip1559Denominator: requiredInt(op.eip1559Denominator ?? 50, "chain_op_config.eip1559Denominator"),
    eip1559DenominatorCanyon: requiredInt(
      op.eip1559DenominatorCanyon ?? 250,
      "chain_op_config.eip1559DenominatorCanyon",
    ),
    depositContractAddress: optionalAddress(c.deposit_contract_address, "deposit_contract_address"),
    l1SystemConfigAddress: optionalAddress(c.l1_system_config_address, "l1_system_config_address"),
    l1ChainId: optionalTime(c.l1_chain_id, "l1_chain_id"),
    batchInboxAddress: optionalAddress(c.batch_inbox_address, "batch_inbox_address"),
    seqWindowSize: optionalTime(c.seq_window_size, "seq_window_size"),
    maxSequencerDrift: optionalTime(c.max_sequencer_drift, "max_sequencer_drift"),
    channelTimeout: optionalTime(c.granite_channel_timeout, "granite_channel_timeout"),
    pectraBlobScheduleTime: optionalTime(c.pectra_blob_schedule_time, "pectra_blob_schedule_time"),
    genesis: parseRollupGenesis(c.genesis),
  };
}

/** Whether `fork` is active at `timestamp`. */
export function isForkActive(config: RollupConfig, fork: OpFork, timestamp: bigint): boolean {
  const t = config.forkTimes[fork];
  return t !== undefined && timestamp >= t;
}

/** The newest fork active at `timestamp`. */
export function activeFork(config: RollupConfig, timestamp: bigint): OpFork {
  let fork: OpFork = OpFork.Bedrock;
  for (let f = OpFork.Regolith as number; f <= OpFork.Jovian; f++) {
    if (isForkActive(config, f as OpFork, timestamp)) fork = f as OpFork;
  }
  return fork;
}

/** True when `timestamp` is the first block of `fork` (the fork is active now but not one block earlier). */
export function isForkActivationBlock(config: RollupConfig, fork: OpFork, timestamp: bigint): boolean {
  return (
    isForkActive(config, fork, timestamp) &&
    timestamp >= config.blockTime &&
    !isForkActive(config, fork, timestamp - config.blockTime)
  );
}
