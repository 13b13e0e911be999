/**
 * EIP-1559 base fee with OP parameters: pre-Canyon / Canyon denominators from the rollup config,
 * Holocene parameters carried in the parent's extraData, Jovian's minimum base fee and
 * DA-footprint-aware gas metering.
 */
import { OpFork, type RollupConfig, isForkActive } from "./rollup-config.js";
import { ChainError, type ChainErrorOptions } from "./errors.js";

export class InvalidExtraDataError extends ChainError {
  constructor(message: string, options?: ChainErrorOptions) {
    super(message, "invalid-extra-data", options);
  }
}

export interface Eip1559Params {
  denominator: bigint;
  elasticity: bigint;
  /** Jovian only. */
  minBaseFee?: bigint;
}

function readU32(bytes: Uint8Array, off: number): bigint {
  return BigInt(
    ((bytes[off]! << 24) | (bytes[off + 1]! << 16) | (bytes[off + 2]! << 8) | bytes[off + 3]!) >>> 0,
  );
}

function readU64(bytes: Uint8Array, off: number): bigint {
  return (readU32(bytes, off) << 32n) | readU32(bytes, off + 4);
}

function writeU32(out: Uint8Array, off: number, v: bigint): void {
  if (v < 0n || v > 0xffffffffn) throw new InvalidExtraDataError(`value ${v} does not fit in u32`);
  const n = Number(v);
  out[off] = n >>> 24;
  out[off + 1] = (n >>> 16) & 0xff;
  out[off + 2] = (n >>> 8) & 0xff;
  out[off + 3] = n & 0xff;
}

/** Decodes Holocene (version 0, 9 bytes) or Jovian (version 1, 17 bytes) extraData. */
export function decodeOpExtraData(extraData: Uint8Array): Eip1559Params {
  const version = extraData[0];
  if (version === 0 && extraData.length === 9) {
    return { denominator: readU32(extraData, 1), elasticity: readU32(extraData, 5) };
  }
  if (version === 1 && extraData.length === 17) {
    return {
      denominator: readU32(extraData, 1),
      elasticity: readU32(extraData, 5),
      minBaseFee: readU64(extraData, 9),
    };
  }
  throw new InvalidExtraDataError(
    `extraData is not a Holocene/Jovian EIP-1559 encoding (${extraData.length} bytes)`,
  );
}

/** Encodes extraData: version 0 without minBaseFee (Holocene), version 1 with it (Jovian). */
export function encodeOpExtraData(params: Eip1559Params): Uint8Array {
  const jovian = params.minBaseFee !== undefined;
  const out = new Uint8Array(jovian ? 17 : 9);
  out[0] = jovian ? 1 : 0;
  writeU32(out, 1, params.denominator);
  writeU32(out, 5, params.elasticity);
  if (jovian) {
    const m = params.minBaseFee!;
    if (m < 0n || m >= 1n << 64n) throw new InvalidExtraDataError("minBaseFee does not fit in u64");
    writeU32(out, 9, m >> 32n);
    writeU32(out, 13, m & 0xffffffffn);
  }
  return out;
}

/**
 * Holocene payload attribute `eip1559Params` (8 bytes: denominator ‖ elasticity). All-zero means
 * "use the chain's Canyon defaults". A zero denominator with a non-zero elasticity is invalid.
 */
export function resolveEip1559Params(config: RollupConfig, eip1559Params: Uint8Array): Eip1559Params {
  if (eip1559Params.length !== 8) throw new InvalidExtraDataError("eip1559Params must be 8 bytes");
  const denominator = readU32(eip1559Params, 0);
  const elasticity = readU32(eip1559Params, 4);
  if (denominator === 0n && elasticity === 0n) {
    return { denominator: config.eip1559DenominatorCanyon, elasticity: config.eip1559Elasticity };
  }
  if (denominator === 0n) throw new InvalidExtraDataError("eip1559Params denominator is zero");
  return { denominator, elasticity };
}

export interface ParentFeeFields {
  timestamp: bigint;
  gasLimit: bigint;
  gasUsed: bigint;
  baseFeePerGas: bigint;
  extraData: Uint8Array;
  blobGasUsed?: bigint;
}

/** Core EIP-1559 update rule. */
export function nextBaseFee(
  parentBaseFee: bigint,
  parentGasUsed: bigint,
  parentGasLimit: bigint,
  denominator: bigint,
  elasticity: bigint,
): bigint {
  const target = parentGasLimit / elasticity;
  if (parentGasUsed === target) return parentBaseFee;
  if (parentGasUsed > target) {
    const delta = (parentBaseFee * (parentGasUsed - target)) / target / denominator;
    return parentBaseFee + (delta < 1n ? 1n : delta);
  }
  const delta = (parentBaseFee * (target - parentGasUsed)) / target / denominator;
  const next = parentBaseFee - delta;
  return next < 0n ? 0n : next;
}

/** Base fee of the block following `parent` at `timestamp`, with the OP parameter rules. */
export function calcOpBaseFee(config: RollupConfig, parent: ParentFeeFields, timestamp: bigint): bigint {
  let denominator = isForkActive(config, OpFork.Canyon, timestamp)
    ? config.eip1559DenominatorCanyon
    : config.eip1559Denominator;
  let elasticity = config.eip1559Elasticity;
  let minBaseFee = 0n;
  let gasUsed = parent.gasUsed;
  if (isForkActive(config, OpFork.Holocene, parent.timestamp)) {
    const p = decodeOpExtraData(parent.extraData);
    denominator = p.denominator;
    elasticity = p.elasticity;
    if (isForkActive(config, OpFork.Jovian, parent.timestamp)) {
      minBaseFee = p.minBaseFee ?? 0n;
      if (parent.blobGasUsed !== undefined && parent.blobGasUsed > gasUsed) gasUsed = parent.blobGasUsed;
    }
  }
  if (elasticity === 0n || denominator === 0n)
    throw new InvalidExtraDataError("zero EIP-1559 denominator or elasticity");
  const fee = nextBaseFee(parent.baseFeePerGas, gasUsed, parent.gasLimit, denominator, elasticity);
  return fee < minBaseFee ? minBaseFee : fee;
}
