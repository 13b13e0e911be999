/**
 * The methods the server answers off the event loop (full blocks, block receipts, eth_getLogs,
 * eth_feeHistory, on a real call worker reading the node's SQLite file) answer byte for byte what their
 * typed handler's result encodes to, with the same pending-snapshot headers and the same errors: at
 * `latest`, `pending` (a snapshot holding transactions with logs), `safe`, `earliest`, numbers and hashes
 * (docs/node/limits.md "Block production under load"). Both sides are resolved in the same turn of the event loop,
 * so they see the same chain.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nodeMethods, type NodeHandlers } from "../../../generated/rpc/index.js";
import { createLogger } from "../../log/logger.js";
import { type BoundMethod, RawJsonResult, type RequestContext } from "../../rpc/index.js";
import { ChainNode } from "../chain-node.js";
import { CallPool } from "../calls/call-pool.js";
import { createOffloadedBlockMethods } from "./block-handlers.js";
import { createNodeHandlers } from "./handlers.js";
import { DEFAULT_NODE_RPC_LIMITS } from "./limits.js";

const logger = createLogger({ name: "offloaded-test", level: "silent" });
/** Creation code that emits LOG1(topic = caller, data = 32 bytes ending 0xaa) and deploys nothing. */
const EMIT_LOG = "0x60aa6000523360206000a100" as const;

let dataDir: string;
let node: ChainNode;
let handlers: NodeHandlers;
let offloaded: Map<string, BoundMethod>;
/** The same with logsMaxResults 0 (any log is over it), for the limit errors. */
let tight: { handlers: NodeHandlers; offloaded: Map<string, BoundMethod> };
let nonce = 0;

const hex = (n: bigint | number) => `0x${n.toString(16)}`;
const ctx = (): RequestContext => ({
  transport: "http",
  signal: new AbortController().signal,
  responseHeaders: new Map(),
});

async function sendLogTx(): Promise<void> {
  const account = privateKeyToAccount(node.devAccounts[0]!.privateKey);
  const raw = await account.signTransaction({
    chainId: 901,
    type: "eip1559",
    nonce: nonce++,
    gas: 100_000n,
    maxFeePerGas: 10_000_000_000n,
    maxPriorityFeePerGas: 1_000_000n,
    data: EMIT_LOG,
  });
  await handlers.eth_sendRawTransaction(
    { transaction: Uint8Array.from(Buffer.from(raw.slice(2), "hex")) },
    ctx(),
  );
}

/** Resolves at the next snapshot that holds a transaction besides the deposit. */
function snapshotWithTransactions(): Promise<void> {
  return new Promise((resolve) => {
    const stop = node.producer.onSnapshot((p) => {
      if (p.snapshot.transactions.length > 1) {
        stop();
        resolve();
      }
    });
  });
}

type Outcome = { json: string } | { error: { name: string; code: unknown; message: string } };

const asError = (e: unknown): Outcome => {
  const err = e as Error & { code?: unknown };
  return { error: { name: err.constructor.name, code: err.code, message: err.message } };
};

/**
 * Runs `method` through the typed handler and through the offloaded binding in the same turn, and checks
 * the text, the response headers and any error are the same. Returns the typed result's JSON.
 */
async function same(
  method: keyof NodeHandlers,
  params: unknown[],
  set: { handlers: NodeHandlers; offloaded: Map<string, BoundMethod> } = { handlers, offloaded },
): Promise<Outcome> {
  const spec = nodeMethods[method as keyof typeof nodeMethods] as {
    decodeParams(p: unknown): unknown;
    encodeResult(r: unknown): unknown;
  };
  const binding = set.offloaded.get(method);
  expect(binding, `${method} is offloaded`).toBeDefined();
  const [typedCtx, rawCtx] = [ctx(), ctx()];
  const handler = set.handlers[method] as (p: unknown, c: RequestContext) => unknown;
  let typed: Promise<Outcome>;
  try {
    typed = Promise.resolve(handler(spec.decodeParams(params), typedCtx)).then(
      (r) => ({ json: JSON.stringify(spec.encodeResult(r) ?? null) }),
      asError,
    );
  } catch (e) {
    typed = Promise.resolve(asError(e));
  }
  const raw = binding!.invoke(params, rawCtx).then((r) => {
    expect(r).toBeInstanceOf(RawJsonResult);
    return { json: (r as RawJsonResult).json };
  }, asError);
  const [a, b] = await Promise.all([typed, raw]);
  expect(b).toEqual(a);
  expect([...rawCtx.responseHeaders]).toEqual([...typedCtx.responseHeaders]);
  return a;
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "offloaded-"));
  node = await ChainNode.open({
    dataDir,
    chainId: 901n,
    blockTimeMs: 1000,
    flashblockIntervalMs: 200,
    devAccountCount: 2,
    preconfirmedReceipts: true,
    callWorkers: 1,
    callTimeoutMs: 30_000,
    logger,
  });
  expect(node.calls).toBeInstanceOf(CallPool);
  const made = createNodeHandlers(node);
  handlers = made.handlers;
  offloaded = new Map(made.offloaded.map((m) => [m.name, m]));
  // Every sealed block through the worker (by default the small ones here would be answered inline).
  for (const m of createOffloadedBlockMethods(node, 0)) offloaded.set(m.name, m);
  const small = createNodeHandlers(node, { ...DEFAULT_NODE_RPC_LIMITS, logsMaxResults: 0 });
  tight = { handlers: small.handlers, offloaded: new Map(small.offloaded.map((m) => [m.name, m])) };
  node.start();
  // Sealed blocks with logs: three transactions, then a seal.
  for (let i = 0; i < 3; i++) await sendLogTx();
  busy = await new Promise<BusyBlock>((resolve) => {
    const stop = node.producer.onSealed((b) => {
      if (b.transactions.length > 1) {
        stop();
        resolve({
          number: b.header.number,
          hash: `0x${Buffer.from(b.hash).toString("hex")}`,
          transactions: b.transactions.length,
        });
      }
    });
  });
}, 120_000);

