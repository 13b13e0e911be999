/**
 * Types shared by derivation's stages (docs/derive.md): block references on L1 and L2, the derivation
 * parameters of a chain, and the singular-batch shape validation and attributes work on.
 */
import {
  type L1ChainConfig,
  OpFork,
  type RollupConfig,
  findL1ChainConfig,
  isForkActive,
} from "../chain/index.js";
import { CHANNEL_TIMEOUT_GRANITE } from "./channel/assembler.js";
import { CriticalDeriveError } from "./errors.js";

/** A block by number and hash. */
export interface BlockId {
  readonly number: bigint;
  readonly hash: Uint8Array;
}

/** An L1 block as the stages refer to it (the full header travels separately, see `L1BlockData`). */
export interface L1BlockRef extends BlockId {
  readonly parentHash: Uint8Array;
  readonly timestamp: bigint;
}

/** An L2 block as derivation refers to it: its L1 origin and sequence number come from its L1 info deposit. */
export interface L2BlockRef extends BlockId {
  readonly parentHash: Uint8Array;
  readonly timestamp: bigint;
  readonly l1Origin: BlockId;
  readonly sequenceNumber: bigint;
}

/**
 * One L2 block's batch in singular form: what a singular batch carries and what a span batch expands to.
 * `transactions` are EIP-2718 encodings, deposits excluded (they are derived from L1).
 */
export interface SingularBatchData {
  readonly parentHash: Uint8Array;
  readonly epochNumber: bigint;
  readonly epochHash: Uint8Array;
  readonly timestamp: bigint;
  readonly transactions: readonly Uint8Array[];
}

/** Max sequencer drift in seconds from Fjord (specs/protocol/fjord). */
export const MAX_SEQUENCER_DRIFT_FJORD = 1800n;

/**
 * The derivation parameters of a chain, normalised from its rollup config (`derivationConfig`).
 * Holocene and later only, so the channel timeout and the sequencer drift are the Granite and Fjord constants.
 */
export interface DerivationConfig {
  readonly rollup: RollupConfig;
  readonly l1ChainId: bigint;
  /** The L1's blob fee schedule (the L1 info deposit's blob base fee). */
  readonly l1Chain: L1ChainConfig;
  readonly batchInboxAddress: Uint8Array;
  readonly depositContractAddress: Uint8Array;
  readonly l1SystemConfigAddress: Uint8Array;
  readonly seqWindowSize: bigint;
  readonly channelTimeout: bigint;
  readonly maxSequencerDrift: bigint;
  readonly genesisL1: BlockId;
  readonly genesisL2: BlockId;
  readonly genesisL2Time: bigint;
  readonly blockTime: bigint;
}

/**
 * The derivation parameters of `rollup`; refuses (CriticalDeriveError, stage "config") a config that lacks one:
 * batch inbox, portal and SystemConfig addresses, sequencing window, L1 chain id, genesis anchors, or Holocene.
 * `l1Chain` defaults to the built-in config of the rollup's L1 chain id (Ethereum mainnet, Sepolia); a dev L1
 * must pass its own.
 */
export function derivationConfig(rollup: RollupConfig, l1Chain?: L1ChainConfig): DerivationConfig {
  const missing: string[] = [];
  if (rollup.batchInboxAddress === undefined) missing.push("batchInboxAddress");
  if (rollup.depositContractAddress === undefined) missing.push("depositContractAddress");
  if (rollup.l1SystemConfigAddress === undefined) missing.push("l1SystemConfigAddress");
  if (rollup.seqWindowSize === undefined) missing.push("seqWindowSize");
  if (rollup.l1ChainId === undefined) missing.push("l1ChainId");
  if (rollup.genesis === undefined) missing.push("genesis");
  if (rollup.forkTimes[OpFork.Holocene] === undefined) missing.push("holocene_time");
  const l1 = l1Chain ?? (rollup.l1ChainId === undefined ? undefined : findL1ChainConfig(rollup.l1ChainId));
  if (l1 === undefined) missing.push("l1ChainConfig");
  if (missing.length > 0) {
    throw new CriticalDeriveError("config", `the rollup config lacks ${missing.join(", ")}`, { missing });
  }
  const genesis = rollup.genesis!;
  return {
    rollup,
    l1ChainId: rollup.l1ChainId!,
    l1Chain: l1!,
    batchInboxAddress: rollup.batchInboxAddress!,
    depositContractAddress: rollup.depositContractAddress!,
    l1SystemConfigAddress: rollup.l1SystemConfigAddress!,
    seqWindowSize: rollup.seqWindowSize!,
    channelTimeout: rollup.channelTimeout ?? CHANNEL_TIMEOUT_GRANITE,
    maxSequencerDrift: MAX_SEQUENCER_DRIFT_FJORD,
    genesisL1: genesis.l1,
    genesisL2: genesis.l2,
    genesisL2Time: genesis.l2Time,
    blockTime: rollup.blockTime,
  };
}

export function isHolocene(config: DerivationConfig, timestamp: bigint): boolean {
  return isForkActive(config.rollup, OpFork.Holocene, timestamp);
}

export function isIsthmus(config: DerivationConfig, timestamp: bigint): boolean {
  return isForkActive(config.rollup, OpFork.Isthmus, timestamp);
}

/** The first L2 block of `fork` (active at `timestamp`, not one block earlier). */
export function isForkActivationBlock(config: DerivationConfig, fork: OpFork, timestamp: bigint): boolean {
  return (
    isForkActive(config.rollup, fork, timestamp) &&
    timestamp >= config.blockTime &&
    !isForkActive(config.rollup, fork, timestamp - config.blockTime)
  );
}

/** Whether the first `prefix.length` bytes of `full` equal `prefix` (span batch parent/origin checks). */
export function hasPrefix(full: Uint8Array, prefix: Uint8Array): boolean {
  if (prefix.length > full.length) return false;
  for (let i = 0; i < prefix.length; i++) if (full[i] !== prefix[i]) return false;
  return true;
}
