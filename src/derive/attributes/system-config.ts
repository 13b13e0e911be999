/**
 * The L2 system config as derivation tracks it, and its updates from the SystemConfig contract's `ConfigUpdate`
 * logs (specs/protocol/system-config.md, isthmus/system-config.md, jovian/system-config.md; the validation follows
 * op-node's `ProcessSystemConfigUpdateLogEvent` and kona's `SystemConfigLog`). A malformed update from the
 * SystemConfig address is a critical error, as in op-node's L1 traversal ("the sysCfg changes should always be
 * formatted correctly"): the contract never emits one, so seeing one means the data is not what it claims to be.
 * The one exception is theirs too: after Ecotone a fee-scalar update with an unknown scalar format is ignored.
 */
import {
  type BlockHeader,
  type GenesisSystemConfig,
  type Log,
  OpFork,
  type RollupConfig,
  decodeOpExtraData,
  isForkActive,
  bytesEqual,
  fromHex,
  toHex,
  isValidEcotoneScalar,
  encodeEcotoneScalar,
} from "../../chain/index.js";
import { CriticalDeriveError } from "../errors.js";
import { isZeroRange, readUint } from "./bytes.js";

/** keccak256("ConfigUpdate(uint256,uint8,bytes)"). */
export const CONFIG_UPDATE_TOPIC = fromHex(
  "0x1d2b0bda21d56b8bd12d4f94ebacffdfb35f5e226f84b461103bb8beab6353be",
);

/** The `UpdateType` enum of SystemConfig.sol. */
export const ConfigUpdateType = {
  Batcher: 0,
  FeeScalars: 1,
  GasLimit: 2,
  UnsafeBlockSigner: 3,
  Eip1559Params: 4,
  OperatorFee: 5,
  MinBaseFee: 6,
  DaFootprintGasScalar: 7,
} as const;
export type ConfigUpdateType = (typeof ConfigUpdateType)[keyof typeof ConfigUpdateType];

/** DA footprint gas scalar the L1 info deposit states when the system config's is unset (0). Jovian. */
export const DEFAULT_DA_FOOTPRINT_GAS_SCALAR = 400;

/** The system config derivation reads from L1 (and writes into L1 info deposits and payload attributes). */
export interface SystemConfig {
  /** The account whose batcher transactions count. */
  readonly batcherAddress: Uint8Array;
  /** 32-byte word; zero from Ecotone on. */
  readonly overhead: Uint8Array;
  /**
   * 32-byte word. Ecotone format: byte 0 the version (0 or 1), version 1 carries the blob base fee scalar in
   * bytes 24..28 and the base fee scalar in 28..32; version 0 only the base fee scalar (28..32).
   */
  readonly scalar: Uint8Array;
  readonly gasLimit: bigint;
  /** Holocene EIP-1559 parameters (u32 each); 0 = unset (the chain's Canyon defaults). */
  readonly eip1559Denominator: number;
  readonly eip1559Elasticity: number;
  /** Isthmus operator fee: scalar (u32) and constant (u64). */
  readonly operatorFeeScalar: number;
  readonly operatorFeeConstant: bigint;
  /** Jovian minimum base fee (u64). */
  readonly minBaseFee: bigint;
  /** Jovian DA footprint gas scalar (u16); 0 = unset, read as DEFAULT_DA_FOOTPRINT_GAS_SCALAR. */
  readonly daFootprintGasScalar: number;
}

/** The L1 receipt fields config updates and deposits are read from (src/chain's Receipt fits). */
export interface ReceiptLogs {
  /** 1 = success; failed receipts are skipped. */
  readonly status: number;
  readonly logs: readonly Log[];
}

/** The system config at genesis, from the rollup config's `genesis.system_config`. */
export function systemConfigFromGenesis(genesis: GenesisSystemConfig): SystemConfig {
  return {
    batcherAddress: genesis.batcherAddress,
    overhead: genesis.overhead,
    scalar: genesis.scalar,
    gasLimit: genesis.gasLimit,
    eip1559Denominator: Number(genesis.eip1559Denominator ?? 0n),
    eip1559Elasticity: Number(genesis.eip1559Elasticity ?? 0n),
    operatorFeeScalar: Number(genesis.operatorFeeScalar ?? 0n),
    operatorFeeConstant: genesis.operatorFeeConstant ?? 0n,
    minBaseFee: genesis.minBaseFee ?? 0n,
    daFootprintGasScalar: Number(genesis.daFootprintGasScalar ?? 0n),
  };
}

