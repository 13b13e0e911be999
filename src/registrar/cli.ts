/**
 * The registrar CLI: verify the enclaves behind a prover host by their attestations and bind their
 * signers in TEEProverRegistry. Output is one JSON object per line (one per enclave or signer).
 */
import { parseArgs } from "node:util";
import {
  type Address,
  bytesToHex,
  createPublicClient,
  createWalletClient,
  defineChain,
  getAddress,
  type Hex,
  http,
  isAddress,
  isHex,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { httpTransport, ProverClient } from "../../generated/rpc/index.js";
import {
  AWS_NITRO_ROOT_G1_SHA256,
  type AttestationPolicy,
  DEFAULT_MAX_ATTESTATION_AGE_MS,
} from "../attestation/index.js";
import { signerAddressOf } from "../proof/onchain/index.js";
import { readAttestedSigners } from "./attested-signers.js";
import { registerAttestedSigners } from "./register.js";
import { RegistrarError } from "./errors.js";
import { RegistryAdmin } from "./registry-admin.js";

export const REGISTRAR_USAGE = `Usage: registrar <command> [options]

Commands:
  inspect     verify every enclave's attestation through --host; print signer, image hash, mode
  register    inspect, then registerSigner(signer, imageHash) for each signer not bound to its image yet
  status      print each signer's registry record (--signer, repeatable, or every enclave of --host)
  deregister  deregisterSigner(--signer)

Options (each has an environment twin; the flag wins):
  --host <url>                  prover host JSON-RPC URL                         REGISTRAR_HOST_URL
  --l1-rpc-url <url>            L1 execution JSON-RPC with the registry          REGISTRAR_L1_RPC_URL
  --registry <address>          TEEProverRegistry address                        REGISTRAR_REGISTRY_ADDRESS
  --private-key <0x..>          the registrar account (owner or manager); prefer the environment
                                                                                 REGISTRAR_PRIVATE_KEY
  --signer <address>            a signer address (status, deregister); repeatable
  --trusted-root-sha256 <hex>   SHA-256 of a DER root certificate to trust instead of the AWS Nitro
                                Enclaves Root G1 (${Buffer.from(AWS_NITRO_ROOT_G1_SHA256).toString("hex")}); repeatable
                                                                                 REGISTRAR_TRUSTED_ROOT_SHA256 (comma-separated)
  --allow-local                 accept local-mode development enclaves (image hash zero); never in production
                                                                                 REGISTRAR_ALLOW_LOCAL
  --max-age <seconds>           oldest attestation accepted (default ${DEFAULT_MAX_ATTESTATION_AGE_MS / 1000})   REGISTRAR_MAX_AGE
  --confirmations <n>           confirmations to wait for after a write (default 2)
                                                                                 REGISTRAR_CONFIRMATIONS
  --dry-run                     register: verify and report, send nothing
  -h, --help                    this text

Exit status: 0 done, 1 refused (an attestation that does not verify, a registry that refuses), 2 usage error.
`;

/** A missing or malformed flag or command (exit status 2); `flag` names the flag when there is one. */
export class RegistrarUsageError extends RegistrarError<"usage"> {
  override readonly name = "RegistrarUsageError";
  constructor(message: string, details: { readonly flag?: string; readonly command?: string } = {}) {
    super(message, { kind: "usage", details });
  }
}

export interface RegistrarIo {
  out(text: string): void;
  err(text: string): void;
  env: NodeJS.ProcessEnv;
}

const OPTIONS = {
  host: { type: "string" },
  "l1-rpc-url": { type: "string" },
  registry: { type: "string" },
  "private-key": { type: "string" },
  signer: { type: "string", multiple: true },
  "trusted-root-sha256": { type: "string", multiple: true },
  "allow-local": { type: "boolean" },
  "max-age": { type: "string" },
  confirmations: { type: "string" },
  "dry-run": { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

const ENV: Record<string, string> = {
  host: "REGISTRAR_HOST_URL",
  "l1-rpc-url": "REGISTRAR_L1_RPC_URL",
  registry: "REGISTRAR_REGISTRY_ADDRESS",
  "private-key": "REGISTRAR_PRIVATE_KEY",
  "trusted-root-sha256": "REGISTRAR_TRUSTED_ROOT_SHA256",
  "allow-local": "REGISTRAR_ALLOW_LOCAL",
  "max-age": "REGISTRAR_MAX_AGE",
  confirmations: "REGISTRAR_CONFIRMATIONS",
};

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>["values"];

function text(
  values: Values,
  env: NodeJS.ProcessEnv,
  flag: keyof typeof ENV & keyof Values,
): string | undefined {
  const value = values[flag];
  if (typeof value === "string") return value;
  const twin = env[ENV[flag]!];
  return twin === undefined || twin === "" ? undefined : twin;
}

function need(value: string | undefined, flag: string): string {
  if (value === undefined) throw new RegistrarUsageError(`--${flag} is required`, { flag });
  return value;
}

function url(value: string | undefined, flag: string): string {
  const given = need(value, flag);
  let parsed: URL;
  try {
    parsed = new URL(given);
  } catch {
    throw new RegistrarUsageError(`--${flag}: "${given}" is not a URL`, { flag });
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:")
    throw new RegistrarUsageError(`--${flag}: "${given}" must be an http(s) URL`, { flag });
  return given;
}

function address(value: string, flag: string): Address {
  if (!isAddress(value, { strict: false }))
    throw new RegistrarUsageError(`--${flag}: "${value}" is not an address`, { flag });
  return getAddress(value);
}

function positiveInteger(value: string | undefined, flag: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (!/^\d{1,9}$/.test(value) || Number(value) === 0)
    throw new RegistrarUsageError(`--${flag}: "${value}" must be a positive integer`, { flag });
  return Number(value);
}

function policyOf(values: Values, env: NodeJS.ProcessEnv): AttestationPolicy {
  const roots = values["trusted-root-sha256"] ?? text(values, env, "trusted-root-sha256")?.split(",");
  const trustedRootSha256 = roots?.map((root) => {
    const hex = root.trim().replace(/^0x/, "").replaceAll(":", "").toLowerCase();
    if (!/^[0-9a-f]{64}$/.test(hex))
      throw new RegistrarUsageError(`--trusted-root-sha256: "${root}" is not a 32-byte hex fingerprint`, {
        flag: "trusted-root-sha256",
      });
    return Uint8Array.from(Buffer.from(hex, "hex"));
  });
  const allowLocalEnv = env[ENV["allow-local"]!];
  const allowLocal =
    values["allow-local"] === true ||
    (allowLocalEnv !== undefined && /^(1|true|yes|on)$/i.test(allowLocalEnv));
  const maxAgeSeconds = positiveInteger(
    text(values, env, "max-age"),
    "max-age",
    DEFAULT_MAX_ATTESTATION_AGE_MS / 1000,
  );
  return {
    ...(trustedRootSha256 === undefined ? {} : { trustedRootSha256 }),
    allowLocal,
    maxAgeMs: maxAgeSeconds * 1000,
  };
}

async function registryAdmin(
  values: Values,
  env: NodeJS.ProcessEnv,
  withAccount: boolean,
): Promise<RegistryAdmin> {
  const rpcUrl = url(text(values, env, "l1-rpc-url"), "l1-rpc-url");
  const registry = address(need(text(values, env, "registry"), "registry"), "registry");
  const confirmations = positiveInteger(text(values, env, "confirmations"), "confirmations", 2);
  const transport = http(rpcUrl, { retryCount: 2, timeout: 30_000 });
  const publicClient = createPublicClient({ transport, pollingInterval: 500 });
  if (!withAccount) return new RegistryAdmin({ registry, publicClient, confirmations });
  const key = need(text(values, env, "private-key"), "private-key");
  if (!isHex(key) || key.length !== 66)
    throw new RegistrarUsageError("--private-key must be 0x followed by 64 hex digits", {
      flag: "private-key",
    });
  const chainId = await publicClient.getChainId();
  const chain = defineChain({
    id: chainId,
    name: `chain ${chainId}`,
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
  const walletClient = createWalletClient({ account: privateKeyToAccount(key as Hex), chain, transport });
  return new RegistryAdmin({ registry, publicClient, walletClient, confirmations });
}

function hostClient(values: Values, env: NodeJS.ProcessEnv): ProverClient {
  return new ProverClient(httpTransport(url(text(values, env, "host"), "host"), { timeoutMs: 60_000 }));
}

const line = (value: unknown): string =>
  `${JSON.stringify(value, (_key, v: unknown) => (typeof v === "bigint" ? v.toString() : v))}\n`;

async function run(command: string, values: Values, io: RegistrarIo): Promise<void> {
  const { env } = io;
  switch (command) {
    case "inspect": {
      const signers = await readAttestedSigners(hostClient(values, env), { policy: policyOf(values, env) });
      for (const signer of signers) {
        io.out(
          line({
            index: signer.index,
            signer: getAddress(bytesToHex(signer.address)),
            imageHash: bytesToHex(signer.imageHash),
            mode: signer.mode,
            moduleId: signer.moduleId,
            attestedAt: new Date(Number(signer.timestamp)).toISOString(),
          }),
        );
      }
      return;
    }
    case "register": {
      const host = hostClient(values, env);
      const policy = policyOf(values, env);
      const admin = await registryAdmin(values, env, values["dry-run"] !== true);
      const signers = await readAttestedSigners(host, { policy });
      const outcomes = await registerAttestedSigners(signers, admin, { dryRun: values["dry-run"] === true });
      for (const outcome of outcomes) io.out(line(outcome));
      return;
    }
    case "status": {
      const admin = await registryAdmin(values, env, false);
      const signers =
        values.signer?.map((signer) => address(signer, "signer")) ??
        (await hostClient(values, env).enclave_signerPublicKey()).map((key) =>
          getAddress(bytesToHex(signerAddressOf(key))),
        );
      const activeImageHash = await admin.activeImageHash();
      for (const signer of signers) io.out(line({ ...(await admin.signerRecord(signer)), activeImageHash }));
      return;
    }
    case "deregister": {
      const signers = values.signer ?? [];
      if (signers.length === 0)
        throw new RegistrarUsageError("deregister needs --signer", { flag: "signer", command });
      const admin = await registryAdmin(values, env, true);
      for (const signer of signers) {
        const transactionHash = await admin.deregisterSigner(address(signer, "signer"));
        io.out(line({ signer: address(signer, "signer"), action: "deregistered", transactionHash }));
      }
      return;
    }
    default:
      throw new RegistrarUsageError(`unknown command "${command}"`, { command });
  }
}

/** Runs the CLI; returns the exit status. */
export async function runRegistrarCli(argv: readonly string[], io: RegistrarIo): Promise<number> {
  let values: Values;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: [...argv],
      options: OPTIONS,
      allowPositionals: true,
      strict: true,
    }));
  } catch (error) {
    io.err(`registrar: ${(error as Error).message}\n\n${REGISTRAR_USAGE}`);
    return 2;
  }
  if (values.help === true || positionals.length === 0) {
    (values.help === true ? io.out : io.err)(REGISTRAR_USAGE);
    return values.help === true ? 0 : 2;
  }
  if (positionals.length > 1) {
    io.err(`registrar: one command at a time, got ${positionals.join(" ")}\n`);
    return 2;
  }
  try {
    await run(positionals[0]!, values, io);
    return 0;
  } catch (error) {
    if (error instanceof RegistrarUsageError) {
      io.err(`registrar: ${error.message}\n\n${REGISTRAR_USAGE}`);
      return 2;
    }
    const described = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    io.err(`${line({ error: described })}`);
    return 1;
  }
}
