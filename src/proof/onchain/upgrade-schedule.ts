/**
 * The upgrade schedule id: the commitment Base's ProtocolVersions contract keeps over the chain's upgrade
 * schedule, which verifiers of the schedule-id journal version pin into every game and the enclave signs.
 *
 * ProtocolVersions registers upgrades append-only, each with an activation timestamp (0 = not scheduled), and
 * keeps a hash chain over them: link 0 is the seed (32 zero bytes) and
 *   link(i + 1) = keccak256(abi.encode(bytes32 link(i), uint256 i, uint64 timestamp_i)).
 * `activatedScheduleId(t)` is the link through the newest upgrade whose timestamp is non-zero and at most `t`
 * (the seed when none is). The game pins that value at its claim's L2 timestamp.
 *
 * The upgrades are identified by position; the order below is the contract's registration order (Base's
 * contract-backed upgrade ladder), cut at the last upgrade this image implements. An image whose ladder is
 * shorter than the chain's onchain schedule computes a different id once a later upgrade is active, so its
 * proofs fail verification: the fork horizon, enforced by the contract.
 */
import { keccak_256 } from "@noble/hashes/sha3.js";
import { OpFork, type RollupConfig } from "../../chain/index.js";

/** An upgrade of the ladder: an OP fork time of the rollup config, or the Sepolia Pectra blob schedule fix. */
export type LadderUpgrade =
  | { readonly name: string; readonly fork: OpFork }
  | { readonly name: "pectra_blob_schedule"; readonly fork: "pectra-blob-schedule" };

/** The upgrades this image implements, in ProtocolVersions registration order (ids 0, 1, 2, ...). */
export const UPGRADE_LADDER: readonly LadderUpgrade[] = [
  { name: "regolith", fork: OpFork.Regolith },
  { name: "canyon", fork: OpFork.Canyon },
  { name: "delta", fork: OpFork.Delta },
  { name: "ecotone", fork: OpFork.Ecotone },
  { name: "fjord", fork: OpFork.Fjord },
  { name: "granite", fork: OpFork.Granite },
  { name: "holocene", fork: OpFork.Holocene },
  { name: "pectra_blob_schedule", fork: "pectra-blob-schedule" },
  { name: "isthmus", fork: OpFork.Isthmus },
  { name: "jovian", fork: OpFork.Jovian },
];

const U64_MAX = (1n << 64n) - 1n;

/** One link of the hash chain: keccak256 of the three ABI words prev ‖ uint256(index) ‖ uint256(timestamp). */
export function scheduleLink(previous: Uint8Array, index: bigint, timestamp: bigint): Uint8Array {
  if (previous.length !== 32) throw new RangeError(`a schedule link is 32 bytes, got ${previous.length}`);
  if (index < 0n || timestamp < 0n || timestamp > U64_MAX)
    throw new RangeError(`bad schedule entry: index ${index}, timestamp ${timestamp}`);
  const words = new Uint8Array(96);
  words.set(previous, 0);
  const view = new DataView(words.buffer);
  view.setBigUint64(56, index, false);
  view.setBigUint64(88, timestamp, false);
  return keccak_256(words);
}

/** The chain's links over the first `count` entries of `timestamps` (0 = unscheduled): ProtocolVersions.scheduleId. */
export function scheduleIdOf(timestamps: readonly bigint[], count = timestamps.length): Uint8Array {
  let link: Uint8Array = new Uint8Array(32);
  for (let i = 0; i < count; i++) link = scheduleLink(link, BigInt(i), timestamps[i] ?? 0n);
  return link;
}

/** ProtocolVersions.activatedScheduleId(l2Timestamp) over `timestamps`. */
export function activatedScheduleId(timestamps: readonly bigint[], l2Timestamp: bigint): Uint8Array {
  for (let i = timestamps.length; i > 0; i--) {
    const activation = timestamps[i - 1] as bigint;
    if (activation !== 0n && activation <= l2Timestamp) return scheduleIdOf(timestamps, i);
  }
  return new Uint8Array(32);
}

/** The ladder's activation timestamps for a rollup config (0 for an upgrade it does not schedule). */
export function ladderTimestamps(config: RollupConfig): bigint[] {
  return UPGRADE_LADDER.map((upgrade) =>
    upgrade.fork === "pectra-blob-schedule"
      ? (config.pectraBlobScheduleTime ?? 0n)
      : (config.forkTimes[upgrade.fork] ?? 0n),
  );
}

/** The L2 timestamp of `blockNumber` (genesis time plus block time per block since the genesis block). */
export function l2BlockTimestamp(config: RollupConfig, blockNumber: bigint): bigint {
  const genesisBlock = config.genesis?.l2.number ?? 0n;
  if (blockNumber < genesisBlock)
    throw new RangeError(`block ${blockNumber} is before the chain's genesis block ${genesisBlock}`);
  return config.genesisL2Time + (blockNumber - genesisBlock) * config.blockTime;
}

/** The schedule id a schedule-id verifier pins for a claim at `claimedBlock` on the chain of `config`. */
export function claimScheduleId(config: RollupConfig, claimedBlock: bigint): Uint8Array {
  return activatedScheduleId(ladderTimestamps(config), l2BlockTimestamp(config, claimedBlock));
}
