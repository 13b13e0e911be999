/**
 * The L1 facts derivation needs that no rollup config holds: when each L1's blob base fee update fraction
 * changes (EIP-4844 Cancun, EIP-7691 Prague, EIP-7892 blob-parameter-only forks). The L1 info deposit carries
 * the L1 origin's blob base fee, computed from its header's excessBlobGas with the fraction in force.
 */

/** Blob base fee update fractions (EIP-4844, EIP-7691, BPO1, BPO2). */
export const BLOB_FEE_FRACTION_CANCUN = 3338477n;
export const BLOB_FEE_FRACTION_PRAGUE = 5007716n;
export const BLOB_FEE_FRACTION_BPO1 = 8346193n;
export const BLOB_FEE_FRACTION_BPO2 = 11684671n;

/** One L1 chain's blob-fee schedule. Times are L1 block timestamps. */
export interface L1ChainConfig {
  readonly chainId: bigint;
  readonly cancunTime?: bigint;
  /** Prague (and Osaka, which keeps Prague's fraction). */
  readonly pragueTime?: bigint;
  /** Blob-parameter-only forks, ascending by time: from `time` on the fraction is `updateFraction`. */
  readonly blobSchedule: readonly { readonly time: bigint; readonly updateFraction: bigint }[];
}

/**
 * Ethereum mainnet and Sepolia (go-ethereum params/config.go: Cancun, Prague, BPO1 and BPO2 times; the
 * fractions of EIP-7691 and the BPO blob configs).
 */
export const L1_CHAINS: readonly L1ChainConfig[] = [
  {
    chainId: 1n,
    cancunTime: 1710338135n,
    pragueTime: 1746612311n,
    blobSchedule: [
      { time: 1765290071n, updateFraction: BLOB_FEE_FRACTION_BPO1 },
      { time: 1767747671n, updateFraction: BLOB_FEE_FRACTION_BPO2 },
    ],
  },
  {
    chainId: 11155111n,
    cancunTime: 1706655072n,
    pragueTime: 1741159776n,
    blobSchedule: [
      { time: 1761017184n, updateFraction: BLOB_FEE_FRACTION_BPO1 },
      { time: 1761607008n, updateFraction: BLOB_FEE_FRACTION_BPO2 },
    ],
  },
];

/** The built-in L1 config of `chainId`, or undefined (a dev L1 builds its own). */
export function findL1ChainConfig(chainId: bigint): L1ChainConfig | undefined {
  return L1_CHAINS.find((c) => c.chainId === chainId);
}

/**
 * The blob base fee update fraction of an L1 block at `l1Timestamp`, as the L1 info deposit uses it. Before
 * `pectraBlobScheduleTime` (OP Sepolia and Base Sepolia) the L2 kept Cancun's fraction after L1 Prague.
 */
export function blobBaseFeeUpdateFraction(
  l1: L1ChainConfig,
  l1Timestamp: bigint,
  pectraBlobScheduleTime?: bigint,
): bigint {
  let scheduled: bigint | undefined;
  for (const entry of l1.blobSchedule) if (l1Timestamp >= entry.time) scheduled = entry.updateFraction;
  if (scheduled !== undefined) return scheduled;
  const prague = l1.pragueTime !== undefined && l1Timestamp >= l1.pragueTime;
  if (prague && (pectraBlobScheduleTime === undefined || l1Timestamp >= pectraBlobScheduleTime))
    return BLOB_FEE_FRACTION_PRAGUE;
  return BLOB_FEE_FRACTION_CANCUN;
}

/** EIP-4844 `fake_exponential(1, excessBlobGas, fraction)`: the blob base fee. */
export function blobBaseFee(excessBlobGas: bigint, updateFraction: bigint): bigint {
  if (updateFraction <= 0n) throw new RangeError("blob base fee update fraction must be positive");
  let i = 1n;
  let output = 0n;
  let accumulator = updateFraction; // factor 1 × denominator
  while (accumulator > 0n) {
    output += accumulator;
    accumulator = (accumulator * excessBlobGas) / (updateFraction * i);
    i += 1n;
  }
  return output / updateFraction;
}
