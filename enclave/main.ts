/**
 * The enclave process.
 *
 *   tsx enclave/main.ts --local --listen <unix path | unix:path | 127.0.0.1:port> [--read-timeout-ms N]
 *                       [--rollup-config <file>]
 *
 * Without --local the enclave opens the AWS Nitro security module and fails when it is not there: local
 * mode is never a silent fallback. Logs JSON lines; the only key material logged is the signer address.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { getHeapStatistics } from "node:v8";
import { bytesToHex } from "viem";
import { parseRollupConfig, secp256k1Backend } from "../src/chain/index.js";
import { VMADDR_CID_ANY } from "../native/index.js";
import { teeImageHashOf } from "../src/attestation/index.js";
import { refuseUnknownForks } from "../src/proof/onchain/index.js";
import { imageWorkerEntry } from "../src/bundles/index.js";
import { BLOCK_WORKER_ENTRY, BlockPool, serveBlockJobs } from "../src/proof/program/index.js";
import { ENCLAVE_VSOCK_PORT } from "../src/proof/transport/index.js";
import { enclaveBundleHash } from "./bundle-hash.js";
import { checkNitroFlags, EnclaveConfigError, parseEnclaveCommandLine } from "./config.js";
import { handleProvePayload, handleRequest } from "./handler.js";
import { LocalSecurityModule } from "./local-security-module.js";
import { jsonLinesLogger as log } from "./log.js";
import { openNitroSecurityModule } from "./nitro.js";
import { type DevelopmentChain, developmentChain, enclaveChains } from "./prove.js";
import type { SecurityModule } from "./security-module.js";
import { EnclaveServer, type ServerAddress } from "./server.js";
import { EnclaveSigner } from "./signer.js";

/** The share of the heap limit that admitted requests may hold (docs/enclave.md "Memory"). */
const REQUEST_SHARE_OF_HEAP = 0.5;

