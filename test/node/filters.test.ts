/**
 * Polling filters against a real node process over HTTP: the raw methods (block, pending-transaction
 * and log filters, eth_getFilterLogs, uninstall, errors), then the clients that rely on them: viem's
 * HTTP watchers (watchPendingTransactions, watchContractEvent) and ethers v6's JsonRpcProvider
 * (`on("pending")`, contract events). Logs come from the WETH9 predeploy's Deposit event.
 */
import { Contract, JsonRpcProvider } from "ethers";
import { type Hex, parseAbi, parseAbiItem } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, clients, hexNumber, rpc, waitFor } from "./helpers.js";
import { type NodeProcess, startNodeProcess } from "./spawn-node.js";

const WETH = "0x4200000000000000000000000000000000000006";
const WETH_ABI = parseAbi(["event Deposit(address indexed dst, uint256 wad)"]);
const DEPOSIT_TOPIC = "0xe1fffcc4923d04b559f4d29a8bfc6cda04eb5b0d3c460751c2402c5c5cc9109c";

type Log = { address: Hex; topics: Hex[]; data: Hex; blockNumber: Hex; transactionHash: Hex };

let node: NodeProcess;
beforeAll(async () => {
  node = await startNodeProcess({ blockTimeMs: 400, flashblockIntervalMs: 50, callWorkers: 0 });
}, 60_000);
afterAll(async () => {
  await node?.stop();
});

const latest = async (): Promise<bigint> => BigInt(await call<Hex>(node.url, "eth_blockNumber", []));

/** Wraps ETH into WETH9 from dev account `index`; resolves once the deposit's block is sealed. */
async function deposit(index: number, wad: bigint): Promise<{ hash: Hex; blockNumber: bigint }> {
  const { walletClient, publicClient } = clients(node, index);
  const hash = await walletClient.sendTransaction({ to: WETH, value: wad });
  const receipt = await publicClient.waitForTransactionReceipt({ hash });
  await waitFor(async () => ((await latest()) >= receipt.blockNumber ? true : undefined), "the seal");
  return { hash, blockNumber: receipt.blockNumber };
}

async function requestCount(method: string): Promise<number> {
  const text = await (await fetch(`${node.url}/metrics`)).text();
  let total = 0;
  for (const line of text.split("\n")) {
    if (line.startsWith("jsonrpc_requests_total{") && line.includes(`method="${method}"`))
      total += Number(line.slice(line.lastIndexOf(" ") + 1));
  }
  return total;
}