afterAll(async () => {
  await node?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

interface BusyBlock {
  readonly number: bigint;
  readonly hash: string;
  /** Its transaction count, the deposit included. */
  readonly transactions: number;
}
/**
 * The first sealed block that holds transactions besides the deposit (the set-up's log transactions). Fixed once:
 * the tests send more transactions, whose blocks seal while they run.
 */
let busy: BusyBlock;
const busyBlock = (): BusyBlock => busy;

describe("offloaded reads are byte-identical to the typed handlers", () => {
  it("full blocks by number and hash: sealed, tags, pending, unknown, hash-only", async () => {
    const busy = busyBlock();
    const full = await same("eth_getBlockByNumber", [hex(busy.number), true]);
    expect("json" in full && (JSON.parse(full.json) as { transactions: unknown[] }).transactions.length).toBe(
      busy.transactions,
    );
    for (const tag of ["latest", "safe", "finalized", "earliest", "0x99999999"]) {
      await same("eth_getBlockByNumber", [tag, true]);
      await same("eth_getBlockByNumber", [tag, false]);
    }
    await same("eth_getBlockByHash", [busy.hash, true]);
    await same("eth_getBlockByHash", [busy.hash, false]);
    await same("eth_getBlockByHash", [`0x${"11".repeat(32)}`, true]);
    await same("eth_getBlockByNumber", ["0x1", "yes"]); // a bad param: the same -32602
    const snapshot = snapshotWithTransactions();
    await sendLogTx();
    await snapshot;
    const pending = await same("eth_getBlockByNumber", ["pending", true]);
    expect("json" in pending && pending.json).toContain('"input":"0x60aa');
    await same("eth_getBlockByNumber", ["pending", false]);
    const p = node.pending!;
    await same("eth_getBlockByHash", [`0x${Buffer.from(p.snapshot.blockHash).toString("hex")}`, true]);
  });

  it("block receipts: sealed, tags, hash objects, pending, unknown", async () => {
    const busy = busyBlock();
    const receipts = await same("eth_getBlockReceipts", [hex(busy.number)]);
    expect("json" in receipts && (JSON.parse(receipts.json) as unknown[]).length).toBe(busy.transactions);
    for (const s of ["latest", "safe", "earliest", { blockHash: busy.hash }, busy.hash, "0x99999999"])
      await same("eth_getBlockReceipts", [s]);
    const snapshot = snapshotWithTransactions();
    await sendLogTx();
    await snapshot;
    const pending = await same("eth_getBlockReceipts", ["pending"]);
    expect("json" in pending && (JSON.parse(pending.json) as unknown[]).length).toBeGreaterThan(1);
  });

  it("eth_getLogs: ranges to latest and pending, a pending-only range, block hashes, filters, limit errors", async () => {
    const busy = busyBlock();
    const snapshot = snapshotWithTransactions();
    await sendLogTx();
    await snapshot;
    const caller = `0x${"00".repeat(12)}${node.devAccounts[0]!.address.slice(2).toLowerCase()}`;
    const pendingNumber = hex(node.pending!.snapshot.header.number);
    const all = await same("eth_getLogs", [{ fromBlock: "0x0", toBlock: "pending" }]);
    expect("json" in all && (JSON.parse(all.json) as unknown[]).length).toBeGreaterThanOrEqual(4);
    const filters: Record<string, unknown>[] = [
      { fromBlock: "0x0", toBlock: "latest" },
      { fromBlock: "0x0" },
      { fromBlock: pendingNumber, toBlock: pendingNumber },
      { fromBlock: "earliest", toBlock: "pending", topics: [caller] },
      { fromBlock: "0x0", toBlock: "pending", topics: [`0x${"22".repeat(32)}`] },
      { fromBlock: "0x0", toBlock: "latest", address: [`0x${"33".repeat(20)}`] },
      { blockHash: busy.hash },
      { blockHash: `0x${Buffer.from(node.pending!.snapshot.blockHash).toString("hex")}` },
      { blockHash: `0x${"44".repeat(32)}` },
      { fromBlock: "latest", toBlock: "0x1" },
    ];
    for (const filter of filters) await same("eth_getLogs", [filter]);
    // Over logsMaxResults (0): the same -32005 naming the limit, from a sealed range, a block and pending.
    for (const filter of [{ fromBlock: "0x0", toBlock: "latest" }, { blockHash: busy.hash }]) {
      const out = await same("eth_getLogs", [filter], tight);
      expect("error" in out && out.error.code).toBe(-32005);
    }
    await same("eth_getLogs", [{ fromBlock: "0x0", toBlock: "pending" }], tight);
  });

  it("eth_feeHistory: newest latest, pending and a number, with and without percentiles, the limits", async () => {
    const snapshot = snapshotWithTransactions();
    await sendLogTx();
    await snapshot;
    const busy = busyBlock();
    const cases: unknown[][] = [
      ["0x400", "latest", [10, 50, 90]],
      ["0x400", "pending", [0, 25, 75, 100]],
      ["0x3", hex(busy.number), [50]],
      ["0x5", "latest"],
      ["0x2", "pending"],
      ["0x0", "latest", [50]],
      ["0x10000", "earliest", []],
      ["0x4", "0x99999999", [50]],
      ["0x4", "latest", [60, 50]],
      ["0x4", "latest", Array.from({ length: 101 }, (_, i) => i)],
    ];
    for (const params of cases) await same("eth_feeHistory", params);
  });
});