async function main(): Promise<void> {
  const parsed = parseEnclaveCommandLine(process.argv.slice(2), process.env);
  if (parsed.kind === "help") {
    process.stdout.write(parsed.text);
    return;
  }
  const { config } = parsed;
  const securityModule: SecurityModule = config.local
    ? await LocalSecurityModule.open()
    : await openNitroSecurityModule();
  // Nitro: the vsock port on any context id, no operator input. Local: an explicit --listen.
  let listen: ServerAddress;
  if (securityModule.mode === "nitro") {
    checkNitroFlags(config);
    listen = { kind: "vsock", cid: VMADDR_CID_ANY, port: ENCLAVE_VSOCK_PORT };
  } else listen = config.listen!;
  const readTimeoutMs = config.readTimeoutMs;

  // docs/decisions.md "Development rollup config": a dev enclave only; never in attested mode.
  const rollupConfigPath = config.rollupConfigPath;
  let development: DevelopmentChain | undefined;
  if (rollupConfigPath !== undefined) {
    let json: unknown;
    try {
      json = JSON.parse(readFileSync(rollupConfigPath, "utf8"));
    } catch (error) {
      throw new EnclaveConfigError(
        `--rollup-config: cannot read ${rollupConfigPath} as JSON: ${(error as Error).message}`,
        { flag: "rollup-config" },
        { cause: error },
      );
    }
    if (typeof json === "object" && json !== null)
      refuseUnknownForks(json as Record<string, unknown>, `--rollup-config ${rollupConfigPath}`);
    development = developmentChain(parseRollupConfig(json));
    log("warn", "DEVELOPMENT rollup config: this enclave proves a chain whose config is not built in", {
      path: rollupConfigPath,
      chainId: development.rollupConfig.l2ChainId.toString(),
      configHash: bytesToHex(development.configHash),
    });
  }
  // docs/enclave.md "Parallel execution": the block workers start with the enclave and stay.
  const pool =
    config.workers > 1
      ? new BlockPool({
          workers: config.workers,
          ...(config.workerHeapMb === undefined ? {} : { maxHeapMb: config.workerHeapMb }),
        })
      : undefined;
  const chains = enclaveChains(development, {
    ...(pool === undefined ? {} : { pool }),
    onExecuted: (report) =>
      log("info", "range executed", {
        mode: report.mode,
        workers: report.workers,
        ...(report.fallback === undefined
          ? {}
          : { fallback: report.fallback.reason, verifiedBlocks: report.fallback.verifiedBlocks }),
        ...(report.peakWorkerHeapBytes === undefined
          ? {}
          : { peakWorkerHeapBytes: report.peakWorkerHeapBytes }),
        peakRssBytes: report.peakRssBytes,
      }),
  });

  // The check on the block workers (the preimages, then the blobs), logged with its time (the sequential check is
  // part of the proof's own time).
  const loggedVerification =
    (verify: NonNullable<typeof chains.verifyPreimages>): typeof verify =>
    async (preimages, signal) => {
      const started = performance.now();
      const blobs = await verify(preimages, signal);
      log("info", "preimages verified", {
        preimages: preimages.count,
        blobs: blobs.blobs,
        blobsChecked: blobs.checked,
        workers: config.workers,
        ms: Math.round(performance.now() - started),
      });
      return blobs;
    };

  const teeImageHash = teeImageHashOf(securityModule.pcr0());
  const signer = EnclaveSigner.generate((n) => securityModule.randomBytes(n));
  const deps = {
    identity: { publicKey: signer.publicKey },
    securityModule,
    program: {
      signer,
      teeImageHash,
      executor: chains.executor,
      configHash: chains.configHash,
      checkHorizon: chains.checkHorizon,
      ...(chains.verifyPreimages === undefined
        ? {}
        : { verifyPreimages: loggedVerification(chains.verifyPreimages) }),
      ...(config.journalVersion === "schedule-id" ? { scheduleId: chains.scheduleId } : {}),
    },
  };
  // docs/enclave.md "Memory": requests (frames and their preimage index) may hold half the heap the process was
  // started with (node --max-old-space-size), the program's working memory the other half.
  const heapLimitBytes = getHeapStatistics().heap_size_limit;
  const requestBudgetBytes = Math.floor(heapLimitBytes * REQUEST_SHARE_OF_HEAP);
  const server = new EnclaveServer({
    listen,
    handle: (request, context) => handleRequest(deps, request, context),
    handleRaw: (payload, context) => handleProvePayload(deps, payload, context),
    maxBufferedRequestBytes: requestBudgetBytes,
    // With block workers a Prove's payload is assembled where they read it in place (never copied for them).
    sharedPayloads: pool !== undefined,
    ...(readTimeoutMs !== undefined ? { readTimeoutMs } : {}),
    log,
  });
  await pool?.start();
  await server.start();
  log("info", "enclave listening", {
    mode: securityModule.mode,
    listen: server.describe(),
    signer: bytesToHex(signer.address),
    teeImageHash: bytesToHex(teeImageHash),
    heapLimitBytes,
    requestBudgetBytes,
    workers: config.workers,
    // Sender recovery's backend: libsecp256k1 (the image embeds the addon), or the pure-JS fallback, ~30x slower.
    secp256k1: secp256k1Backend,
    // The image bundle's hash (null when run from source): compare it with the build's enclave.manifest.json.
    bundleSha256: enclaveBundleHash(fileURLToPath(import.meta.url)),
    node: process.version,
  });
}

// The enclave image is one file: its block worker threads start from it too (src/bundles `workerEntryUrl`), and run
// the worker their start data names instead of an enclave.
const workerEntry = imageWorkerEntry();
if (workerEntry === BLOCK_WORKER_ENTRY) {
  serveBlockJobs();
} else if (workerEntry !== undefined) {
  throw new Error(`the enclave has no worker thread ${workerEntry}`);
} else {
  main().catch((error: unknown) => {
    log("error", "enclave start-up failed", {
      error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
    });
    process.exit(1);
  });
}
