/**
 * Chain node checks: eth_getBlockByNumber and eth_getBalance per docs/protocol.md "A. Chain node
 * queries" ("Block object", "Pending block") and docs/decisions.md "Pending view".
 */
import { type Check, CheckFailed, expectThat } from "../check.js";
import { describeOutcome, isRecord, rpcCall, rpcResult } from "../json-rpc.js";

export interface NodeContext {
  readonly url: string;
}

const QUANTITY = /^0x(0|[1-9a-f][0-9a-f]*)$/i;
const DATA = /^0x([0-9a-f]{2})*$/i;
const EMPTY_UNCLES_HASH = "0x1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347";
/** An account every OP Stack chain has (the SequencerFeeVault predeploy). */
const PROBE_ADDRESS = "0x4200000000000000000000000000000000000011";
const FAR_AHEAD = 1_000_000n;
/** An OP Stack chain seals a block every 2 s; a pending view that does not move in 6 s is not live. */
const PENDING_MOVE_WITHIN_MS = 6_000;

const isData = (value: unknown, bytes?: number): boolean =>
  typeof value === "string" && DATA.test(value) && (bytes === undefined || value.length === 2 + 2 * bytes);
const isQuantity = (value: unknown): boolean => typeof value === "string" && QUANTITY.test(value);

type FieldRule = (value: unknown) => boolean;

/** Every field of docs/protocol.md "Block object" and its format. */
const BLOCK_FIELDS: Readonly<Record<string, FieldRule>> = {
  number: isQuantity,
  hash: (v) => isData(v, 32),
  parentHash: (v) => isData(v, 32),
  nonce: (v) => v === "0x0000000000000000",
  sha3Uncles: (v) => typeof v === "string" && v.toLowerCase() === EMPTY_UNCLES_HASH,
  logsBloom: (v) => isData(v, 256),
  transactionsRoot: (v) => isData(v, 32),
  stateRoot: (v) => isData(v, 32),
  receiptsRoot: (v) => isData(v, 32),
  miner: (v) => isData(v, 20),
  difficulty: (v) => v === "0x0",
  mixHash: (v) => isData(v, 32),
  extraData: (v) => isData(v),
  size: isQuantity,
  gasLimit: isQuantity,
  gasUsed: isQuantity,
  timestamp: isQuantity,
  transactions: Array.isArray,
  uncles: (v) => Array.isArray(v) && v.length === 0,
  withdrawals: (v) => Array.isArray(v) && v.length === 0,
  withdrawalsRoot: (v) => isData(v, 32),
  baseFeePerGas: isQuantity,
  blobGasUsed: isQuantity,
  excessBlobGas: isQuantity,
  parentBeaconBlockRoot: (v) => isData(v, 32),
  requestsHash: (v) => isData(v, 32),
};

function blockProblems(block: unknown, full: boolean): string[] {
  if (!isRecord(block)) return [`not a block object: ${JSON.stringify(block)?.slice(0, 80)}`];
  const problems: string[] = [];
  for (const [field, rule] of Object.entries(BLOCK_FIELDS)) {
    if (!(field in block)) problems.push(`${field} missing`);
    else if (!rule(block[field])) problems.push(`${field} = ${JSON.stringify(block[field])?.slice(0, 70)}`);
  }
  const transactions = Array.isArray(block.transactions) ? (block.transactions as unknown[]) : [];
  transactions.forEach((tx, i) => {
    if (full) {
      if (!isRecord(tx) || !isData(tx.hash, 32))
        problems.push(`transactions[${i}] is not a transaction object with a hash`);
    } else if (!isData(tx, 32)) problems.push(`transactions[${i}] is not a transaction hash`);
  });
  return problems;
}

async function getBlock(context: NodeContext, tag: string, full: boolean): Promise<Record<string, unknown>> {
  const block = await rpcResult(context.url, "eth_getBlockByNumber", [tag, full]);
  const problems = blockProblems(block, full);
  expectThat(problems.length === 0, `eth_getBlockByNumber(${tag}, ${full}): ${problems.join("; ")}`);
  return block as Record<string, unknown>;
}

function txHashes(block: Record<string, unknown>): string[] {
  return (block.transactions as unknown[]).map((tx) =>
    (isRecord(tx) ? String(tx.hash) : String(tx)).toLowerCase(),
  );
}

async function latestNumber(context: NodeContext): Promise<bigint> {
  return BigInt((await getBlock(context, "latest", false)).number as string);
}

function blockCheck(tag: "latest" | "safe" | "finalized" | "earliest"): Check<NodeContext> {
  return {
    id: `node.block.${tag}`,
    covers: `eth_getBlockByNumber("${tag}"): every field of the spec's block table in its format, hashes and full objects`,
    async run(context) {
      const hashes = await getBlock(context, tag, false);
      const number = hashes.number as string;
      const full = await getBlock(context, number, true);
      expectThat(
        full.hash === hashes.hash,
        `block ${number} by number has hash ${String(full.hash)}, by "${tag}" ${String(hashes.hash)}`,
      );
      expectThat(
        JSON.stringify(txHashes(full)) === JSON.stringify(txHashes(hashes)),
        `block ${number}: full transaction objects do not match the transaction hashes`,
      );
      return `block ${BigInt(number)} (${txHashes(hashes).length} transactions)`;
    },
  };
}

