/**
 * The L1 info deposit as derivation builds and reads it. The codec is src/chain's (`encodeL1InfoDeposit`,
 * `decodeL1InfoDeposit`, all four forms); this module picks the form of an L2 block (a fork's activation block
 * still uses the previous one: the L1Block contract is upgraded by that block's upgrade deposits, which come after
 * it), fills it from the L1 origin and the system config, and reads deposits as derivation must: Holocene and
 * later only (the Bedrock form is refused), every refusal a CriticalDeriveError.
 */
import {
  type BlockHeader,
  InvalidL1InfoError,
  type L1BlockInfo,
  type L1ChainConfig,
  type L1InfoFormat,
  OpFork,
  type RollupConfig,
  blobBaseFee,
  blobBaseFeeUpdateFraction,
  decodeL1InfoCalldata as decodeChainL1InfoCalldata,
  decodeL1InfoDeposit as decodeChainL1InfoDeposit,
  headerHash,
  isForkActivationBlock,
  isForkActive,
  ecotoneScalars,
} from "../../chain/index.js";
import { CriticalDeriveError } from "../errors.js";
import { DEFAULT_DA_FOOTPRINT_GAS_SCALAR, type SystemConfig } from "./system-config.js";

/** The forms derivation builds and accepts (Holocene and later). */
export type DerivedL1InfoFormat = Exclude<L1InfoFormat, "bedrock">;

/** The facts of an L1 origin block that attributes need (from its header; see `l1OriginFromHeader`). */
export interface L1OriginInfo {
  readonly number: bigint;
  readonly hash: Uint8Array;
  /** When given, checked against the L2 parent's origin on an epoch change. */
  readonly parentHash?: Uint8Array;
  readonly timestamp: bigint;
  readonly baseFee: bigint;
  /** The blob base fee the L1 info deposit states (see `l1OriginFromHeader`). */
  readonly blobBaseFee: bigint;
  /** L1 prevRandao, the L2 block's prevRandao. */
  readonly mixHash: Uint8Array;
  /** The L2 block's parent beacon block root (Ecotone+); zero when the L1 header has none. */
  readonly parentBeaconBlockRoot?: Uint8Array;
}

/**
 * The L1 origin facts of an L1 header. The blob base fee uses the update fraction in force on `l1` at the
 * header's time (Cancun, Prague, BPO forks; OP Sepolia and Base Sepolia keep Cancun's before the rollup's
 * `pectraBlobScheduleTime`); a header without excessBlobGas gives 1, as op-node and kona do.
 */
export function l1OriginFromHeader(
  header: BlockHeader,
  rollupConfig: RollupConfig,
  l1: L1ChainConfig,
): L1OriginInfo {
  const fee =
    header.excessBlobGas === undefined
      ? 1n
      : blobBaseFee(
          header.excessBlobGas,
          blobBaseFeeUpdateFraction(l1, header.timestamp, rollupConfig.pectraBlobScheduleTime),
        );
  return {
    number: header.number,
    hash: headerHash(header),
    parentHash: header.parentHash,
    timestamp: header.timestamp,
    baseFee: header.baseFeePerGas ?? 0n,
    blobBaseFee: fee,
    mixHash: header.mixHash,
    parentBeaconBlockRoot: header.parentBeaconBlockRoot,
  };
}

/**
 * The L1 info format of the L2 block at `l2Timestamp`. CriticalDeriveError before Holocene (the pipeline covers
 * Holocene and later only; the Bedrock format is out of scope).
 */
export function l1InfoFormatAt(rollupConfig: RollupConfig, l2Timestamp: bigint): DerivedL1InfoFormat {
  if (!isForkActive(rollupConfig, OpFork.Holocene, l2Timestamp))
    throw new CriticalDeriveError("attributes", "L2 blocks before Holocene are out of scope", {
      timestamp: l2Timestamp,
    });
  const past = (fork: OpFork): boolean =>
    isForkActive(rollupConfig, fork, l2Timestamp) && !isForkActivationBlock(rollupConfig, fork, l2Timestamp);
  if (past(OpFork.Jovian)) return "jovian";
  if (past(OpFork.Isthmus)) return "isthmus";
  return "ecotone";
}

/** The L1 info of the `sequenceNumber`-th L2 block of epoch `l1Origin`, at `l2Timestamp`. */
export function buildL1BlockInfo(input: {
  readonly rollupConfig: RollupConfig;
  readonly systemConfig: SystemConfig;
  readonly l1Origin: L1OriginInfo;
  readonly sequenceNumber: bigint;
  readonly l2Timestamp: bigint;
}): L1BlockInfo {
  const { systemConfig: sc, l1Origin } = input;
  const format = l1InfoFormatAt(input.rollupConfig, input.l2Timestamp);
  const scalars = ecotoneScalars(sc.scalar);
  const withOperatorFee = format !== "ecotone";
  return {
    format,
    number: l1Origin.number,
    timestamp: l1Origin.timestamp,
    baseFee: l1Origin.baseFee,
    blockHash: l1Origin.hash,
    sequenceNumber: input.sequenceNumber,
    batcherAddress: sc.batcherAddress,
    blobBaseFee: l1Origin.blobBaseFee,
    blobBaseFeeScalar: scalars.blobBaseFeeScalar,
    baseFeeScalar: scalars.baseFeeScalar,
    operatorFeeScalar: withOperatorFee ? sc.operatorFeeScalar : 0,
    operatorFeeConstant: withOperatorFee ? sc.operatorFeeConstant : 0n,
    daFootprintGasScalar:
      format === "jovian" ? sc.daFootprintGasScalar || DEFAULT_DA_FOOTPRINT_GAS_SCALAR : 0,
  };
}

function critical(e: unknown): never {
  if (!(e instanceof InvalidL1InfoError)) throw e;
  throw new CriticalDeriveError("attributes", e.message, e.details, { cause: e });
}

function holoceneForm(info: L1BlockInfo): L1BlockInfo {
  if (info.format === "bedrock")
    throw new CriticalDeriveError(
      "attributes",
      "invalid L1 info calldata: the Bedrock form is out of scope",
      {
        format: info.format,
      },
    );
  return info;
}

/** Decodes Ecotone, Isthmus or Jovian L1 info calldata. CriticalDeriveError for anything else. */
export function decodeL1InfoCalldata(data: Uint8Array): L1BlockInfo {
  try {
    return holoceneForm(decodeChainL1InfoCalldata(data));
  } catch (e) {
    return critical(e);
  }
}

/**
 * The L1 info of an L2 block's first transaction (its EIP-2718 encoding): a deposit from the depositor account to
 * L1Block whose source hash matches its contents, in a Holocene-era form. CriticalDeriveError otherwise.
 */
export function decodeL1InfoDeposit(encoded: Uint8Array): L1BlockInfo {
  try {
    return holoceneForm(decodeChainL1InfoDeposit(encoded));
  } catch (e) {
    return critical(e);
  }
}
