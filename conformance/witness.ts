/**
 * Prove-request witnesses for the enclave checks. A witness is the list of (preimage key, value) pairs of
 * one Prove request. The boot information lives under local keys (type 0x01, index in the last 8 bytes,
 * notes/prover.md "Boot information"); content-addressed values under keccak256 / sha256 keys whose last
 * 31 bytes are the hash's last 31 bytes.
 *
 * Without a witness file the suite builds a synthetic one for a built-in chain (Base, 8453): well-formed
 * boot keys and a few honest hash-keyed values. No implementation can reproduce its claimed root, so it is
 * only ever expected to be refused; with `--witness <file>` (a witness the implementation can prove) the
 * checks also compare against a successful control.
 */
import { readFile } from "node:fs/promises";
import { sha256 } from "@noble/hashes/sha2.js";
import { keccak_256 } from "@noble/hashes/sha3.js";
import type { Preimage, PreimageKey, PreimageKeyType } from "../generated/protocol/index.js";
import {
  preimageKeyTypeFromDiscriminant,
  PREIMAGE_KEY_TYPE_DISCRIMINANTS,
} from "../generated/protocol/index.js";

export const BootIndex = {
  L1Head: 1,
  AgreedOutputRoot: 2,
  ClaimedOutputRoot: 3,
  ClaimedL2BlockNumber: 4,
  L2ChainId: 5,
  Proposer: 8,
  IntermediateBlockInterval: 9,
  L1HeadNumber: 10,
} as const;

/** A chain id no prover has in its config-hash table. */
export const UNKNOWN_CHAIN_ID = 0x7fff_fff1n;
/** Base mainnet: in every implementation's built-in table (spec issue: 8453, 84532, 10, 11155420). */
export const BUILT_IN_CHAIN_ID = 8453n;

export class WitnessFileError extends Error {
  override readonly name = "WitnessFileError";
}

export function u64be(value: bigint): Uint8Array {
  const out = new Uint8Array(8);
  new DataView(out.buffer).setBigUint64(0, value, false);
  return out;
}

export function localKey(index: number): PreimageKey {
  const data = new Uint8Array(31);
  new DataView(data.buffer).setBigUint64(23, BigInt(index), false);
  return { data, keyType: "Local" };
}

export function isLocalKey(key: PreimageKey, index: number): boolean {
  if (key.keyType !== "Local") return false;
  const expected = localKey(index).data;
  return key.data.every((byte, i) => byte === expected[i]);
}

export function keccakPreimage(value: Uint8Array): Preimage {
  return [{ data: keccak_256(value).slice(1), keyType: "Keccak256" }, value];
}

export function sha256Preimage(value: Uint8Array): Preimage {
  return [{ data: sha256(value).slice(1), keyType: "Sha256" }, value];
}

const text = (s: string): Uint8Array => new TextEncoder().encode(s);

/** The synthetic witness: boot keys for chain `chainId` and honest keccak256/sha256 values. */
export function syntheticWitness(chainId: bigint = BUILT_IN_CHAIN_ID): Preimage[] {
  const boot: [number, Uint8Array][] = [
    [BootIndex.L1Head, new Uint8Array(32).fill(0xe1)],
    [BootIndex.AgreedOutputRoot, new Uint8Array(32).fill(0xa0)],
    [BootIndex.ClaimedOutputRoot, new Uint8Array(32).fill(0xa3)],
    [BootIndex.ClaimedL2BlockNumber, u64be(1_000_003n)],
    [BootIndex.L2ChainId, u64be(chainId)],
    [BootIndex.Proposer, new Uint8Array(20).fill(0x70)],
    [BootIndex.IntermediateBlockInterval, u64be(2n)],
    [BootIndex.L1HeadNumber, u64be(70_000n)],
  ];
  return [
    ...boot.map(([index, value]): Preimage => [localKey(index), value]),
    keccakPreimage(text("conformance: keccak256-keyed value")),
    sha256Preimage(text("conformance: sha256-keyed value")),
  ];
}

/** `witness` with the value under local key `index` replaced (added when absent). */
export function withBootValue(witness: readonly Preimage[], index: number, value: Uint8Array): Preimage[] {
  const others = witness.filter(([key]) => !isLocalKey(key, index));
  return [...others, [localKey(index), value]];
}

export function withoutBootKey(witness: readonly Preimage[], index: number): Preimage[] {
  return witness.filter(([key]) => !isLocalKey(key, index));
}

export function bootValue(witness: readonly Preimage[], index: number): Uint8Array | undefined {
  return witness.find(([key]) => isLocalKey(key, index))?.[1];
}

/** `witness` plus a value stored under the key of a different value's hash (a tampered preimage). */
export function withTamperedPreimage(
  witness: readonly Preimage[],
  keyType: "Keccak256" | "Sha256",
): Preimage[] {
  const claimed = text(`conformance: the value the key commits to (${keyType})`);
  const [key] = keyType === "Keccak256" ? keccakPreimage(claimed) : sha256Preimage(claimed);
  const tampered = text(`conformance: a different value under that key (${keyType})`);
  return [...witness, [key, tampered]];
}

function hexToBytes(hex: unknown, what: string): Uint8Array {
  if (typeof hex !== "string" || !/^0x([0-9a-fA-F]{2})*$/.test(hex)) {
    throw new WitnessFileError(`${what} must be 0x-prefixed hex bytes`);
  }
  return new Uint8Array(Buffer.from(hex.slice(2), "hex"));
}

/**
 * Reads a witness file: `{"preimages":[{"key":"0x<32-byte key>","value":"0x..."}, ...]}`, each key in its
 * 32-byte form (type byte, then 31 data bytes).
 */
export async function loadWitnessFile(path: string): Promise<Preimage[]> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(path, "utf8")) as unknown;
  } catch (error) {
    throw new WitnessFileError(`cannot read witness ${path}: ${(error as Error).message}`);
  }
  const entries = (parsed as { preimages?: unknown } | null)?.preimages;
  if (!Array.isArray(entries)) throw new WitnessFileError(`${path}: expected {"preimages":[...]}`);
  return entries.map((entry: unknown, i): Preimage => {
    const { key, value } = (entry ?? {}) as { key?: unknown; value?: unknown };
    const keyBytes = hexToBytes(key, `preimages[${i}].key`);
    if (keyBytes.length !== 32) throw new WitnessFileError(`preimages[${i}].key must be 32 bytes`);
    const keyType: PreimageKeyType | undefined = preimageKeyTypeFromDiscriminant(keyBytes[0] as number);
    if (keyType === undefined) throw new WitnessFileError(`preimages[${i}].key has an unknown type byte`);
    return [{ data: keyBytes.slice(1), keyType }, hexToBytes(value, `preimages[${i}].value`)];
  });
}

export function keyToHex(key: PreimageKey): string {
  return `0x${PREIMAGE_KEY_TYPE_DISCRIMINANTS[key.keyType].toString(16).padStart(2, "0")}${Buffer.from(key.data).toString("hex")}`;
}
