/** Builders of synthetic chains for validation and pipeline tests (test code only). */
import { OpFork, type RollupConfig, forksActiveFrom } from "../../chain/index.js";
import {
  type DerivationConfig,
  type L1BlockRef,
  type L2BlockRef,
  MAX_SEQUENCER_DRIFT_FJORD,
} from "../types.js";

/** A 32-byte hash: `tag`, then `n` (u64 big-endian) at bytes 1..8 and again at 24..31 (so 20-byte prefixes differ). */
export function fakeHash(tag: number, n: bigint | number): Uint8Array {
  const h = new Uint8Array(32);
  const view = new DataView(h.buffer);
  h[0] = tag;
  view.setBigUint64(1, BigInt.asUintN(64, BigInt(n)));
  view.setBigUint64(24, BigInt.asUintN(64, BigInt(n)));
  return h;
}

export function testRollupConfig(overrides: Partial<RollupConfig> = {}): RollupConfig {
  return {
    l2ChainId: 901n,
    blockTime: 2n,
    genesisL2Time: 1_000n,
    forkTimes: forksActiveFrom(OpFork.Isthmus),
    eip1559Elasticity: 6n,
    eip1559Denominator: 50n,
    eip1559DenominatorCanyon: 250n,
    ...overrides,
  };
}

export function testDerivationConfig(
  overrides: Partial<Omit<DerivationConfig, "rollup">> = {},
  rollup: RollupConfig = testRollupConfig(),
): DerivationConfig {
  return {
    rollup,
    l1ChainId: 900n,
    l1Chain: { chainId: 900n, cancunTime: 0n, blobSchedule: [] },
    batchInboxAddress: new Uint8Array(20).fill(0xff),
    depositContractAddress: new Uint8Array(20).fill(0xdd),
    l1SystemConfigAddress: new Uint8Array(20).fill(0x5c),
    seqWindowSize: 10n,
    channelTimeout: 50n,
    maxSequencerDrift: MAX_SEQUENCER_DRIFT_FJORD,
    genesisL1: { number: 0n, hash: fakeHash(1, 0) },
    genesisL2: { number: 0n, hash: fakeHash(2, 0) },
    genesisL2Time: rollup.genesisL2Time,
    blockTime: rollup.blockTime,
    ...overrides,
  };
}

/** L1 block `n` of a synthetic chain with 12 s blocks starting at time 1000. */
export function l1Ref(n: bigint, timestamp = 1_000n + 12n * n): L1BlockRef {
  return { number: n, hash: fakeHash(1, n), parentHash: fakeHash(1, n - 1n), timestamp };
}

export function l2Ref(
  n: bigint,
  timestamp: bigint,
  origin: L1BlockRef,
  sequenceNumber = 0n,
  hash: Uint8Array = fakeHash(2, n),
): L2BlockRef {
  return {
    number: n,
    hash,
    parentHash: fakeHash(2, n - 1n),
    timestamp,
    l1Origin: { number: origin.number, hash: origin.hash },
    sequenceNumber,
  };
}
