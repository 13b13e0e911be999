/**
 * The main job (`npm start`): an OP Stack devnet on a real L1 (docs/devnet.md). In order:
 *
 *   L1 (anvil)        http://127.0.0.1:8546  chain 900, JSON-RPC; one block per 12 s slot at genesis + slot × 12,
 *                                            state in .data/l1; the L1 contracts deployed on first start
 *   L1 beacon API     http://127.0.0.1:5052  genesis, spec, blobs and blob sidecars by slot; other /eth/ routes
 *                                            are anvil's
 *   rollup config     .data/rollup.json      written once (genesis L1 block, addresses, forks), read by all
 *   L2 chain node     http://127.0.0.1:8545  chain 901 on real L1 origins, safe/finalized derived from L1, state
 *                                            in .data/node (websocket on the same port, flashblocks at /ws/flashblocks)
 *   batcher           http://127.0.0.1:7301/metrics  posts sealed L2 blocks to the batch inbox (blobs)
 *   token             "Dev USD" on L2, deployed once by account 0 (recorded in .data/devnet.json)
 *   merchant service  http://127.0.0.1:8650  relays with account 1, orders in .data/merchant.db, a write-scope
 *                                            API key for local clients in .data/merchant-api-key
 *   verifiers         on L1                  TEEVerifier + AggregateVerifier, deployed once (recorded in .data/devnet.json);
 *                                            with --verifier-version schedule-id ProtocolVersions (the chain's upgrade
 *                                            schedule) + ScheduleIdAggregateVerifier, the enclaves, hosts and proposer
 *                                            on --journal-version schedule-id;
 *                                            the proposer (account 5) and challenger (account 6) on the proposer list
 *   enclave           .data/enclave.sock     a local-mode enclave proving the devnet's chain (--rollup-config),
 *                                            started with a 2 GiB heap (src/devnet/enclave.ts)
 *   prover host       http://127.0.0.1:8555  prover_prove; collects the witness from L1, beacon and the node; its
 *                                            enclave's signer registered by the registrar on every start
 *   with --provers N  N enclaves (.data/enclave.sock, .data/enclave-1.sock, …) and N hosts (ports 8555, 8556, …)
 *                                            in worker mode on one proof job queue (.data/proof-jobs.db, or the
 *                                            PostgreSQL of DATABASE_URL), each signer registered; the proposer
 *                                            schedules its ranges and the challenger its disputes on that queue
 *
 * A restart resumes everything: the same L1 state, the same rollup.json, the same L2 data, the same token and
 * orders and verifiers (a new enclave signer is registered). Once the node is ready, the batcher, the token and
 * merchant, and the provers start side by side. SIGINT/SIGTERM stop the services in reverse order of start (the
 * proposer and challenger, the hosts, enclaves, merchant and batcher, then the node and L1) and exit 0. Keys go to
 * children through the environment, never argv.
 */
import { createWriteStream, mkdirSync, rmSync } from "node:fs";
import { hostname } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { type Address, createPublicClient, getAddress, http, toHex } from "viem";
import { VERIFIER_VERSIONS, type VerifierVersion } from "../../contracts/index.js";
import { devnetAccount, devnetSystemConfig } from "./accounts.js";
import {
  buildServiceBundles,
  type ServiceChild,
  jsonLine,
  runToCompletion,
  startServiceChild,
} from "./child.js";
import { runCli } from "./cli.js";
import { startDevnetEnclave } from "./enclave.js";
import { requestGasLimit } from "./gas-limit.js";
import { DevnetUsageError } from "./errors.js";
import { DEVNET_L1_BLOCK_TIME } from "./l1/anvil.js";
import { CHILD_MARK, forgetChildren, recordChildren, stopLeftovers } from "./leftovers.js";
import { startDevnetL1 } from "./l1/bootstrap.js";
import {
  chosenVerifierVersion,
  ensureProofVerifiers,
  ensureProposers,
  registerEnclaveSigners,
} from "./prover.js";
import { readRecord, updateRecord } from "./record.js";
import { DEVNET_UPGRADE_AFTER_BLOCKS, ensureDevnetRollupConfig } from "./rollup-config.js";
import { DEFAULT_WORKER_RESTART_POLICY, WorkerHostGroup } from "./worker-hosts.js";
import { openProofJobQueue } from "../proof-jobs/index.js";

