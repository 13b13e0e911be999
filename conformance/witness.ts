/**
 * Prove-request witnesses for the enclave checks. A witness is the list of (preimage key, value) pairs of
 * one Prove request. The boot information lives under local keys (type 0x01, index in the last 8 bytes,
 * docs/decisions.md "Boot information"); content-addressed values under keccak256 / sha256 keys whose last
 * 31 bytes are the hash's last 31 bytes.
 *
 * Without a witness file the suite builds a synthetic one for a built-in chain (Base, 8453): well-formed
 * boot keys and a few honest hash-keyed values. No implementation can reproduce its claimed root, so it is
 * only ever expected to be refused; with `--witness <file>` (a witness the implementation can prove) the
 * checks also compare against a successful control.
 */
import { readFile } from "node:fs/promises";
import { gunzipSync } from "node:zlib";
import type { Preimage, PreimageKey } from "../generated/protocol/index.js";
import {
  bootInfoPreimages,
  BootKey,
  bootPreimageKey,
  isBootPreimageKey,
  isPreimageKey,
  keccak256PreimageKey,
  sha256PreimageKey,
} from "../src/proof/preimages/index.js";
import { bytesEqual, keccak256Key, PreimageKeyType } from "../src/chain/index.js";
import { ConformanceError } from "./errors.js";

/** A chain id no prover has in its config-hash table. */
export const UNKNOWN_CHAIN_ID = 0x7fff_fff1n;
/** Base mainnet: in every implementation's built-in table (docs/decisions.md "Config hash": 8453, 84532, 10, 11155420). */
export const BUILT_IN_CHAIN_ID = 8453n;

/** A witness file that cannot be read or parsed; `path` names the file or the offending entry. */
export class WitnessFileError extends ConformanceError<"witness-file"> {
  override readonly name = "WitnessFileError";
  constructor(message: string, details: { readonly path?: string; readonly entry?: string } = {}) {
    super(message, { kind: "witness-file", details });
  }
}

/** An honest keccak256-keyed preimage of `value`. */
export function keccakPreimage(value: Uint8Array): Preimage {
  return [keccak256PreimageKey(value), value];
}

/** An honest sha256-keyed preimage of `value`. */
export function sha256Preimage(value: Uint8Array): Preimage {
  return [sha256PreimageKey(value), value];
}

const text = (s: string): Uint8Array => new TextEncoder().encode(s);

/** The synthetic witness: boot keys for chain `chainId` and honest keccak256/sha256 values. */
export function syntheticWitness(chainId: bigint = BUILT_IN_CHAIN_ID): Preimage[] {
  const boot = bootInfoPreimages({
    l1Head: new Uint8Array(32).fill(0xe1),
    agreedOutputRoot: new Uint8Array(32).fill(0xa0),
    claimedOutputRoot: new Uint8Array(32).fill(0xa3),
    claimedL2BlockNumber: 1_000_003n,
    chainId,
    proposer: new Uint8Array(20).fill(0x70),
    intermediateBlockInterval: 2n,
    l1HeadNumber: 70_000n,
  });
  return [
    ...boot,
    keccakPreimage(text("conformance: keccak256-keyed value")),
    sha256Preimage(text("conformance: sha256-keyed value")),
  ];
}

/** `witness` with the value under local key `index` replaced (added when absent). */
export function withBootValue(witness: readonly Preimage[], index: number, value: Uint8Array): Preimage[] {
  const others = witness.filter(([key]) => !isBootPreimageKey(key, index));
  return [...others, [bootPreimageKey(index), value]];
}

export function withoutBootKey(witness: readonly Preimage[], index: number): Preimage[] {
  return witness.filter(([key]) => !isBootPreimageKey(key, index));
}

export function bootValue(witness: readonly Preimage[], index: number): Uint8Array | undefined {
  return witness.find(([key]) => isBootPreimageKey(key, index))?.[1];
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
    throw new WitnessFileError(`${what} must be 0x-prefixed hex bytes`, { entry: what });
  }
  return new Uint8Array(Buffer.from(hex.slice(2), "hex"));
}

/**
 * Parses witness JSON: `{"preimages":[{"key":"0x<32-byte key>","value":"0x..."}, ...]}`, each key in its
 * 32-byte form (type byte, then 31 data bytes). `path` names the source in errors.
 */
