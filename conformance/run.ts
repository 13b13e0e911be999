/**
 * `npm run conformance -- --host <url> --enclave <unix path|127.0.0.1:port> --node <url>`
 * Runs every check that applies to the targets given, prints one line per check and a summary, and exits
 * 1 when any check fails (2 on a usage error).
 */
import { readFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import { parseRollupConfig } from "../src/chain/index.js";
import { JOURNAL_VERSIONS, type JournalVersion } from "../src/proof/onchain/index.js";
import {
  DEFAULT_FRAME_LENGTH_PREFIX,
  DEFAULT_MESSAGE_FORM,
  type FrameLengthPrefix,
  type MessageForm,
  parseFrameLengthPrefix,
  parseListenAddress,
  parseMessageForm,
} from "../src/proof/transport/index.js";
import { formatResult, formatSummary } from "./check.js";
import { ConformanceError } from "./errors.js";
import { allCheckIds, type ConformanceTargets, runConformance } from "./suite.js";
import { loadWitnessFile, syntheticWitness } from "./witness.js";

const USAGE = `usage: npm run conformance -- [--host <url>] [--enclave <unix path|127.0.0.1:port>] [--node <url>]
       [--witness <file.json[.gz]>|synthetic] [--expect-no-valid-signer] [--host-enclaves <n>] [--only <check id prefix>]... [--check-timeout-ms <ms>] [--response-timeout-ms <ms>]
       [--frame-length-prefix 4|8] [--message-form spec|base] [--journal-version spec|schedule-id [--rollup-config <rollup.json>]]

  --host      a prover host's JSON-RPC URL (e.g. http://127.0.0.1:7300)
  --enclave   an enclave speaking the framed bincode protocol: a Unix socket path or 127.0.0.1:<port>
              (vsock is never opened by this suite)
  --node      a chain node's JSON-RPC URL (e.g. http://127.0.0.1:8545)
  --witness   the control Prove witness: a file {"preimages":[{"key":"0x<32 bytes>","value":"0x…"}]}
              (gzip'd or not) the enclave can prove, or "synthetic" (one nobody can prove: the
              proof-dependent checks SKIP). Default: the recorded devnet witness
              (conformance/fixtures/devnet-witness.json.gz; give the enclave conformance/fixtures/
              devnet-rollup.json as its development chain, e.g. --rollup-config)
  --frame-length-prefix
              the width of the enclave frames' big-endian length prefix the suite speaks: 4 (the
              spec's, default) or 8 (Base's prover today); an enclave of this project reads either
  --message-form
              the enclave messages' form the suite speaks, whatever the frames: spec (the spec's,
              default) or base (Base's prover today: TeeImageHash as request 2, tee_signer in results)
  --journal-version
              the journal the enclave signs: spec (default) or schedule-id (the upgrade schedule id
              appended); the suite computes the expected schedule id from --rollup-config (default: the
              recorded witness's rollup config)
  --host-enclaves
              the number of enclaves behind --host: the key check then requires exactly that many
  --only      run only checks whose id starts with this prefix (repeatable)
  --expect-no-valid-signer
              the --host has a registry under which no configured signer is valid: enables the
              fail-closed check (safety 8) instead of skipping it

checks: ${allCheckIds.join(", ")}`;

class UsageError extends ConformanceError<"usage"> {
  override readonly name = "UsageError";
  constructor(message: string) {
    super(message, { kind: "usage" });
  }
}

function positiveInt(text: string | undefined, flag: string): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!Number.isInteger(value) || value <= 0) throw new UsageError(`${flag} must be a positive integer`);
  return value;
}

function frameLengthPrefix(text: string | undefined): FrameLengthPrefix {
  if (text === undefined) return DEFAULT_FRAME_LENGTH_PREFIX;
  const prefix = parseFrameLengthPrefix(text);
  if (prefix === undefined) throw new UsageError(`--frame-length-prefix must be 4 or 8, got ${text}`);
  return prefix;
}

