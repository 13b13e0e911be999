/**
 * Deposit source hashes (specs/protocol/deposits.md, "Source hash computation"):
 * `keccak256(bytes32(domain) ‖ keccak256(payload))` with domain 0 for user deposits (payload: L1 block hash ‖
 * bytes32(log index)), 1 for the L1 info deposit (L1 block hash ‖ bytes32(sequence number)) and 2 for network
 * upgrade deposits (payload: the intent string).
 */

function domainHash(domain: bigint, inner: Uint8Array): Uint8Array {
  const buf = new Uint8Array(64);
  buf.set(bigIntToWord(domain), 0);
  buf.set(keccak256(inner), 32);
  return keccak256(buf);
}

function hashAndIndex(blockHash: Uint8Array, index: bigint): Uint8Array {
  if (blockHash.length !== 32) throw new RangeError("an L1 block hash is 32 bytes");
  const buf = new Uint8Array(64);
  buf.set(blockHash, 0);
  buf.set(bigIntToWord(index), 32);
  return buf;
}

/** Source hash of the user deposit emitted by log `logIndex` (counted over the whole L1 block) of `l1BlockHash`. */
export function userDepositSourceHash(l1BlockHash: Uint8Array, logIndex: bigint): Uint8Array {
  return domainHash(0n, hashAndIndex(l1BlockHash, logIndex));
}

/** Source hash of the L1 info deposit of the `sequenceNumber`-th L2 block of epoch `l1BlockHash`. */
export function l1InfoSourceHash(l1BlockHash: Uint8Array, sequenceNumber: bigint): Uint8Array {
  return domainHash(1n, hashAndIndex(l1BlockHash, sequenceNumber));
}

/** Source hash of a network upgrade deposit with the given intent (e.g. "Isthmus: L1 Block Deployment"). */
export function upgradeDepositSourceHash(intent: string): Uint8Array {
  return domainHash(2n, new TextEncoder().encode(intent));
}
import { bigIntToWord, keccak256 } from "../../chain/index.js";
