/**
 * The pending view against a real node process: pre-confirmed balances before the block seals,
 * snapshots that advance (number, hash, gasUsed, transactions) and a sealed block that holds exactly
 * the last snapshot's transactions, with real hashes over real state roots.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { keccak256, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { headerFromJson, headerHash, toHex } from "../../src/chain/index.js";
import { call, clients, rawCall, rpc, signTransfer, waitFor } from "./helpers.js";
import { type NodeProcess, startNodeProcess } from "./spawn-node.js";

interface RpcBlock {
  number: Hex;
  hash: Hex;
  stateRoot: Hex;
  gasUsed: Hex;
  transactions: Hex[];
  [k: string]: unknown;
}

const BLOCK_MS = 1000;
const FLASH_MS = 100;
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

async function pendingIndex(): Promise<{ number: bigint; index: number }> {
  const r = await rpc(node.url, "eth_getBlockByNumber", ["pending", false]);
  const block = r.body?.result as RpcBlock;
  const index = r.headers.get("x-flashblock-index");
  return { number: BigInt(block.number), index: index === null ? -1 : Number(index) };
}

/** Waits until a block above `after` being built has just started (snapshot index 0 or 1). */
async function atBlockStart(after = -1n): Promise<{ number: bigint; index: number }> {
  return waitFor(
    async () => {
      const p = await pendingIndex();
      return p.number > after && p.index >= 0 && p.index <= 1 ? p : undefined;
    },
    "the start of a block",
    10_000,
    5,
  );
}

