/**
 * The L1 info deposit, first transaction of every L2 block (specs/protocol/deposits.md, ecotone/l1-attributes.md,
 * isthmus/l1-attributes.md, jovian/l1-attributes.md): the one codec of its calldata and of the deposit that carries
 * it, used by derivation, the node (sequencer, receipts, sync status), the dev chain and the batcher.
 *
 * Four calldata forms, by selector: Bedrock's ABI-encoded `setL1BlockValues` (260 bytes) and the packed Ecotone
 * (164), Isthmus (176) and Jovian (178) forms. The deposit is sent from the depositor account to the L1Block
 * predeploy with 1M gas, and its source hash is of domain 1 over the L1 block hash and the sequence number.
 */
import { keccak_256 } from "@noble/hashes/sha3.js";
import {
  type DepositTransaction,
  InvalidTransactionEncodingError,
  decodeDepositTransaction,
  encodeDepositTransaction,
} from "./deposit-tx.js";
import { ChainError } from "./errors.js";
import { bigIntToWord, bytesEqual, bytesToBigInt, concatBytes, fromHex, toHex } from "./hex.js";

/** The depositor account: `from` of L1 info deposits and of the Isthmus/Jovian "set fork" deposits. */
export const L1_INFO_DEPOSITOR = fromHex("0xdeaddeaddeaddeaddeaddeaddeaddeaddead0001");
/** The L1Block predeploy, `to` of the L1 info deposit. */
export const L1_BLOCK_ADDRESS = fromHex("0x4200000000000000000000000000000000000015");
/** Gas limit of the L1 info deposit (Regolith and later). */
export const L1_INFO_DEPOSIT_GAS = 1_000_000n;

export type L1InfoFormat = "bedrock" | "ecotone" | "isthmus" | "jovian";

/** `setL1BlockValues()`, `setL1BlockValuesEcotone()`, `setL1BlockValuesIsthmus()`, `setL1BlockValuesJovian()`. */
export const L1_INFO_SELECTORS: Readonly<Record<L1InfoFormat, Uint8Array>> = {
  bedrock: fromHex("015d8eb9"),
  ecotone: fromHex("440a5e20"),
  isthmus: fromHex("098999be"),
  jovian: fromHex("3db6be2b"),
};
/** Calldata length of each form. */
export const L1_INFO_LENGTHS: Readonly<Record<L1InfoFormat, number>> = {
  bedrock: 4 + 8 * 32,
  ecotone: 164,
  isthmus: 176,
  jovian: 178,
};

/**
 * What an L1 info deposit states. Fields a form lacks are 0: the blob base fee and the Ecotone scalars in the
 * Bedrock form, the operator fee before Isthmus, the DA footprint scalar before Jovian. The Bedrock form's fee
 * parameters (`l1FeeOverhead`, `l1FeeScalar`) are present in that form only.
 */
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
  readonly l1FeeOverhead?: bigint;
  readonly l1FeeScalar?: bigint;
}

/** Calldata or a deposit that is not a well-formed L1 info deposit. */
export class InvalidL1InfoError extends ChainError {
  override readonly name = "InvalidL1InfoError";
  constructor(message: string, details: Record<string, unknown> = {}, cause?: unknown) {
    super(message, "invalid-l1-info", { details, cause });
  }
}

/** Source hash of the L1 info deposit of the `sequenceNumber`-th L2 block of epoch `l1BlockHash`. */
export function l1InfoSourceHash(l1BlockHash: Uint8Array, sequenceNumber: bigint): Uint8Array {
  return depositSourceHash(1n, hashAndIndex(l1BlockHash, sequenceNumber));
}

/** Source hash of the user deposit emitted by log `logIndex` (counted over the whole L1 block) of `l1BlockHash`. */
export function userDepositSourceHash(l1BlockHash: Uint8Array, logIndex: bigint): Uint8Array {
  return depositSourceHash(0n, hashAndIndex(l1BlockHash, logIndex));
}

/** Source hash of a network upgrade deposit with the given intent (e.g. "Isthmus: L1 Block Deployment"). */
export function upgradeDepositSourceHash(intent: string): Uint8Array {
  return depositSourceHash(2n, new TextEncoder().encode(intent));
}

/** `keccak256(bytes32(domain) ‖ keccak256(payload))` (specs/protocol/deposits.md, "Source hash computation"). */
function depositSourceHash(domain: bigint, payload: Uint8Array): Uint8Array {
  return keccak_256(concatBytes(bigIntToWord(domain), keccak_256(payload)));
}

function hashAndIndex(blockHash: Uint8Array, index: bigint): Uint8Array {
  if (blockHash.length !== 32) throw new RangeError("an L1 block hash is 32 bytes");
  return concatBytes(blockHash, bigIntToWord(index));
}

