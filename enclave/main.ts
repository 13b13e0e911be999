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
import { parseArgs } from "node:util";
import { bytesToHex } from "viem";
import { parseRollupConfig } from "../src/chain/index.js";
import { VMADDR_CID_ANY } from "../native/index.js";
import { teeImageHashOf } from "../src/attestation/index.js";
import { ENCLAVE_VSOCK_PORT, parseListenAddress } from "../src/proof/transport/index.js";
import { handleRequest } from "./handler.js";
import { LocalSecurityModule } from "./local-security-module.js";
import { jsonLinesLogger as log } from "./log.js";
import { openNitroSecurityModule } from "./nitro.js";
import { type DevelopmentChain, developmentChain, enclaveChains } from "./prove.js";
import type { SecurityModule } from "./security-module.js";
import { EnclaveServer, type ServerAddress } from "./server.js";
import { EnclaveSigner } from "./signer.js";

const USAGE = `Usage: npx tsx enclave/main.ts --local --listen <address> [--read-timeout-ms <ms>] [--rollup-config <file>]
       npx tsx enclave/main.ts            (on AWS Nitro: listens on vsock port ${ENCLAVE_VSOCK_PORT})

Runs one enclave: it answers the host's framed requests (docs/protocol.md), content-verifies every
preimage and signs a journal only after the claimed output root is reproduced.

Flags:
  --local                     local mode: a software security module instead of the Nitro one
                              (never a silent fallback: without it the Nitro module must be there)
  --listen <address>          local mode only: a unix socket path, unix:<path> or 127.0.0.1:<port>
  --read-timeout-ms <ms>      time for a request frame to arrive completely (default 5 minutes)
  --rollup-config <file>      local mode only (env ENCLAVE_ROLLUP_CONFIG): a DEVELOPMENT rollup config
                              (op-node's rollup.json, e.g. the L1-backed devnet's <data-dir>/rollup.json);
                              its config hash is computed at start and replaces its chain id's built-in row.
                              Refused without --local: an attested enclave proves built-in chains only
  --help, -h                  print this help`;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      local: { type: "boolean", default: false },
      listen: { type: "string" },
      "read-timeout-ms": { type: "string" },
      "rollup-config": { type: "string" },
      help: { type: "boolean", short: "h", default: false },
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const securityModule: SecurityModule = values.local
    ? await LocalSecurityModule.open()
    : await openNitroSecurityModule();
  // Nitro: vsock port 8000 on any context id, no operator input. Local: an explicit --listen.
  let listen: ServerAddress;
  if (securityModule.mode === "nitro") {
    if (values.listen !== undefined)
      throw new Error(
        `--listen is for local mode; on Nitro the enclave listens on vsock port ${ENCLAVE_VSOCK_PORT}`,
      );
    listen = { kind: "vsock", cid: VMADDR_CID_ANY, port: ENCLAVE_VSOCK_PORT };
  } else {
    if (values.listen === undefined)
      throw new Error("--listen <unix path | 127.0.0.1:port> is required in local mode");
    listen = parseListenAddress(values.listen);
  }
  const readTimeoutMs =
    values["read-timeout-ms"] === undefined ? undefined : Number(values["read-timeout-ms"]);
  if (readTimeoutMs !== undefined && !(Number.isSafeInteger(readTimeoutMs) && readTimeoutMs > 0)) {
    throw new Error("--read-timeout-ms must be a positive integer");
  }

  // docs/decisions.md "Development rollup config": a dev enclave only; never in attested mode.
  const rollupConfigPath = values["rollup-config"] ?? process.env.ENCLAVE_ROLLUP_CONFIG;
  let development: DevelopmentChain | undefined;
  if (rollupConfigPath !== undefined && rollupConfigPath.length > 0) {
    if (securityModule.mode !== "local")
      throw new Error(
        "--rollup-config (ENCLAVE_ROLLUP_CONFIG) is for local mode only: an attested enclave proves the built-in chains, whose config hashes its measurement covers",
      );
    let json: unknown;
    try {
      json = JSON.parse(readFileSync(rollupConfigPath, "utf8"));
    } catch (error) {
      throw new Error(
        `--rollup-config: cannot read ${rollupConfigPath} as JSON: ${(error as Error).message}`,
        {
          cause: error,
        },
      );
    }
    development = developmentChain(parseRollupConfig(json));
    log("warn", "DEVELOPMENT rollup config: this enclave proves a chain whose config is not built in", {
      path: rollupConfigPath,
      chainId: development.rollupConfig.l2ChainId.toString(),
      configHash: bytesToHex(development.configHash),
    });
  }
  const chains = enclaveChains(development);

  const teeImageHash = teeImageHashOf(securityModule.pcr0());
  const signer = EnclaveSigner.generate((n) => securityModule.randomBytes(n));
  const deps = {
    identity: { publicKey: signer.publicKey },
    securityModule,
    program: { signer, teeImageHash, executor: chains.executor, configHash: chains.configHash },
  };
  const server = new EnclaveServer({
    listen,
    handle: (request) => handleRequest(deps, request),
    ...(readTimeoutMs !== undefined ? { readTimeoutMs } : {}),
    log,
  });
  await server.start();
  log("info", "enclave listening", {
    mode: securityModule.mode,
    listen: server.describe(),
    signer: bytesToHex(signer.address),
    teeImageHash: bytesToHex(teeImageHash),
  });
}

main().catch((error: unknown) => {
  log("error", "enclave start-up failed", {
    error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
  });
  process.exit(1);
});