describe("pending view", () => {
  it("shows a transfer in eth_getBalance(pending) at the next snapshot, before the block seals", async () => {
    // One raw transaction (one request) so that the send rarely straddles a block. Under heavy load it
    // can still be pre-confirmed in the last snapshot of a block that seals before the first read; the
    // scenario then cannot show the unsealed state and is run again in a fresh block (3 tries at most).
    const scenario = async () => {
      const recipient = privateKeyToAccount(generatePrivateKey()).address;
      const nonce = Number(
        await call<Hex>(node.url, "eth_getTransactionCount", [node.accounts[1]!.address, "pending"]),
      );
      const raw = await signTransfer(node, 1, nonce, recipient, 12_345n);
      const start = await atBlockStart();
      await call(node.url, "eth_sendRawTransaction", [raw]);
      const afterSend = await pendingIndex();
      // One batch reads pending, latest and the head together (answered from the same moment).
      const batch = JSON.stringify([
        { jsonrpc: "2.0", id: 1, method: "eth_getBalance", params: [recipient, "pending"] },
        { jsonrpc: "2.0", id: 2, method: "eth_getBalance", params: [recipient, "latest"] },
        { jsonrpc: "2.0", id: 3, method: "eth_blockNumber", params: [] },
      ]);
      const seen = await waitFor(
        async () => {
          const r = await rawCall(node.url, batch);
          const [pendingBalance, latestBalance, head] = (r.body as unknown as { result: Hex }[]).map((x) =>
            BigInt(x.result),
          );
          if (pendingBalance !== 12_345n) return undefined;
          return {
            number: BigInt(r.headers.get("x-pending-block")!),
            index: Number(r.headers.get("x-flashblock-index")),
            latestBalance,
            head,
          };
        },
        "the pre-confirmed balance",
        5_000,
        2,
      );
      return { recipient, start, afterSend, seen };
    };
    let run = await scenario();
    for (let attempt = 1; attempt < 3 && run.seen.latestBalance !== 0n; attempt++) run = await scenario();
    const { recipient, start, afterSend, seen } = run;
    // Not sealed yet when first seen: latest is the parent of the block being built and does not
    // have the transfer.
    expect(seen.head).toBe(seen.number - 1n);
    expect(seen.latestBalance).toBe(0n);
    // Seen in the first snapshot assembled after the pool accepted it (allowing for the one being
    // assembled while the request was answered): in the same block, or, when the send came at the
    // very end of a block, at the first pool snapshot (index 1) of the next one.
    expect(afterSend.number).toBeGreaterThanOrEqual(start.number);
    if (seen.number === afterSend.number) expect(seen.index).toBeLessThanOrEqual(afterSend.index + 2);
    else {
      expect(seen.number).toBe(afterSend.number + 1n);
      expect(seen.index).toBeLessThanOrEqual(2);
    }
    // Once sealed, latest agrees.
    await waitFor(
      async () =>
        BigInt(await call<Hex>(node.url, "eth_blockNumber", [])) >= seen.number ? true : undefined,
      "seal",
    );
    expect(BigInt(await call<Hex>(node.url, "eth_getBalance", [recipient, "latest"]))).toBe(12_345n);
  });

  it("advances number, hash, gasUsed and transactions across snapshots; the sealed block is the last snapshot", async () => {
    const { walletClient } = clients(node, 2);
    const messages: Record<string, unknown>[] = [];
    const ws = new WebSocket(node.flashblocksUrl);
    ws.on("message", (data) => messages.push(JSON.parse(data.toString()) as Record<string, unknown>));
    await new Promise((resolve, reject) => {
      ws.once("open", resolve);
      ws.once("error", reject);
    });
    // The stream is complete from the first block start it carries: wait for one, so that the block the
    // scenario uses has all its flashblocks on the stream (index 0 included).
    await waitFor(async () => (messages.some((m) => m.index === 0) ? true : undefined), "a block start");
    try {
      // Both transactions must be seen pre-confirmed in one block. A transaction the pool accepts in the last
      // snapshot interval of a block is sealed with it at once and never shows in an RPC read of `pending`
      // (the stream carries it as the block's last flashblock), and a send can straddle a block boundary (the
      // first send of a client pays its warm-up); either way the scenario runs again in a fresh block.
      /** The pending block once it holds `tx`, or "sealed" when `tx` went into a sealed block unseen. */
      const preconfirmed = (tx: Hex, what: string) =>
        waitFor(
          async () => {
            const b = await call<RpcBlock>(node.url, "eth_getBlockByNumber", ["pending", false]);
            if (b.transactions.includes(tx)) return b;
            const receipt = await call<{ blockNumber: Hex } | null>(node.url, "eth_getTransactionReceipt", [
              tx,
            ]);
            return receipt !== null && BigInt(receipt.blockNumber) < BigInt(b.number)
              ? ("sealed" as const)
              : undefined;
          },
          what,
          30_000,
          2,
        );
      // A retried scenario starts in a block above every block the attempt before it used, so that its
      // `before` holds no transaction of that attempt (one sent at a block boundary lands at index 1 of
      // the next block, which is itself a "block start").
      let usedUpTo = -1n;
      const scenario = async () => {
        const start = await atBlockStart(usedUpTo);
        usedUpTo = start.number;
        const before = await call<RpcBlock>(node.url, "eth_getBlockByNumber", ["pending", false]);
        const tx1 = await walletClient.sendTransaction({
          to: privateKeyToAccount(generatePrivateKey()).address,
          value: 1n,
        });
        const p1 = await preconfirmed(tx1, "tx1 pre-confirmed");
        usedUpTo = (await pendingIndex()).number;
        if (p1 === "sealed") return undefined;
        // Pre-confirmed receipt and transaction, in the pending block.
        const receipt1 = await call<{ blockNumber: Hex; blockHash: Hex; status: Hex }>(
          node.url,
          "eth_getTransactionReceipt",
          [tx1],
        );
        const tx2 = await walletClient.sendTransaction({
          to: privateKeyToAccount(generatePrivateKey()).address,
          value: 2n,
        });
        const p2 = await preconfirmed(tx2, "tx2 pre-confirmed");
        usedUpTo = (await pendingIndex()).number;
        if (p2 === "sealed") return undefined;
        return { start, before, p1, p2, tx1, receipt1 };
      };
      let run = await scenario();
      for (
        let attempt = 1;
        attempt < 5 && (run === undefined || BigInt(run.p2.number) !== run.start.number);
        attempt++
      )
        run = await scenario();
      if (run === undefined) throw new Error("no attempt saw both transactions pre-confirmed in one block");
      const { start, before, p1, p2, tx1, receipt1 } = run;
      expect(BigInt(receipt1.blockNumber)).toBe(start.number);
      expect(receipt1.status).toBe("0x1");

      for (const b of [before, p1, p2]) {
        expect(BigInt(b.number)).toBe(start.number);
        // The hash is the real hash of the partial block's header (over a real state root).
        expect(toHex(headerHash(headerFromJson(b)))).toBe(b.hash);
        expect(b.stateRoot).not.toBe(`0x${"00".repeat(32)}`);
        expect(b.size).toMatch(/^0x[1-9a-f][0-9a-f]*$/);
      }
      expect(before.transactions.length).toBe(1); // the L1 attributes deposit
      expect(p1.transactions.slice(0, before.transactions.length)).toEqual(before.transactions);
      expect(p2.transactions.slice(0, p1.transactions.length)).toEqual(p1.transactions);
      expect(p2.transactions.length).toBeGreaterThan(p1.transactions.length);
      expect(BigInt(p1.gasUsed)).toBeGreaterThan(BigInt(before.gasUsed));
      expect(BigInt(p2.gasUsed)).toBeGreaterThan(BigInt(p1.gasUsed));
      expect(new Set([before.hash, p1.hash, p2.hash]).size).toBe(3);

      // The sealed block holds exactly the transactions of the last snapshot of that block.
      const sealed = await waitFor(
        () =>
          call<RpcBlock | null>(node.url, "eth_getBlockByNumber", [
            `0x${start.number.toString(16)}`,
            false,
          ]).then((b) => b ?? undefined),
        "the block to seal",
      );
      const ofBlock = messages.filter(
        (m) => (m.metadata as { block_number: number }).block_number === Number(start.number),
      );
      const last = ofBlock[ofBlock.length - 1]!;
      const streamed = ofBlock.flatMap((m) =>
        (m.diff as { transactions: Hex[] }).transactions.map((t) => keccak256(t)),
      );
      expect(sealed.transactions).toEqual(streamed);
      expect((last.diff as { block_hash: Hex }).block_hash).toBe(sealed.hash);
      expect(sealed.transactions.slice(0, p2.transactions.length)).toEqual(p2.transactions);
      expect(ofBlock.map((m) => m.index)).toEqual(ofBlock.map((_, i) => i));
      // The receipt now names the sealed block.
      const sealedReceipt = await call<{ blockHash: Hex }>(node.url, "eth_getTransactionReceipt", [tx1]);
      expect(sealedReceipt.blockHash).toBe(sealed.hash);
    } finally {
      ws.close();
    }
  });

  it("counts pre-confirmed transactions in eth_getTransactionCount(pending) and is never null", async () => {
    const { walletClient } = clients(node, 3);
    const address = walletClient.account.address;
    await atBlockStart();
    const latestBefore = BigInt(await call<Hex>(node.url, "eth_getTransactionCount", [address, "latest"]));
    const hash = await walletClient.sendTransaction({ to: address, value: 0n });
    const pendingCount = BigInt(await call<Hex>(node.url, "eth_getTransactionCount", [address, "pending"]));
    expect(pendingCount).toBe(latestBefore + 1n);
    await waitFor(
      async () =>
        (await call<RpcBlock>(node.url, "eth_getBlockByNumber", ["pending", false])).transactions.includes(
          hash,
        )
          ? true
          : undefined,
      "pre-confirmation",
    );
    // Pending is never null, across many snapshots and block boundaries.
    for (let i = 0; i < 40; i++) {
      const b = await call<RpcBlock | null>(node.url, "eth_getBlockByNumber", ["pending", true]);
      expect(b).not.toBeNull();
      await new Promise((r) => setTimeout(r, 30));
    }
  });

  it("answers eth_sendRawTransactionSync with the pre-confirmed receipt; pooled transactions are found with null block fields", async () => {
    const { walletClient, publicClient } = clients(node, 4);
    const account = walletClient.account;
    const nonce = await publicClient.getTransactionCount({ address: account.address, blockTag: "pending" });
    const fees = {
      maxFeePerGas: 10_000_000_000n,
      maxPriorityFeePerGas: 1_000_000n,
      gas: 21_000n,
      chainId: node.chainId,
      type: "eip1559" as const,
    };
    const signed = await account.signTransaction({ ...fees, to: account.address, value: 1n, nonce });
    const r = await rpc(node.url, "eth_sendRawTransactionSync", [signed, 5_000]);
    const receipt = r.body?.result as { status: Hex; blockNumber: Hex; transactionHash: Hex };
    expect(receipt.status).toBe("0x1");
    expect(receipt.transactionHash).toBe(keccak256(signed));
    // Pre-confirmed: in the block being built (or, at a boundary, the one just sealed).
    expect(BigInt(receipt.blockNumber)).toBeGreaterThanOrEqual(
      BigInt(await call<Hex>(node.url, "eth_blockNumber", [])),
    );

    // A nonce gap: the transaction waits in the pool; the sync call times out with code 4.
    const gapped = await account.signTransaction({
      ...fees,
      to: account.address,
      value: 2n,
      nonce: nonce + 2,
    });
    const timedOut = await rpc(node.url, "eth_sendRawTransactionSync", [gapped, 300]);
    expect(timedOut.body?.error?.code).toBe(4);
    const pooled = await call<{
      blockHash: null;
      blockNumber: null;
      transactionIndex: null;
      hash: Hex;
      nonce: Hex;
    }>(node.url, "eth_getTransactionByHash", [keccak256(gapped)]);
    expect(pooled).toMatchObject({
      blockHash: null,
      blockNumber: null,
      transactionIndex: null,
      hash: keccak256(gapped),
      nonce: `0x${(nonce + 2).toString(16)}`,
    });
    expect(await call(node.url, "eth_getTransactionReceipt", [keccak256(gapped)])).toBeNull();
    // Replacing it needs a 10 % higher fee.
    const sameFee = await account.signTransaction({
      ...fees,
      to: account.address,
      value: 3n,
      nonce: nonce + 2,
    });
    expect((await rpc(node.url, "eth_sendRawTransaction", [sameFee])).body?.error?.message).toMatch(
      /replacement transaction underpriced/,
    );
    // Filling the gap lets both through, in nonce order.
    const filler = await account.signTransaction({
      ...fees,
      to: account.address,
      value: 4n,
      nonce: nonce + 1,
    });
    await call(node.url, "eth_sendRawTransaction", [filler]);
    const sealed = await waitFor(
      async () => {
        const rc = await call<{ blockNumber: Hex; transactionIndex: Hex } | null>(
          node.url,
          "eth_getTransactionReceipt",
          [keccak256(gapped)],
        );
        return rc ?? undefined;
      },
      "the gapped transaction",
      5_000,
    );
    const fillerReceipt = await call<{ blockNumber: Hex; transactionIndex: Hex }>(
      node.url,
      "eth_getTransactionReceipt",
      [keccak256(filler)],
    );
    const fb = BigInt(fillerReceipt.blockNumber);
    const gb = BigInt(sealed.blockNumber);
    expect(
      fb < gb || (fb === gb && BigInt(fillerReceipt.transactionIndex) < BigInt(sealed.transactionIndex)),
    ).toBe(true);
  });
});
