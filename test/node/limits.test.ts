/**
 * Bounded cost per request: an eth_feeHistory that once crashed the node and a batch of eight of it
 * against a node on its default limits (an error naming the limit, the node stays up, its own RSS stays
 * bounded), then, on a node with small limits, every bounded method at its limit, one over, and a batch
 * of in-limit calls whose summed response crosses the batch response cap.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Hex } from "viem";
import WebSocket from "ws";
import { type RawResponse, call, clients, rawCall, rpc, waitFor } from "./helpers.js";
import { type NodeProcess, startNodeProcess } from "./spawn-node.js";

type Reply = NonNullable<RawResponse["body"]>;

/** The node's own resident set size (GET /metrics, process_resident_memory_bytes). */
async function rss(node: NodeProcess): Promise<number> {
  const text = await (await fetch(`${node.url}/metrics`)).text();
  const m = /^process_resident_memory_bytes (\d+(?:\.\d+)?(?:e\+\d+)?)$/m.exec(text);
  if (m === null) throw new Error("no process_resident_memory_bytes in /metrics");
  return Number(m[1]);
}

async function batch(node: NodeProcess, calls: { method: string; params: unknown[] }[]): Promise<Reply[]> {
  const r = await rawCall(
    node.url,
    JSON.stringify(calls.map((c, id) => ({ jsonrpc: "2.0", id, method: c.method, params: c.params }))),
  );
  expect(r.status).toBe(200);
  return JSON.parse(r.text) as Reply[];
}

const word = (i: number): Hex => `0x${i.toString(16).padStart(64, "0")}`;

describe("the request that once crashed the node, on the default limits", () => {
  let node: NodeProcess;
  beforeAll(async () => {
    node = await startNodeProcess({ blockTimeMs: 1000, flashblockIntervalMs: 100, logLevel: "warn" });
  }, 60_000);
  afterAll(async () => {
    await node?.stop();
  });

  // blockCount 0x400 and 80,000 increasing percentiles: a ~600 KB request that answered 155 MB.
  const percentiles = Array.from({ length: 80_000 }, (_, i) => (i * 100) / 80_000);
  const crashing = {
    jsonrpc: "2.0",
    id: 1,
    method: "eth_feeHistory",
    params: ["0x400", "latest", percentiles],
  };

  it("answers -32005 naming the percentile limit, and a batch of eight of it the same, and lives", async () => {
    const before = await rss(node);
    const body = JSON.stringify(crashing);
    expect(body.length).toBeGreaterThan(500_000);
    const one = await rawCall(node.url, body);
    expect(one.body?.error?.code).toBe(-32005);
    expect(one.body?.error?.message).toContain("--rpc-fee-history-max-percentiles");
    expect(one.text.length).toBeLessThan(1000);

    const eight = JSON.stringify(Array.from({ length: 8 }, (_, i) => ({ ...crashing, id: i })));
    expect(eight.length).toBeGreaterThan(4_000_000);
    expect(eight.length).toBeLessThan(5 * 1024 * 1024);
    const r = await rawCall(node.url, eight);
    const replies = JSON.parse(r.text) as Reply[];
    expect(replies).toHaveLength(8);
    for (const reply of replies) {
      expect(reply.error?.code).toBe(-32005);
      expect(reply.error?.message).toContain("--rpc-fee-history-max-percentiles");
    }
    // Still serving, and the process grew by far less than the 1.4 GB the unbounded answer took.
    expect(BigInt(await call<Hex>(node.url, "eth_blockNumber", []))).toBeGreaterThanOrEqual(0n);
    const after = await rss(node);
    expect(after - before).toBeLessThan(300 * 1024 * 1024);
    expect(after).toBeLessThan(1024 * 1024 * 1024);
    expect(node.process.exitCode).toBeNull();
  });

  it("serves 1024 blocks with 100 percentiles, the defaults, and refuses 101 percentiles", async () => {
    const hundred = Array.from({ length: 100 }, (_, i) => i);
    const ok = await call<{ reward: Hex[][] }>(node.url, "eth_feeHistory", ["0x400", "latest", hundred]);
    expect(ok.reward.length).toBeGreaterThan(0);
    expect(ok.reward[0]).toHaveLength(100);
    const over = await rpc(node.url, "eth_feeHistory", ["0x1", "latest", [...hundred, 100]]);
    expect(over.body?.error?.code).toBe(-32005);
    expect(over.body?.error?.message).toMatch(
      /101 requested, at most 100 \(--rpc-fee-history-max-percentiles\)/,
    );
    // Out of range is invalid params, not a limit.
    expect((await rpc(node.url, "eth_feeHistory", ["0x1", "latest", [101]])).body?.error?.code).toBe(-32602);
  });

  it("refuses more eth_getProof storage keys in one batch than the default 10 000", async () => {
    const address = node.accounts[0]!.address;
    const keys = Array.from({ length: 1000 }, (_, i) => word(i));
    // Eleven calls of 1000 keys: the first ten (10 000 keys) run, the eleventh is refused unrun.
    const replies = await batch(
      node,
      Array.from({ length: 11 }, () => ({ method: "eth_getProof", params: [address, keys, "latest"] })),
    );
    for (const reply of replies.slice(0, 10)) expect(reply.result).toBeDefined();
    expect(replies[10]!.error?.code).toBe(-32005);
    expect(replies[10]!.error?.message).toContain("--rpc-proof-max-keys-per-batch");
  }, 60_000);
});

