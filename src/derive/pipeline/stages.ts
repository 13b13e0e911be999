/**
 * The driver's use of the other stages, each behind one small function: reading an agreed L2 block
 * (attributes: L1 info deposit, system config), retrieval of an L1 block's batcher data (retrieval + blob), and
 * building a block's attributes (attributes).
 */
import { bytesEqual, toHex } from "../../chain/index.js";
import { type DerivedPayloadAttributes, buildPayloadAttributes } from "../attributes/builder.js";
import { deriveUserDeposits } from "../attributes/deposits.js";
import { decodeL1InfoDeposit, l1OriginFromHeader } from "../attributes/l1-info.js";
import { type SystemConfig, systemConfigFromGenesis, systemConfigFromL2Block } from "../attributes/index.js";
import { CriticalDeriveError, DataMissingError, type DroppedInputError } from "../errors.js";
import type { BlobProvider, L1Provider, L2Block } from "../providers.js";
import { retrieveBatcherData } from "../retrieval/retrieval.js";
import type { L1BlockData } from "../traversal/index.js";
import { type DerivationConfig, type L2BlockRef, type SingularBatchData } from "../types.js";

/** What derivation reads from an agreed L2 block: its reference and the system config after it. */
export interface L2BlockInfo {
  readonly ref: L2BlockRef;
  readonly systemConfig: SystemConfig;
}

/**
 * Reads an L2 block's L1 origin, sequence number and system config from its L1 info deposit and header. The L2
 * genesis block has no deposit: its origin is the genesis L1 block and its system config the rollup config's.
 */
export function l2BlockInfo(config: DerivationConfig, block: L2Block): L2BlockInfo {
  if (block.header.number === config.genesisL2.number) {
    if (!bytesEqual(block.hash, config.genesisL2.hash)) {
      throw new CriticalDeriveError("driver", "the L2 genesis block is not the rollup config's", {
        hash: toHex(block.hash),
        expected: toHex(config.genesisL2.hash),
      });
    }
    return {
      ref: {
        number: block.header.number,
        hash: block.hash,
        parentHash: block.header.parentHash,
        timestamp: block.header.timestamp,
        l1Origin: config.genesisL1,
        sequenceNumber: 0n,
      },
      systemConfig: systemConfigFromGenesis(config.rollup.genesis!.systemConfig),
    };
  }
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

/**
 * The batcher data items of L1 block `block` (retrieval): its transactions from the L1 provider (missing ones are
 * data missing), filtered by the batch inbox and the batcher of `systemConfig`, blobs fetched and verified.
 */
export async function batcherData(
  config: DerivationConfig,
  block: L1BlockData,
  systemConfig: SystemConfig,
  l1: L1Provider,
  blobs: BlobProvider,
  onDrop?: (error: DroppedInputError) => void,
): Promise<Uint8Array[]> {
  const transactions = await l1.transactionsByHash(block.ref.hash);
  if (transactions === undefined) {
    throw new DataMissingError("retrieval", "L1 transactions not available", {
      number: block.ref.number,
      hash: toHex(block.ref.hash),
    });
  }
  const items = await retrieveBatcherData(
    block.ref,
    transactions,
    {
      batchInbox: config.batchInboxAddress,
      batcher: systemConfig.batcherAddress,
      l1ChainId: config.l1ChainId,
    },
    blobs,
    { onDrop },
  );
  return items.map((item) => item.data);
}

export interface BlockAttributesInput {
  readonly parent: L2BlockRef;
  readonly epoch: L1BlockData;
  /** The system config for the block (the parent's, with the epoch's updates applied on a new epoch). */
  readonly systemConfig: SystemConfig;
  /** The epoch's user deposits on a new epoch; undefined otherwise. */
  readonly userDeposits: readonly Uint8Array[] | undefined;
  readonly batch: SingularBatchData;
}

/** The payload attributes of the block `batch` describes on top of `parent` (attributes builder). */
export function buildBlockAttributes(
  config: DerivationConfig,
  input: BlockAttributesInput,
): DerivedPayloadAttributes {
  const { parent, epoch } = input;
  return buildPayloadAttributes({
    rollupConfig: config.rollup,
    systemConfig: input.systemConfig,
    l2Parent: {
      hash: parent.hash,
      number: parent.number,
      timestamp: parent.timestamp,
      l1OriginNumber: parent.l1Origin.number,
      l1OriginHash: parent.l1Origin.hash,
      sequenceNumber: parent.sequenceNumber,
    },
    l1Origin: l1OriginFromHeader(epoch.header, config.rollup, config.l1Chain),
    userDeposits: input.userDeposits,
    batchTransactions: input.batch.transactions,
  });
}
