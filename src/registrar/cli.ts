/**
 * The registrar CLI: verify the enclaves behind a prover host by their attestations and bind their
 * signers in TEEProverRegistry. Output is one JSON object per line (one per enclave or signer).
 */
import {
  bytesToHex,
  createPublicClient,
  createWalletClient,
  defineChain,
  getAddress,
  type Hex,
  http,
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
import {
  addressFlag,
  type FlagFailure,
  type FlagSpec,
  integerFlag,
  type ParsedFlags,
  parseFlags,
  renderFlagUsage,
  urlFlag,
} from "../service-kit/index.js";
import { readAttestedSigners } from "./attested-signers.js";
import { registerAttestedSigners } from "./register.js";
import { RegistrarError } from "./errors.js";
import { RegistryAdmin } from "./registry-admin.js";

const FLAGS: readonly FlagSpec[] = [
  { flag: "host", env: "REGISTRAR_HOST_URL", value: "URL", help: "prover host JSON-RPC URL" },
  {
    flag: "l1-rpc-url",
    env: "REGISTRAR_L1_RPC_URL",
    value: "URL",
    help: "L1 execution JSON-RPC with the registry",
  },
  {
    flag: "registry",
    env: "REGISTRAR_REGISTRY_ADDRESS",
    value: "ADDRESS",
    help: "TEEProverRegistry address",
  },
  {
    flag: "private-key",
    env: "REGISTRAR_PRIVATE_KEY",
    value: "0x..",
    help: "the registrar account (owner or manager); prefer the environment",
  },
  {
    flag: "signer",
    value: "ADDRESS",
    multiple: true,
    help: "a signer address (status, deregister); repeatable",
  },
  {
    flag: "trusted-root-sha256",
    env: "REGISTRAR_TRUSTED_ROOT_SHA256",
    value: "HEX",
    multiple: true,
    help: `SHA-256 of a DER root certificate to trust instead of the AWS Nitro Enclaves Root G1 (${Buffer.from(AWS_NITRO_ROOT_G1_SHA256).toString("hex")}); repeatable (comma-separated in the environment)`,
  },
  {
    flag: "allow-local",
    env: "REGISTRAR_ALLOW_LOCAL",
    boolean: true,
    help: "accept local-mode development enclaves (image hash zero); never in production",
  },
  {
    flag: "max-age",
    env: "REGISTRAR_MAX_AGE",
    value: "SECONDS",
    help: `oldest attestation accepted (default ${DEFAULT_MAX_ATTESTATION_AGE_MS / 1000})`,
  },
  {
    flag: "confirmations",
    env: "REGISTRAR_CONFIRMATIONS",
    value: "N",
    help: "confirmations to wait for after a write (default 2)",
  },
  { flag: "dry-run", boolean: true, help: "register: verify and report, send nothing" },
];

export const REGISTRAR_USAGE = `Usage: registrar <command> [options]

Commands:
  inspect     verify every enclave's attestation through --host; print signer, image hash, mode
  register    inspect, then registerSigner(signer, imageHash) for each signer not bound to its image yet
  status      print each signer's registry record (--signer, repeatable, or every enclave of --host)
  deregister  deregisterSigner(--signer)

Options (an environment twin where one is shown; the flag wins):
${renderFlagUsage(FLAGS).join("\n")}
  -h, --help                                this text

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

const fail: FlagFailure = (message, details) =>
  new RegistrarUsageError(message, details.flag === undefined ? {} : { flag: details.flag });

/** A positive integer flag, else `fallback` when unset. */
const positiveInteger = (flags: ParsedFlags, flag: string, fallback: number): number =>
  integerFlag(flags.text(flag) ?? String(fallback), flag, 1, fail);

function policyOf(flags: ParsedFlags): AttestationPolicy {
  const given = flags.list("trusted-root-sha256").flatMap((root) => root.split(","));
  const roots = given.length === 0 ? undefined : given;
  const trustedRootSha256 = roots?.map((root) => {
    const hex = root.trim().replace(/^0x/, "").replaceAll(":", "").toLowerCase();
    if (!/^[0-9a-f]{64}$/.test(hex))
      throw new RegistrarUsageError(`--trusted-root-sha256: "${root}" is not a 32-byte hex fingerprint`, {
        flag: "trusted-root-sha256",
      });
    return Uint8Array.from(Buffer.from(hex, "hex"));
  });
  const allowLocal = flags.bool("allow-local");
  const maxAgeSeconds = positiveInteger(flags, "max-age", DEFAULT_MAX_ATTESTATION_AGE_MS / 1000);
  return {
    ...(trustedRootSha256 === undefined ? {} : { trustedRootSha256 }),
    allowLocal,
    maxAgeMs: maxAgeSeconds * 1000,
  };
}

async function registryAdmin(flags: ParsedFlags, withAccount: boolean): Promise<RegistryAdmin> {
  const rpcUrl = urlFlag(flags.need("l1-rpc-url"), "l1-rpc-url", fail);
  const registry = addressFlag(flags.need("registry"), "registry", fail);
  const confirmations = positiveInteger(flags, "confirmations", 2);
  const transport = http(rpcUrl, { retryCount: 2, timeout: 30_000 });
  const publicClient = createPublicClient({ transport, pollingInterval: 500 });
  if (!withAccount) return new RegistryAdmin({ registry, publicClient, confirmations });
  const key = flags.need("private-key");
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

function hostClient(flags: ParsedFlags): ProverClient {
  return new ProverClient(httpTransport(urlFlag(flags.need("host"), "host", fail), { timeoutMs: 60_000 }));
}

const line = (value: unknown): string =>
  `${JSON.stringify(value, (_key, v: unknown) => (typeof v === "bigint" ? v.toString() : v))}\n`;

async function run(command: string, flags: ParsedFlags, io: RegistrarIo): Promise<void> {
  switch (command) {
    case "inspect": {
      const signers = await readAttestedSigners(hostClient(flags), { policy: policyOf(flags) });
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
      const host = hostClient(flags);
      const policy = policyOf(flags);
      const dryRun = flags.bool("dry-run");
      const admin = await registryAdmin(flags, !dryRun);
      const signers = await readAttestedSigners(host, { policy });
      const outcomes = await registerAttestedSigners(signers, admin, { dryRun });
      for (const outcome of outcomes) io.out(line(outcome));
      return;
    }
    case "status": {
      const admin = await registryAdmin(flags, false);
      const given = flags.list("signer");
      const signers =
        given.length > 0
          ? given.map((signer) => addressFlag(signer, "signer", fail))
          : (await hostClient(flags).enclave_signerPublicKey()).map((key) =>
              getAddress(bytesToHex(signerAddressOf(key))),
            );
      const activeImageHash = await admin.activeImageHash();
      for (const signer of signers) io.out(line({ ...(await admin.signerRecord(signer)), activeImageHash }));
      return;
    }
    case "deregister": {
      const signers = flags.list("signer");
      if (signers.length === 0)
        throw new RegistrarUsageError("deregister needs --signer", { flag: "signer", command });
      const admin = await registryAdmin(flags, true);
      for (const signer of signers) {
        const transactionHash = await admin.deregisterSigner(addressFlag(signer, "signer", fail));
        io.out(
          line({ signer: addressFlag(signer, "signer", fail), action: "deregistered", transactionHash }),
        );
      }
      return;
    }
    default:
      throw new RegistrarUsageError(`unknown command "${command}"`, { command });
  }
}

/** Runs the CLI; returns the exit status. */
export async function runRegistrarCli(argv: readonly string[], io: RegistrarIo): Promise<number> {
  let flags: ParsedFlags;
  try {
    flags = parseFlags(argv, io.env, FLAGS, { fail, allowPositionals: true });
  } catch (error) {
    io.err(`registrar: ${(error as Error).message}\n\n${REGISTRAR_USAGE}`);
    return 2;
  }
  const { positionals } = flags;
  if (flags.help || positionals.length === 0) {
    (flags.help ? io.out : io.err)(REGISTRAR_USAGE);
    return flags.help ? 0 : 2;
  }
  if (positionals.length > 1) {
    io.err(`registrar: one command at a time, got ${positionals.join(" ")}\n`);
    return 2;
  }
  try {
    await run(positionals[0]!, flags, io);
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