describe("polling filters (raw JSON-RPC)", () => {
  it("a block filter returns each newly sealed block's hash once, in order", async () => {
    const id = await call<string>(node.url, "eth_newBlockFilter", []);
    expect(id).toMatch(/^0x[0-9a-f]{32}$/);
    const installedAt = await latest();
    await waitFor(async () => ((await latest()) >= installedAt + 3n ? true : undefined), "three blocks");
    const first = await call<Hex[]>(node.url, "eth_getFilterChanges", [id]);
    expect(first.length).toBeGreaterThanOrEqual(3);
    const numbers: bigint[] = [];
    for (const hash of first) {
      const block = await call<{ number: Hex; hash: Hex }>(node.url, "eth_getBlockByHash", [hash, false]);
      expect(block.hash).toBe(hash);
      numbers.push(BigInt(block.number));
    }
    expect(numbers[0]).toBeGreaterThanOrEqual(installedAt);
    numbers.forEach((n, i) => expect(n).toBe(numbers[0]! + BigInt(i)));
    const upTo = numbers.at(-1)!;
    // Taken once: the next poll has only blocks sealed since.
    await waitFor(async () => ((await latest()) > upTo ? true : undefined), "another block");
    const second = await call<Hex[]>(node.url, "eth_getFilterChanges", [id]);
    expect(second.length).toBeGreaterThanOrEqual(1);
    expect(second).not.toContain(first.at(-1));
    expect(await call<boolean>(node.url, "eth_uninstallFilter", [id])).toBe(true);
    expect(await call<boolean>(node.url, "eth_uninstallFilter", [id])).toBe(false);
  });

  it("a pending-transaction filter returns the hashes of accepted transactions", async () => {
    const id = await call<string>(node.url, "eth_newPendingTransactionFilter", []);
    const { walletClient } = clients(node, 1);
    const sent: Hex[] = [];
    for (let i = 0; i < 3; i++) {
      sent.push(
        await walletClient.sendTransaction({
          to: privateKeyToAccount(generatePrivateKey()).address,
          value: 1n,
        }),
      );
    }
    const changes = await call<Hex[]>(node.url, "eth_getFilterChanges", [id]);
    expect(changes).toEqual(sent);
    expect(await call<Hex[]>(node.url, "eth_getFilterChanges", [id])).toEqual([]);
  });

  it("a log filter collects matching logs of blocks sealed after it was installed; eth_getFilterLogs is eth_getLogs", async () => {
    const before = await deposit(2, 5n);
    const byAddress = await call<string>(node.url, "eth_newFilter", [{ address: WETH }]);
    const dst = privateKeyToAccount(node.accounts[3]!.privateKey).address;
    const byTopic = await call<string>(node.url, "eth_newFilter", [
      { topics: [DEPOSIT_TOPIC, `0x${dst.slice(2).toLowerCase().padStart(64, "0")}`] },
    ]);
    const otherAddress = await call<string>(node.url, "eth_newFilter", [
      { address: "0x000000000000000000000000000000000000dEaD" },
    ]);
    const ranged = await call<string>(node.url, "eth_newFilter", [
      { address: WETH, fromBlock: hexNumber(before.blockNumber), toBlock: hexNumber(before.blockNumber) },
    ]);
    const mine = await deposit(3, 7n);
    const theirs = await deposit(2, 9n);

    const all = await call<Log[]>(node.url, "eth_getFilterChanges", [byAddress]);
    expect(all.map((l) => l.transactionHash)).toEqual([mine.hash, theirs.hash]);
    expect(all[0]!.address).toBe(WETH);
    expect(all[0]!.topics[0]).toBe(DEPOSIT_TOPIC);
    expect(BigInt(all[0]!.data)).toBe(7n);
    const topicMatches = await call<Log[]>(node.url, "eth_getFilterChanges", [byTopic]);
    expect(topicMatches.map((l) => l.transactionHash)).toEqual([mine.hash]);
    expect(await call<Log[]>(node.url, "eth_getFilterChanges", [otherAddress])).toEqual([]);
    // Its range ended before the filter was installed: nothing new can match.
    expect(await call<Log[]>(node.url, "eth_getFilterChanges", [ranged])).toEqual([]);
    // eth_getFilterLogs runs the criteria as eth_getLogs: the range's past logs.
    const past = await call<Log[]>(node.url, "eth_getFilterLogs", [ranged]);
    expect(past.map((l) => l.transactionHash)).toEqual([before.hash]);
    expect(past).toEqual(
      await call<Log[]>(node.url, "eth_getLogs", [
        { address: WETH, fromBlock: hexNumber(before.blockNumber), toBlock: hexNumber(before.blockNumber) },
      ]),
    );
    for (const id of [byAddress, byTopic, otherAddress, ranged])
      expect(await call<boolean>(node.url, "eth_uninstallFilter", [id])).toBe(true);
  });

  it("answers unknown ids, wrong kinds and bad criteria with clear errors", async () => {
    const missing = await rpc(node.url, "eth_getFilterChanges", ["0x1234"]);
    expect(missing.body?.error).toEqual({ code: -32000, message: "filter not found" });
    const blockFilter = await call<string>(node.url, "eth_newBlockFilter", []);
    expect((await rpc(node.url, "eth_getFilterLogs", [blockFilter])).body?.error?.code).toBe(-32000);
    await call(node.url, "eth_uninstallFilter", [blockFilter]);
    expect((await rpc(node.url, "eth_getFilterChanges", [blockFilter])).body?.error?.message).toBe(
      "filter not found",
    );
    const withHash = await rpc(node.url, "eth_newFilter", [{ blockHash: `0x${"11".repeat(32)}` }]);
    expect(withHash.body?.error?.code).toBe(-32602);
    expect(withHash.body?.error?.message).toMatch(/blockHash/);
    const reversed = await rpc(node.url, "eth_newFilter", [{ fromBlock: "0x9", toBlock: "0x2" }]);
    expect(reversed.body?.error?.code).toBe(-32602);
    expect((await rpc(node.url, "eth_newFilter", [{ address: "0x12" }])).body?.error?.code).toBe(-32602);
    expect((await rpc(node.url, "eth_getFilterChanges", [])).body?.error?.code).toBe(-32602);
    expect((await rpc(node.url, "eth_newBlockFilter", [1])).body?.error?.code).toBe(-32602);
  });
});

