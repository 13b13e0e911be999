/**
 * The viem clients a merchant process signs through: the chain's id read from the node, the chain defined from it,
 * and a public and a wallet client over one HTTP transport (the service's relayer, the CLI's dev-token owner).
 */
import {
  createPublicClient,
  createWalletClient,
  defineChain,
  http,
  type HttpTransportConfig,
  type PublicClient,
} from "viem";
import type { PrivateKeyAccount } from "viem/accounts";

/** Reads the chain id at `rpcUrl` (rejects when the node cannot be reached), then builds the clients. */
export async function signingClients(
  rpcUrl: string,
  account: PrivateKeyAccount,
  config: HttpTransportConfig,
) {
  const transport = http(rpcUrl, config);
  const chainId = await createPublicClient({ transport }).getChainId();
  const chain = defineChain({
    id: chainId,
    name: `chain ${chainId}`,
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
  return {
    chainId,
    publicClient: createPublicClient({ chain, transport }) as PublicClient,
    walletClient: createWalletClient({ chain, transport, account }),
  };
}
