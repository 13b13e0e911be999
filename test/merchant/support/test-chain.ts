/**
 * The chain the merchant tests run against, behind one shape: an RPC URL, funded keys, a viem
 * public client. By default a real chain node process (src/node via test/node/spawn-node.ts) with
 * a 200 ms block time (each block advances chain time by at least 1 s); with
 * MERCHANT_TEST_CHAIN=dev-chain, the harness dev chain served over HTTP instead.
 */
import { createPublicClient, defineChain, type Hex, http, type PublicClient } from "viem";
import { type NodeProcess, startNodeProcess } from "../../node/spawn-node.js";
import { startDevChainServer } from "./dev-chain-server.js";
import { startThrowawayCluster, type ThrowawayCluster } from "./throwaway-cluster.js";

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

/** A running chain node process as a TestChain (closing it stops the node). */
export function nodeTestChain(node: NodeProcess): TestChain {
  return {
    kind: "node",
    rpcUrl: node.url,
    chainId: node.chainId,
    keys: node.accounts.map((a) => a.privateKey),
    publicClient: clientFor(node.url, node.chainId),
    close: () => node.stop(),
  };
}

export async function startTestChain(): Promise<TestChain> {
  if (process.env.MERCHANT_TEST_CHAIN === "dev-chain") return startDevChain();
  const node = await startNodeProcess({ blockTimeMs: 200, flashblockIntervalMs: 50, callWorkers: 0 });
  if (node.accounts.length < 4) {
    await node.stop();
    throw new Error(`the node printed ${node.accounts.length} dev keys; the merchant tests need 4`);
  }
  return nodeTestChain(node);
}

async function startDevChain(): Promise<TestChain> {
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

/**
 * A throwaway PostgreSQL cluster and the test chain, started side by side (each takes seconds, mostly waiting on its
 * process). If either fails to start, the other is stopped before the failure is thrown.
 */
export async function startClusterAndChain(): Promise<{ cluster: ThrowawayCluster; chain: TestChain }> {
  const [cluster, chain] = await Promise.allSettled([startThrowawayCluster(), startTestChain()]);
  if (cluster.status === "fulfilled" && chain.status === "fulfilled")
    return { cluster: cluster.value, chain: chain.value };
  if (cluster.status === "fulfilled") await cluster.value.stop();
  if (chain.status === "fulfilled") await chain.value.close();
  throw cluster.status === "rejected" ? cluster.reason : (chain as PromiseRejectedResult).reason;
}
