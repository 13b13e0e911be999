/**
 * Payload attributes of one L2 block (specs/protocol/derivation.md "Building individual payload attributes",
 * holocene/exec-engine.md, jovian/exec-engine.md): the deposits first — the L1 info deposit, the L1 origin's
 * user deposits on the first block of an epoch, the upgrade deposits of an Isthmus/Jovian activation block —
 * then the batch's transactions; timestamp, prevRandao, fee recipient, parent beacon root, gas limit,
 * EIP-1559 parameters (8 zero bytes on the first Holocene block) and, from Jovian, the min base fee.
 */
import {
  OpFork,
  type PayloadAttributes,
  type RollupConfig,
  isForkActive,
  bytesEqual,
  fromHex,
  toHex,
  type L1BlockInfo,
  encodeL1InfoDeposit,
} from "../../chain/index.js";
import { type L1OriginInfo, buildL1BlockInfo } from "./l1-info.js";
import { CriticalDeriveError, DroppedInputError } from "../errors.js";
import { eip1559ParamsOf, type SystemConfig } from "./system-config.js";
import { upgradeTransactionsAt } from "./upgrades.js";

/** The SequencerFeeVault predeploy: every derived block's suggested fee recipient. */
export const SEQUENCER_FEE_VAULT = fromHex("0x4200000000000000000000000000000000000011");
const DEPOSIT_TX_TYPE = 0x7e;

/** The L2 parent, as derivation knows it (its L1 origin and sequence number come from its L1 info deposit). */
export interface L2ParentInfo {
  readonly hash: Uint8Array;
  readonly number: bigint;
  readonly timestamp: bigint;
  readonly l1OriginNumber: bigint;
  readonly l1OriginHash: Uint8Array;
  readonly sequenceNumber: bigint;
}

export interface BuildPayloadAttributesInput {
  readonly rollupConfig: RollupConfig;
  /**
   * The system config for this block: the parent's, with the L1 origin's ConfigUpdate logs applied when the
   * block starts a new epoch (see `applyConfigUpdates`).
   */
  readonly systemConfig: SystemConfig;
  readonly l2Parent: L2ParentInfo;
  /** The block's L1 origin: the parent's, or the next L1 block (a new epoch). */
  readonly l1Origin: L1OriginInfo;
  /** The L1 origin's user deposits (EIP-2718, see `deriveUserDeposits`); required on a new epoch, else empty. */
  readonly userDeposits?: readonly Uint8Array[];
  /** The batch's transactions, EIP-2718, no deposits. */
  readonly batchTransactions: readonly Uint8Array[];
}

/** Payload attributes as derivation hands them to src/chain: the engine API fields plus the transaction list. */
export interface DerivedPayloadAttributes extends PayloadAttributes {
  readonly number: bigint;
  readonly parentHash: Uint8Array;
  /** Deposits first, then the batch's transactions. */
  readonly transactions: readonly Uint8Array[];
  /** How many of `transactions` are deposits (L1 info, user deposits, upgrade deposits). */
  readonly depositCount: number;
  /** Always true for derived blocks. */
  readonly noTxPool: true;
  /** Always empty (Canyon and later). */
  readonly withdrawals: readonly never[];
  readonly l1Origin: { readonly number: bigint; readonly hash: Uint8Array };
  readonly sequenceNumber: bigint;
  /** What the block's L1 info deposit states. */
  readonly l1Info: L1BlockInfo;
}

function critical(message: string, details: Record<string, unknown>): never {
  throw new CriticalDeriveError("attributes", message, details);
}

/**
 * The payload attributes of the child of `l2Parent` with L1 origin `l1Origin`. CriticalDeriveError when the
 * inputs are inconsistent (an origin that is neither the parent's nor the next L1 block, a broken L1 hash chain,
 * an origin newer than the block, user deposits outside an epoch's first block, a pre-Holocene block);
 * DroppedInputError when a batch transaction is empty or a deposit (the batch is invalid).
 */