export const nodeChecks: readonly Check<NodeContext>[] = [
  blockCheck("latest"),
  {
    id: "node.block.pending",
    covers: 'eth_getBlockByNumber("pending"): same shape as a sealed block, non-null number and hash',
    async run(context) {
      const latest = await latestNumber(context);
      const pending = await getBlock(context, "pending", false);
      await getBlock(context, "pending", true);
      const number = BigInt(pending.number as string);
      expectThat(number >= latest, `pending number ${number} is below latest ${latest}`);
      return `pending block ${number}, hash ${String(pending.hash)}`;
    },
  },
  {
    id: "node.block.pending-refreshes",
    covers: "pending: a live pre-confirmed view refreshed about every 200 ms (it moves within a few seconds)",
    async run(context) {
      const first = await getBlock(context, "pending", false);
      const deadline = Date.now() + PENDING_MOVE_WITHIN_MS;
      for (;;) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        const now = await getBlock(context, "pending", false);
        if (now.hash !== first.hash || now.number !== first.number) {
          return `pending moved from block ${BigInt(first.number as string)} ${String(first.hash).slice(0, 10)}… to ${BigInt(now.number as string)} ${String(now.hash).slice(0, 10)}…`;
        }
        if (Date.now() > deadline) {
          throw new CheckFailed(
            `pending stayed at block ${BigInt(first.number as string)} hash ${String(first.hash)} for ${PENDING_MOVE_WITHIN_MS} ms`,
          );
        }
      }
    },
  },
  blockCheck("safe"),
  blockCheck("finalized"),
  blockCheck("earliest"),
  {
    id: "node.block.missing-is-null",
    covers: "eth_getBlockByNumber: null when no block exists",
    async run(context) {
      const number = `0x${(BigInt(await latestNumber(context)) + FAR_AHEAD).toString(16)}`;
      for (const full of [false, true]) {
        const outcome = await rpcCall(context.url, "eth_getBlockByNumber", [number, full]);
        expectThat(
          outcome.kind === "result" && outcome.result === null,
          `block ${number} (${full}): expected result null, got ${describeOutcome(outcome)}`,
        );
      }
      return `block ${number} is null`;
    },
  },
  {
    id: "node.block.bad-params",
    covers: "eth_getBlockByNumber: malformed params refused with -32602",
    async run(context) {
      const cases: [string, unknown[]][] = [
        ["a missing fullTransactions", ["latest"]],
        ["an unknown tag", ["newest", false]],
        ["non-hex digits", ["0xzz", false]],
        ["a JSON number as block", [1, false]],
        ["a string as fullTransactions", ["latest", "yes"]],
      ];
      return refusedWith32602(context, "eth_getBlockByNumber", cases);
    },
  },
  {
    id: "node.balance.tags",
    covers:
      "eth_getBalance: a hex quantity for every tag (latest, pending, safe, finalized, earliest) and a hex number",
    async run(context) {
      const latest = await latestNumber(context);
      const blocks = ["latest", "pending", "safe", "finalized", "earliest", `0x${latest.toString(16)}`];
      const balances: string[] = [];
      for (const block of blocks) {
        const result = await rpcResult(context.url, "eth_getBalance", [PROBE_ADDRESS, block]);
        expectThat(
          isQuantity(result),
          `eth_getBalance(${block}) = ${JSON.stringify(result)}, not a hex quantity`,
        );
        balances.push(`${block}=${String(result)}`);
      }
      return balances.join(" ");
    },
  },
  {
    id: "node.balance.unknown-block-is-error",
    covers: "eth_getBalance: a block that does not exist is an error, never a zero balance",
    async run(context) {
      const number = `0x${((await latestNumber(context)) + FAR_AHEAD).toString(16)}`;
      const outcome = await rpcCall(context.url, "eth_getBalance", [PROBE_ADDRESS, number]);
      if (outcome.kind === "result")
        throw new CheckFailed(
          `block ${number} does not exist but the balance was ${JSON.stringify(outcome.result)}`,
        );
      return `error ${outcome.error.code} "${outcome.error.message}"`;
    },
  },
  {
    id: "node.balance.bad-params",
    covers: "eth_getBalance: malformed params refused with -32602",
    run: (context) =>
      refusedWith32602(context, "eth_getBalance", [
        ["a 2-byte address", ["0x1234", "latest"]],
        ["a non-hex address", [`0x${"zz".repeat(20)}`, "latest"]],
        ["an unknown tag", [PROBE_ADDRESS, "newest"]],
        ["a JSON number as block", [PROBE_ADDRESS, 5]],
      ]),
  },
];

async function refusedWith32602(
  context: NodeContext,
  method: string,
  cases: [string, unknown[]][],
): Promise<string> {
  const wrong: string[] = [];
  for (const [what, params] of cases) {
    const outcome = await rpcCall(context.url, method, params);
    if (outcome.kind !== "error" || outcome.error.code !== -32602)
      wrong.push(`${what}: ${describeOutcome(outcome)}`);
  }
  expectThat(wrong.length === 0, `expected -32602 for ${wrong.join("; ")}`);
  return `${cases.length} malformed calls refused with -32602`;
}
