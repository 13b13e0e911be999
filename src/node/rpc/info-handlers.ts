/** The chain's and the client's identity and the methods a single-node dev chain answers with constants. */
import { keccak_256 } from "@noble/hashes/sha3.js";
import type { NodeHandlers } from "../../../generated/rpc/index.js";
import type { ChainNode } from "../chain-node.js";

export const CLIENT_VERSION = "op-enclave-suite-node/0.1.0";

export type InfoHandlers = Pick<
  NodeHandlers,
  | "eth_chainId"
  | "net_version"
  | "web3_clientVersion"
  | "eth_accounts"
  | "eth_syncing"
  | "net_listening"
  | "net_peerCount"
  | "web3_sha3"
>;

export function createInfoHandlers(node: ChainNode): InfoHandlers {
  return {
    eth_chainId: () => node.config.l2ChainId,
    net_version: () => node.config.l2ChainId,
    web3_clientVersion: () => CLIENT_VERSION,
    eth_accounts: () => [],
    // A replica behind its leader reports its catch-up (docs/node/replicas.md "Read replicas"); a sequencer is its own head.
    eth_syncing: () => (node.mode.kind === "replica" ? (node.mode.replica.syncProgress() ?? false) : false),
    net_listening: () => true,
    net_peerCount: () => 0n,
    web3_sha3: ({ data }) => keccak_256(data),
  };
}
