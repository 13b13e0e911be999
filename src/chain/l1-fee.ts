/**
 * OP Stack L1 data fee and operator fee, from the L1Block contract's storage.
 * Formulas: Bedrock/Regolith (overhead + scalar), Ecotone (base fee + blob base fee scalars over
 * calldata gas), Fjord (FastLZ-based size estimate), Isthmus operator fee, Jovian operator fee.
 */
import { fastLzCompressedLength } from "./fastlz.js";
import { OpFork } from "./rollup-config.js";

/** L1Block predeploy. */
export const L1_BLOCK_ADDRESS = "0x4200000000000000000000000000000000000015";

/** Storage slots of the L1Block contract read by the fee functions. */
export const L1BlockSlot = {
  BaseFee: 1n,
  /** sequenceNumber (u64, bytes 24..32), blobBaseFeeScalar (u32, 20..24), baseFeeScalar (u32, 16..20). */
  Scalars: 3n,
  Overhead: 5n,
  Scalar: 6n,
  BlobBaseFee: 7n,
  /** Isthmus: operatorFeeConstant (u64, bytes 24..32), operatorFeeScalar (u32, 20..24); Jovian: daFootprintGasScalar (u16, 18..20). */
  OperatorFeeParams: 8n,
} as const;

/** Fee parameters as read from L1Block storage (32-byte words). */
export interface L1FeeParams {
  l1BaseFee: bigint;
  l1BlobBaseFee: bigint;
  baseFeeScalar: bigint;
  blobBaseFeeScalar: bigint;
  /** Pre-Ecotone. */
  overhead: bigint;
  scalar: bigint;
  operatorFeeScalar: bigint;
  operatorFeeConstant: bigint;
  /** Jovian: uint16 in slot 8, bytes 18..20 of the word. */
  daFootprintGasScalar: bigint;
}

function wordSlice(word: Uint8Array, from: number, to: number): bigint {
  let v = 0n;
  for (let i = from; i < to; i++) v = (v << 8n) | BigInt(word[i] ?? 0);
  return v;
}

function word32(bytes: Uint8Array): Uint8Array {
  if (bytes.length === 32) return bytes;
  const out = new Uint8Array(32);
  out.set(bytes.subarray(Math.max(0, bytes.length - 32)), 32 - Math.min(32, bytes.length));
  return out;
}

/** Decodes the L1Block storage words into fee parameters (words may be unpadded). */
export function decodeL1FeeParams(words: {
  baseFee: Uint8Array;
  scalars: Uint8Array;
  overhead: Uint8Array;
  scalar: Uint8Array;
  blobBaseFee: Uint8Array;
  operatorFeeParams: Uint8Array;
}): L1FeeParams {
  const scalars = word32(words.scalars);
  const op = word32(words.operatorFeeParams);
  return {
    l1BaseFee: wordSlice(word32(words.baseFee), 0, 32),
    l1BlobBaseFee: wordSlice(word32(words.blobBaseFee), 0, 32),
    baseFeeScalar: wordSlice(scalars, 16, 20),
    blobBaseFeeScalar: wordSlice(scalars, 20, 24),
    overhead: wordSlice(word32(words.overhead), 0, 32),
    scalar: wordSlice(word32(words.scalar), 0, 32),
    operatorFeeScalar: wordSlice(op, 20, 24),
    operatorFeeConstant: wordSlice(op, 24, 32),
    daFootprintGasScalar: wordSlice(op, 18, 20),
  };
}

/** Zero bytes cost 4 gas, non-zero bytes 16 (EIP-2028). */
export function calldataGas(data: Uint8Array): bigint {
  let zeros = 0;
  for (let i = 0; i < data.length; i++) if (data[i] === 0) zeros++;
  return BigInt(zeros * 4 + (data.length - zeros) * 16);
}

/** Bedrock/Regolith: (calldataGas + overhead [+ 68·16 before Regolith]) · l1BaseFee · scalar / 1e6. */
export function bedrockL1Cost(txBytes: Uint8Array, p: L1FeeParams, regolith: boolean): bigint {
  let gas = calldataGas(txBytes) + p.overhead;
  if (!regolith) gas += 68n * 16n;
  return (gas * p.l1BaseFee * p.scalar) / 1_000_000n;
}