/** `value` big-endian in `width` bytes; RangeError when it does not fit. */
function uint(value: bigint, width: number): Uint8Array {
  if (value < 0n || value >= 1n << BigInt(8 * width))
    throw new RangeError(`value ${value} does not fit ${width} bytes`);
  return bigIntToWord(value, width);
}

/** An ABI word holding a `width`-byte unsigned integer. */
function abiUint(value: bigint, width: number): Uint8Array {
  uint(value, width);
  return bigIntToWord(value);
}

function fixed(bytes: Uint8Array, width: number, what: string): Uint8Array {
  if (bytes.length !== width) throw new RangeError(`the ${what} must be ${width} bytes`);
  return bytes;
}

/**
 * The calldata of `info` in its form. Packed forms: selector ‖ baseFeeScalar u32 ‖ blobBaseFeeScalar u32 ‖
 * sequenceNumber u64 ‖ timestamp u64 ‖ number u64 ‖ baseFee u256 ‖ blobBaseFee u256 ‖ blockHash ‖ batcher (32,
 * left-padded); Isthmus adds operatorFeeScalar u32 ‖ operatorFeeConstant u64; Jovian adds daFootprintGasScalar u16.
 * Bedrock: the ABI words number, timestamp, baseFee, blockHash, sequenceNumber, batcher, overhead, scalar.
 */
export function encodeL1InfoCalldata(info: L1BlockInfo): Uint8Array {
  const blockHash = fixed(info.blockHash, 32, "L1 block hash");
  const batcher = bigIntToWord(bytesToBigInt(fixed(info.batcherAddress, 20, "batcher address")));
  if (info.format === "bedrock")
    return concatBytes(
      L1_INFO_SELECTORS.bedrock,
      abiUint(info.number, 8),
      abiUint(info.timestamp, 8),
      uint(info.baseFee, 32),
      blockHash,
      abiUint(info.sequenceNumber, 8),
      batcher,
      uint(info.l1FeeOverhead ?? 0n, 32),
      uint(info.l1FeeScalar ?? 0n, 32),
    );
  const parts = [
    L1_INFO_SELECTORS[info.format],
    uint(BigInt(info.baseFeeScalar), 4),
    uint(BigInt(info.blobBaseFeeScalar), 4),
    uint(info.sequenceNumber, 8),
    uint(info.timestamp, 8),
    uint(info.number, 8),
    uint(info.baseFee, 32),
    uint(info.blobBaseFee, 32),
    blockHash,
    batcher,
  ];
  if (info.format !== "ecotone")
    parts.push(uint(BigInt(info.operatorFeeScalar), 4), uint(info.operatorFeeConstant, 8));
  if (info.format === "jovian") parts.push(uint(BigInt(info.daFootprintGasScalar), 2));
  return concatBytes(...parts);
}

function isZero(data: Uint8Array, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (data[i] !== 0) return false;
  return true;
}

/** The form of `data` by its selector and length; InvalidL1InfoError for anything else. */
export function l1InfoFormatOf(data: Uint8Array): L1InfoFormat {
  const selector = data.subarray(0, 4);
  const format = (Object.keys(L1_INFO_SELECTORS) as L1InfoFormat[]).find((f) =>
    bytesEqual(L1_INFO_SELECTORS[f], selector),
  );
  if (format === undefined)
    throw new InvalidL1InfoError("invalid L1 info calldata: unknown selector", { selector: toHex(selector) });
  if (data.length !== L1_INFO_LENGTHS[format])
    throw new InvalidL1InfoError(
      `invalid L1 info calldata: ${format} calldata must be ${L1_INFO_LENGTHS[format]} bytes`,
      {
        format,
        length: data.length,
      },
    );
  return format;
}

