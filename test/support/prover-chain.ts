/**
 * A whole proving set-up for end-to-end tests, one per test file (beforeAll): anvil with the L1 contracts and our
 * node in L1 mode (test/node/l1-chain.ts, 1 s L1 and L2 blocks), the batcher PROCESS (blobs, or calldata), a
 * local-mode enclave PROCESS given the chain's rollup.json (--rollup-config: the development chain), a host PROCESS
 * collecting the witness and routing through TEEProverRegistry, TEEVerifier and AggregateVerifier deployed with the
 * chain's config hash and anchored on the L2 genesis and its output root, the enclave's signer registered THROUGH
 * THE REGISTRAR (`register --allow-local`) and the proposer accounts added to the registry's proposer list.
 *
 * After anvil and the node, two branches run side by side: account 0's L1 transactions (the caller's `onL1`, then
 * the verifiers' deployment and the proposer list, one nonce sequence) and the enclave then host processes; the
 * registrar runs once both are done.
 *
 * The host listens on a port chosen once, so `stopHost()` then `startHost()` brings it back at the same URL (what a
 * proposer configured with --prover-url sees as an outage).
 */
import {
  type Account,
  type Address,
  type Hex,
  bytesToHex,
  createWalletClient,
  getAddress,
  http,
  toHex,
  zeroHash,
} from "viem";
import { mnemonicToAccount } from "viem/accounts";
import { deployProofVerifiers } from "../../contracts/index.js";
import { type RunningEnclave, startEnclave } from "../../enclave/test/enclave-process.js";
import { httpTransport, NodeClient, type OutputResponse } from "../../generated/rpc/index.js";
import { devAccounts, genesisFactsOf } from "../../src/chain/index.js";
import { DEVNET_L1_MNEMONIC } from "../../src/devnet/l1/anvil.js";
import { computeConfigHash } from "../../src/proof/onchain/index.js";
import { runRegistrarCli } from "../../src/registrar/index.js";
import { type RunningHost, startHost as spawnHost } from "../host/spawn-host.js";
import { type BatcherProcess, type L1Chain, startChainBatcher, startL1Chain } from "../node/l1-chain.js";
import { freePort } from "../node/helpers.js";

/** An L1 development account (the public test mnemonic): index 0 owns the registry, 3 is the batcher. */
export const l1Account = (index: number): Account =>
  mnemonicToAccount(DEVNET_L1_MNEMONIC, { addressIndex: index });
/** The private key of L1 development account `index` (the same mnemonic as the L2's prefunded accounts). */
export const l1PrivateKey = (index: number): Hex => devAccounts(index + 1)[index]!.privateKey;

/** A host collecting the witness of `chain` (its L1, beacon, node and rollup.json) for the enclave at `enclavePath`. */
export function witnessHostArgs(
  chain: Pick<L1Chain, "l1" | "node" | "rollup" | "rollupPath">,
  enclavePath: string,
  listen: string,
): string[] {
  return [
    ...["--l1-rpc-url", chain.l1.anvil.rpcUrl, "--l2-rpc-url", chain.node.url],
    ...["--l2-chain-id", chain.rollup.l2ChainId.toString(), "--rollup-config", chain.rollupPath],
    ...["--listen", listen, "--vsock-cid", enclavePath],
  ];
}

export interface ProverChainOptions {
  /** L2 blocks per proposal (AggregateVerifier.BLOCK_INTERVAL, default 4). */
  readonly blockInterval?: bigint;
  /** L2 blocks per intermediate root (default 2); must divide blockInterval. */
  readonly intermediateBlockInterval?: bigint;
  /** Post batches as calldata instead of blobs (no KZG set-up: faster on a loaded machine). */
  readonly calldata?: boolean;
  /** L1 accounts added to the registry's proposer list (default: account 5). */
  readonly proposers?: readonly Address[];
  /** --proof-request-timeout of the host, seconds (default 600). */
  readonly proofTimeoutSeconds?: number;
  /**
   * L1 transactions of the caller, sent once the chain is up while the enclave and host processes start (before
   * the verifiers are deployed: account 0's transactions stay one sequence).
   */
  readonly onL1?: (chain: L1Chain) => Promise<void>;
}

