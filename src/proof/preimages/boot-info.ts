/**
 * Boot information: the proof request's parameters as local preimages (docs/decisions.md "Boot
 * information"). A local key is type byte 0x01 then the index in the last 8 bytes (big-endian). The one
 * reader (the enclave's proof program) and the one writer (the host, the conformance suite and tests)
 * of the boot keys live here.
 */
import { localKey, PreimageKeyType } from "../../chain/index.js";
import type { Preimage, PreimageKey } from "../../../generated/protocol/index.js";
import { PreimageError } from "./errors.js";

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
  /** Optional: the L2 block whose timestamp pins the upgrade schedule (absent or 0: the claimed block). */
  ScheduleL2BlockNumber: 11,
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
  /**
   * The L2 block whose timestamp pins the upgrade schedule a schedule-id journal commits to; absent: the claimed
   * block. Written only when given, so a request without it has the spec's boot keys exactly.
   */
  readonly scheduleL2BlockNumber?: bigint;
}

/** A boot key the request did not carry. */
export class MissingBootKeyError extends PreimageError<"missing-boot-key"> {
  override readonly name = "MissingBootKeyError";
  constructor(readonly index: number) {
    super(`missing boot information: local key ${index} (${BOOT_KEY_NAMES[index] ?? "unknown"})`, {
      kind: "missing-boot-key",
      details: { index },
    });
  }
}

/** A boot value of the wrong size or out of range. */
export class InvalidBootInfoError extends PreimageError<"invalid-boot-info"> {
  override readonly name = "InvalidBootInfoError";
  constructor(message: string, details: { readonly key: string }) {
    super(message, { kind: "invalid-boot-info", details });
  }
}

/**
 * The largest block number a boot value may carry (the claimed L2 block, the L1 head's number, the schedule block):
 * 2^53 - 1, the largest integer a JavaScript number holds exactly. No chain reaches it (at 10 blocks a second, 28
 * million years), and a number past it would reach timestamp and time-of-day arithmetic that has no meaning for it.
 */
export const MAX_BOOT_BLOCK_NUMBER = BigInt(Number.MAX_SAFE_INTEGER);

/** A boot block number past MAX_BOOT_BLOCK_NUMBER (the u64 decodes, the value cannot be a real block). */
export class BootValueOutOfRangeError extends PreimageError<"boot-value-out-of-range"> {
  override readonly name = "BootValueOutOfRangeError";
  constructor(
    readonly key: string,
    readonly value: bigint,
    readonly max: bigint,
  ) {
    super(`boot ${key} ${value} is past the largest block number a request may name (${max})`, {
      kind: "boot-value-out-of-range",
      details: { key, value, max },
    });
  }
}

/** The 32-byte local key for a boot index. */
export function localBootKey(index: number): Uint8Array {
  return localKey(index);
}

/** The boot index as a protocol preimage key (the same 32 bytes as `localBootKey`). */
export function bootPreimageKey(index: number): PreimageKey {
  return localBootKey(index);
}

/** True when `key` is the local key of boot index `index`. */
export function isBootPreimageKey(key: PreimageKey, index: number): boolean {
  const expected = localBootKey(index);
  return key.length === expected.length && key.every((byte, i) => byte === expected[i]);
}

/** A u64 boot value: 8 bytes, big-endian. */
export function u64be(value: bigint): Uint8Array {
  const out = new Uint8Array(8);
  new DataView(out.buffer).setBigUint64(0, value, false);
  return out;
}

/**
 * The boot information as local preimages, keys 1-5 and 8-10 in that order, then key 11 when the schedule block
 * is given (each value a fresh copy). Keys 6 and 7 (rollup and L1 chain config JSON) are only for chains not
 * built into the enclave.
 */
export function bootInfoPreimages(info: BootInfo): Preimage[] {
  const entries: [BootKey, Uint8Array][] = [
    [BootKey.L1Head, info.l1Head.slice()],
    [BootKey.AgreedOutputRoot, info.agreedOutputRoot.slice()],
    [BootKey.ClaimedOutputRoot, info.claimedOutputRoot.slice()],
    [BootKey.ClaimedL2BlockNumber, u64be(info.claimedL2BlockNumber)],
    [BootKey.L2ChainId, u64be(info.chainId)],
    [BootKey.Proposer, info.proposer.slice()],
    [BootKey.IntermediateBlockInterval, u64be(info.intermediateBlockInterval)],
    [BootKey.L1HeadNumber, u64be(info.l1HeadNumber)],
  ];
  if (info.scheduleL2BlockNumber !== undefined)
    entries.push([BootKey.ScheduleL2BlockNumber, u64be(info.scheduleL2BlockNumber)]);
  return entries.map(([index, value]): Preimage => [bootPreimageKey(index), value]);
}

