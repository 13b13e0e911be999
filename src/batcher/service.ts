/**
 * Wires a batcher from its configuration: viem clients for L1 (the batcher key signs locally; blob transactions get
 * their KZG commitments and proofs from src/derive's process-wide Kzg through a small adapter to viem's `Kzg`),
 * the L2 reader, the L1 re-reader, the transaction sender, and an optional /metrics HTTP listener.
 */
import { type Server, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import {
  type Chain,
  type PublicClient,
  createPublicClient,
  createWalletClient,
  defineChain,
  http,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { type Kzg, loadKzg, viemKzg } from "../derive/index.js";
import type { Logger } from "../log/index.js";
import type { MetricsRegistry } from "../metrics/index.js";
import { Batcher } from "./batcher.js";
import type { BatcherConfig } from "./config.js";
import { L1PostedReader } from "./l1-posted.js";
import { L2BlockReader } from "./l2-source.js";
import { BatcherMetrics } from "./metrics.js";
import { TxSender } from "./tx-sender.js";

export { viemKzg };

export interface RunningBatcher {
  readonly batcher: Batcher;
  /** The batcher's address (from its key). */
  readonly address: `0x${string}`;
  /** `http://host:port/metrics` when a metrics listener is configured. */
  readonly metricsUrl: string | undefined;
  /** Settles when the loop ends: after stop(), or rejected on an error a restart cannot fix. */
  readonly done: Promise<void>;
  stop(): Promise<void>;
}

function listen(server: Server, host: string, port: number): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve(server.address() as AddressInfo));
  });
}

export async function startBatcher(
  config: BatcherConfig,
  deps: { logger: Logger; metrics: MetricsRegistry },
): Promise<RunningBatcher> {
  const { logger } = deps;
  const metrics = new BatcherMetrics(deps.metrics);
  const probe = createPublicClient({ transport: http(config.l1RpcUrl, { timeout: 60_000 }) });
  const l1ChainId = await probe.getChainId();
  const chain: Chain = defineChain({
    id: l1ChainId,
    name: `L1 ${l1ChainId}`,
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [config.l1RpcUrl] } },
  });
  // cacheTime 0: every getBlockNumber asks the node (viem otherwise caches it for its polling interval).
  const l1 = createPublicClient({
    chain,
    cacheTime: 0,
    transport: http(config.l1RpcUrl, { timeout: 60_000 }),
  }) as PublicClient;
  const account = privateKeyToAccount(config.privateKey);
  const walletClient = createWalletClient({
    account,
    chain,
    transport: http(config.l1RpcUrl, { timeout: 60_000 }),
  });
  const l2Client = createPublicClient({ transport: http(config.l2RpcUrl, { timeout: 60_000 }) });
  const l2 = new L2BlockReader((args) => l2Client.request(args as never));
  const l2ChainId = config.l2ChainId ?? (await l2.chainId());
  const l2GenesisTime = config.l2GenesisTime ?? (await l2.header(0n)).timestamp;
  const abort = new AbortController();
  const kzg = (): Promise<Kzg> => loadKzg();
  const posted = new L1PostedReader({
    client: l1,
    beaconUrl: config.l1BeaconUrl,
    batchInbox: config.batchInbox,
    batcher: account.address,
    kzg,
  });
  const sender = new TxSender({
    publicClient: l1,
    walletClient,
    account,
    chain,
    batchInbox: config.batchInbox,
    kzg: async () => viemKzg(await kzg()),
    resubmitAfterBlocks: config.settings.resubmitAfterBlocks,
    confirmations: config.numConfirmations,
    pollIntervalMs: config.settings.pollIntervalMs,
    metrics,
    logger,
    signal: abort.signal,
  });
  const batcher = new Batcher(config.settings, {
    l1,
    l2,
    posted,
    sender,
    span: { genesisTimestamp: l2GenesisTime, blockTime: config.l2BlockTime, chainId: l2ChainId },
    metrics,
    logger,
    signal: abort.signal,
  });
  let server: Server | undefined;
  let metricsUrl: string | undefined;
  if (config.metricsListen !== undefined) {
    server = createServer((req, res) => {
      if (req.method !== "GET" || req.url?.split("?")[0] !== "/metrics") {
        res.writeHead(404).end();
        return;
      }
      deps.metrics.exposition().then(
        (text) => res.writeHead(200, { "content-type": deps.metrics.contentType }).end(text),
        () => res.writeHead(500).end(),
      );
    });
    const address = await listen(server, config.metricsListen.host, config.metricsListen.port);
    const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
    metricsUrl = `http://${host}:${address.port}/metrics`;
  }
  logger.info(
    {
      batcher: account.address,
      batchInbox: config.batchInbox,
      l1ChainId,
      l2ChainId,
      dataAvailability: config.settings.dataAvailability,
      compression: config.settings.compression,
      metricsUrl,
    },
    "batcher started",
  );
  // Loading KZG takes seconds of CPU on c-kzg (docs/decisions.md "KZG backend"): start it now so the first blob post
  // does not wait.
  if (config.settings.dataAvailability === "blobs")
    kzg().then(
      (loaded) => logger.info({ kzgBackend: loaded.backend }, "KZG loaded"),
      (e: unknown) => logger.warn({ err: e }, "KZG failed to load; retried at the first blob"),
    );
  const done = batcher.run();
  return {
    batcher,
    address: account.address,
    metricsUrl,
    done,
    async stop() {
      abort.abort(new Error("batcher stopped"));
      await done.catch(() => undefined);
      if (server !== undefined) await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
