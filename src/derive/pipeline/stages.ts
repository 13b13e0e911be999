/**
 * The driver's use of the other stages, each behind one small function: reading an agreed L2 block
 * (attributes: L1 info deposit, system config), retrieval of an L1 block's batcher data (retrieval + blob), and
 * building a block's attributes (attributes).
 */
import { deriveUserDeposits } from "../attributes/deposits.js";
import { decodeL1InfoDeposit } from "../attributes/l1-info.js";
import { type SystemConfig, systemConfigFromL2Block } from "../attributes/index.js";
import { CriticalDeriveError } from "../errors.js";
import type { L2Block } from "../providers.js";
import type { DerivationConfig, L2BlockRef } from "../types.js";

/** What derivation reads from an agreed L2 block: its reference and the system config after it. */
export interface L2BlockInfo {
  readonly ref: L2BlockRef;
  readonly systemConfig: SystemConfig;
}

/** Reads an L2 block's L1 origin, sequence number and system config from its L1 info deposit and header. */
export function l2BlockInfo(config: DerivationConfig, block: L2Block): L2BlockInfo {
  const first = block.transactions[0];
  if (first === undefined) {
    throw new CriticalDeriveError("driver", "the L2 block has no L1 info deposit", {
      number: block.header.number,
    });
  }
  const info = decodeL1InfoDeposit(first);
  return {
    ref: {
      number: block.header.number,
      hash: block.hash,
      parentHash: block.header.parentHash,
      timestamp: block.header.timestamp,
      l1Origin: { number: info.number, hash: info.blockHash },
      sequenceNumber: info.sequenceNumber,
    },
    systemConfig: systemConfigFromL2Block(block.header, info, config.rollup),
  };
}

/** User deposits of an L1 block's receipts (TransactionDeposited logs of the portal). */
export function userDeposits(
  config: DerivationConfig,
  receipts: Parameters<typeof deriveUserDeposits>[0],
  l1BlockHash: Uint8Array,
): Uint8Array[] {
  return deriveUserDeposits(receipts, config.depositContractAddress, l1BlockHash);
}