/** Ecotone: calldataGas · (16·l1BaseFee·baseFeeScalar + l1BlobBaseFee·blobBaseFeeScalar) / 16e6. */
export function ecotoneL1Cost(txBytes: Uint8Array, p: L1FeeParams): bigint {
  const scaled = 16n * p.l1BaseFee * p.baseFeeScalar + p.l1BlobBaseFee * p.blobBaseFeeScalar;
  return (calldataGas(txBytes) * scaled) / 16_000_000n;
}

const FJORD_INTERCEPT = -42_585_600n;
const FJORD_FASTLZ_COEF = 836_500n;
const FJORD_MIN_TX_SIZE_SCALED = 100n * 1_000_000n;

/** Fjord's estimated compressed size, scaled by 1e6: max(100e6, intercept + coef · fastlzSize). */
export function fjordEstimatedSizeScaled(fastLzSize: bigint): bigint {
  const est = FJORD_INTERCEPT + FJORD_FASTLZ_COEF * fastLzSize;
  return est < FJORD_MIN_TX_SIZE_SCALED ? FJORD_MIN_TX_SIZE_SCALED : est;
}

/** Fjord: estimatedSize · (16·l1BaseFee·baseFeeScalar + l1BlobBaseFee·blobBaseFeeScalar) / 1e12. */
export function fjordL1Cost(txBytes: Uint8Array, p: L1FeeParams): bigint {
  return fjordL1CostFromFastLzSize(BigInt(fastLzCompressedLength(txBytes)), p);
}

/** Fjord fee for a transaction whose FastLZ-compressed length is `fastLzSize`. */
export function fjordL1CostFromFastLzSize(fastLzSize: bigint, p: L1FeeParams): bigint {
  const size = fjordEstimatedSizeScaled(fastLzSize);
  const scaled = 16n * p.l1BaseFee * p.baseFeeScalar + p.l1BlobBaseFee * p.blobBaseFeeScalar;
  return (size * scaled) / 1_000_000_000_000n;
}

/**
 * The L1 data fee of a (non-deposit) transaction given its EIP-2718 bytes. The first Ecotone block
 * (scalars still unset in L1Block) uses the Bedrock formula, as op-geth does.
 */
export function l1DataFee(txBytes: Uint8Array, p: L1FeeParams, fork: OpFork, fastLzSize?: bigint): bigint {
  if (fork >= OpFork.Ecotone && (p.baseFeeScalar !== 0n || p.blobBaseFeeScalar !== 0n)) {
    if (fork >= OpFork.Fjord) {
      return fjordL1CostFromFastLzSize(fastLzSize ?? BigInt(fastLzCompressedLength(txBytes)), p);
    }
    return ecotoneL1Cost(txBytes, p);
  }
  return bedrockL1Cost(txBytes, p, fork >= OpFork.Regolith);
}

/**
 * Operator fee for `gas` units: Isthmus gas·scalar/1e6 + constant; Jovian gas·scalar·100 + constant.
 * Zero before Isthmus.
 */
export function operatorFee(gas: bigint, p: L1FeeParams, fork: OpFork): bigint {
  if (fork < OpFork.Isthmus) return 0n;
  if (fork >= OpFork.Jovian) return gas * p.operatorFeeScalar * 100n + p.operatorFeeConstant;
  return (gas * p.operatorFeeScalar) / 1_000_000n + p.operatorFeeConstant;
}

/** Jovian's default DA footprint gas scalar (used while L1Block holds zero). */
export const DEFAULT_DA_FOOTPRINT_GAS_SCALAR = 400n;

/**
 * Jovian DA footprint of a non-deposit transaction: max(100, (intercept + fastlzCoef·fastlzSize) / 1e6)
 * estimated bytes times daFootprintGasScalar.
 */
export function daFootprint(fastLzSize: bigint, daFootprintGasScalar: bigint): bigint {
  let estimate = (FJORD_INTERCEPT + FJORD_FASTLZ_COEF * fastLzSize) / 1_000_000n;
  if (estimate < 100n) estimate = 100n;
  const scalar = daFootprintGasScalar === 0n ? DEFAULT_DA_FOOTPRINT_GAS_SCALAR : daFootprintGasScalar;
  return estimate * scalar;
}