/** The 8-byte Holocene `eip1559Params` of the config: denominator ‖ elasticity (u32 each, big-endian). */
export function eip1559ParamsOf(config: SystemConfig): Uint8Array {
  const out = new Uint8Array(8);
  const view = new DataView(out.buffer);
  view.setUint32(0, config.eip1559Denominator);
  view.setUint32(4, config.eip1559Elasticity);
  return out;
}

function fail(message: string, details: Record<string, unknown>): never {
  throw new CriticalDeriveError("attributes", `malformed ConfigUpdate log: ${message}`, details);
}

/** Checks the ABI head of `bytes data` (offset 32, length `length`) and the total size. */
function checkAbiBytes(data: Uint8Array, length: number, updateType: number): void {
  const details = { updateType, dataLength: data.length };
  if (data.length !== 64 + length) fail(`expected ${64 + length} bytes of data, got ${data.length}`, details);
  if (!isZeroRange(data, 0, 31) || data[31] !== 32) fail("the data offset is not 32", details);
  if (!isZeroRange(data, 32, 63) || data[63] !== length) fail(`the data length is not ${length}`, details);
}

/**
 * Applies one `ConfigUpdate` log to `config` and returns the new config (`config` is not changed).
 * `l1Timestamp` is the L1 block's time (decides the Ecotone scalar rules; Ecotone assumed when omitted).
 * CriticalDeriveError (stage "attributes") for a log that is not a well-formed version-0 update of types 0-7.
 */
export function applyConfigUpdateLog(
  config: SystemConfig,
  log: Log,
  rollupConfig: RollupConfig,
  l1Timestamp?: bigint,
): SystemConfig {
  const { topics, data } = log;
  if (topics.length !== 3) fail(`expected 3 topics, got ${topics.length}`, { topics: topics.length });
  if (!bytesEqual(topics[0]!, CONFIG_UPDATE_TOPIC))
    fail("topic 0 is not ConfigUpdate", { topic0: toHex(topics[0]!) });
  const version = topics[1]!;
  if (version.length !== 32 || !isZeroRange(version, 0, 32))
    fail("unsupported version", { version: toHex(version) });
  const typeTopic = topics[2]!;
  if (typeTopic.length !== 32 || !isZeroRange(typeTopic, 0, 31) || typeTopic[31]! > 7)
    fail("unknown update type", { updateType: toHex(typeTopic) });
  const updateType = typeTopic[31]! as ConfigUpdateType;
  const details = { updateType };
  switch (updateType) {
    case ConfigUpdateType.Batcher: {
      checkAbiBytes(data, 32, updateType);
      if (!isZeroRange(data, 64, 76)) fail("the batcher is not a padded address", details);
      return { ...config, batcherAddress: data.slice(76, 96) };
    }
    case ConfigUpdateType.FeeScalars: {
      checkAbiBytes(data, 64, updateType);
      const overhead = data.slice(64, 96);
      const scalar = data.slice(96, 128);
      const ecotone = l1Timestamp === undefined || isForkActive(rollupConfig, OpFork.Ecotone, l1Timestamp);
      if (!ecotone) return { ...config, overhead, scalar };
      // After Ecotone an unknown scalar format is ignored and the old scalar kept (op-node, kona).
      if (!isValidEcotoneScalar(scalar)) return config;
      return { ...config, overhead: new Uint8Array(32), scalar };
    }
    case ConfigUpdateType.GasLimit: {
      checkAbiBytes(data, 32, updateType);
      if (!isZeroRange(data, 64, 88)) fail("the gas limit does not fit 64 bits", details);
      return { ...config, gasLimit: readUint(data, 88, 96) };
    }
    case ConfigUpdateType.UnsafeBlockSigner: {
      // Not part of derivation (the P2P signer); checked like the batcher update, then ignored.
      checkAbiBytes(data, 32, updateType);
      if (!isZeroRange(data, 64, 76)) fail("the unsafe block signer is not a padded address", details);
      return config;
    }
    case ConfigUpdateType.Eip1559Params: {
      checkAbiBytes(data, 32, updateType);
      if (!isZeroRange(data, 64, 88)) fail("the EIP-1559 parameters do not fit 64 bits", details);
      return {
        ...config,
        eip1559Denominator: Number(readUint(data, 88, 92)),
        eip1559Elasticity: Number(readUint(data, 92, 96)),
      };
    }
    case ConfigUpdateType.OperatorFee: {
      // uint256 (scalar << 64 | constant): scalar is bytes 20..24 of the word, constant 24..32 (kona, op-node).
      checkAbiBytes(data, 32, updateType);
      return {
        ...config,
        operatorFeeScalar: Number(readUint(data, 84, 88)),
        operatorFeeConstant: readUint(data, 88, 96),
      };
    }
    case ConfigUpdateType.MinBaseFee: {
      checkAbiBytes(data, 32, updateType);
      if (!isZeroRange(data, 64, 88)) fail("the min base fee does not fit 64 bits", details);
      return { ...config, minBaseFee: readUint(data, 88, 96) };
    }
    case ConfigUpdateType.DaFootprintGasScalar: {
      checkAbiBytes(data, 32, updateType);
      if (!isZeroRange(data, 64, 94)) fail("the DA footprint gas scalar does not fit 16 bits", details);
      return { ...config, daFootprintGasScalar: Number(readUint(data, 94, 96)) };
    }
  }
}

