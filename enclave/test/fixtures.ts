/** Prove-request preimages for tests: boot keys as local preimages plus content-addressed values. */
import type { Preimage } from "../../generated/protocol/index.js";
import {
  bootInfoPreimages,
  isBootPreimageKey,
  keccak256PreimageKey,
  sha256PreimageKey,
} from "../../src/proof/preimages/index.js";

/** A keccak256 key for `hashOf` (its hash's last 31 bytes), holding `value` (which may not match). */
export function keccakPreimage(hashOf: Uint8Array, value: Uint8Array = hashOf): Preimage {
  return [keccak256PreimageKey(hashOf), value];
}

export function sha256Preimage(hashOf: Uint8Array, value: Uint8Array = hashOf): Preimage {
  return [sha256PreimageKey(hashOf), value];
}

export interface BootValues {
  chainId: bigint;
  claimedL2BlockNumber: bigint;
  interval: bigint;
}

/** All eight boot preimages the enclave reads, with `omit` left out. */
export function bootPreimages(values: Partial<BootValues> = {}, omit: number[] = []): Preimage[] {
  const all = bootInfoPreimages({
    l1Head: new Uint8Array(32).fill(0xe1),
    agreedOutputRoot: new Uint8Array(32).fill(0xa0),
    claimedOutputRoot: new Uint8Array(32).fill(0xa3),
    claimedL2BlockNumber: values.claimedL2BlockNumber ?? 103n,
    chainId: values.chainId ?? 8453n,
    proposer: new Uint8Array(20).fill(0x70),
    intermediateBlockInterval: values.interval ?? 2n,
    l1HeadNumber: 70_000n,
  });
  return all.filter(([key]) => !omit.some((index) => isBootPreimageKey(key, index)));
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