const USAGE = `Usage: npm start -- [options]

Starts the devnet: the L1 (anvil, contracts deployed on first start), the rollup config (written on first start),
the L2 chain node on that L1, the batcher, the EIP-3009 dev token (deployed on first start), the merchant service,
the proof verifiers on L1 (deployed on first start), a local-mode enclave and the prover host (its enclave's signer
registered on every start).

Options (each has an environment variable):
  --data-dir <dir>               DEVNET_DATA_DIR               state directory (default .data)
  --l1-port <port>               DEVNET_L1_PORT                L1 JSON-RPC and beacon API port on 127.0.0.1
                                                               (default 8546; 0 = any)
  --l1-beacon-port <port>        DEVNET_L1_BEACON_PORT         L1 beacon API port on 127.0.0.1 (default 5052; 0 = any)
  --node-port <port>             DEVNET_NODE_PORT              L2 node JSON-RPC port on 127.0.0.1 (default 8545; 0 = any)
  --merchant-port <port>         DEVNET_MERCHANT_PORT          merchant API port on 127.0.0.1 (default 8650; 0 = any)
  --batcher-metrics-port <port>  DEVNET_BATCHER_METRICS_PORT   batcher /metrics port on 127.0.0.1 (default 7301; 0 = any)
  --prover-port <port>           DEVNET_PROVER_PORT            prover host JSON-RPC port on 127.0.0.1 (default 8555; 0 = any)
  --l1-block-time <s>            DEVNET_L1_BLOCK_TIME          L1 slot time, seconds (default 12; fixed when the L1
                                                               is created, kept in .data/l1/beacon.json)
  --l2-block-time <s>            DEVNET_L2_BLOCK_TIME          L2 block time, seconds, written to rollup.json on the
                                                               first start (default 2; a later start must agree)
  --data-availability <mode>     DEVNET_DATA_AVAILABILITY      how the batcher posts: blobs | calldata (default blobs)
  --max-channel-duration <n>     DEVNET_MAX_CHANNEL_DURATION   L1 blocks a batcher channel stays open (default 1)
  --block-interval <n>           DEVNET_BLOCK_INTERVAL         L2 blocks per AggregateVerifier proposal, fixed when the
                                                               verifiers are deployed on the first start (default 10)
  --verifier-version <v>         DEVNET_VERIFIER_VERSION       spec | schedule-id: the journal the verifier checks,
                                                               fixed on the first start (default spec); schedule-id
                                                               deploys ProtocolVersions and ScheduleIdAggregateVerifier
                                                               and runs the enclaves, hosts and proposer with
                                                               --journal-version schedule-id
  --proposer                     DEVNET_PROPOSER (1)           also run the proposer (account 5) and the challenger
                                                               (account 6) against the AggregateVerifier
  --provers <n>                  DEVNET_PROVERS                run n worker hosts, each with its own enclave, on one
                                                               proof job queue (.data/proof-jobs.db, or DATABASE_URL);
                                                               the proposer and challenger work through it (default:
                                                               one host, direct)
  --worker-restarts <n>          DEVNET_WORKER_RESTARTS        with --provers: restarts in a row of a worker host that
                                                               each die within a minute before it is given up (default
                                                               3; 0 = never restart); none left stops the devnet
  --gas-limit <n>                DEVNET_GAS_LIMIT              L2 block gas limit, set in SystemConfig on L1 when it
                                                               differs (21 000 000 to 500 000 000; default: unchanged,
                                                               30 000 000 on a new chain)
  --intermediate-block-interval <n>
                                 DEVNET_INTERMEDIATE_BLOCK_INTERVAL
                                                               L2 blocks per intermediate root, divides the above,
                                                               fixed on the first start (default 2)
  -h, --help                     this text
`;

const MINT_UNITS = 1_000_000n * 10n ** 6n;
const START_TIMEOUT_MS = 120_000;
const STOP_GRACE_MS = 15_000;

interface DevnetConfig {
  dataDir: string;
  l1Port: number;
  l1BeaconPort: number;
  nodePort: number;
  merchantPort: number;
  batcherMetricsPort: number;
  proverPort: number;
  l1BlockTime: number;
  /** Undefined: the default on a first start, whatever rollup.json says on later ones. */
  l2BlockTime: number | undefined;
  dataAvailability: "blobs" | "calldata";
  maxChannelDuration: number;
  /** Undefined: the default on a first start, the deployed AggregateVerifier's later. */
  blockInterval: number | undefined;
  intermediateBlockInterval: number | undefined;
  /** Undefined: the recorded verifiers' version on later starts, the spec's on a first one. */
  verifierVersion: VerifierVersion | undefined;
  /** Also run the proposer and the challenger. */
  proposer: boolean;
  /** Worker hosts on a proof job queue; undefined: one host serving prover_prove, the proposer calling it. */
  provers: number | undefined;
  /** With --provers: failed restarts in a row of a worker host before it is given up (0: never restarted). */
  workerRestarts: number;
  /** L2 block gas limit to set in SystemConfig; undefined: leave it. */
  gasLimit: number | undefined;
}

