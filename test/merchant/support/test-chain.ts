/**
 * The chain the merchant tests run against, behind one shape: an RPC URL, funded keys, a viem
 * public client. Today: the harness dev chain served over HTTP (test/merchant/support/dev-chain-server.ts)
 * with a block every 100 ms. The real node process (test/node/spawn-node.ts) plugs in here.
 */
import { createPublicClient, defineChain, type Hex, http, type PublicClient } from "viem";
import { startDevChainServer } from "./dev-chain-server.js";

export interface TestChain {
  kind: "dev-chain" | "node";
  rpcUrl: string;
  chainId: number;
  /** Funded private keys: [deployer, relayer, buyer, stranger, ...]. */
  keys: readonly Hex[];
  publicClient: PublicClient;
  close(): Promise<void>;
}

const DEV_KEYS: readonly Hex[] = [
  "0x1000000000000000000000000000000000000000000000000000000000000001",
  "0x3000000000000000000000000000000000000000000000000000000000000003",
  "0x2000000000000000000000000000000000000000000000000000000000000002",
  "0x4000000000000000000000000000000000000000000000000000000000000004",
  "0x5000000000000000000000000000000000000000000000000000000000000005",
];

export function clientFor(rpcUrl: string, chainId: number): PublicClient {
  const chain = defineChain({
    id: chainId,
    name: `test chain ${chainId}`,
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
  return createPublicClient({
    chain,
    transport: http(rpcUrl, { retryCount: 0 }),
    pollingInterval: 50,
  }) as PublicClient;
}

export async function startTestChain(): Promise<TestChain> {
  const server = await startDevChainServer({ blockIntervalMs: 100 });
  const chainId = Number(server.chainId);
  return {
    kind: "dev-chain",
    rpcUrl: server.url,
    chainId,
    keys: DEV_KEYS,
    publicClient: clientFor(server.url, chainId),
    close: () => server.close(),
  };
}
