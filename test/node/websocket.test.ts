/**
 * Websocket endpoints of a real node process: the raw flashblocks stream in Base's wire format
 * (with the `ws` package) and eth_subscribe newHeads / logs / newPendingTransactions / newFlashblocks
 * (viem and raw).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { type Hex, createPublicClient, keccak256, webSocket } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { call, clients, devChain, waitFor } from "./helpers.js";
import { type NodeProcess, startNodeProcess } from "./spawn-node.js";

const BLOCK_MS = 500;
const FLASH_MS = 50;
const PER_BLOCK = BLOCK_MS / FLASH_MS + 1; // indices 0..10

let node: NodeProcess;
beforeAll(async () => {
  node = await startNodeProcess({
    blockTimeMs: BLOCK_MS,
    flashblockIntervalMs: FLASH_MS,
    // No call workers: their start-up right after "ready" takes seconds of CPU on a loaded machine while the
    // snapshot timing below is observed, and nothing here depends on where eth_call runs.
    callWorkers: 0,
  });
}, 60_000);
afterAll(async () => {
  await node?.stop();
});

type Message = {
  payload_id: string;
  index: number;
  base?: Record<string, string>;
  diff: Record<string, unknown> & { transactions: Hex[]; block_hash: Hex };
  metadata: {
    block_number: number;
    receipts: Record<string, Record<string, { status: string; cumulativeGasUsed: string; logs: unknown[] }>>;
    new_account_balances: Record<string, string>;
  };
};

async function openWs(url: string): Promise<WebSocket> {
  const ws = new WebSocket(url);
  await new Promise((resolve, reject) => {
    ws.once("open", resolve);
    ws.once("error", reject);
  });
  return ws;
}

const HEX = /^0x[0-9a-f]*$/;
const QTY = /^0x(0|[1-9a-f][0-9a-f]*)$/;

describe("flashblocks websocket stream", () => {
  it("streams every snapshot of a block in Base's format", async () => {
    const ws = await openWs(node.flashblocksUrl);
    const messages: Message[] = [];
    ws.on("message", (data, isBinary) => {
      expect(isBinary).toBe(false);
      messages.push(JSON.parse(data.toString()) as Message);
    });
    try {
      const { walletClient } = clients(node, 1);
      const recipient = privateKeyToAccount(generatePrivateKey()).address;
      // Wait for a block to start, then send a transfer into it.
      const first = await waitFor(
        async () => messages.find((m) => m.index === 0),
        "an index-0 message",
        5_000,
      );
      const hash = await walletClient.sendTransaction({ to: recipient, value: 777n });
      // Collect until the block after `first` and the block after the transfer's have started.
      const carriesTransfer = (m: Message) => m.diff.transactions.some((t) => keccak256(t) === hash);
      await waitFor(
        async () => {
          const carrier = messages.find(carriesTransfer);
          if (carrier === undefined) return undefined;
          const after = Math.max(first.metadata.block_number + 1, carrier.metadata.block_number);
          return messages.some((m) => m.metadata.block_number > after) ? true : undefined;
        },
        "the transfer's block and the next one",
        10_000,
      );

      const ofFirst = messages.filter((m) => m.metadata.block_number === first.metadata.block_number);
      expect(ofFirst.map((m) => m.index)).toEqual([...Array(PER_BLOCK).keys()]);
      expect(new Set(ofFirst.map((m) => m.payload_id)).size).toBe(1);
      expect(first.payload_id).toMatch(/^0x[0-9a-f]{16}$/);
      for (const m of messages) {
        expect(Object.keys(m)).toEqual(
          m.index === 0
            ? ["payload_id", "index", "base", "diff", "metadata"]
            : ["payload_id", "index", "diff", "metadata"],
        );
        expect(Number.isInteger(m.index)).toBe(true);
        for (const f of ["state_root", "receipts_root", "block_hash", "withdrawals_root"])
          expect(m.diff[f]).toMatch(/^0x[0-9a-f]{64}$/);
        expect(m.diff.logs_bloom).toMatch(/^0x[0-9a-f]{512}$/);
        expect(m.diff.gas_used).toMatch(QTY);
        expect(m.diff.blob_gas_used).toMatch(QTY);
        expect(m.diff.withdrawals).toEqual([]);
        for (const t of m.diff.transactions) expect(t).toMatch(HEX);
        expect(Number.isInteger(m.metadata.block_number)).toBe(true);
        expect(Object.keys(m.metadata.receipts).sort()).toEqual(
          m.diff.transactions.map((t) => keccak256(t)).sort(),
        );
        for (const v of Object.values(m.metadata.new_account_balances)) expect(v).toMatch(QTY);
      }
      // Index 0: the base and the deposits only (the L1 attributes deposit).
      expect(Object.keys(first.base!).sort()).toEqual(
        [
          "base_fee_per_gas",
          "block_number",
          "extra_data",
          "fee_recipient",
          "gas_limit",
          "parent_beacon_block_root",
          "parent_hash",
          "prev_randao",
          "timestamp",
        ].sort(),
      );
      expect(BigInt(first.base!.block_number!)).toBe(BigInt(first.metadata.block_number));
      expect(first.diff.transactions.length).toBe(1);
      expect(first.diff.transactions[0]!.startsWith("0x7e")).toBe(true);
      const depositReceipt = first.metadata.receipts[keccak256(first.diff.transactions[0]!)]!;
      expect(Object.keys(depositReceipt)).toEqual(["Deposit"]);
      expect(depositReceipt.Deposit!.status).toBe("0x1");

      // The transfer appears once, with its receipt and the recipient's new balance.
      const carrying = messages.filter(carriesTransfer);
      expect(carrying.length).toBe(1);
      const m = carrying[0]!;
      expect(m.index).toBeGreaterThan(0);
      expect(Object.keys(m.metadata.receipts[hash]!)).toEqual(["Eip1559"]);
      // new_account_balances is cumulative from the start of the block.
      const later = messages.filter((x) => x.payload_id === m.payload_id && x.index >= m.index);
      for (const x of later) expect(x.metadata.new_account_balances[recipient.toLowerCase()]).toBe("0x309");
      // The last message's block hash is the sealed block's hash.
      const sealedNumber = m.metadata.block_number;
      const lastOfBlock = messages.filter((x) => x.metadata.block_number === sealedNumber).at(-1)!;
      const sealed = await waitFor(
        () =>
          call<{ hash: Hex } | null>(node.url, "eth_getBlockByNumber", [
            `0x${sealedNumber.toString(16)}`,
            false,
          ]).then((b) => b ?? undefined),
        "seal",
      );
      expect(lastOfBlock.index).toBe(PER_BLOCK - 1);
      expect(lastOfBlock.diff.block_hash).toBe(sealed.hash);
    } finally {
      ws.close();
    }
  });

  it("sends a new subscriber the current snapshot first", async () => {
    const ws = await openWs(node.flashblocksUrl);
    const firstMessage = await new Promise<Message>((resolve) =>
      ws.once("message", (d) => resolve(JSON.parse(d.toString()) as Message)),
    );
    ws.close();
    const pending = await call<{ number: Hex }>(node.url, "eth_getBlockByNumber", ["pending", false]);
    expect(BigInt(firstMessage.metadata.block_number)).toBeLessThanOrEqual(BigInt(pending.number));
  });
});

describe("eth_subscribe", () => {
  it("delivers newHeads through viem and newFlashblocks raw; refuses subscriptions over HTTP", async () => {
    const chain = devChain(node);
    const wsClient = createPublicClient({ chain, transport: webSocket(node.wsUrl) });
    const heads: bigint[] = [];
    const unwatch = wsClient.watchBlocks({ onBlock: (b) => heads.push(b.number), emitOnBegin: false });
    const ws = await openWs(node.wsUrl);
    const notes: { subscription: string; result: Message }[] = [];
    ws.on("message", (d) => {
      const msg = JSON.parse(d.toString()) as {
        method?: string;
        params?: { subscription: string; result: Message };
      };
      if (msg.method === "eth_subscription") notes.push(msg.params!);
    });
    ws.send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_subscribe", params: ["newFlashblocks"] }));
    // Subscribing over HTTP is refused with a clear error.
    const overHttp = await fetch(node.url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_subscribe", params: ["newHeads"] }),
    });
    expect(((await overHttp.json()) as { error: { message: string } }).error.message).toMatch(/websocket/);
    try {
      await waitFor(
        async () => (heads.length >= 2 && notes.length >= 3 ? true : undefined),
        "heads and flashblocks",
        10_000,
      );
      expect(heads[1]).toBe(heads[0]! + 1n);
      expect(notes[0]!.result.payload_id).toMatch(/^0x[0-9a-f]{16}$/);
      expect(notes[1]!.result.diff.block_hash).toMatch(/^0x[0-9a-f]{64}$/);
    } finally {
      unwatch();
      ws.close();
      await wsClient.transport.getRpcClient().then((c) => c.close());
    }
  });

  it("delivers newPendingTransactions: the hash of each transaction the pool accepts (viem watchPendingTransactions)", async () => {
    const wsClient = createPublicClient({ chain: devChain(node), transport: webSocket(node.wsUrl) });
    const seen: Hex[] = [];
    const errors: Error[] = [];
    const unwatch = wsClient.watchPendingTransactions({
      onTransactions: (hashes) => seen.push(...hashes),
      onError: (error) => errors.push(error),
    });
    try {
      const { walletClient } = clients(node, 3);
      // Notifications start once eth_subscribe has answered: a transfer sent earlier could be missed.
      const socket = await wsClient.transport.getRpcClient();
      await waitFor(async () => (socket.subscriptions.size > 0 ? true : undefined), "the subscription");
      const recipient = privateKeyToAccount(generatePrivateKey()).address;
      const hashes = [
        await walletClient.sendTransaction({ to: recipient, value: 1n }),
        await walletClient.sendTransaction({ to: recipient, value: 2n }),
      ];
      await waitFor(
        async () => (hashes.every((h) => seen.includes(h)) ? true : undefined),
        "both hashes",
        10_000,
      );
      expect(seen.filter((h) => hashes.includes(h))).toEqual(hashes);
      // Refused transactions are not announced.
      await expect(walletClient.sendTransaction({ to: recipient, value: 10n ** 40n })).rejects.toThrow();
      expect(seen.every((h) => /^0x[0-9a-f]{64}$/.test(h))).toBe(true);
      expect(errors).toEqual([]);
    } finally {
      unwatch();
      await wsClient.transport.getRpcClient().then((c) => c.close());
    }
  });

  it("delivers logs of sealed blocks matching the filter (WETH9 Deposit events)", async () => {
    const weth = "0x4200000000000000000000000000000000000006";
    const ws = await openWs(node.wsUrl);
    const logs: { address: Hex; transactionHash: Hex; topics: Hex[] }[] = [];
    let subId: string | undefined;
    ws.on("message", (d) => {
      const msg = JSON.parse(d.toString()) as {
        id?: number;
        result?: string;
        method?: string;
        params?: { result: (typeof logs)[number] };
      };
      if (msg.id === 1) subId = msg.result;
      if (msg.method === "eth_subscription") logs.push(msg.params!.result);
    });
    ws.send(
      JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_subscribe", params: ["logs", { address: weth }] }),
    );
    try {
      await waitFor(async () => subId, "subscription id");
      const { walletClient } = clients(node, 2);
      const hash = await walletClient.sendTransaction({ to: weth, value: 1000n, data: "0xd0e30db0" }); // deposit()
      await waitFor(
        async () => (logs.some((l) => l.transactionHash === hash) ? true : undefined),
        "the Deposit log",
        10_000,
      );
      expect(logs.every((l) => l.address === weth)).toBe(true);
      ws.send(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "eth_unsubscribe", params: [subId] }));
    } finally {
      ws.close();
    }
  });
});
