/**
 * The dev chain's synthetic L1 origin and the L1 attributes deposit that opens every block.
 *
 * There is no L1: the origin is a deterministic pretend L1 chain with a 12 s block time starting at
 * the L2 genesis time. Its block number is floor((l2Time - genesisTime) / 12), its hash and beacon
 * root are keccak256 of a label and the number, base fee 1 gwei, blob base fee 1 wei, Base's fee
 * scalars, no operator fee. The deposit itself follows the OP spec: Isthmus calldata
 * (setL1BlockValuesIsthmus), depositor 0xdead…0001, 1M gas, source hash of domain 1.
 */
import { keccak_256 } from "@noble/hashes/sha3.js";
import { decodeDepositTransaction, encodeDepositTransaction } from "../deposit-tx.js";
import { bigIntToWord, concatBytes, fromHex } from "../hex.js";
import { PREDEPLOY } from "./predeploys.js";

export const DEPOSITOR_ACCOUNT = fromHex("0xdeaddeaddeaddeaddeaddeaddeaddeaddead0001");
const SET_L1_BLOCK_VALUES_ISTHMUS = fromHex("0x098999be");
const L1_INFO_DEPOSIT_GAS = 1_000_000n;
const L1_BLOCK_TIME = 12n;

export interface L1Origin {
  number: bigint;
  timestamp: bigint;
  hash: Uint8Array;
  baseFee: bigint;
  blobBaseFee: bigint;
  /** Parent beacon block root handed to the L2 block (EIP-4788). */
  beaconRoot: Uint8Array;
}

export const DEV_FEE_SCALARS = {
  baseFeeScalar: 2269n,
  blobBaseFeeScalar: 1055762n,
  operatorFeeScalar: 0n,
  operatorFeeConstant: 0n,
} as const;

function labelled(label: string, n: bigint): Uint8Array {
  return keccak_256(concatBytes(new TextEncoder().encode(label), bigIntToWord(n)));
}

export function syntheticL1Origin(genesisTime: bigint, l2Timestamp: bigint): L1Origin {
  const number = l2Timestamp > genesisTime ? (l2Timestamp - genesisTime) / L1_BLOCK_TIME : 0n;
  return {
    number,
    timestamp: genesisTime + number * L1_BLOCK_TIME,
    hash: labelled("op-enclave-suite dev L1 block", number),
    baseFee: 1_000_000_000n,
    blobBaseFee: 1n,
    beaconRoot: labelled("op-enclave-suite dev L1 beacon root", number),
  };
}

function be(value: bigint, bytes: number): Uint8Array {
  return bigIntToWord(value, bytes);
}

/** setL1BlockValuesIsthmus calldata (176 bytes). */
export function l1InfoCalldata(origin: L1Origin, sequenceNumber: bigint): Uint8Array {
  return concatBytes(
    SET_L1_BLOCK_VALUES_ISTHMUS,
    be(DEV_FEE_SCALARS.baseFeeScalar, 4),
    be(DEV_FEE_SCALARS.blobBaseFeeScalar, 4),
    be(sequenceNumber, 8),
    be(origin.timestamp, 8),
    be(origin.number, 8),
    be(origin.baseFee, 32),
    be(origin.blobBaseFee, 32),
    origin.hash,
    new Uint8Array(32), // batcher hash: no batcher on the dev chain
    be(DEV_FEE_SCALARS.operatorFeeScalar, 4),
    be(DEV_FEE_SCALARS.operatorFeeConstant, 8),
  );
}

/** OP source hash of an L1 info deposit: keccak256(bytes32(1) ‖ keccak256(l1Hash ‖ bytes32(seq))). */
export function l1InfoSourceHash(l1Hash: Uint8Array, sequenceNumber: bigint): Uint8Array {
  const depositId = keccak_256(concatBytes(l1Hash, bigIntToWord(sequenceNumber)));
  return keccak_256(concatBytes(bigIntToWord(1n), depositId));
}

/** The EIP-2718 encoded L1 attributes deposit. */
export function l1InfoDeposit(origin: L1Origin, sequenceNumber: bigint): Uint8Array {
  return encodeDepositTransaction({
    sourceHash: l1InfoSourceHash(origin.hash, sequenceNumber),
    from: DEPOSITOR_ACCOUNT,
    to: fromHex(PREDEPLOY.L1Block),
    mint: 0n,
    value: 0n,
    gasLimit: L1_INFO_DEPOSIT_GAS,
    isSystemTx: false,
    data: l1InfoCalldata(origin, sequenceNumber),
  });
}

/** The L1 fee inputs carried by a block's first transaction (for receipts); undefined if absent. */
export function decodeL1InfoCalldata(data: Uint8Array): { baseFee: bigint; blobBaseFee: bigint } | undefined {
  if (data.length !== 176) return undefined;
  const big = (from: number, to: number): bigint =>
    BigInt(`0x${Buffer.from(data.subarray(from, to)).toString("hex")}`);
  return { baseFee: big(36, 68), blobBaseFee: big(68, 100) };
}

/** The L1 fee inputs an L1 info deposit states (receipts report them). */
export interface L1InfoFees {
  baseFee: bigint;
  blobBaseFee: bigint;
  baseFeeScalar: bigint;
  blobBaseFeeScalar: bigint;
  /** Zero in the Ecotone format. */
  operatorFeeScalar: bigint;
  operatorFeeConstant: bigint;
}

/** Calldata length of each L1 info format by selector: Ecotone, Isthmus, Jovian. */
const L1_INFO_FORMATS: Record<string, number> = { "440a5e20": 164, "098999be": 176, "3db6be2b": 178 };

/**
 * The fee inputs of a block's L1 info deposit (its EIP-2718 bytes), in the Ecotone, Isthmus or Jovian format:
 * the standalone chain's synthetic deposits and the L1-backed chain's alike. Undefined when `deposit` is not one.
 */
export function l1InfoFeesOfDeposit(deposit: Uint8Array): L1InfoFees | undefined {
  if (deposit[0] !== 0x7e) return undefined;
  let data: Uint8Array;
  try {
    data = decodeDepositTransaction(deposit).data;
  } catch {
    return undefined;
  }
  const length = L1_INFO_FORMATS[Buffer.from(data.subarray(0, 4)).toString("hex")];
  if (length === undefined || data.length !== length) return undefined;
  const big = (from: number, to: number): bigint =>
    BigInt(`0x${Buffer.from(data.subarray(from, to)).toString("hex")}`);
  return {
    baseFeeScalar: big(4, 8),
    blobBaseFeeScalar: big(8, 12),
    baseFee: big(36, 68),
    blobBaseFee: big(68, 100),
    operatorFeeScalar: length > 164 ? big(164, 168) : 0n,
    operatorFeeConstant: length > 164 ? big(168, 176) : 0n,
  };
}