describe("clients that poll filters over HTTP", () => {
  it("viem: watchPendingTransactions and watchContractEvent", async () => {
    const { publicClient, walletClient } = clients(node, 4);
    const filterPolls = await requestCount("eth_getFilterChanges");
    const hashes: Hex[] = [];
    const events: { dst: Hex; wad: bigint }[] = [];
    const stopPending = publicClient.watchPendingTransactions({
      onTransactions: (batch) => hashes.push(...batch),
      pollingInterval: 50,
    });
    const stopEvents = publicClient.watchContractEvent({
      address: WETH,
      abi: WETH_ABI,
      eventName: "Deposit",
      onLogs: (logs) => {
        for (const log of logs) events.push({ dst: log.args.dst!, wad: log.args.wad! });
      },
      pollingInterval: 50,
    });
    try {
      // Both watchers install their filter on their first poll.
      await new Promise((resolve) => setTimeout(resolve, 300));
      const hash = await walletClient.sendTransaction({ to: WETH, value: 11n });
      await waitFor(async () => (hashes.includes(hash) ? true : undefined), "the pending hash");
      await waitFor(async () => (events.some((e) => e.wad === 11n) ? true : undefined), "the Deposit event");
      expect(events.find((e) => e.wad === 11n)?.dst).toBe(walletClient.account.address);
    } finally {
      stopPending();
      stopEvents();
    }
    // They polled filters, not a getLogs fallback.
    expect(await requestCount("eth_getFilterChanges")).toBeGreaterThan(filterPolls);
    expect(await requestCount("eth_newFilter")).toBeGreaterThan(0);
    expect(await requestCount("eth_newPendingTransactionFilter")).toBeGreaterThan(0);
  });

  it("viem: createEventFilter and getFilterLogs", async () => {
    const { publicClient } = clients(node, 5);
    const from = await latest();
    const sent = await deposit(5, 13n);
    const filter = await publicClient.createEventFilter({
      address: WETH,
      event: parseAbiItem("event Deposit(address indexed dst, uint256 wad)"),
      fromBlock: from,
    });
    const logs = await publicClient.getFilterLogs({ filter });
    expect(logs.map((l) => l.transactionHash)).toContain(sent.hash);
    expect(logs.find((l) => l.transactionHash === sent.hash)?.args.wad).toBe(13n);
    expect(await publicClient.uninstallFilter({ filter })).toBe(true);
  });

  it("ethers v6 JsonRpcProvider: on('pending') and a contract event listener", async () => {
    const provider = new JsonRpcProvider(node.url, undefined, { cacheTimeout: -1, pollingInterval: 100 });
    try {
      const pending: string[] = [];
      const deposits: bigint[] = [];
      await provider.on("pending", (hash: string) => pending.push(hash));
      const weth = new Contract(WETH, ["event Deposit(address indexed dst, uint256 wad)"], provider);
      await weth.on("Deposit", (_dst: string, wad: bigint) => deposits.push(wad));
      // ethers installs its filters asynchronously after on() resolves.
      await new Promise((resolve) => setTimeout(resolve, 500));
      const { hash } = await deposit(6, 17n);
      await waitFor(async () => (pending.includes(hash) ? true : undefined), "ethers' pending event", 10_000);
      await waitFor(async () => (deposits.includes(17n) ? true : undefined), "ethers' Deposit event", 10_000);
    } finally {
      provider.destroy();
    }
  });
});
