/**
 * `npm run load -- --rpc <url> --gas-per-second <n> [--duration <s>] [--mix …]`: the load generator
 * (docs/load.md). Prints one JSON line when setup is done, one per second of the run (gas sent and included that
 * second) and the report last. The funder is a development account of the public test mnemonic, derived in code
 * (no key on the command line or in the environment).
 */
import { parseEther } from "viem";
import {
  type FlagFailure,
  type FlagSpec,
  integerFlag,
  parseFlags,
  renderFlagUsage,
  urlFlag,
} from "../service-kit/index.js";
import { LoadUsageError } from "./errors.js";
import { BASE_LIKE_MIX, formatMix, parseMix } from "./mix.js";
import { type LoadRunOptions, runLoad } from "./run.js";

const FLAGS: readonly FlagSpec[] = [
  { flag: "rpc", env: "LOAD_RPC", value: "url", help: "the node's JSON-RPC URL (required)" },
  {
    flag: "gas-per-second",
    env: "LOAD_GAS_PER_SECOND",
    value: "n",
    help: "target gas per second of the load (required; Base's target is 40 000 000)",
  },
  { flag: "duration", env: "LOAD_DURATION", value: "s", help: "seconds of load after setup (default 60)" },
  {
    flag: "mix",
    env: "LOAD_MIX",
    value: "kind=weight,…",
    help: `shares by transaction count of transfer, swap, mint, storage, deploy (default ${formatMix(BASE_LIKE_MIX)})`,
  },
  {
    flag: "senders",
    env: "LOAD_SENDERS",
    value: "n",
    help: "sending accounts, fresh keys funded at setup (default 128)",
  },
  {
    flag: "funder",
    env: "LOAD_FUNDER",
    value: "index",
    help: "the development account (test mnemonic) that deploys and funds (default 9: no devnet role)",
  },
  { flag: "fund", env: "LOAD_FUND", value: "ether", help: "ether each sender receives for fees (default 1)" },
  {
    flag: "drain",
    env: "LOAD_DRAIN",
    value: "s",
    help: "seconds to wait after the last send for inclusions (default 20)",
  },
  {
    flag: "max-per-sender",
    env: "LOAD_MAX_PER_SENDER",
    value: "n",
    help: "transactions a sender may have awaiting inclusion (default 32; the node pools at most 64)",
  },
];

const USAGE = `Usage: npm run load -- --rpc <url> --gas-per-second <n> [options]

Deploys the load contracts (contracts/src/load) from a development account, funds fresh senders, then sends a mix
modelled on Base mainnet's traffic (ERC-20 transfers, swaps on a constant-product pool, NFT mints, storage-heavy
calls, contract deployments) at the target gas rate, and reports gas sent and included per second, inclusion
latency p50/p99 and errors by kind (JSON lines on stdout, the report last).

Options:
${renderFlagUsage(FLAGS).join("\n")}
  -h, --help                                this text
`;

const fail: FlagFailure = (message, details, cause) =>
  new LoadUsageError(message, details, cause === undefined ? undefined : { cause });

export function parseLoadFlags(argv: readonly string[], env: NodeJS.ProcessEnv): LoadRunOptions | "help" {
  const flags = parseFlags(argv, env, FLAGS, { fail });
  if (flags.help) return "help";
  const number = (flag: string, fallback: number, min: number): number =>
    integerFlag(flags.text(flag) ?? String(fallback), flag, min, fail);
  const fund = flags.text("fund") ?? "1";
  if (!/^\d+(\.\d+)?$/.test(fund))
    throw fail(`--fund must be an amount of ether, got ${fund}`, { flag: "fund" });
  const funderIndex = number("funder", 9, 0);
  if (funderIndex > 9)
    throw fail("--funder must be a development account index from 0 to 9", { flag: "funder" });
  return {
    rpcUrl: urlFlag(flags.need("rpc"), "rpc", fail),
    gasPerSecond: integerFlag(flags.need("gas-per-second"), "gas-per-second", 1, fail),
    durationSeconds: number("duration", 60, 1),
    mix: flags.text("mix") === undefined ? BASE_LIKE_MIX : parseMix(flags.text("mix")!),
    senders: number("senders", 128, 2),
    funderIndex,
    senderFunding: parseEther(fund),
    drainSeconds: number("drain", 20, 0),
    maxPerSender: Math.min(60, number("max-per-sender", 32, 1)),
  };
}

async function main(): Promise<number> {
  let options: LoadRunOptions | "help";
  try {
    options = parseLoadFlags(process.argv.slice(2), process.env);
  } catch (e) {
    process.stderr.write(`${(e as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (options === "help") {
    process.stdout.write(USAGE);
    return 0;
  }
  const line = (value: unknown): void => {
    process.stdout.write(`${JSON.stringify(value)}\n`);
  };
  const report = await runLoad({ ...options, onProgress: line });
  line(report);
  return 0;
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    process.stderr.write(`load failed: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  },
);