function portValue(text: string, what: string): number {
  const port = Number(text);
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    throw new DevnetUsageError(`${what} must be a port number, got ${text}`);
  return port;
}

function integerValue(text: string, what: string, min: number, max: number): number {
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < min || value > max)
    throw new DevnetUsageError(`${what} must be an integer from ${min} to ${max}, got ${text}`);
  return value;
}

function parseConfig(argv: readonly string[], env: NodeJS.ProcessEnv): DevnetConfig | "help" {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      "data-dir": { type: "string" },
      "l1-port": { type: "string" },
      "l1-beacon-port": { type: "string" },
      "node-port": { type: "string" },
      "merchant-port": { type: "string" },
      "batcher-metrics-port": { type: "string" },
      "prover-port": { type: "string" },
      "block-interval": { type: "string" },
      "intermediate-block-interval": { type: "string" },
      "verifier-version": { type: "string" },
      proposer: { type: "boolean" },
      provers: { type: "string" },
      "worker-restarts": { type: "string" },
      "l1-block-time": { type: "string" },
      "l2-block-time": { type: "string" },
      "data-availability": { type: "string" },
      "max-channel-duration": { type: "string" },
      "gas-limit": { type: "string" },
      help: { type: "boolean", short: "h" },
    },
    strict: true,
  });
  if (values.help === true) return "help";
  const l2BlockTime = values["l2-block-time"] ?? env.DEVNET_L2_BLOCK_TIME;
  const blockInterval = values["block-interval"] ?? env.DEVNET_BLOCK_INTERVAL;
  const intermediateBlockInterval =
    values["intermediate-block-interval"] ?? env.DEVNET_INTERMEDIATE_BLOCK_INTERVAL;
  const provers = values.provers ?? env.DEVNET_PROVERS;
  const gasLimit = values["gas-limit"] ?? env.DEVNET_GAS_LIMIT;
  const versionText = values["verifier-version"] ?? env.DEVNET_VERIFIER_VERSION;
  const verifierVersion = VERIFIER_VERSIONS.find((version) => version === versionText);
  if (versionText !== undefined && verifierVersion === undefined)
    throw new DevnetUsageError(
      `--verifier-version must be one of ${VERIFIER_VERSIONS.join(", ")}, got ${versionText}`,
    );
  const da = values["data-availability"] ?? env.DEVNET_DATA_AVAILABILITY ?? "blobs";
  if (da !== "blobs" && da !== "calldata")
    throw new DevnetUsageError(`--data-availability must be blobs or calldata, got ${da}`);
  return {
    dataDir: resolve(values["data-dir"] ?? env.DEVNET_DATA_DIR ?? ".data"),
    l1Port: portValue(values["l1-port"] ?? env.DEVNET_L1_PORT ?? "8546", "--l1-port"),
    l1BeaconPort: portValue(
      values["l1-beacon-port"] ?? env.DEVNET_L1_BEACON_PORT ?? "5052",
      "--l1-beacon-port",
    ),
    nodePort: portValue(values["node-port"] ?? env.DEVNET_NODE_PORT ?? "8545", "--node-port"),
    merchantPort: portValue(values["merchant-port"] ?? env.DEVNET_MERCHANT_PORT ?? "8650", "--merchant-port"),
    batcherMetricsPort: portValue(
      values["batcher-metrics-port"] ?? env.DEVNET_BATCHER_METRICS_PORT ?? "7301",
      "--batcher-metrics-port",
    ),
    proverPort: portValue(values["prover-port"] ?? env.DEVNET_PROVER_PORT ?? "8555", "--prover-port"),
    l1BlockTime: integerValue(
      values["l1-block-time"] ?? env.DEVNET_L1_BLOCK_TIME ?? String(DEVNET_L1_BLOCK_TIME),
      "--l1-block-time",
      1,
      3600,
    ),
    l2BlockTime: l2BlockTime === undefined ? undefined : integerValue(l2BlockTime, "--l2-block-time", 1, 60),
    dataAvailability: da,
    maxChannelDuration: integerValue(
      values["max-channel-duration"] ?? env.DEVNET_MAX_CHANNEL_DURATION ?? "1",
      "--max-channel-duration",
      0,
      1_000_000,
    ),
    blockInterval:
      blockInterval === undefined ? undefined : integerValue(blockInterval, "--block-interval", 2, 1_000_000),
    intermediateBlockInterval:
      intermediateBlockInterval === undefined
        ? undefined
        : integerValue(intermediateBlockInterval, "--intermediate-block-interval", 2, 1_000_000),
    verifierVersion,
    proposer: values.proposer === true || ["1", "true"].includes(env.DEVNET_PROPOSER ?? ""),
    provers: provers === undefined ? undefined : integerValue(provers, "--provers", 1, 16),
    workerRestarts: integerValue(
      values["worker-restarts"] ??
        env.DEVNET_WORKER_RESTARTS ??
        String(DEFAULT_WORKER_RESTART_POLICY.maxFailedRestarts),
      "--worker-restarts",
      0,
      100,
    ),
    // SystemConfig's bounds.
    gasLimit:
      gasLimit === undefined ? undefined : integerValue(gasLimit, "--gas-limit", 21_000_000, 500_000_000),
  };
}

