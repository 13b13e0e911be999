/**
 * The L1 info deposit, first transaction of every L2 block (specs/protocol/deposits.md, ecotone/l1-attributes.md,
 * isthmus/l1-attributes.md, jovian/l1-attributes.md): calldata in the Ecotone (164 bytes), Isthmus (176) or
 * Jovian (178) packed format, sent from the depositor account to the L1Block predeploy. A fork's activation
 * block still uses the previous format (the L1Block contract is upgraded by that block's upgrade deposits, which
 * come after it). Holocene and later only: the Bedrock format is refused.
 */
import {
  type BlockHeader,
  type DepositTransaction,
  InvalidTransactionEncodingError,
  type L1ChainConfig,
  OpFork,
  type RollupConfig,
  blobBaseFee,
  blobBaseFeeUpdateFraction,
  decodeDepositTransaction,
  encodeDepositTransaction,
  headerHash,
  isForkActivationBlock,
  isForkActive,
  bytesEqual,
  fromHex,
  toHex,
} from "../../chain/index.js";
import { CriticalDeriveError } from "../errors.js";
import { isZeroRange, readUint, writeUint } from "./bytes.js";
import { l1InfoSourceHash } from "./source-hash.js";
import { DEFAULT_DA_FOOTPRINT_GAS_SCALAR, type SystemConfig, ecotoneScalars } from "./system-config.js";

/** The depositor account: `from` of L1 info and Isthmus/Jovian "set fork" deposits. */
export const L1_INFO_DEPOSITOR = fromHex("0xdeaddeaddeaddeaddeaddeaddeaddeaddead0001");
/** The L1Block predeploy. */
export const L1_BLOCK_ADDRESS = fromHex("0x4200000000000000000000000000000000000015");
/** Gas limit of the L1 info deposit (Regolith and later). */
export const L1_INFO_DEPOSIT_GAS = 1_000_000n;

export type L1InfoFormat = "ecotone" | "isthmus" | "jovian";

/** `setL1BlockValuesEcotone()`, `setL1BlockValuesIsthmus()`, `setL1BlockValuesJovian()`. */
export const L1_INFO_SELECTORS: Readonly<Record<L1InfoFormat, Uint8Array>> = {
  ecotone: fromHex("440a5e20"),
  isthmus: fromHex("098999be"),
  jovian: fromHex("3db6be2b"),
};
export const L1_INFO_LENGTHS: Readonly<Record<L1InfoFormat, number>> = {
  ecotone: 164,
  isthmus: 176,
  jovian: 178,
};