describe("every bounded method on small limits", () => {
  let node: NodeProcess;
  const MAX_RESPONSE = 20_000;
  const MAX_BATCH_RESPONSE = 50_000;
  beforeAll(async () => {
    node = await startNodeProcess({
      blockTimeMs: 500,
      flashblockIntervalMs: 50,
      logLevel: "warn",
      extraArgs: [
        "--rpc-max-response-bytes",
        String(MAX_RESPONSE),
        "--rpc-max-batch-response-bytes",
        String(MAX_BATCH_RESPONSE),
        "--rpc-max-subscriptions",
        "3",
        "--rpc-fee-history-max-blocks",
        "4",
        "--rpc-fee-history-max-percentiles",
        "5",
        "--rpc-logs-max-block-range",
        "3",
        "--rpc-logs-max-results",
        "2",
        "--rpc-logs-max-addresses",
        "2",
        "--rpc-logs-max-topic-options",
        "2",
        "--rpc-proof-max-keys",
        "4",
        "--rpc-proof-max-keys-per-batch",
        "10",
      ],
    });
  }, 60_000);
  afterAll(async () => {
    await node?.stop();
  });

  /** A batch of `count` copies of an in-limit call: the answers up to the cap, then the cap's error. */
  async function expectBatchCap(method: string, params: unknown[], count: number): Promise<void> {
    const replies = await batch(
      node,
      Array.from({ length: count }, () => ({ method, params })),
    );
    expect(replies).toHaveLength(count);
    const firstError = replies.findIndex((r) => r.error !== undefined);
    expect(firstError, `${method}: some calls fit under the cap`).toBeGreaterThan(0);
    for (const r of replies.slice(0, firstError)) expect(r.result).toBeDefined();
    for (const r of replies.slice(firstError)) {
      expect(r.error?.code).toBe(-32005);
      expect(r.error?.message).toContain("--rpc-max-batch-response-bytes");
    }
    const answered = replies.slice(0, firstError).reduce((s, r) => s + JSON.stringify(r).length, 0);
    expect(answered).toBeLessThanOrEqual(MAX_BATCH_RESPONSE);
  }

  it("eth_feeHistory: 5 percentiles served, 6 refused, blocks cut to 4, a batch crosses the cap", async () => {
    await waitFor(
      async () => (BigInt(await call<Hex>(node.url, "eth_blockNumber", [])) >= 5n ? true : undefined),
      "five blocks",
    );
    const five = [10, 20, 30, 40, 50];
    const ok = await call<{ reward: Hex[][]; gasUsedRatio: number[] }>(node.url, "eth_feeHistory", [
      "0x5",
      "latest",
      five,
    ]);
    expect(ok.gasUsedRatio).toHaveLength(4);
    expect(ok.reward[0]).toHaveLength(5);
    const over = await rpc(node.url, "eth_feeHistory", ["0x1", "latest", [...five, 60]]);
    expect(over.body?.error?.code).toBe(-32005);
    expect(over.body?.error?.message).toContain("--rpc-fee-history-max-percentiles");
    await expectBatchCap("eth_feeHistory", ["0x4", "latest", five], 200);
  });

  it("one response: at the byte limit served, over it -32005 naming the limit; a batch crosses the batch cap", async () => {
    // Init code returning n zero bytes: PUSH2 n PUSH1 0 RETURN.
    const returning = (n: number): Hex => `0x61${n.toString(16).padStart(4, "0")}6000f3`;
    const envelope = `{"jsonrpc":"2.0","id":1,"result":"0x"}`.length;
    const fits = Math.floor((MAX_RESPONSE - envelope) / 2);
    const ok = await rpc(node.url, "eth_call", [{ data: returning(fits) }, "latest"]);
    expect(ok.text.length).toBeLessThanOrEqual(MAX_RESPONSE);
    expect((ok.body?.result as string).length).toBe(2 + 2 * fits);
    const over = await rpc(node.url, "eth_call", [{ data: returning(fits + 1) }, "latest"]);
    expect(over.body?.error?.code).toBe(-32005);
    expect(over.body?.error?.message).toContain("--rpc-max-response-bytes");
    expect(over.body?.error?.data).toMatchObject({ limit: "--rpc-max-response-bytes", max: MAX_RESPONSE });
    await expectBatchCap("eth_call", [{ data: returning(fits) }, "latest"], 8);
  });

  it("eth_getProof: 4 keys served, 5 refused, 10 keys per batch, a batch crosses the cap", async () => {
    const address = node.accounts[0]!.address;
    const keys = (n: number) => Array.from({ length: n }, (_, i) => word(i));
    expect((await rpc(node.url, "eth_getProof", [address, keys(4), "latest"])).body?.result).toBeDefined();
    const over = await rpc(node.url, "eth_getProof", [address, keys(5), "latest"]);
    expect(over.body?.error?.code).toBe(-32005);
    expect(over.body?.error?.message).toContain("--rpc-proof-max-keys");
    const replies = await batch(
      node,
      [4, 4, 2, 1].map((n) => ({ method: "eth_getProof", params: [address, keys(n), "latest"] })),
    );
    expect(replies.slice(0, 3).every((r) => r.result !== undefined)).toBe(true);
    expect(replies[3]!.error?.code).toBe(-32005);
    expect(replies[3]!.error?.message).toContain("--rpc-proof-max-keys-per-batch");
    // Proofs without storage keys cost nothing of that budget: the response cap stops them.
    await expectBatchCap("eth_getProof", [address, [], "latest"], 200);
  });

  it("eth_getLogs: range, results, addresses and topic alternatives at the limit and one over", async () => {
    const { walletClient, publicClient } = clients(node);
    // Init code that emits one log (LOG0 of empty data) and deploys nothing: three transactions, three logs.
    const hashes: Hex[] = [];
    for (let i = 0; i < 3; i++) hashes.push(await walletClient.sendTransaction({ data: "0x60006000a000" }));
    const receipts = await Promise.all(
      hashes.map((hash) => publicClient.waitForTransactionReceipt({ hash })),
    );
    const emitters = receipts.map((r) => r.contractAddress!);
    const first = receipts.map((r) => r.blockNumber).reduce((a, b) => (a < b ? a : b));
    const last = receipts.map((r) => r.blockNumber).reduce((a, b) => (a > b ? a : b));
    expect(last - first).toBeLessThan(3n);
    const range = { fromBlock: `0x${first.toString(16)}`, toBlock: `0x${(first + 2n).toString(16)}` };
    await waitFor(
      async () => (BigInt(await call<Hex>(node.url, "eth_blockNumber", [])) >= first + 3n ? true : undefined),
      "the range sealed",
    );
    const getLogs = (filter: object) => rpc(node.url, "eth_getLogs", [filter]);
    const limitError = async (filter: object, flag: string) => {
      const r = await getLogs(filter);
      expect(r.body?.error?.code, JSON.stringify(filter)).toBe(-32005);
      expect(r.body?.error?.message).toContain(flag);
    };
    // Range: 3 blocks served, 4 refused.
    expect((await getLogs({ ...range, address: emitters.slice(0, 2) })).body?.result).toHaveLength(2);
    await limitError(
      { fromBlock: range.fromBlock, toBlock: `0x${(first + 3n).toString(16)}`, address: emitters[0] },
      "--rpc-logs-max-block-range",
    );
    // Results: 2 logs served, 3 refused.
    await limitError(range, "--rpc-logs-max-results");
    // Addresses: 2 served (above), 3 refused.
    await limitError({ ...range, address: emitters }, "--rpc-logs-max-addresses");
    // Topic alternatives: 2 served, 3 refused.
    const topic = (i: number) => word(i + 1);
    expect((await getLogs({ ...range, topics: [[topic(0), topic(1)]] })).body?.result).toEqual([]);
    await limitError({ ...range, topics: [[topic(0), topic(1), topic(2)]] }, "--rpc-logs-max-topic-options");
    // eth_newFilter checks the same criteria.
    const filter = await rpc(node.url, "eth_newFilter", [{ address: emitters }]);
    expect(filter.body?.error?.code).toBe(-32005);
    expect(
      (await rpc(node.url, "eth_newFilter", [{ address: emitters.slice(0, 2) }])).body?.result,
    ).toBeDefined();
    // eth_getFilterLogs runs the same query under the same limits: 2 logs served, 3 refused.
    const two = (await rpc(node.url, "eth_newFilter", [{ ...range, address: emitters.slice(0, 2) }])).body
      ?.result as string;
    expect((await rpc(node.url, "eth_getFilterLogs", [two])).body?.result).toHaveLength(2);
    const three = (await rpc(node.url, "eth_newFilter", [range])).body?.result as string;
    const overFilter = await rpc(node.url, "eth_getFilterLogs", [three]);
    expect(overFilter.body?.error?.code).toBe(-32005);
    expect(overFilter.body?.error?.message).toContain("--rpc-logs-max-results");
    await expectBatchCap("eth_getLogs", [{ ...range, address: emitters.slice(0, 2) }], 200);
    await expectBatchCap("eth_getFilterLogs", [two], 200);
  }, 60_000);

  it("a block number beyond 2^64 is refused with -32602 saying so", async () => {
    const r = await rpc(node.url, "eth_getBlockByNumber", ["0x10000000000000000", false]);
    expect(r.body?.error?.code).toBe(-32602);
    expect(r.body?.error?.message).toContain("is beyond 2^64 - 1");
  });

  it("subscriptions: 3 per connection, a 4th refused naming the limit, another after an unsubscribe", async () => {
    const ws = new WebSocket(node.wsUrl);
    await new Promise((resolve, reject) => {
      ws.once("open", resolve);
      ws.once("error", reject);
    });
    const answers = new Map<number, Reply>();
    const waiters = new Map<number, () => void>();
    ws.on("message", (data) => {
      const msg = JSON.parse(data.toString()) as Reply & { id?: number };
      if (typeof msg.id === "number") {
        answers.set(msg.id, msg);
        waiters.get(msg.id)?.();
      }
    });
    let nextId = 0;
    const send = async (method: string, params: unknown[]): Promise<Reply> => {
      const id = ++nextId;
      const answered = new Promise<void>((resolve) => waiters.set(id, resolve));
      ws.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
      await answered;
      return answers.get(id)!;
    };
    try {
      const ids: string[] = [];
      for (let i = 0; i < 3; i++)
        ids.push((await send("eth_subscribe", ["newFlashblocks"])).result as string);
      const fourth = await send("eth_subscribe", ["newHeads"]);
      expect(fourth.error?.code).toBe(-32005);
      expect(fourth.error?.message).toContain("--rpc-max-subscriptions");
      const logsOver = await send("eth_subscribe", [
        "logs",
        { address: Array.from({ length: 3 }, (_, i) => `0x${String(i + 1).padStart(40, "0")}`) },
      ]);
      expect(logsOver.error?.code).toBe(-32005);
      expect((await send("eth_unsubscribe", [ids[0]])).result).toBe(true);
      expect(typeof (await send("eth_subscribe", ["newHeads"])).result).toBe("string");
    } finally {
      ws.close();
    }
  });
});