function echoTo(prefix: string): (line: string) => void {
  return (line) => process.stdout.write(`${prefix} ${line}\n`);
}

/** The token recorded for this chain if its code is still there, else a fresh deployment (recorded). */
async function ensureToken(nodeUrl: string, chainId: number, dataDir: string): Promise<Address> {
  const client = createPublicClient({ transport: http(nodeUrl, { timeout: 60_000 }) });
  const recorded = readRecord(dataDir);
  if (recorded.token !== undefined && recorded.chainId === chainId) {
    const code = await client.getCode({ address: recorded.token });
    if (code !== undefined && code !== "0x") return recorded.token;
  }
  const output = await runToCompletion(
    "src/merchant/cli.ts",
    [
      "deploy-token",
      "--rpc-url",
      nodeUrl,
      "--mint-to",
      devnetAccount("buyer").address,
      "--amount",
      String(MINT_UNITS),
    ],
    START_TIMEOUT_MS,
    // Keys through the environment, never argv (visible in `ps` to every local user).
    { MERCHANT_CLI_KEY: devnetAccount("deployer").privateKey },
  );
  const token = getAddress((JSON.parse(output) as { token: string }).token);
  updateRecord(dataDir, { chainId, token });
  return token;
}

/** A running part of the devnet, stopped in reverse order of start. */
interface Part {
  readonly name: string;
  readonly pid: number | undefined;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stop(graceMs: number): Promise<void>;
}

/** The proof job queue the --provers worker hosts share: DATABASE_URL's PostgreSQL, else a SQLite file. */
interface DevnetProofQueue {
  readonly databaseUrl?: string;
  readonly sqlitePath?: string;
  readonly description: string;
}

function proofJobQueue(config: DevnetConfig): DevnetProofQueue | undefined {
  if (config.provers === undefined) return undefined;
  const databaseUrl = process.env.DATABASE_URL;
  if (databaseUrl !== undefined && databaseUrl !== "")
    return { databaseUrl, description: "PostgreSQL (DATABASE_URL)" };
  const sqlitePath = join(config.dataDir, "proof-jobs.db");
  return { sqlitePath, description: sqlitePath };
}

/**
 * Ends the leases a worker host that died held (its owner name is the host's `<hostname>:<pid>`, src/host/worker.ts):
 * the devnet reaped the process, so its jobs are claimable at once instead of after the lease.
 */
async function expireLeasesOfDeadHost(queue: DevnetProofQueue, pid: number): Promise<number> {
  const opened = await openProofJobQueue({
    sqlitePath: queue.sqlitePath ?? "",
    ...(queue.databaseUrl === undefined ? {} : { databaseUrl: queue.databaseUrl }),
  });
  try {
    return await opened.expireLeasesOf(`${hostname()}:${pid}`);
  } finally {
    await opened.close();
  }
}

interface ProverContext {
  readonly l1RpcUrl: string;
  readonly beaconUrl: string;
  readonly ready: { readonly url: string; readonly chainId: number };
  readonly rollup: { readonly path: string };
  readonly queue: DevnetProofQueue | undefined;
  /** The journal the enclaves sign and the hosts check (--journal-version). */
  readonly journalVersion: VerifierVersion;
  /** With --provers: the worker hosts' supervision (a dead one restarted, docs/devnet.md "Several provers"). */
  readonly workers: WorkerHostGroup | undefined;
}