export function buildPayloadAttributes(input: BuildPayloadAttributesInput): DerivedPayloadAttributes {
  const { rollupConfig, systemConfig, l2Parent, l1Origin } = input;
  const timestamp = l2Parent.timestamp + rollupConfig.blockTime;
  const number = l2Parent.number + 1n;
  let sequenceNumber: bigint;
  const userDeposits = input.userDeposits ?? [];
  if (l1Origin.number === l2Parent.l1OriginNumber) {
    if (!bytesEqual(l1Origin.hash, l2Parent.l1OriginHash))
      critical("the L1 origin is not the parent's L1 origin", {
        number: l1Origin.number,
        hash: toHex(l1Origin.hash),
        parentOrigin: toHex(l2Parent.l1OriginHash),
      });
    if (userDeposits.length > 0)
      critical("user deposits belong to the first block of an epoch only", {
        number,
        deposits: userDeposits.length,
      });
    sequenceNumber = l2Parent.sequenceNumber + 1n;
  } else if (l1Origin.number === l2Parent.l1OriginNumber + 1n) {
    if (l1Origin.parentHash !== undefined && !bytesEqual(l1Origin.parentHash, l2Parent.l1OriginHash))
      critical("the new L1 origin does not extend the parent's L1 origin", {
        number: l1Origin.number,
        parentHash: toHex(l1Origin.parentHash),
        parentOrigin: toHex(l2Parent.l1OriginHash),
      });
    if (input.userDeposits === undefined)
      critical("the first block of an epoch needs its L1 origin's user deposits", {
        number,
        origin: l1Origin.number,
      });
    sequenceNumber = 0n;
  } else {
    critical("the L1 origin is neither the parent's nor the next L1 block", {
      origin: l1Origin.number,
      parentOrigin: l2Parent.l1OriginNumber,
    });
  }
  if (timestamp < l1Origin.timestamp)
    critical("the L2 block would be older than its L1 origin", {
      timestamp,
      originTimestamp: l1Origin.timestamp,
    });
  for (let i = 0; i < input.batchTransactions.length; i++) {
    const tx = input.batchTransactions[i]!;
    if (tx.length === 0)
      throw new DroppedInputError("attributes", "a batch transaction is empty", { index: i });
    if (tx[0] === DEPOSIT_TX_TYPE)
      throw new DroppedInputError("attributes", "a batch carries a deposit transaction", { index: i });
  }

  const l1Info = buildL1BlockInfo({
    rollupConfig,
    systemConfig,
    l1Origin,
    sequenceNumber,
    l2Timestamp: timestamp,
  });
  const deposits = [
    encodeL1InfoDeposit(l1Info),
    ...userDeposits,
    ...upgradeTransactionsAt(rollupConfig, timestamp),
  ];
  const firstHolocene = !isForkActive(rollupConfig, OpFork.Holocene, l2Parent.timestamp);
  const attributes: DerivedPayloadAttributes = {
    number,
    parentHash: l2Parent.hash,
    timestamp,
    prevRandao: l1Origin.mixHash,
    suggestedFeeRecipient: SEQUENCER_FEE_VAULT,
    // Ecotone and later (every block in scope): the L1 origin's parent beacon root, zero when it has none.
    parentBeaconBlockRoot: l1Origin.parentBeaconBlockRoot ?? new Uint8Array(32),
    gasLimit: systemConfig.gasLimit,
    eip1559Params: firstHolocene ? new Uint8Array(8) : eip1559ParamsOf(systemConfig),
    transactions: [...deposits, ...input.batchTransactions],
    depositCount: deposits.length,
    noTxPool: true,
    withdrawals: [],
    l1Origin: { number: l1Origin.number, hash: l1Origin.hash },
    sequenceNumber,
    l1Info,
  };
  if (isForkActive(rollupConfig, OpFork.Jovian, timestamp)) attributes.minBaseFee = systemConfig.minBaseFee;
  return attributes;
}

/**
 * The deposit-only version of `attributes` (the replacement of a block that failed to execute,
 * specs/protocol/holocene/derivation.md "Engine Queue"): the same attributes with the batch's transactions removed.
 */
export function depositOnlyAttributes(attributes: DerivedPayloadAttributes): DerivedPayloadAttributes {
  return { ...attributes, transactions: attributes.transactions.slice(0, attributes.depositCount) };
}