export interface ProverChain {
  readonly chain: L1Chain;
  readonly l1RpcUrl: string;
  /** Our node (JSON-RPC: eth_*, optimism_outputAtBlock, optimism_syncStatus). */
  readonly l2RpcUrl: string;
  /** The prover host (prover_prove); the same URL across stopHost/startHost. */
  readonly hostUrl: string;
  readonly rollupPath: string;
  readonly addresses: {
    readonly teeProverRegistry: Address;
    readonly teeVerifier: Address;
    readonly aggregateVerifier: Address;
  };
  /** The local-mode enclave's signer address (registered through the registrar). */
  readonly enclaveSigner: Address;
  /** The chain's config hash (AggregateVerifier.CONFIG_HASH). */
  readonly configHash: Hex;
  /** The L2 genesis output (AggregateVerifier's anchor: block 0 and this root). */
  readonly anchor: { readonly block: bigint; readonly root: Hex };
  readonly blockInterval: bigint;
  readonly intermediateBlockInterval: bigint;
  /** viem clients: the L1 (public) and the L2 node (public); `wallet(account)` writes on L1. */
  readonly l1: L1Chain["l1"]["anvil"]["client"];
  readonly l2: L1Chain["l2"];
  wallet(account: Account): ReturnType<typeof walletOn>;
  /** The node's typed client. */
  readonly node: NodeClient;
  /** The output of L2 block `n` from the node. */
  outputAt(n: bigint): Promise<OutputResponse>;
  /** Resolves once the node's safe head is at least `n` (polling; generous default timeout). */
  waitForSafe(n: bigint, timeoutMs?: number): Promise<void>;
  readonly host: () => RunningHost | undefined;
  readonly enclave: RunningEnclave;
  readonly batcher: BatcherProcess;
  /** Stops the host process (SIGTERM). */
  stopHost(): Promise<void>;
  /** Starts the host process again on its port. */
  startHost(): Promise<void>;
  /** Stops everything this helper started, in reverse order. */
  stop(): Promise<void>;
}

function walletOn(chain: L1Chain, account: Account) {
  return createWalletClient({
    account,
    chain: chain.l1.anvil.chain,
    transport: http(chain.l1.anvil.rpcUrl, { timeout: 60_000 }),
  });
}

async function until<T>(what: string, check: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}${last === undefined ? "" : `: ${String(last)}`}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