/** A local enclave and the host in front of it, started; `ready` resolves with the host's URL and signer. */
async function startProver(
  index: number,
  config: DevnetConfig,
  context: ProverContext,
  add: <T extends Part>(part: T) => Promise<T>,
): Promise<{ ready: Promise<{ url: string; signer: Address }> }> {
  const suffix = index === 0 ? "" : ` ${index}`;
  const socket = join(config.dataDir, index === 0 ? "enclave.sock" : `enclave-${index}.sock`);
  // sockaddr_un holds 108 bytes with the terminating NUL.
  if (Buffer.byteLength(socket) > 107)
    throw new DevnetUsageError(`the enclave socket path ${socket} is too long: choose a shorter --data-dir`);
  const port = config.proverPort === 0 ? 0 : config.proverPort + index;
  if (port > 65_535)
    throw new DevnetUsageError(`--prover-port ${config.proverPort} leaves no port for host ${index}`);
  rmSync(socket, { force: true }); // a killed enclave's socket file
  const enclave = await add(
    startDevnetEnclave(
      `enclave${suffix}`,
      [
        ...["--local", "--listen", socket, "--rollup-config", context.rollup.path],
        ...["--journal-version", context.journalVersion],
      ],
      echoTo(`[enclave${suffix}]`),
    ),
  );
  const { queue, workers } = context;
  const startHost = (listenPort: number): ServiceChild =>
    startServiceChild(
      `prover host${suffix}`,
      "src/host/main.ts",
      [
        ...["--l1-rpc-url", context.l1RpcUrl, "--l1-beacon-url", context.beaconUrl],
        ...["--l2-rpc-url", context.ready.url, "--l2-chain-id", String(context.ready.chainId)],
        ...["--rollup-config", context.rollup.path, "--vsock-cid", socket],
        ...["--listen", `127.0.0.1:${listenPort}`, "--journal-version", context.journalVersion],
        // The devnet's node keeps witness records: the host forwards its block witnesses instead of executing each
        // block again (docs/host.md "Forwarded witnesses").
        ...["--witness-run", "forward"],
        // A worker's DATABASE_URL comes with this process's environment.
        ...(queue === undefined ? [] : ["--worker"]),
        ...(queue?.sqlitePath === undefined ? [] : ["--job-queue-sqlite", queue.sqlitePath]),
      ],
      echoTo(`[host${suffix}]`),
      // Only the Unix socket is used: the host never opens AF_VSOCK here.
      { OP_ENCLAVE_FORBID_VSOCK: "1" },
    );
  // The host connects to its enclave per request: both start together, and the L1 work runs meanwhile.
  const first = startHost(port);
  let boundPort = port;
  // A worker host that dies is started again in front of the same enclave, on the port it had bound.
  await add(workers === undefined ? first : workers.supervise(first, () => startHost(boundPort)));
  const host = first;
  const ready = Promise.all([
    enclave.waitForLine((line) => {
      const value = jsonLine(line);
      return value?.msg === "enclave listening" ? getAddress(String(value.signer)) : undefined;
    }, START_TIMEOUT_MS),
    host.waitForLine((line) => {
      const value = jsonLine(line);
      return value?.msg === "prover host listening" ? Number(value.port) : undefined;
    }, START_TIMEOUT_MS),
  ]).then(([signer, bound]) => {
    boundPort = bound;
    return { url: `http://127.0.0.1:${bound}`, signer };
  });
  ready.catch(() => undefined);
  return { ready };
}

