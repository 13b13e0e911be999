/**
 * The merchant CLI: talks to the merchant HTTP API (orders) and, for trying things out locally,
 * signs as a buyer (authorizations and cancellations with src/payments, domain read from the token).
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { type Address, createPublicClient, getAddress, type Hex, http, isAddress } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import {
  createAuthorization,
  readTokenDomain,
  signAuthorization,
  signCancellation,
} from "../payments/index.js";
import { type CreateOrderBody, MerchantApiError, MerchantClient } from "./client.js";
import { deployDevToken, type DevTokenOptions } from "./dev-token.js";
import { CliUsageError } from "./errors.js";
import { ORDER_STATES, isOrderState } from "./order.js";

export const CLI_USAGE = `Usage: merchant-cli <command> [options]

Orders (talk to the merchant API at --url, default $MERCHANT_URL or http://127.0.0.1:8650):
  create [--file <path>|-]          create an order from a signed authorization (JSON body; default stdin)
  get <id>                          show an order
  list [--state <s>] [--limit <n>] [--after <id>]
  capture <id>                      capture onchain (one transaction)
  void <id>                         void offchain (no transaction; expires at validBefore)
  cancel <id> --signature <0x..>    cancel onchain with the buyer's CancelAuthorization signature
  wait <id> --state <s>[,<s>...] [--timeout-ms <n>]

Buyer tools (sign locally; need --rpc-url and --token to read the token's domain):
  sign-authorization --key <0x..> --to <address> --value <units> [--valid-for <seconds>]
                     [--kind transfer|receive]    prints a create body (JSON)
  sign-cancel --key <0x..> --nonce <0x..32 bytes>  prints {"signature": ...}

Development (a local chain with funded keys):
  deploy-token --key <0x..> [--name <name>] [--mint-to <address> --amount <units>]
                                    deploys Eip3009Token (owner = --key), optionally mints; prints the address

Options: --url <url>, --rpc-url <url>, --token <address>, --api-key-file <path>, -h/--help
API key (order commands): $MERCHANT_API_KEY, or a file named by --api-key-file or $MERCHANT_API_KEY_FILE (never
on the command line); create keys with src/merchant/keys.ts (docs/merchant.md).
Keys: --key may come from $MERCHANT_CLI_KEY instead (keeps it off the command line, which \`ps\` shows).
Exit status: 0 ok, 1 the API answered an error (printed as JSON on stderr), 2 usage error.
`;

export { CliUsageError };

export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  readStdin(): Promise<string>;
  env: NodeJS.ProcessEnv;
}

const OPTIONS = {
  url: { type: "string" },
  "api-key-file": { type: "string" },
  file: { type: "string" },
  state: { type: "string" },
  limit: { type: "string" },
  after: { type: "string" },
  signature: { type: "string" },
  "timeout-ms": { type: "string" },
  "rpc-url": { type: "string" },
  token: { type: "string" },
  key: { type: "string" },
  to: { type: "string" },
  value: { type: "string" },
  "valid-for": { type: "string" },
  kind: { type: "string" },
  nonce: { type: "string" },
  name: { type: "string" },
  "mint-to": { type: "string" },
  amount: { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

function json(value: unknown): string {
  return `${JSON.stringify(value, (_k, v: unknown) => (typeof v === "bigint" ? v.toString() : v), 2)}\n`;
}

function need(value: string | undefined, flag: string): string {
  if (value === undefined || value === "") throw new CliUsageError(`${flag} is required`);
  return value;
}

function privateKey(text: string | undefined): Hex {
  const key = need(text, "--key");
  if (!/^0x[0-9a-fA-F]{64}$/.test(key)) throw new CliUsageError("--key must be 32 bytes of 0x-prefixed hex");
  return key as Hex;
}

function addressFlag(text: string | undefined, flag: string): Address {
  const value = need(text, flag);
  if (!isAddress(value, { strict: false })) throw new CliUsageError(`${flag} must be an address`);
  return getAddress(value);
}

/** Runs one CLI invocation; returns the exit status. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    io.err(`merchant-cli: ${(error as Error).message}\n\n${CLI_USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  const [command, id, ...extra] = positionals;
  if (values.help === true || command === undefined) {
    io.out(CLI_USAGE);
    return command === undefined && values.help !== true ? 2 : 0;
  }
  const keyFile = values["api-key-file"] ?? io.env.MERCHANT_API_KEY_FILE;
  let apiKey = io.env.MERCHANT_API_KEY;
  if (keyFile !== undefined && keyFile !== "") {
    try {
      apiKey = readFileSync(keyFile, "utf8").trim();
    } catch (error) {
      io.err(`merchant-cli: cannot read the API key file ${keyFile}: ${(error as Error).message}\n`);
      return 2;
    }
  }
  const client = new MerchantClient(values.url ?? io.env.MERCHANT_URL ?? "http://127.0.0.1:8650", {
    ...(apiKey === undefined || apiKey === "" ? {} : { apiKey }),
  });
  const needId = (): string => {
    if (id === undefined) throw new CliUsageError(`${command} needs an order id`);
    if (extra.length > 0) throw new CliUsageError(`unexpected arguments: ${extra.join(" ")}`);
    return id;
  };
  try {
    switch (command) {
      case "create": {
        const source = values.file ?? "-";
        const text = source === "-" ? await io.readStdin() : readFileSync(source, "utf8");
        let body: CreateOrderBody;
        try {
          body = JSON.parse(text) as CreateOrderBody;
        } catch {
          throw new CliUsageError(`${source === "-" ? "stdin" : source} is not valid JSON`);
        }
        io.out(json(await client.createOrder(body)));
        return 0;
      }
      case "get":
        io.out(json(await client.getOrder(needId())));
        return 0;
      case "list": {
        const query: { state?: string; limit?: number; after?: string } = {};
        if (values.state !== undefined) query.state = values.state;
        if (values.limit !== undefined) query.limit = Number(values.limit);
        if (values.after !== undefined) query.after = values.after;
        io.out(json(await client.listOrders(query)));
        return 0;
      }
      case "capture":
        io.out(json(await client.capture(needId())));
        return 0;
      case "void":
        io.out(json(await client.void(needId())));
        return 0;
      case "cancel":
        io.out(json(await client.cancel(needId(), need(values.signature, "--signature"))));
        return 0;
      case "wait": {
        const states = need(values.state, "--state").split(",");
        // A misspelt state would never be reached: refuse it now instead of waiting out the timeout.
        const unknown = states.filter((s) => !isOrderState(s));
        if (unknown.length > 0)
          throw new CliUsageError(
            `--state: unknown state ${unknown.map((s) => JSON.stringify(s)).join(", ")} (states: ${ORDER_STATES.join(", ")})`,
          );
        const timeout = values["timeout-ms"] === undefined ? 60_000 : Number(values["timeout-ms"]);
        io.out(json({ order: await client.waitForState(needId(), states, timeout) }));
        return 0;
      }
      case "deploy-token": {
        const rpcUrl = need(values["rpc-url"] ?? io.env.MERCHANT_RPC_URL, "--rpc-url");
        const options: DevTokenOptions = {};
        if (values.name !== undefined) options.name = values.name;
        if (values["mint-to"] !== undefined) {
          const amount = need(values.amount, "--amount");
          if (!/^[0-9]{1,78}$/.test(amount)) throw new CliUsageError("--amount must be a decimal integer");
          options.mint = { to: addressFlag(values["mint-to"], "--mint-to"), amount: BigInt(amount) };
        }
        io.out(
          json(await deployDevToken(rpcUrl, privateKey(values.key ?? io.env.MERCHANT_CLI_KEY), options)),
        );
        return 0;
      }
      case "sign-authorization":
      case "sign-cancel": {
        const rpcUrl = need(values["rpc-url"] ?? io.env.MERCHANT_RPC_URL, "--rpc-url");
        const token = addressFlag(values.token ?? io.env.MERCHANT_TOKEN, "--token");
        const publicClient = createPublicClient({ transport: http(rpcUrl, { timeout: 60_000 }) });
        const domain = await readTokenDomain(publicClient, token);
        const buyer = privateKeyToAccount(privateKey(values.key ?? io.env.MERCHANT_CLI_KEY));
        if (command === "sign-cancel") {
          const nonce = need(values.nonce, "--nonce");
          if (!/^0x[0-9a-fA-F]{64}$/.test(nonce)) throw new CliUsageError("--nonce must be 32 bytes of hex");
          const signed = await signCancellation(buyer, { from: buyer.address, nonce: nonce as Hex }, domain);
          io.out(json({ signature: signed.signature }));
          return 0;
        }
        const kind = values.kind ?? "transfer";
        if (kind !== "transfer" && kind !== "receive")
          throw new CliUsageError("--kind must be transfer or receive");
        const value = need(values.value, "--value");
        if (!/^[0-9]{1,78}$/.test(value)) throw new CliUsageError("--value must be a decimal integer");
        const validFor = BigInt(values["valid-for"] ?? "3600");
        const now = (await publicClient.getBlock({ blockTag: "latest" })).timestamp;
        const authorization = createAuthorization({
          kind,
          from: buyer.address,
          to: addressFlag(values.to, "--to"),
          value: BigInt(value),
          validBefore: now + validFor,
        });
        const signed = await signAuthorization(buyer, authorization, domain);
        const body: CreateOrderBody = {
          kind,
          from: authorization.from,
          to: authorization.to,
          value: authorization.value.toString(),
          validAfter: authorization.validAfter.toString(),
          validBefore: authorization.validBefore.toString(),
          nonce: authorization.nonce,
          signature: signed.signature,
        };
        io.out(json(body));
        return 0;
      }
      default:
        throw new CliUsageError(`unknown command ${command}`);
    }
  } catch (error) {
    if (error instanceof CliUsageError) {
      io.err(`merchant-cli: ${error.message}\n\n${CLI_USAGE}`);
      return 2;
    }
    if (error instanceof MerchantApiError) {
      io.err(json({ status: error.status, error: error.body }));
      return 1;
    }
    io.err(`merchant-cli: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}
