/**
 * The chains whose config hash is built into the enclave. Decision: the project's dev chain (id 901, see
 * docs/enclave.md) is not in the table yet: its genesis is defined with the devnet, and until then a Prove
 * for chain 901 is refused with UnsupportedChain like any other unknown chain.
 */
export const DEV_CHAIN_ID = 901n;

export const BUILT_IN_CHAINS: ReadonlyArray<{ readonly chainId: bigint; readonly name: string }> = [
  { chainId: 8453n, name: "Base" },
  { chainId: 84532n, name: "Base Sepolia" },
  { chainId: 10n, name: "OP Mainnet" },
  { chainId: 11155420n, name: "OP Sepolia" },
];
