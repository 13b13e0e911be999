/**
 * Boot information: the proof request's parameters, read from local preimage keys (notes/prover.md
 * "Boot information"). A local key is type byte 0x01 then the index in the last 8 bytes (big-endian).
 */

/** Read access to verified preimages by 32-byte key (the shape of src/chain's PreimageSource). */
export interface PreimageLookup {
  tryGet(key: Uint8Array): Uint8Array | undefined;
}

export const BootKey = {
  L1Head: 1,
  AgreedOutputRoot: 2,
  ClaimedOutputRoot: 3,
  ClaimedL2BlockNumber: 4,
  L2ChainId: 5,
  RollupConfig: 6,
  L1ChainConfig: 7,
  Proposer: 8,
  IntermediateBlockInterval: 9,
  L1HeadNumber: 10,
} as const;
export type BootKey = (typeof BootKey)[keyof typeof BootKey];

const BOOT_KEY_NAMES: Record<number, string> = Object.fromEntries(
  Object.entries(BootKey).map(([n, i]) => [i, n]),
);

export interface BootInfo {
  readonly l1Head: Uint8Array;
  readonly l1HeadNumber: bigint;
  readonly agreedOutputRoot: Uint8Array;
  readonly claimedOutputRoot: Uint8Array;
  readonly claimedL2BlockNumber: bigint;
  readonly chainId: bigint;
  readonly proposer: Uint8Array;
  readonly intermediateBlockInterval: bigint;
}

/** A boot key the request did not carry. */
export class MissingBootKeyError extends Error {
  override readonly name = "MissingBootKeyError";
  constructor(readonly index: number) {
    super(`missing boot information: local key ${index} (${BOOT_KEY_NAMES[index] ?? "unknown"})`);
  }
}

/** A boot value of the wrong size or out of range. */
export class InvalidBootInfoError extends Error {
  override readonly name = "InvalidBootInfoError";
}

/** The 32-byte local key for a boot index. */
export function localBootKey(index: number): Uint8Array {
  const key = new Uint8Array(32);
  key[0] = 0x01;
  new DataView(key.buffer).setBigUint64(24, BigInt(index), false);
  return key;
}

function value(source: PreimageLookup, index: BootKey, length: number): Uint8Array {
  const found = source.tryGet(localBootKey(index));
  if (found === undefined) throw new MissingBootKeyError(index);
  if (found.length !== length) {
    throw new InvalidBootInfoError(
      `boot ${BOOT_KEY_NAMES[index]} must be ${length} bytes, got ${found.length}`,
    );
  }
  return found.slice();
}

function u64(source: PreimageLookup, index: BootKey): bigint {
  const bytes = value(source, index, 8);
  return new DataView(bytes.buffer).getBigUint64(0, false);
}

/** Reads and checks every boot value the proof needs. */
export function readBootInfo(source: PreimageLookup): BootInfo {
  const info: BootInfo = {
    l1Head: value(source, BootKey.L1Head, 32),
    agreedOutputRoot: value(source, BootKey.AgreedOutputRoot, 32),
    claimedOutputRoot: value(source, BootKey.ClaimedOutputRoot, 32),
    claimedL2BlockNumber: u64(source, BootKey.ClaimedL2BlockNumber),
    chainId: u64(source, BootKey.L2ChainId),
    proposer: value(source, BootKey.Proposer, 20),
    intermediateBlockInterval: u64(source, BootKey.IntermediateBlockInterval),
    l1HeadNumber: u64(source, BootKey.L1HeadNumber),
  };
  if (info.intermediateBlockInterval === 0n)
    throw new InvalidBootInfoError("intermediate block interval must be at least 1");
  if (info.claimedL2BlockNumber === 0n)
    throw new InvalidBootInfoError("claimed L2 block number must be at least 1");
  return info;
}
