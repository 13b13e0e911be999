/**
 * EIP-4844 blob gas accounting of a block: the excess blob gas it carries, from its parent's header, under
 * the blob schedule in force (Prague's EIP-7691 target on L2 from Isthmus). With the update fraction of the
 * same schedule, `blobBaseFee` (chains/l1-chains.ts) turns it into the block's blob base fee; the node answers
 * `eth_blobBaseFee` with the two.
 */
import { BLOB_FEE_FRACTION_CANCUN, BLOB_FEE_FRACTION_PRAGUE } from "./chains/l1-chains.js";

/** A fork's blob gas schedule: target blob gas per block and the base fee update fraction. */
export interface BlobSchedule {
  readonly targetBlobGasPerBlock: bigint;
  readonly baseFeeUpdateFraction: bigint;
}

/** EIP-4844 (Cancun): 3 blobs of 131072 gas targeted per block. */
export const CANCUN_BLOB_SCHEDULE: BlobSchedule = {
  targetBlobGasPerBlock: 393_216n,
  baseFeeUpdateFraction: BLOB_FEE_FRACTION_CANCUN,
};

/** EIP-7691 (Prague; Isthmus on L2): 6 blobs targeted per block. */
export const PRAGUE_BLOB_SCHEDULE: BlobSchedule = {
  targetBlobGasPerBlock: 786_432n,
  baseFeeUpdateFraction: BLOB_FEE_FRACTION_PRAGUE,
};

/** The excess blob gas of a block, from its parent header's excess and used blob gas (absent: 0). */
export function nextExcessBlobGas(
  parent: { readonly excessBlobGas?: bigint; readonly blobGasUsed?: bigint },
  schedule: BlobSchedule = PRAGUE_BLOB_SCHEDULE,
): bigint {
  const total = (parent.excessBlobGas ?? 0n) + (parent.blobGasUsed ?? 0n);
  return total > schedule.targetBlobGasPerBlock ? total - schedule.targetBlobGasPerBlock : 0n;
}