export async function startProverChain(options: ProverChainOptions = {}): Promise<ProverChain> {
  const blockInterval = options.blockInterval ?? 4n;
  const intermediateBlockInterval = options.intermediateBlockInterval ?? 2n;
  const proposers = options.proposers ?? [l1Account(5).address];
  const chain = await startL1Chain({ blockTime: 1 });
  let batcher: BatcherProcess | undefined;
  let enclave: RunningEnclave | undefined;
  let host: RunningHost | undefined;
  const stopAll = async (): Promise<void> => {
    await host?.stop();
    await enclave?.stop();
    await batcher?.stop();
    await chain.stop();
  };
  try {
    batcher = startChainBatcher(chain, {
      dataAvailability: options.calldata === true ? "calldata" : "blobs",
    });
    const node = new NodeClient(httpTransport(chain.node.url, { timeoutMs: 60_000 }));
    const registry = chain.l1.deployment.teeProverRegistry;
    const configHash = toHex(computeConfigHash(genesisFactsOf(chain.rollup)));
    const port = await freePort();
    const hostArgs = (enclavePath: string) => [
      ...witnessHostArgs(chain, enclavePath, `127.0.0.1:${port}`),
      "--tee-prover-registry-address",
      registry,
      "--proof-request-timeout",
      String(options.proofTimeoutSeconds ?? 600),
    ];
    // Side by side: the L1 transactions of account 0 (the caller's, then the verifiers' deployment, one after the
    // other: one nonce sequence) and the enclave then the host processes; the registrar needs both.
    const onchain = (async () => {
      await options.onL1?.(chain);
      const genesis = await node.optimism_outputAtBlock(0n);
      const anchorRoot = bytesToHex(genesis.outputRoot);
      const deployed = await deployProofVerifiers(
        { publicClient: chain.l1.anvil.client, walletClient: walletOn(chain, l1Account(0)) },
        {
          teeProverRegistry: registry,
          teeImageHash: zeroHash,
          configHash,
          blockInterval,
          intermediateBlockInterval,
          anchorBlock: 0n,
          anchorRoot,
          proposers,
          pollingIntervalMs: 100,
          timeoutMs: 120_000,
        },
      );
      return { anchorRoot, deployed };
    })();
    const services = (async () => {
      enclave = await startEnclave(["--rollup-config", chain.rollupPath]);
      if (enclave.address.kind !== "unix") throw new Error("expected a Unix socket enclave");
      host = await spawnHost(hostArgs(enclave.address.path));
      return { enclave, enclavePath: enclave.address.path };
    })();
    // Both settled before either's failure is thrown, so stopAll sees every process started.
    const [onchainDone, servicesDone] = await Promise.allSettled([onchain, services]);
    if (onchainDone.status === "rejected") throw onchainDone.reason;
    if (servicesDone.status === "rejected") throw servicesDone.reason;
    const { anchorRoot, deployed } = onchainDone.value;
    const { enclavePath } = servicesDone.value;
    const hostUrl = host!.url;

    // The enclave's signer, bound through the registrar exactly as an operator does it.
    let out = "";
    let err = "";
    const status = await runRegistrarCli(
      [
        "register",
        "--host",
        hostUrl,
        "--l1-rpc-url",
        chain.l1.anvil.rpcUrl,
        "--registry",
        registry,
        "--allow-local",
        "--confirmations",
        "1",
      ],
      {
        out: (text) => (out += text),
        err: (text) => (err += text),
        env: { REGISTRAR_PRIVATE_KEY: l1PrivateKey(0) },
      },
    );
    if (status !== 0) throw new Error(`registrar register exited ${status}: ${err}${out}`);

    const result: ProverChain = {
      chain,
      l1RpcUrl: chain.l1.anvil.rpcUrl,
      l2RpcUrl: chain.node.url,
      hostUrl,
      rollupPath: chain.rollupPath,
      addresses: {
        teeProverRegistry: registry,
        teeVerifier: deployed.teeVerifier,
        aggregateVerifier: deployed.aggregateVerifier,
      },
      enclaveSigner: getAddress(servicesDone.value.enclave.signer),
      configHash,
      anchor: { block: 0n, root: anchorRoot },
      blockInterval,
      intermediateBlockInterval,
      l1: chain.l1.anvil.client,
      l2: chain.l2,
      wallet: (account) => walletOn(chain, account),
      node,
      outputAt: (n) => node.optimism_outputAtBlock(n),
      async waitForSafe(n, timeoutMs = 600_000) {
        // Generous: on a loaded 2-core machine the first blob waits for the KZG set-up.
        await until(
          `the safe head to reach ${n}`,
          async () => ((await node.optimism_syncStatus()).safe_l2.number >= n ? true : undefined),
          timeoutMs,
        );
      },
      host: () => host,
      enclave: servicesDone.value.enclave,
      batcher,
      async stopHost() {
        await host?.stop();
        host = undefined;
      },
      async startHost() {
        if (host !== undefined) return;
        host = await spawnHost(hostArgs(enclavePath));
      },
      stop: stopAll,
    };
    return result;
  } catch (e) {
    await stopAll();
    throw e;
  }
}
