/** The enclave's hardcoded config-hash table and the UnsupportedChain refusal. */
import { hexToBytes } from "viem";
import { CONFIG_HASH_TABLE_HEX } from "./config-table.js";
import { OnchainError } from "./errors.js";

/** A Prove for a chain id that is not in the hardcoded table (docs/protocol.md "Errors": `UnsupportedChain`). */
export class UnsupportedChainError extends OnchainError<"unsupported-chain"> {
  override readonly name = "UnsupportedChainError";
  constructor(readonly chainId: bigint) {
    super(`UnsupportedChain: chain id ${chainId} is not in the enclave's config-hash table`, {
      kind: "unsupported-chain",
      details: { chainId },
    });
  }
}

const TABLE: ReadonlyMap<bigint, Uint8Array> = new Map(
  CONFIG_HASH_TABLE_HEX.map(([chainId, hash]) => [chainId, hexToBytes(hash)]),
);

/** The config hash of `chainId` (a fresh copy), or UnsupportedChainError. */
export function configHashFor(chainId: bigint): Uint8Array {
  const hash = TABLE.get(chainId);
  if (hash === undefined) throw new UnsupportedChainError(chainId);
  return hash.slice();
}

/** Chain ids the enclave can prove, in table order. */
export function supportedChainIds(): bigint[] {
  return [...TABLE.keys()];
}