/** What an L1 info deposit states. Fields a format lacks are 0 (operator fee before Isthmus, DA scalar before Jovian). */
export interface L1BlockInfo {
  readonly format: L1InfoFormat;
  readonly number: bigint;
  readonly timestamp: bigint;
  readonly baseFee: bigint;
  readonly blockHash: Uint8Array;
  readonly sequenceNumber: bigint;
  readonly batcherAddress: Uint8Array;
  readonly blobBaseFee: bigint;
  readonly blobBaseFeeScalar: number;
  readonly baseFeeScalar: number;
  readonly operatorFeeScalar: number;
  readonly operatorFeeConstant: bigint;
  readonly daFootprintGasScalar: number;
}

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
export function l1InfoFormatAt(rollupConfig: RollupConfig, l2Timestamp: bigint): L1InfoFormat {
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

/**
 * Packed calldata: selector ‖ baseFeeScalar u32 ‖ blobBaseFeeScalar u32 ‖ sequenceNumber u64 ‖ timestamp u64 ‖
 * number u64 ‖ baseFee u256 ‖ blobBaseFee u256 ‖ blockHash ‖ batcher (32, left-padded); Isthmus adds
 * operatorFeeScalar u32 ‖ operatorFeeConstant u64; Jovian adds daFootprintGasScalar u16.
 */
export function encodeL1InfoCalldata(info: L1BlockInfo): Uint8Array {
  const out = new Uint8Array(L1_INFO_LENGTHS[info.format]);
  out.set(L1_INFO_SELECTORS[info.format], 0);
  writeUint(out, 4, 4, BigInt(info.baseFeeScalar));
  writeUint(out, 8, 4, BigInt(info.blobBaseFeeScalar));
  writeUint(out, 12, 8, info.sequenceNumber);
  writeUint(out, 20, 8, info.timestamp);
  writeUint(out, 28, 8, info.number);
  writeUint(out, 36, 32, info.baseFee);
  writeUint(out, 68, 32, info.blobBaseFee);
  if (info.blockHash.length !== 32) throw new RangeError("the L1 block hash must be 32 bytes");
  out.set(info.blockHash, 100);
  if (info.batcherAddress.length !== 20) throw new RangeError("the batcher address must be 20 bytes");
  out.set(info.batcherAddress, 144);
  if (info.format !== "ecotone") {
    writeUint(out, 164, 4, BigInt(info.operatorFeeScalar));
    writeUint(out, 168, 8, info.operatorFeeConstant);
  }
  if (info.format === "jovian") writeUint(out, 176, 2, BigInt(info.daFootprintGasScalar));
  return out;
}

function invalid(message: string, details: Record<string, unknown>): never {
  throw new CriticalDeriveError("attributes", `invalid L1 info calldata: ${message}`, details);
}

/** Decodes Ecotone, Isthmus or Jovian L1 info calldata. CriticalDeriveError for anything else. */
export function decodeL1InfoCalldata(data: Uint8Array): L1BlockInfo {
  const selector = data.subarray(0, 4);
  const format = (Object.keys(L1_INFO_SELECTORS) as L1InfoFormat[]).find((f) =>
    bytesEqual(L1_INFO_SELECTORS[f], selector),
  );
  if (format === undefined)
    invalid("unknown selector (Bedrock or not an L1 info deposit)", { selector: toHex(selector) });
  if (data.length !== L1_INFO_LENGTHS[format])
    invalid(`${format} calldata must be ${L1_INFO_LENGTHS[format]} bytes`, { length: data.length });
  if (!isZeroRange(data, 132, 144)) invalid("the batcher hash is not a padded address", { format });
  const isthmusOrLater = format !== "ecotone";
  return {
    format,
    baseFeeScalar: Number(readUint(data, 4, 8)),
    blobBaseFeeScalar: Number(readUint(data, 8, 12)),
    sequenceNumber: readUint(data, 12, 20),
    timestamp: readUint(data, 20, 28),
    number: readUint(data, 28, 36),
    baseFee: readUint(data, 36, 68),
    blobBaseFee: readUint(data, 68, 100),
    blockHash: data.slice(100, 132),
    batcherAddress: data.slice(144, 164),
    operatorFeeScalar: isthmusOrLater ? Number(readUint(data, 164, 168)) : 0,
    operatorFeeConstant: isthmusOrLater ? readUint(data, 168, 176) : 0n,
    daFootprintGasScalar: format === "jovian" ? Number(readUint(data, 176, 178)) : 0,
  };
}

/** The L1 info deposit transaction of `info` (source hash domain 1 over the L1 block hash and sequence number). */
export function l1InfoDepositTransaction(info: L1BlockInfo): DepositTransaction {
  return {
    kind: "deposit",
    sourceHash: l1InfoSourceHash(info.blockHash, info.sequenceNumber),
    from: L1_INFO_DEPOSITOR,
    to: L1_BLOCK_ADDRESS,
    mint: 0n,
    value: 0n,
    gasLimit: L1_INFO_DEPOSIT_GAS,
    isSystemTx: false,
    data: encodeL1InfoCalldata(info),
  };
}

/** The EIP-2718 encoding of the L1 info deposit of `info`. */
export function encodeL1InfoDeposit(info: L1BlockInfo): Uint8Array {
  return encodeDepositTransaction(l1InfoDepositTransaction(info));
}

/**
 * The L1 info of an L2 block's first transaction (its EIP-2718 encoding): checks that it is a deposit from the
 * depositor account to L1Block whose source hash matches its contents. CriticalDeriveError otherwise.
 */
export function decodeL1InfoDeposit(encoded: Uint8Array): L1BlockInfo {
  let tx: DepositTransaction;
  try {
    tx = decodeDepositTransaction(encoded);
  } catch (e) {
    if (!(e instanceof InvalidTransactionEncodingError)) throw e;
    throw new CriticalDeriveError("attributes", "the first transaction is not a deposit", {}, { cause: e });
  }
  if (!bytesEqual(tx.from, L1_INFO_DEPOSITOR) || tx.to === undefined || !bytesEqual(tx.to, L1_BLOCK_ADDRESS))
    throw new CriticalDeriveError("attributes", "the first deposit is not an L1 info deposit", {
      from: toHex(tx.from),
    });
  const info = decodeL1InfoCalldata(tx.data);
  if (!bytesEqual(tx.sourceHash, l1InfoSourceHash(info.blockHash, info.sequenceNumber)))
    throw new CriticalDeriveError(
      "attributes",
      "the L1 info deposit's source hash does not match its calldata",
      {
        sourceHash: toHex(tx.sourceHash),
      },
    );
  return info;
}
