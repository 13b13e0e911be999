/**
 * The dev chain's synthetic L1 origin and the L1 attributes deposit that opens every block.
 *
 * There is no L1: the origin is a deterministic pretend L1 chain with a 12 s block time starting at
 * the L2 genesis time. Its block number is floor((l2Time - genesisTime) / 12), its hash and beacon
 * root are keccak256 of a label and the number, base fee 1 gwei, blob base fee 1 wei, Base's fee
 * scalars, no operator fee. The deposit is the Isthmus form of src/chain/l1-info.ts, the one L1 info codec.
 */
import { keccak_256 } from "@noble/hashes/sha3.js";
import { bigIntToWord, concatBytes } from "../hex.js";
import { type L1BlockInfo, encodeL1InfoCalldata, encodeL1InfoDeposit } from "../l1-info.js";

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

/** The L1 info the dev chain's `sequenceNumber`-th block of epoch `origin` states (Isthmus form, no batcher). */
export function devL1Info(origin: L1Origin, sequenceNumber: bigint): L1BlockInfo {
  return {
    format: "isthmus",
    number: origin.number,
    timestamp: origin.timestamp,
    baseFee: origin.baseFee,
    blockHash: origin.hash,
    sequenceNumber,
    batcherAddress: new Uint8Array(20),
    blobBaseFee: origin.blobBaseFee,
    baseFeeScalar: Number(DEV_FEE_SCALARS.baseFeeScalar),
    blobBaseFeeScalar: Number(DEV_FEE_SCALARS.blobBaseFeeScalar),
    operatorFeeScalar: Number(DEV_FEE_SCALARS.operatorFeeScalar),
    operatorFeeConstant: DEV_FEE_SCALARS.operatorFeeConstant,
    daFootprintGasScalar: 0,
  };
}

/** setL1BlockValuesIsthmus calldata (176 bytes) of the dev chain's block. */
export function l1InfoCalldata(origin: L1Origin, sequenceNumber: bigint): Uint8Array {
  return encodeL1InfoCalldata(devL1Info(origin, sequenceNumber));
}

/** The EIP-2718 encoded L1 attributes deposit of the dev chain's block. */
export function l1InfoDeposit(origin: L1Origin, sequenceNumber: bigint): Uint8Array {
  return encodeL1InfoDeposit(devL1Info(origin, sequenceNumber));
}
