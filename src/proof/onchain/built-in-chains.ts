/**
 * The chains whose config hash is built into the enclave: four from the superchain registry export and the
 * project's dev chain (id 901, genesis defined by src/chain with a fixed genesis time; see src/proof/dev-chain.ts).
 */
import { DEV_CHAIN_ID } from "../../chain/index.js";

export { DEV_CHAIN_ID };

export interface BuiltInChain {
  readonly chainId: bigint;
  readonly name: string;
  /** Where its genesis config comes from: the registry export, or the dev chain's own genesis. */
  readonly source: "registry" | "devnet";
}

export const BUILT_IN_CHAINS: ReadonlyArray<BuiltInChain> = [
  { chainId: 8453n, name: "Base", source: "registry" },
  { chainId: 84532n, name: "Base Sepolia", source: "registry" },
  { chainId: 10n, name: "OP Mainnet", source: "registry" },
  { chainId: 11155420n, name: "OP Sepolia", source: "registry" },
  { chainId: DEV_CHAIN_ID, name: "op-enclave-suite dev chain", source: "devnet" },
];
