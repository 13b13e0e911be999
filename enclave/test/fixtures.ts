/** Prove-request preimages for tests: boot keys as local preimages plus content-addressed values. */
import { sha256 } from "@noble/hashes/sha2.js";
import { keccak_256 } from "@noble/hashes/sha3.js";
import type { Preimage, PreimageKey } from "../../generated/protocol/index.js";
import { BootKey } from "../boot-info.js";

function u64be(value: bigint): Uint8Array {
  const out = new Uint8Array(8);
  new DataView(out.buffer).setBigUint64(0, value, false);
  return out;
}

export function localKey(index: number): PreimageKey {
  const data = new Uint8Array(31);
  new DataView(data.buffer).setBigUint64(23, BigInt(index), false);
  return { data, keyType: "Local" };
}

/** A keccak256 key for `hashOf` (its hash's last 31 bytes), holding `value` (which may not match). */
export function keccakPreimage(hashOf: Uint8Array, value: Uint8Array = hashOf): Preimage {
  return [{ data: keccak_256(hashOf).slice(1), keyType: "Keccak256" }, value];
}

export function sha256Preimage(hashOf: Uint8Array, value: Uint8Array = hashOf): Preimage {
  return [{ data: sha256(hashOf).slice(1), keyType: "Sha256" }, value];
}

export interface BootValues {
  chainId: bigint;
  claimedL2BlockNumber: bigint;
  interval: bigint;
}

/** All eight boot preimages the enclave reads, with `omit` left out. */
export function bootPreimages(values: Partial<BootValues> = {}, omit: number[] = []): Preimage[] {
  const all: [number, Uint8Array][] = [
    [BootKey.L1Head, new Uint8Array(32).fill(0xe1)],
    [BootKey.AgreedOutputRoot, new Uint8Array(32).fill(0xa0)],
    [BootKey.ClaimedOutputRoot, new Uint8Array(32).fill(0xa3)],
    [BootKey.ClaimedL2BlockNumber, u64be(values.claimedL2BlockNumber ?? 103n)],
    [BootKey.L2ChainId, u64be(values.chainId ?? 8453n)],
    [BootKey.Proposer, new Uint8Array(20).fill(0x70)],
    [BootKey.IntermediateBlockInterval, u64be(values.interval ?? 2n)],
    [BootKey.L1HeadNumber, u64be(70_000n)],
  ];
  return all.filter(([index]) => !omit.includes(index)).map(([index, value]) => [localKey(index), value]);
}

const text = (s: string) => new TextEncoder().encode(s);

/** Well-formed hash-keyed witness values. */
export function honestWitness(): Preimage[] {
  return [
    keccakPreimage(text("block header rlp")),
    sha256Preimage(text("blob sidecar")),
    keccakPreimage(new Uint8Array(0)),
  ];
}

export { text };
