/**
 * RollupConfig → op-node's rollup.json object: the inverse of `parseRollupConfig` (rollup-config.ts), so that
 * `parseRollupConfig(rollupConfigToJson(c))` equals `c`. Numbers are JSON numbers, hashes and addresses 0x hex
 * (lowercase), field names as the parser reads them (op-node's snake_case; the genesis system config's
 * EIP-1559 and operator-fee fields in their split form, eip1559Denominator … daFootprintGasScalar).
 */
import { toHex } from "./hex.js";
import {
  FORK_TIME_FIELDS,
  type GenesisSystemConfig,
  InvalidRollupConfigError,
  OpFork,
  OPTIONAL_GENESIS_SYSTEM_CONFIG_FIELDS,
  type RollupConfig,
} from "./rollup-config.js";

/** A JSON value as JSON.stringify writes it. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** op-node's rollup.json object (see `rollupConfigToJson`). */
export type RollupConfigJson = { [key: string]: JsonValue };

function num(value: bigint, field: string): number {
  if (value < 0n || value > BigInt(Number.MAX_SAFE_INTEGER))
    throw new InvalidRollupConfigError(`${field} does not fit an exact JSON number`, {
      details: { field, value },
    });
  return Number(value);
}

function bytes(value: Uint8Array, length: number, field: string): string {
  if (value.length !== length)
    throw new InvalidRollupConfigError(`${field} must be ${length} bytes`, {
      details: { field, length: value.length },
    });
  return toHex(value);
}

function systemConfigJson(sc: GenesisSystemConfig): RollupConfigJson {
  const out: RollupConfigJson = {
    batcherAddr: bytes(sc.batcherAddress, 20, "genesis.system_config.batcherAddr"),
    overhead: bytes(sc.overhead, 32, "genesis.system_config.overhead"),
    scalar: bytes(sc.scalar, 32, "genesis.system_config.scalar"),
    gasLimit: num(sc.gasLimit, "genesis.system_config.gasLimit"),
  };
  for (const key of OPTIONAL_GENESIS_SYSTEM_CONFIG_FIELDS) {
    const v = sc[key];
    if (v !== undefined) out[key] = num(v, `genesis.system_config.${key}`);
  }
  return out;
}

/**
 * The rollup.json object of `config`. Bedrock has no field in rollup.json (it is active at genesis), so a
 * config with Bedrock at any other time, or a genesis time that disagrees with `genesis.l2Time`, is refused
 * (InvalidRollupConfigError), as is a value that does not fit a JSON number exactly.
 */
export function rollupConfigToJson(config: RollupConfig): RollupConfigJson {
  const bedrock = config.forkTimes[OpFork.Bedrock];
  if (bedrock !== undefined && bedrock !== 0n)
    throw new InvalidRollupConfigError("rollup.json cannot state a Bedrock time other than 0", {
      details: { bedrock },
    });
  const g = config.genesis;
  if (g !== undefined && g.l2Time !== config.genesisL2Time)
    throw new InvalidRollupConfigError("genesis.l2Time disagrees with genesisL2Time", {
      details: { genesisL2Time: config.genesisL2Time, l2Time: g.l2Time },
    });
  const genesis: RollupConfigJson =
    g === undefined
      ? { l2_time: num(config.genesisL2Time, "genesis.l2_time") }
      : {
          l1: {
            hash: bytes(g.l1.hash, 32, "genesis.l1.hash"),
            number: num(g.l1.number, "genesis.l1.number"),
          },
          l2: {
            hash: bytes(g.l2.hash, 32, "genesis.l2.hash"),
            number: num(g.l2.number, "genesis.l2.number"),
          },
          l2_time: num(g.l2Time, "genesis.l2_time"),
          system_config: systemConfigJson(g.systemConfig),
        };
  const out: RollupConfigJson = { genesis, block_time: num(config.blockTime, "block_time") };
  const optionalNumber = (field: string, value: bigint | undefined): void => {
    if (value !== undefined) out[field] = num(value, field);
  };
  const optionalAddress = (field: string, value: Uint8Array | undefined): void => {
    if (value !== undefined) out[field] = bytes(value, 20, field);
  };
  optionalNumber("max_sequencer_drift", config.maxSequencerDrift);
  optionalNumber("seq_window_size", config.seqWindowSize);
  optionalNumber("granite_channel_timeout", config.channelTimeout);
  optionalNumber("l1_chain_id", config.l1ChainId);
  out.l2_chain_id = num(config.l2ChainId, "l2_chain_id");
  for (const [fork, field] of FORK_TIME_FIELDS) optionalNumber(field, config.forkTimes[fork]);
  optionalNumber("pectra_blob_schedule_time", config.pectraBlobScheduleTime);
  optionalAddress("batch_inbox_address", config.batchInboxAddress);
  optionalAddress("deposit_contract_address", config.depositContractAddress);
  optionalAddress("l1_system_config_address", config.l1SystemConfigAddress);
  out.chain_op_config = {
    eip1559Elasticity: num(config.eip1559Elasticity, "chain_op_config.eip1559Elasticity"),
    eip1559Denominator: num(config.eip1559Denominator, "chain_op_config.eip1559Denominator"),
    eip1559DenominatorCanyon: num(
      config.eip1559DenominatorCanyon,
      "chain_op_config.eip1559DenominatorCanyon",
    ),
  };
  return out;
}