export function parseWitnessJson(text: string, path: string): Preimage[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text) as unknown;
  } catch (error) {
    throw new WitnessFileError(`cannot parse witness ${path}: ${(error as Error).message}`, { path });
  }
  const entries = (parsed as { preimages?: unknown } | null)?.preimages;
  if (!Array.isArray(entries)) throw new WitnessFileError(`${path}: expected {"preimages":[...]}`, { path });
  return entries.map((entry: unknown, i): Preimage => {
    const { key, value } = (entry ?? {}) as { key?: unknown; value?: unknown };
    const where = `preimages[${i}].key`;
    const keyBytes = hexToBytes(key, where);
    if (keyBytes.length !== 32) throw new WitnessFileError(`${where} must be 32 bytes`, { entry: where });
    if (!isPreimageKey(keyBytes))
      throw new WitnessFileError(`${where} has an unknown type byte`, { entry: where });
    return [keyBytes, hexToBytes(value, `preimages[${i}].value`)];
  });
}

/** The witness JSON of `preimages` (the format `parseWitnessJson` reads). */
export function witnessJson(preimages: readonly Preimage[]): string {
  return JSON.stringify({
    preimages: preimages.map(([key, value]) => ({
      key: keyToHex(key),
      value: `0x${Buffer.from(value).toString("hex")}`,
    })),
  });
}

/** Reads a witness file in the `parseWitnessJson` format, gzip'd or not (told apart by the gzip magic bytes). */
export async function loadWitnessFile(path: string): Promise<Preimage[]> {
  let text: string;
  try {
    const bytes = await readFile(path);
    text = (bytes[0] === 0x1f && bytes[1] === 0x8b ? gunzipSync(bytes) : bytes).toString("utf8");
  } catch (error) {
    throw new WitnessFileError(`cannot read witness ${path}: ${(error as Error).message}`, { path });
  }
  return parseWitnessJson(text, path);
}

/** The keccak256 key naming a 32-byte hash (the key of the value that hashes to it). */
export function keccakKeyOfHash(hash: Uint8Array): PreimageKey {
  return keccak256Key(hash);
}

const sameKey = (a: PreimageKey, b: PreimageKey): boolean => bytesEqual(a, b);

/** The value under `key` in `witness`, if any. */
export function valueOf(witness: readonly Preimage[], key: PreimageKey): Uint8Array | undefined {
  return witness.find(([k]) => sameKey(k, key))?.[1];
}

/** `witness` without the preimage under `key`. */
export function withoutKey(witness: readonly Preimage[], key: PreimageKey): Preimage[] {
  return witness.filter(([k]) => !sameKey(k, key));
}

/** The L1 head's header key (keccak256 of the header names it), when the witness holds it. */
export function l1HeadHeaderKey(witness: readonly Preimage[]): PreimageKey | undefined {
  const l1Head = bootValue(witness, BootKey.L1Head);
  if (l1Head?.length !== 32) return undefined;
  const key = keccakKeyOfHash(l1Head);
  return valueOf(witness, key) === undefined ? undefined : key;
}

/**
 * The key of the agreed L2 block's state trie root node: the agreed output root opens to
 * version ‖ state root ‖ message-passer storage root ‖ block hash (docs/protocol.md "Output root"), and the
 * root node is read by any state access of the first block executed.
 */
export function agreedStateRootKey(witness: readonly Preimage[]): PreimageKey | undefined {
  const agreed = bootValue(witness, BootKey.AgreedOutputRoot);
  if (agreed?.length !== 32) return undefined;
  const opening = valueOf(witness, keccakKeyOfHash(agreed));
  if (opening?.length !== 128) return undefined;
  const key = keccakKeyOfHash(opening.slice(32, 64));
  return valueOf(witness, key) === undefined ? undefined : key;
}

/** The first blob field element of the witness (blob keys are not content-addressed: the KZG commitment covers them). */
export function firstBlobElement(witness: readonly Preimage[]): Preimage | undefined {
  return witness.find(([key]) => key[0] === PreimageKeyType.Blob);
}

/** `witness` with the value under `key` replaced. */
export function withValue(witness: readonly Preimage[], key: PreimageKey, value: Uint8Array): Preimage[] {
  return witness.map((p): Preimage => (sameKey(p[0], key) ? [p[0], value] : p));
}

export function keyToHex(key: PreimageKey): string {
  return `0x${Buffer.from(key).toString("hex")}`;
}
