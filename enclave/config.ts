/**
 * The enclave process's flags (docs/enclave.md "Running it"), declared once for the parser and the usage text
 * (src/service-kit). Only the development rollup config has an environment twin: everything else an attested
 * enclave does is fixed by its image.
 */
import { ENCLAVE_VSOCK_PORT, type ListenAddress, parseListenAddress } from "../src/proof/transport/index.js";
import { type FlagSpec, integerFlag, parseFlags, renderFlagUsage } from "../src/service-kit/index.js";
import { JOURNAL_VERSIONS, type JournalVersion } from "../src/proof/onchain/index.js";
import { DEFAULT_BLOCK_WORKERS } from "../src/proof/program/index.js";
import { EnclaveError } from "./errors.js";

/** A missing, malformed or inconsistent flag (`flag` names it when there is one). */
export class EnclaveConfigError extends EnclaveError<"config"> {
  override readonly name = "EnclaveConfigError";
  constructor(
    message: string,
    details: { readonly flag?: string } = {},
    options: { readonly cause?: unknown } = {},
  ) {
    super(message, { kind: "config", details, cause: options.cause });
  }
}

export const ENCLAVE_FLAGS: readonly FlagSpec[] = [
  {
    flag: "local",
    boolean: true,
    help: "local mode: a software security module instead of the Nitro one (never a silent fallback: without it the Nitro module must be there)",
  },
  {
    flag: "listen",
    value: "ADDRESS",
    help: "local mode only: a unix socket path, unix:<path> or 127.0.0.1:<port>",
  },
  {
    flag: "read-timeout-ms",
    value: "MS",
    help: "time for a request frame to arrive completely (default 5 minutes)",
  },
  {
    flag: "journal-version",
    value: "spec|schedule-id",
    help: "the journal the verifier checks: spec (default; 196 + 32·N bytes) or schedule-id (the upgrade schedule id, computed from the schedule built into this image, appended after teeImageHash: 228 + 32·N bytes)",
  },
  {
    flag: "workers",
    value: "N",
    help: "worker threads that execute a range's blocks in parallel (default 1, sequential only: on the devnet's small blocks the parallel path measured slower, docs/enclave.md). A range is accepted from the workers only when every block's hash is the header the next one ran on, else it is executed sequentially",
  },
  {
    flag: "worker-heap-mb",
    value: "MB",
    help: "old-generation heap limit of each block worker thread (default 1024)",
  },
  {
    flag: "rollup-config",
    env: "ENCLAVE_ROLLUP_CONFIG",
    value: "FILE",
    help: "local mode only: a DEVELOPMENT rollup config (op-node's rollup.json, e.g. the L1-backed devnet's <data-dir>/rollup.json); its config hash is computed at start and replaces its chain id's built-in row. Refused without --local: an attested enclave proves built-in chains only",
  },
];

export const ENCLAVE_USAGE = [
  "Usage: npx tsx enclave/main.ts --local --listen <address> [--read-timeout-ms <ms>] [--journal-version spec|schedule-id] [--workers <n>] [--rollup-config <file>]",
  `       npx tsx enclave/main.ts            (on AWS Nitro: listens on vsock port ${ENCLAVE_VSOCK_PORT})`,
  "",
  "Runs one enclave: it answers the host's framed requests (docs/protocol.md), content-verifies every",
  "preimage and signs a journal only after the claimed output root is reproduced.",
  "",
  "Flags:",
  ...renderFlagUsage(ENCLAVE_FLAGS),
  "  -h, --help                                print this help",
  "",
].join("\n");

export interface EnclaveConfig {
  readonly local: boolean;
  /** Local mode's address; undefined on Nitro (vsock port ENCLAVE_VSOCK_PORT, any context id). */
  readonly listen: ListenAddress | undefined;
  readonly readTimeoutMs: number | undefined;
  /** A development rollup config's path (local mode only). */
  readonly rollupConfigPath: string | undefined;
  /** The journal the verifier checks (default: the spec's). */
  readonly journalVersion: JournalVersion;
  /** Block worker threads (default: the machine's cores; 1: sequential execution only). */
  readonly workers: number;
  /** Heap limit of each block worker, MiB; undefined: the pool's default. */
  readonly workerHeapMb: number | undefined;
}

export type EnclaveCommandLine = { kind: "help"; text: string } | { kind: "run"; config: EnclaveConfig };

/**
 * Parses argv (without the node and script paths). Flags that do not fit Nitro mode (--listen, --rollup-config)
 * are refused by `checkNitroFlags` once the Nitro module is open: without --local the missing module is the
 * first refusal, never a silent fallback.
 */
export function parseEnclaveCommandLine(argv: readonly string[], env: NodeJS.ProcessEnv): EnclaveCommandLine {
  const fail = (message: string, details: { readonly flag?: string }, cause?: unknown) =>
    new EnclaveConfigError(message, details.flag === undefined ? {} : { flag: details.flag }, { cause });
  const flags = parseFlags(argv, env, ENCLAVE_FLAGS, { fail });
  if (flags.help) return { kind: "help", text: ENCLAVE_USAGE };
  const local = flags.bool("local");
  const listenText = flags.text("listen");
  const rollupConfigPath = flags.text("rollup-config");
  if (local && listenText === undefined)
    throw fail("--listen <unix path | 127.0.0.1:port> is required in local mode", { flag: "listen" });
  const timeoutText = flags.text("read-timeout-ms");
  const versionText = flags.text("journal-version") ?? "spec";
  const journalVersion = JOURNAL_VERSIONS.find((version) => version === versionText);
  if (journalVersion === undefined)
    throw fail(`--journal-version: "${versionText}" must be one of ${JOURNAL_VERSIONS.join(", ")}`, {
      flag: "journal-version",
    });
  const workersText = flags.text("workers");
  const heapText = flags.text("worker-heap-mb");
  return {
    kind: "run",
    config: {
      local,
      workers:
        workersText === undefined ? DEFAULT_BLOCK_WORKERS : integerFlag(workersText, "workers", 1, fail),
      workerHeapMb: heapText === undefined ? undefined : integerFlag(heapText, "worker-heap-mb", 64, fail),
      listen: listenText === undefined ? undefined : parseListenAddress(listenText),
      readTimeoutMs:
        timeoutText === undefined ? undefined : integerFlag(timeoutText, "read-timeout-ms", 1, fail),
      rollupConfigPath,
      journalVersion,
    },
  };
}

/** Refuses the local-mode-only flags on Nitro. */
export function checkNitroFlags(config: EnclaveConfig): void {
  if (config.listen !== undefined)
    throw new EnclaveConfigError(
      `--listen is for local mode; on Nitro the enclave listens on vsock port ${ENCLAVE_VSOCK_PORT}`,
      { flag: "listen" },
    );
  if (config.rollupConfigPath !== undefined)
    throw new EnclaveConfigError(
      "--rollup-config (ENCLAVE_ROLLUP_CONFIG) is for local mode only: an attested enclave proves the built-in chains, whose config hashes its measurement covers",
      { flag: "rollup-config" },
    );
}