function messageForm(text: string | undefined): MessageForm {
  if (text === undefined) return DEFAULT_MESSAGE_FORM;
  const form = parseMessageForm(text);
  if (form === undefined) throw new UsageError(`--message-form must be spec or base, got ${text}`);
  return form;
}

function journalVersion(text: string | undefined): JournalVersion {
  const version = JOURNAL_VERSIONS.find((known) => known === (text ?? "spec"));
  if (version === undefined)
    throw new UsageError(`--journal-version must be one of ${JOURNAL_VERSIONS.join(", ")}, got ${text}`);
  return version;
}

function httpUrl(text: string | undefined, flag: string): string | undefined {
  if (text === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`${flag} must be a URL, got ${text}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new UsageError(`${flag} must be an http(s) URL`);
  return text;
}

async function main(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      host: { type: "string" },
      enclave: { type: "string" },
      node: { type: "string" },
      witness: { type: "string" },
      only: { type: "string", multiple: true },
      "expect-no-valid-signer": { type: "boolean" },
      "host-enclaves": { type: "string" },
      "check-timeout-ms": { type: "string" },
      "response-timeout-ms": { type: "string" },
      "frame-length-prefix": { type: "string" },
      "message-form": { type: "string" },
      "journal-version": { type: "string" },
      "rollup-config": { type: "string" },
      help: { type: "boolean", short: "h" },
    },
    strict: true,
  });
  if (values.help === true) {
    console.log(USAGE);
    return 0;
  }
  const targets: ConformanceTargets = {
    host: httpUrl(values.host, "--host"),
    node: httpUrl(values.node, "--node"),
    enclave: values.enclave === undefined ? undefined : parseListenAddress(values.enclave),
  };
  if (targets.host === undefined && targets.node === undefined && targets.enclave === undefined) {
    throw new UsageError("give at least one of --host, --enclave, --node");
  }
  const unmatched = (values.only ?? []).filter((prefix) => !allCheckIds.some((id) => id.startsWith(prefix)));
  if (unmatched.length > 0) throw new UsageError(`--only ${unmatched.join(", ")} matches no check`);
  const witness =
    values.witness === undefined
      ? undefined
      : values.witness === "synthetic"
        ? syntheticWitness()
        : await loadWitnessFile(values.witness);
  const results = await runConformance(targets, {
    ...(witness === undefined ? {} : { witness }),
    ...(values.witness === "synthetic" ? { witnessSource: "synthetic" } : {}),
    only: values.only,
    expectNoValidSigner: values["expect-no-valid-signer"] === true,
    hostEnclaves: positiveInt(values["host-enclaves"], "--host-enclaves"),
    checkTimeoutMs: positiveInt(values["check-timeout-ms"], "--check-timeout-ms"),
    responseTimeoutMs: positiveInt(values["response-timeout-ms"], "--response-timeout-ms"),
    frameLengthPrefix: frameLengthPrefix(values["frame-length-prefix"]),
    messageForm: messageForm(values["message-form"]),
    journalVersion: journalVersion(values["journal-version"]),
    ...(values["rollup-config"] === undefined
      ? {}
      : { rollupConfig: parseRollupConfig(JSON.parse(await readFile(values["rollup-config"], "utf8"))) }),
    onResult: (result) => console.log(formatResult(result)),
  });
  console.log(formatSummary(results));
  return results.some((r) => r.status === "FAIL") ? 1 : 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`conformance: ${error instanceof Error ? error.message : String(error)}`);
    if (
      !(error instanceof Error) ||
      error.name === "UsageError" ||
      error.name === "MissingRollupConfigError" ||
      error.name === "ListenAddressError" ||
      error.name === "WitnessFileError" ||
      error.name === "TypeError"
    ) {
      console.error(USAGE);
    }
    process.exit(2);
  },
);