function value(source: PreimageLookup, index: BootKey, length: number): Uint8Array {
  const found = source.tryGet(localBootKey(index));
  if (found === undefined) throw new MissingBootKeyError(index);
  if (found.length !== length) {
    const key = BOOT_KEY_NAMES[index] ?? String(index);
    throw new InvalidBootInfoError(`boot ${key} must be ${length} bytes, got ${found.length}`, { key });
  }
  return found.slice();
}

function u64(source: PreimageLookup, index: BootKey): bigint {
  const bytes = value(source, index, 8);
  return new DataView(bytes.buffer).getBigUint64(0, false);
}

/** A u64 boot value that names a block: at most MAX_BOOT_BLOCK_NUMBER (BootValueOutOfRangeError). */
function blockNumber(source: PreimageLookup, index: BootKey): bigint {
  const number = u64(source, index);
  if (number > MAX_BOOT_BLOCK_NUMBER)
    throw new BootValueOutOfRangeError(BOOT_KEY_NAMES[index] ?? String(index), number, MAX_BOOT_BLOCK_NUMBER);
  return number;
}

/**
 * Reads and checks every boot value the proof needs: each of its size (InvalidBootInfoError), the block numbers at
 * most MAX_BOOT_BLOCK_NUMBER (BootValueOutOfRangeError), the claim and the interval at least 1.
 */
export function readBootInfo(source: PreimageLookup): BootInfo {
  const info: BootInfo = {
    l1Head: value(source, BootKey.L1Head, 32),
    agreedOutputRoot: value(source, BootKey.AgreedOutputRoot, 32),
    claimedOutputRoot: value(source, BootKey.ClaimedOutputRoot, 32),
    claimedL2BlockNumber: blockNumber(source, BootKey.ClaimedL2BlockNumber),
    chainId: u64(source, BootKey.L2ChainId),
    proposer: value(source, BootKey.Proposer, 20),
    intermediateBlockInterval: u64(source, BootKey.IntermediateBlockInterval),
    l1HeadNumber: blockNumber(source, BootKey.L1HeadNumber),
  };
  if (info.intermediateBlockInterval === 0n)
    throw new InvalidBootInfoError("intermediate block interval must be at least 1", {
      key: "IntermediateBlockInterval",
    });
  if (info.claimedL2BlockNumber === 0n)
    throw new InvalidBootInfoError("claimed L2 block number must be at least 1", {
      key: "ClaimedL2BlockNumber",
    });
  // Optional, as Base's boot loader reads it: missing or zero means the claimed block.
  if (source.tryGet(localBootKey(BootKey.ScheduleL2BlockNumber)) === undefined) return info;
  const scheduleL2BlockNumber = blockNumber(source, BootKey.ScheduleL2BlockNumber);
  return scheduleL2BlockNumber === 0n ? info : { ...info, scheduleL2BlockNumber };
}

/**
 * Why a Prove request may not carry `key` (a 32-byte key), or undefined when it may. The enclave takes from the
 * host only what it can check or what it reads as boot information: precompile results (the program computes
 * them), global generic preimages (nothing verifies or reads them) and local keys that are not a boot index are
 * refused on entry.
 */
export function refusalReasonOf(key: Uint8Array): string | undefined {
  switch (key[0]) {
    case PreimageKeyType.Precompile:
      return "precompile results are computed by the program, never taken from the host";
    case PreimageKeyType.GlobalGeneric:
      return "global generic preimages cannot be verified and the program reads none";
    case PreimageKeyType.Local: {
      const index = new DataView(key.buffer, key.byteOffset, key.byteLength).getBigUint64(24, false);
      const known = key.subarray(1, 24).every((b) => b === 0) && BOOT_KEY_NAMES[Number(index)] !== undefined;
      return known ? undefined : "a local key that is not a boot information index (1-11)";
    }
    default:
      return undefined;
  }
}