/** Decodes L1 info calldata of any of the four forms. InvalidL1InfoError for anything else. */
export function decodeL1InfoCalldata(data: Uint8Array): L1BlockInfo {
  const format = l1InfoFormatOf(data);
  const read = (from: number, to: number): bigint => bytesToBigInt(data.subarray(from, to));
  const padded = (from: number, to: number, what: string): void => {
    if (!isZero(data, from, to))
      throw new InvalidL1InfoError(`invalid L1 info calldata: the ${what} is not padded`, { format });
  };
  if (format === "bedrock") {
    const word = (i: number): number => 4 + 32 * i;
    for (const [i, what] of [
      [0, "number"],
      [1, "timestamp"],
      [4, "sequence number"],
    ] as const)
      padded(word(i), word(i) + 24, what);
    padded(word(5), word(5) + 12, "batcher hash");
    return {
      format,
      number: read(word(0), word(1)),
      timestamp: read(word(1), word(2)),
      baseFee: read(word(2), word(3)),
      blockHash: data.slice(word(3), word(4)),
      sequenceNumber: read(word(4), word(5)),
      batcherAddress: data.slice(word(5) + 12, word(6)),
      blobBaseFee: 0n,
      blobBaseFeeScalar: 0,
      baseFeeScalar: 0,
      operatorFeeScalar: 0,
      operatorFeeConstant: 0n,
      daFootprintGasScalar: 0,
      l1FeeOverhead: read(word(6), word(7)),
      l1FeeScalar: read(word(7), word(8)),
    };
  }
  padded(132, 144, "batcher hash");
  const isthmusOrLater = format !== "ecotone";
  return {
    format,
    baseFeeScalar: Number(read(4, 8)),
    blobBaseFeeScalar: Number(read(8, 12)),
    sequenceNumber: read(12, 20),
    timestamp: read(20, 28),
    number: read(28, 36),
    baseFee: read(36, 68),
    blobBaseFee: read(68, 100),
    blockHash: data.slice(100, 132),
    batcherAddress: data.slice(144, 164),
    operatorFeeScalar: isthmusOrLater ? Number(read(164, 168)) : 0,
    operatorFeeConstant: isthmusOrLater ? read(168, 176) : 0n,
    daFootprintGasScalar: format === "jovian" ? Number(read(176, 178)) : 0,
  };
}

/*
 * The system config's fee scalar word (Ecotone format): byte 0 the version (0 or 1); version 1 carries the blob
 * base fee scalar in bytes 24..28 and the base fee scalar in 28..32, version 0 only the base fee scalar. The L1
 * info deposit states the two scalars it encodes.
 */

/** The Ecotone fee scalars a scalar word encodes (op-node `EcotoneScalars`). */
export function ecotoneScalars(scalar: Uint8Array): { baseFeeScalar: number; blobBaseFeeScalar: number } {
  const view = new DataView(scalar.buffer, scalar.byteOffset, 32);
  return {
    blobBaseFeeScalar: scalar[0] === 1 ? view.getUint32(24) : 0,
    baseFeeScalar: view.getUint32(28),
  };
}

/** A version-1 scalar word from the two Ecotone scalars. */
export function encodeEcotoneScalar(baseFeeScalar: number, blobBaseFeeScalar: number): Uint8Array {
  const out = new Uint8Array(32);
  const view = new DataView(out.buffer);
  out[0] = 1;
  view.setUint32(24, blobBaseFeeScalar);
  view.setUint32(28, baseFeeScalar);
  return out;
}

/** Whether `scalar` is a valid Ecotone scalar word (version 0 or 1 with zero padding). */
export function isValidEcotoneScalar(scalar: Uint8Array): boolean {
  if (scalar.length !== 32) return false;
  if (scalar[0] === 0) return isZero(scalar, 1, 28);
  if (scalar[0] === 1) return isZero(scalar, 1, 24);
  return false;
}

/** The L1 info deposit transaction of `info`. */
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
 * depositor account to L1Block whose source hash matches its contents. InvalidL1InfoError otherwise.
 */
export function decodeL1InfoDeposit(encoded: Uint8Array): L1BlockInfo {
  let tx: DepositTransaction;
  try {
    tx = decodeDepositTransaction(encoded);
  } catch (e) {
    if (!(e instanceof InvalidTransactionEncodingError)) throw e;
    throw new InvalidL1InfoError("the first transaction is not a deposit", {}, e);
  }
  if (!bytesEqual(tx.from, L1_INFO_DEPOSITOR) || tx.to === undefined || !bytesEqual(tx.to, L1_BLOCK_ADDRESS))
    throw new InvalidL1InfoError("the first deposit is not an L1 info deposit", { from: toHex(tx.from) });
  const info = decodeL1InfoCalldata(tx.data);
  if (!bytesEqual(tx.sourceHash, l1InfoSourceHash(info.blockHash, info.sequenceNumber)))
    throw new InvalidL1InfoError("the L1 info deposit's source hash does not match its calldata", {
      sourceHash: toHex(tx.sourceHash),
    });
  return info;
}

/** The L1 info of a block's first transaction, or undefined when it is not an L1 info deposit (receipts, the dev sequencer). */
export function l1InfoOfFirstTransaction(first: Uint8Array | undefined): L1BlockInfo | undefined {
  if (first === undefined) return undefined;
  try {
    return decodeL1InfoDeposit(first);
  } catch (e) {
    if (e instanceof InvalidL1InfoError) return undefined;
    throw e;
  }
}
