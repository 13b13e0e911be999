/**
 * Reads a token's EIP-712 domain from the chain: `name()` and `version()` from the token, the chain
 * id from the node, the token's address as verifying contract. Never hard-code these: the same
 * token code is deployed under different names and on different chains.
 */
import { type Address, getAddress, type PublicClient } from "viem";
import { eip3009TokenAbi } from "./abi.js";
import { InvalidTokenDomainError } from "./errors.js";
import type { TokenDomain } from "./types.js";

/** The client calls used: any viem PublicClient over any JSON-RPC node satisfies it. */
export type DomainReader = Pick<PublicClient, "readContract" | "getChainId">;

const MAX_DOMAIN_STRING = 256;

export async function readTokenDomain(client: DomainReader, token: Address): Promise<TokenDomain> {
  const verifyingContract = getAddress(token);
  const [name, version, chainId] = await Promise.all([
    client.readContract({ address: verifyingContract, abi: eip3009TokenAbi, functionName: "name" }),
    client.readContract({ address: verifyingContract, abi: eip3009TokenAbi, functionName: "version" }),
    client.getChainId(),
  ]);
  for (const [field, value] of [
    ["name", name],
    ["version", version],
  ] as const) {
    if (value.length === 0 || value.length > MAX_DOMAIN_STRING) {
      throw new InvalidTokenDomainError(
        `token ${verifyingContract} returned an unusable ${field}() of length ${value.length}`,
      );
    }
  }
  return { name, version, chainId: BigInt(chainId), verifyingContract };
}