async function main(config: DevnetConfig): Promise<number> {
  mkdirSync(config.dataDir, { recursive: true });
  const parts: Part[] = [];
  let stopped: Promise<void> | undefined;
  /** Stops every part, newest first; every caller waits for the same stop. */
  const stopAll = (): Promise<void> => {
    stopped ??= (async () => {
      for (let part = parts.pop(); part !== undefined; part = parts.pop()) await part.stop(STOP_GRACE_MS);
      forgetChildren(config.dataDir);
    })();
    return stopped;
  };
  const recordParts = (): void =>
    recordChildren(
      config.dataDir,
      parts.flatMap((p) => (p.pid === undefined ? [] : [p.pid])),
    );
  /** Registers a started part; one started while the devnet stops is stopped at once. */
  const add = async <T extends Part>(part: T): Promise<T> => {
    if (stopped !== undefined) {
      await part.stop(STOP_GRACE_MS);
      await stopped;
    } else {
      parts.push(part);
      recordParts();
    }
    return part;
  };
  // A terminal's Ctrl-C reaches npm, tsx and this process, so the signal can arrive more than once: every
  // delivery joins the one stop (a once-listener would leave the second to Node's default, an immediate exit that
  // orphans every child).
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.on(signal, () => {
      if (stopped === undefined) process.stdout.write(`[devnet] ${signal}: stopping the services\n`);
      void stopAll().then(() => process.exit(0));
    });
  }
  // The console went away (a closed pipe): stop the children rather than leave them running without a parent.
  process.stdout.on("error", () => void stopAll().then(() => process.exit(1)));

  try {
    // 0. What a devnet killed on this data directory left running (docs/devnet.md "Restarts").
    const leftovers = await stopLeftovers(config.dataDir);
    if (leftovers.length > 0)
      process.stdout.write(
        `[devnet] stopped ${leftovers.length} processes a killed devnet left: ${leftovers.join(", ")}\n`,
      );

    // The services start from bundles (src/bundles), built while the L1 starts.
    const bundles = buildServiceBundles();
    bundles.catch(() => undefined);

    // 1. The L1 and its contracts. anvil logs every request: its output goes to a file, not the console.
    const l1Dir = join(config.dataDir, "l1");
    mkdirSync(l1Dir, { recursive: true });
    const anvilLog = createWriteStream(join(l1Dir, "anvil.log"), { flags: "a" });
    const l1 = await startDevnetL1({
      port: config.l1Port,
      stateDir: l1Dir,
      stateIntervalSeconds: config.l1BlockTime,
      slots: { secondsPerSlot: config.l1BlockTime, beaconPort: config.l1BeaconPort },
      onMineError: (e) => anvilLog.write(`[devnet] slot not mined: ${(e as Error).message}\n`),
      systemConfig: devnetSystemConfig(),
      onLine: (line) => anvilLog.write(`${line}\n`),
    });
    const beacon = l1.beacon!;
    await add({
      name: "L1 (anvil)",
      pid: l1.anvil.process.pid,
      exited: l1.anvil.exited,
      stop: (graceMs) => l1.anvil.stop(graceMs),
    });
    // The slot miner and the beacon API live in this process: stopped before anvil (parts stop in reverse).
    await add({
      name: "L1 beacon API and slot miner",
      pid: undefined,
      exited: new Promise(() => undefined),
      stop: () => beacon.stop(),
    });
    process.stdout.write(
      `[devnet] L1 ${l1.anvil.resumed ? "resumed" : "started"} at ${l1.anvil.rpcUrl} (chain ${l1.anvil.chainId}), ` +
        `beacon API ${beacon.url} (${beacon.grid.secondsPerSlot} s slots from ${beacon.grid.genesisTime})\n`,
    );

    // --gas-limit: SystemConfig.setGasLimit on L1 (a first start mines it in the L2 genesis's anchor block).
    const gasLimit =
      config.gasLimit === undefined ? undefined : await requestGasLimit(l1, BigInt(config.gasLimit));

    // 2. The rollup config, written once.
    // A schedule-id devnet schedules one upgrade after genesis, so the schedule id its verifier pins changes.
    const scheduleIdDevnet = chosenVerifierVersion(config.verifierVersion, config.dataDir) === "schedule-id";
    const rollup = await ensureDevnetRollupConfig(l1, {
      dataDir: config.dataDir,
      ...(config.l2BlockTime === undefined ? {} : { blockTime: config.l2BlockTime }),
      ...(scheduleIdDevnet ? { upgradeAfterBlocks: DEVNET_UPGRADE_AFTER_BLOCKS } : {}),
    });
    process.stdout.write(
      `[devnet] rollup config ${rollup.created ? "written to" : "read from"} ${rollup.path} ` +
        `(L2 genesis ${toHex(rollup.config.genesis.l2.hash)}, L1 block ${rollup.config.genesis.l1.number})\n`,
    );

    if (gasLimit !== undefined) {
      await gasLimit.included;
      if (gasLimit.previous !== BigInt(config.gasLimit!))
        process.stdout.write(
          `[devnet] L2 gas limit ${gasLimit.previous} → ${config.gasLimit} in SystemConfig\n`,
        );
    }

    await bundles;
    // 3. The L2 node on real L1 origins.
    const node = await add(
      startServiceChild(
        "chain node",
        "src/node/main.ts",
        [
          "--host",
          "127.0.0.1",
          "--port",
          String(config.nodePort),
          "--data-dir",
          join(config.dataDir, "node"),
          "--l1-rpc",
          l1.anvil.rpcUrl,
          "--rollup-config",
          rollup.path,
        ],
        echoTo("[node]"),
      ),
    );
    const ready = await node.waitForLine((line) => {
      const value = jsonLine(line);
      return value?.msg === "node ready"
        ? { url: String(value.url), chainId: Number(value.chainId) }
        : undefined;
    }, START_TIMEOUT_MS);

    // 4-6 side by side: the batcher, the token and the merchant service, and the provers each need only the node.
    // 4. The batcher, signing with SystemConfig's batcher key.
    const batcherKey = devnetAccount("batcher").privateKey;
    const batcher: ServiceChild = await add(
      startServiceChild(
        "batcher",
        "src/batcher/main.ts",
        [
          "--l1-rpc-url",
          l1.anvil.rpcUrl,
          "--l2-rpc-url",
          ready.url,
          "--rollup-config",
          rollup.path,
          "--data-availability",
          config.dataAvailability,
          "--max-channel-duration",
          String(config.maxChannelDuration),
          "--l1-start-block",
          String(rollup.config.genesis.l1.number),
          "--poll-interval-ms",
          String(Math.min(1000, config.l1BlockTime * 250)),
          "--metrics-listen",
          `127.0.0.1:${config.batcherMetricsPort}`,
        ],
        echoTo("[batcher]"),
        { BATCHER_PRIVATE_KEY: batcherKey },
      ),
    );
    const batcherStarted = batcher.waitForLine((line) => {
      const value = jsonLine(line);
      return value?.msg === "batcher started" ? String(value.metricsUrl) : undefined;
    }, START_TIMEOUT_MS);
    // Awaited below with the others; a failure meanwhile is not an unhandled rejection.
    batcherStarted.catch(() => undefined);

    // 5. The token and the merchant service, as before the L1.
    const relayer = devnetAccount("relayer");
    const buyer = devnetAccount("buyer");
    const merchantKeyFile = join(config.dataDir, "merchant-api-key");
    const merchantStarted = (async () => {
      const token = await ensureToken(ready.url, ready.chainId, config.dataDir);
      const merchant = await add(
        startServiceChild(
          "merchant service",
          "src/merchant/main.ts",
          [
            "--rpc-url",
            ready.url,
            "--token",
            token,
            "--listen",
            `127.0.0.1:${config.merchantPort}`,
            "--sqlite",
            join(config.dataDir, "merchant.db"),
            // A write-scope API key the service keeps in this file (mode 0600) for the devnet's clients.
            "--bootstrap-key-file",
            merchantKeyFile,
          ],
          echoTo("[merchant]"),
          { MERCHANT_RELAYER_KEY: relayer.privateKey },
        ),
      );
      const merchantPort = await merchant.waitForLine((line) => {
        const value = jsonLine(line);
        return value?.msg === "merchant service listening" ? Number(value.port) : undefined;
      }, START_TIMEOUT_MS);
      return { token, merchantPort };
    })();
    merchantStarted.catch(() => undefined);

    // 6. The proof verifiers on L1 (first start), the proposer list, the local enclaves and the hosts in front of
    // them (one, or --provers worker hosts on one proof job queue), each enclave's (new, per-process) signer
    // registered through the registrar.
    const queue = proofJobQueue(config);
    const journalVersion = chosenVerifierVersion(config.verifierVersion, config.dataDir);
    const workers =
      queue === undefined
        ? undefined
        : new WorkerHostGroup({
            policy: { ...DEFAULT_WORKER_RESTART_POLICY, maxFailedRestarts: config.workerRestarts },
            report: (line) => process.stdout.write(`${line}\n`),
            restarted: recordParts,
            stopping: () => stopped !== undefined,
            died: (pid) => expireLeasesOfDeadHost(queue, pid),
          });
    const provers = await Promise.all(
      Array.from({ length: config.provers ?? 1 }, (_, index) =>
        startProver(
          index,
          config,
          {
            ...{ l1RpcUrl: l1.anvil.rpcUrl, beaconUrl: beacon.url, ready, rollup, queue, journalVersion },
            workers,
          },
          add,
        ),
      ),
    );
    const proposer = getAddress(devnetAccount("proposer").address);
    const challenger = getAddress(devnetAccount("challenger").address);
    const [batcherMetricsUrl, { token, merchantPort }, { verifiers, deployed }, started] = await Promise.all([
      batcherStarted,
      merchantStarted,
      (async () => {
        const result = await ensureProofVerifiers(l1, ready.url, rollup.config, config.dataDir, {
          blockInterval: config.blockInterval,
          intermediateBlockInterval: config.intermediateBlockInterval,
          verifierVersion: config.verifierVersion,
        });
        await ensureProposers(l1, [proposer, challenger]);
        return result;
      })(),
      Promise.all(provers.map((prover) => prover.ready)),
    ]);
    process.stdout.write(
      `[devnet] verifiers ${deployed ? "deployed" : "found"}: TEEVerifier ${verifiers.teeVerifier}, ` +
        `AggregateVerifier ${verifiers.aggregateVerifier} (${verifiers.verifierVersion} journals` +
        `${verifiers.protocolVersions === undefined ? "" : `, ProtocolVersions ${verifiers.protocolVersions}`}, ` +
        `blocks ${verifiers.blockInterval}, ` +
        `intermediate ${verifiers.intermediateBlockInterval}, config hash ${verifiers.configHash})\n`,
    );
    // One after the other: every registration is a transaction of the registry owner's account.
    for (const { url } of started) {
      const registered = await registerEnclaveSigners(url, l1.anvil.rpcUrl, verifiers.teeProverRegistry);
      for (const r of registered)
        process.stdout.write(
          `[devnet] enclave signer ${r.signer} ${r.action} in TEEProverRegistry (${url})\n`,
        );
    }
    const proverUrl = started[0]!.url;
    const enclaveSigner = started[0]!.signer;
    if (queue !== undefined)
      process.stdout.write(
        `[devnet] ${started.length} worker hosts on the proof job queue ${queue.description}\n`,
      );
    updateRecord(config.dataDir, {
      endpoints: {
        l1RpcUrl: l1.anvil.rpcUrl,
        l1BeaconUrl: beacon.url,
        l2RpcUrl: ready.url,
        proverUrl,
        proposer,
        challenger,
      },
    });

    // 7. With --proposer: the proposer and the challenger against the AggregateVerifier (keys in their environment;
    // the mark lets a later start find them if this devnet is killed, docs/devnet.md "Restarts").
    if (config.proposer) {
      const services = await Promise.all(
        (["proposer", "challenger"] as const).map((role) =>
          add(
            startServiceChild(
              role,
              `src/${role}/main.ts`,
              [
                ...["--l1-rpc-url", l1.anvil.rpcUrl, "--rollup-rpc-url", ready.url],
                ...["--prover-url", proverUrl, "--verifier", verifiers.aggregateVerifier],
                ...["--poll-interval-ms", String(Math.min(2000, config.l1BlockTime * 500))],
                ...["--journal-version", verifiers.verifierVersion],
                // Both work through the workers' queue (the challenger's disputes in a namespace of its own),
                // with their metrics on a free port (the "serving metrics" line).
                ...(queue === undefined ? [] : ["--metrics-listen", "127.0.0.1:0"]),
                ...(queue?.sqlitePath === undefined ? [] : ["--job-queue-sqlite", queue.sqlitePath]),
              ],
              echoTo(`[${role}]`),
              {
                [`${role.toUpperCase()}_PRIVATE_KEY`]: devnetAccount(role).privateKey,
                [CHILD_MARK]: config.dataDir,
                ...(queue?.databaseUrl === undefined
                  ? {}
                  : { [`${role.toUpperCase()}_DATABASE_URL`]: queue.databaseUrl }),
              },
            ),
          ),
        ),
      );
      await Promise.all(
        services.map((service) =>
          service.waitForLine((line) => {
            const value = jsonLine(line);
            return value?.msg === `${service.name} started` ? true : undefined;
          }, START_TIMEOUT_MS),
        ),
      );
    }

    const { deployment } = l1;
    process.stdout.write(
      `${JSON.stringify({
        msg: "devnet ready",
        l1RpcUrl: l1.anvil.rpcUrl,
        l1BeaconUrl: beacon.url,
        l1ChainId: l1.anvil.chainId,
        l2RpcUrl: ready.url,
        nodeUrl: ready.url,
        chainId: ready.chainId,
        rollupConfig: rollup.path,
        portal: deployment.depositPortal,
        systemConfig: deployment.systemConfig,
        batchInbox: deployment.batchInbox,
        teeProverRegistry: deployment.teeProverRegistry,
        batcher: getAddress(devnetAccount("batcher").address),
        batcherMetricsUrl,
        token,
        merchantUrl: `http://127.0.0.1:${merchantPort}`,
        merchantApiKeyFile: merchantKeyFile,
        proverUrl,
        enclaveSigner,
        provers: started.map((prover) => ({ url: prover.url, signer: prover.signer })),
        teeVerifier: verifiers.teeVerifier,
        aggregateVerifier: verifiers.aggregateVerifier,
        verifierVersion: verifiers.verifierVersion,
        ...(verifiers.protocolVersions === undefined ? {} : { protocolVersions: verifiers.protocolVersions }),
        blockInterval: verifiers.blockInterval,
        intermediateBlockInterval: verifiers.intermediateBlockInterval,
        configHash: verifiers.configHash,
        proposer,
        challenger,
        proposerRunning: config.proposer,
        relayer: getAddress(relayer.address),
        buyer: getAddress(buyer.address),
        buyerKey: buyer.privateKey,
      })}\n`,
    );
    // A part that dies takes the devnet down with it: nothing half-running.
    const first = await Promise.race(parts.map((part) => part.exited.then((exit) => ({ part, exit }))));
    if (stopped !== undefined) {
      // A signal stops the devnet: wait until every part is down (the handler exits 0).
      await stopped;
      return 0;
    }
    process.stderr.write(
      `${first.part.name} exited (code ${first.exit.code}, signal ${first.exit.signal}); stopping\n`,
    );
    await stopAll();
    return 1;
  } catch (e) {
    process.stderr.write(`devnet start-up failed: ${e instanceof Error ? e.message : String(e)}\n`);
    await stopAll();
    return 1;
  }
}

runCli({ usage: USAGE, parse: parseConfig, run: main });
