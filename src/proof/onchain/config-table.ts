// Written by src/proof/onchain/build-config-table.ts from src/chain's built-in chains (the superchain registry export)
// and the dev chain's genesis (src/proof/onchain/dev-chain.ts). Do not edit by hand.
/** Config hash of every chain the enclave proves, by L2 chain id (hex at this edge only). */
export const CONFIG_HASH_TABLE_HEX: ReadonlyArray<readonly [bigint, `0x${string}`]> = [
  [8453n, "0x1607709d90d40904f790574404e2ad614eac858f6162faa0ec34c6bf5e5f3c57"], // Base
  [84532n, "0x12e9c45f19f9817c6d4385fad29e7a70c355502cf0883e76a9a7e478a85d1360"], // Base Sepolia
  [10n, "0x4c5e76d8577a2d6515eec71d7f30e58cc3ca4a02261001300afcf0ba0da3eef2"], // OP Mainnet
  [11155420n, "0xbe6dc66788e345576b324b493517978e810ed84d713a3cd529ff6d59f8255ba3"], // OP Sepolia
  [901n, "0xa7e77293f24c88d02d1a87554f35f18bcdedabbec0482a7707d43d0635dce025"], // op-enclave-suite dev chain
];