/**
 * Applies every ConfigUpdate log of an L1 block's successful receipts emitted by the rollup's SystemConfig
 * address, in order. CriticalDeriveError when the rollup config lacks the SystemConfig address or a log is
 * malformed.
 */
export function applyConfigUpdates(
  config: SystemConfig,
  receipts: readonly ReceiptLogs[],
  rollupConfig: RollupConfig,
  l1Timestamp: bigint,
): SystemConfig {
  const address = rollupConfig.l1SystemConfigAddress;
  if (address === undefined)
    throw new CriticalDeriveError("attributes", "the rollup config lacks the SystemConfig address");
  let current = config;
  for (const receipt of receipts) {
    if (receipt.status !== 1) continue;
    for (const log of receipt.logs) {
      if (log.topics.length === 0 || !bytesEqual(log.topics[0]!, CONFIG_UPDATE_TOPIC)) continue;
      if (!bytesEqual(log.address, address)) continue;
      current = applyConfigUpdateLog(current, log, rollupConfig, l1Timestamp);
    }
  }
  return current;
}

/**
 * The system config in force after an L2 block, read back from the block (op-node `PayloadToSystemConfig`):
 * batcher and fee scalars from its L1 info deposit (`l1Info`), gas limit from its header, EIP-1559 parameters
 * and min base fee from its Holocene/Jovian extraData. The scalar comes back in version-1 form (the L1 info
 * deposit states the two scalars, not the word they came from; both forms give the same deposits).
 */
export function systemConfigFromL2Block(
  header: BlockHeader,
  l1Info: {
    readonly batcherAddress: Uint8Array;
    readonly baseFeeScalar: number;
    readonly blobBaseFeeScalar: number;
    readonly operatorFeeScalar?: number;
    readonly operatorFeeConstant?: bigint;
    readonly daFootprintGasScalar?: number;
  },
  rollupConfig: RollupConfig,
): SystemConfig {
  let eip1559Denominator = 0;
  let eip1559Elasticity = 0;
  let minBaseFee = 0n;
  if (isForkActive(rollupConfig, OpFork.Holocene, header.timestamp)) {
    let params;
    try {
      params = decodeOpExtraData(header.extraData);
    } catch (e) {
      throw new CriticalDeriveError(
        "attributes",
        "the L2 block's extraData is not a Holocene/Jovian encoding",
        { number: header.number },
        { cause: e },
      );
    }
    eip1559Denominator = Number(params.denominator);
    eip1559Elasticity = Number(params.elasticity);
    minBaseFee = params.minBaseFee ?? 0n;
  }
  return {
    batcherAddress: l1Info.batcherAddress,
    overhead: new Uint8Array(32),
    scalar: encodeEcotoneScalar(l1Info.baseFeeScalar, l1Info.blobBaseFeeScalar),
    gasLimit: header.gasLimit,
    eip1559Denominator,
    eip1559Elasticity,
    operatorFeeScalar: l1Info.operatorFeeScalar ?? 0,
    operatorFeeConstant: l1Info.operatorFeeConstant ?? 0n,
    minBaseFee,
    daFootprintGasScalar: l1Info.daFootprintGasScalar ?? 0,
  };
}
