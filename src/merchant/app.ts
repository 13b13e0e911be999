/**
 * Assembles the merchant service: viem clients for the node, the store, relayer, reconciler,
 * order service and the HTTP API on uWebSockets.js. Before the API listens, one reconcile pass
 * runs so recorded-but-unsent transactions are re-sent (with their recorded relayer nonce) before
 * any new transaction is signed.
 */
import uWS, { type TemplatedApp, type us_listen_socket } from "@trufflesuite/uws-js-unofficial";
import type { Address, Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { Logger } from "../log/index.js";
import { MetricsRegistry } from "../metrics/index.js";
import { ApiKeys } from "./api-keys.js";
import { MerchantChain, type SettleAt } from "./chain.js";
import { signingClients } from "./chain-clients.js";
import { MerchantStartupError } from "./errors.js";
import { mountMerchantApi } from "./http/api.js";
import { OrderLocks } from "./order-locks.js";
import { Reconciler } from "./reconciler.js";
import { Relayer } from "./relayer.js";
import { OrderService } from "./service.js";
import { openStore } from "./store/open-store.js";
import type { OrderStore } from "./store/store.js";

export interface MerchantConfig {
  rpcUrl: string;
  token: Address;
  relayerKey: Hex;
  /** Defaults to the relayer's address. */
  payee?: Address;
  host: string;
  port: number;
  databaseUrl?: string;
  sqlitePath: string;
  /** The block tag whose block settles orders (safe, or finalized). */
  settleAt: SettleAt;
  reconcileIntervalMs: number;
  /** HTTP requests served at once; more are answered 503 (default 1024). */
  maxInFlight?: number;
  /**
   * A file that holds a write-scope API key once the service has started: kept when the key there still works,
   * otherwise a new key is created and written (mode 0600). For a local setup (the devnet) whose clients read it.
   */
  bootstrapKeyFile?: string;
}

export interface RunningMerchantService {
  port: number;
  store: OrderStore;
  service: OrderService;
  reconciler: Reconciler;
  close(): Promise<void>;
}

export { MerchantStartupError };

type ClosableApp = TemplatedApp & { close(): void };

export async function startMerchantService(
  config: MerchantConfig,
  logger: Logger,
): Promise<RunningMerchantService> {
  const account = privateKeyToAccount(config.relayerKey);
  const { chainId, publicClient, walletClient } = await signingClients(config.rpcUrl, account, {
    retryCount: 2,
    timeout: 15_000,
  }).catch((error: unknown) => {
    throw new MerchantStartupError(`cannot reach the node at ${config.rpcUrl}: ${String(error)}`);
  });
  const merchantChain = new MerchantChain(publicClient, walletClient, config.token);
  const code = await publicClient.getCode({ address: merchantChain.token });
  if (code === undefined || code === "0x") {
    throw new MerchantStartupError(`no contract at token address ${merchantChain.token} on chain ${chainId}`);
  }
  const domain = await merchantChain.domain();

  const store = await openStore({
    ...(config.databaseUrl === undefined ? {} : { databaseUrl: config.databaseUrl }),
    sqlitePath: config.sqlitePath,
  });
  const locks = new OrderLocks();
  const relayer = new Relayer(merchantChain, store);
  const reconciler = new Reconciler({
    store,
    chain: merchantChain,
    relayer,
    locks,
    logger: logger.child({ component: "reconciler" }),
    settleAt: config.settleAt,
  });
  // The first pass starts the log cursor at the current settled block when there is none yet.
  const cursor = await store.getCursor(domain.chainId, domain.verifyingContract);
  if (cursor === null) {
    const settled = await merchantChain.blockAtTag(config.settleAt);
    await store.setCursor(domain.chainId, domain.verifyingContract, settled.number, settled.hash);
  }
  await reconciler.pass();
  const service = new OrderService({
    store,
    chain: merchantChain,
    relayer,
    reconciler,
    locks,
    payee: config.payee ?? account.address,
  });

  const apiKeys = new ApiKeys(store);
  if (config.bootstrapKeyFile !== undefined) {
    const ensured = await apiKeys.ensureKeyFile(config.bootstrapKeyFile, "bootstrap", "write");
    logger.info(
      { keyId: ensured.id, file: config.bootstrapKeyFile, created: ensured.created },
      ensured.created ? "bootstrap API key created" : "bootstrap API key kept",
    );
  }

  const metrics = new MetricsRegistry({ processMetrics: true, defaultLabels: { service: "merchant" } });
  const app = uWS.App() as ClosableApp;
  mountMerchantApi(app, {
    service,
    apiKeys,
    logger: logger.child({ component: "http" }),
    metrics,
    ...(config.maxInFlight === undefined ? {} : { maxInFlight: config.maxInFlight }),
  });
  const listenSocket = await new Promise<us_listen_socket>((resolve, reject) => {
    app.listen(config.host, config.port, (socket) => {
      if (socket === false)
        reject(new MerchantStartupError(`cannot listen on ${config.host}:${config.port}`));
      else resolve(socket);
    });
  });
  const port = uWS.us_socket_local_port(listenSocket as unknown as uWS.us_socket);
  reconciler.start(config.reconcileIntervalMs);
  logger.info(
    {
      host: config.host,
      port,
      chainId,
      token: domain.verifyingContract,
      tokenName: domain.name,
      relayer: account.address,
      payee: service.payee,
      store: store.kind,
    },
    "merchant service listening",
  );
  let closing: Promise<void> | undefined;
  return {
    port,
    store,
    service,
    reconciler,
    close(): Promise<void> {
      closing ??= (async () => {
        uWS.us_listen_socket_close(listenSocket);
        await reconciler.stop();
        app.close();
        await store.close();
      })();
      return closing;
    },
  };
}
