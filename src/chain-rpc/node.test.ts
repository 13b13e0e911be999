/**
 * The RPC providers against a real node process (our L2 node, test/node/spawn-node.ts): a sealed block with a
 * deposit, legacy, EIP-2930, EIP-1559, EIP-7702 and contract-creation transactions, read through RpcL2Provider and
 * RpcL1Provider (the node serves the standard L1 methods too) and compared with the node's own raw encodings
 * (debug_getRawBlock, debug_getRawReceipts). A proxy in front of the node then tampers with the real answers: each
 * check must refuse with its named error.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RLP } from "@ethereumjs/rlp";
import { type Hex, bytesToHex, hexToBytes } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { encodeReceipt, fromHex, headerHash, toHex } from "../chain/index.js";
import { call, clients, hexNumber, waitFor } from "../../test/node/helpers.js";
import { type NodeProcess, startNodeProcess } from "../../test/node/spawn-node.js";
import {
  DataMismatchError,
  EndpointUnavailableError,
  MalformedResponseError,
  RemoteCallError,
  RAW_L1_METHODS,
  RpcL1Provider,
  type RpcProviderOptions,
  RpcL2Provider,
} from "./index.js";
import { type Envelope, type TamperProxy, startTamperProxy } from "./proxy.test-support.js";

type Json = Record<string, unknown>;

/** An L1 provider on the standard methods only (the node serves the raw debug methods too; they are tested below). */
const standardL1 = (url: string, options: RpcProviderOptions = {}): RpcL1Provider =>
  new RpcL1Provider(url, { ...options, rawMethods: false });

let node: NodeProcess;
let proxy: TamperProxy;
interface SealedBlock {
  number: bigint;
  hash: Hex;
  raw: Uint8Array[];
  rawReceipts: Hex[];
}
/** The blocks that hold the transactions sent (usually one). */
const blocks: SealedBlock[] = [];
let block: SealedBlock;

async function latest(): Promise<bigint> {
  return BigInt(await call<Hex>(node.url, "eth_blockNumber", []));
}

beforeAll(async () => {
  node = await startNodeProcess({ blockTimeMs: 500, flashblockIntervalMs: 100, preconfirmedReceipts: false });
  proxy = await startTamperProxy(node.url);
  const { walletClient, publicClient } = clients(node, 0);
  const account = walletClient.account;
  const to = privateKeyToAccount(generatePrivateKey()).address;
  const nonce = await publicClient.getTransactionCount({ address: account.address, blockTag: "pending" });
  const fees = { maxFeePerGas: 10_000_000_000n, maxPriorityFeePerGas: 1_000_000n };
  const authorization = await walletClient.signAuthorization({
    contractAddress: to,
    chainId: node.chainId,
    nonce: nonce + 5,
  });
  const hashes = [
    await walletClient.sendTransaction({ to, value: 1n, type: "legacy", gasPrice: 10_000_000_000n, nonce }),
    await walletClient.sendTransaction({
      to,
      value: 2n,
      type: "eip2930",
      gasPrice: 10_000_000_000n,
      accessList: [{ address: to, storageKeys: [`0x${"01".repeat(32)}`] }],
      nonce: nonce + 1,
    }),
    await walletClient.sendTransaction({ to, value: 3n, data: "0xc0ffee", ...fees, nonce: nonce + 2 }),
    // A contract creation (no `to`): init code that returns empty code.
    await walletClient.sendTransaction({ data: "0x60006000f3", ...fees, nonce: nonce + 3, gas: 100_000n }),
    await walletClient.sendTransaction({
      to: privateKeyToAccount(generatePrivateKey()).address,
      authorizationList: [authorization],
      ...fees,
      nonce: nonce + 4,
      gas: 100_000n,
    }),
  ];
  const receipts = await Promise.all(hashes.map((hash) => publicClient.waitForTransactionReceipt({ hash })));
  const numbers = [...new Set(receipts.map((r) => r.blockNumber))].sort((a, b) => (a < b ? -1 : 1));
  await waitFor(
    async () => ((await latest()) >= numbers.at(-1)! + 2n ? true : undefined),
    "two more blocks",
    60_000,
  );
  for (const number of numbers) {
    const json = await call<Json>(node.url, "eth_getBlockByNumber", [hexNumber(number), false]);
    const raw = await call<Hex>(node.url, "debug_getRawBlock", [hexNumber(number)]);
    const [, txItems] = RLP.decode(hexToBytes(raw)) as unknown as [unknown, (Uint8Array | Uint8Array[])[]];
    blocks.push({
      number,
      hash: json.hash as Hex,
      raw: txItems.map((item) => (Array.isArray(item) ? RLP.encode(item) : item)),
      rawReceipts: await call<Hex[]>(node.url, "debug_getRawReceipts", [json.hash]),
    });
  }
  // The tampering tests use the block with the most transactions (every block has the deposit and at least one more).
  block = blocks.reduce((a, b) => (a.raw.length >= b.raw.length ? a : b));
}, 120_000);

afterAll(async () => {
  await proxy?.close();
  await node?.stop();
});

describe("RpcL2Provider over our node", () => {
  it("returns the block with its hash, header and EIP-2718 transactions, equal to the node's raw block", async () => {
    const l2 = new RpcL2Provider(node.url);
    const types = new Set<number>();
    for (const sealed of blocks) {
      const got = await l2.blockByNumber(sealed.number);
      expect(got).toBeDefined();
      expect(toHex(got!.hash)).toBe(sealed.hash);
      expect(toHex(headerHash(got!.header))).toBe(sealed.hash);
      expect(got!.transactions.map((t) => bytesToHex(t))).toEqual(sealed.raw.map((t) => bytesToHex(t)));
      expect(got!.transactions[0]![0]).toBe(0x7e);
      for (const t of got!.transactions) types.add(t[0]! >= 0xc0 ? 0 : t[0]!);
    }
    // The deposit and user transactions of every type the chain accepts.
    expect([...types].sort((a, b) => a - b)).toEqual([0, 1, 2, 4, 0x7e]);
    expect(await l2.blockByNumber(1_000_000n)).toBeUndefined();
  });

  it("with an anchor, serves the anchor's ancestors and nothing above it; a wrong anchor is refused", async () => {
    const anchorJson = await call<Json>(node.url, "eth_getBlockByNumber", [
      hexNumber(block.number + 2n),
      false,
    ]);
    const anchor = { number: block.number + 2n, hash: fromHex(anchorJson.hash as string) };
    const l2 = new RpcL2Provider(node.url, { anchor });
    expect(toHex((await l2.blockByNumber(block.number))!.hash)).toBe(block.hash);
    expect(toHex((await l2.blockByNumber(anchor.number))!.hash)).toBe(anchorJson.hash);
    expect(await l2.blockByNumber(anchor.number + 1n)).toBeUndefined();

    const forged = Uint8Array.from(anchor.hash);
    forged[0]! ^= 1;
    const wrong = new RpcL2Provider(node.url, { anchor: { number: anchor.number, hash: forged } });
    const refused = await wrong.blockByNumber(block.number).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(DataMismatchError);
    expect((refused as DataMismatchError).kind).toBe("mismatch");
    expect((refused as DataMismatchError).subject).toBe("ancestry");
  });
});

describe("RpcL1Provider over our node (standard methods)", () => {
  it("headers by hash and number, transactions and receipts match the node's raw encodings", async () => {
    for (const sealed of blocks) {
      // A fresh provider each time: no header comes from the cache.
      const l1 = standardL1(node.url);
      const hash = fromHex(sealed.hash);
      const byHash = await l1.headerByHash(hash);
      const byNumber = await standardL1(node.url).headerByNumber(sealed.number);
      expect(toHex(headerHash(byHash!))).toBe(sealed.hash);
      expect(byNumber).toEqual(byHash);
      const txs = await standardL1(node.url).transactionsByHash(hash);
      expect(txs!.map((t) => bytesToHex(t))).toEqual(sealed.raw.map((t) => bytesToHex(t)));
      const receipts = await standardL1(node.url).receiptsByHash(hash);
      expect(receipts!.map((r) => bytesToHex(encodeReceipt(r)))).toEqual(sealed.rawReceipts);
      expect(receipts![0]!.depositNonce).toBeDefined();
    }
  });

  it("a block the node does not have is undefined", async () => {
    const l1 = standardL1(node.url);
    const unknown = fromHex(`0x${"cd".repeat(32)}`);
    expect(await l1.headerByHash(unknown)).toBeUndefined();
    expect(await l1.headerByNumber(1_000_000n)).toBeUndefined();
    expect(await l1.transactionsByHash(unknown)).toBeUndefined();
    expect(await l1.receiptsByHash(unknown)).toBeUndefined();
  });
});

describe("RpcL1Provider over our node (debug_getRawHeader, debug_getRawBlock, debug_getRawReceipts)", () => {
  it("reads the consensus encodings with the raw methods only, equal to what the standard methods give", async () => {
    const asked: string[] = [];
    proxy.rpc = async (request, forward) => {
      asked.push(request.method);
      return forward(request);
    };
    try {
      for (const sealed of blocks) {
        const hash = fromHex(sealed.hash);
        const l1 = new RpcL1Provider(proxy.url);
        const header = await l1.headerByHash(hash);
        const txs = await l1.transactionLeavesByHash(hash);
        const receipts = await l1.encodedReceiptsByHash(hash);
        for (const method of RAW_L1_METHODS) expect(l1.raw!.served(method)).toBe(true);
        expect(header).toEqual(await standardL1(node.url).headerByHash(hash));
        expect(txs!.transactions.map((t) => bytesToHex(t))).toEqual(sealed.raw.map((t) => bytesToHex(t)));
        expect(txs!.leaves).toEqual(txs!.transactions);
        expect(receipts!.map((r) => bytesToHex(r))).toEqual(sealed.rawReceipts);
        const standard = await standardL1(node.url).receiptsByHash(hash);
        expect(receipts!.map((r) => bytesToHex(r))).toEqual(
          standard!.map((r) => bytesToHex(encodeReceipt(r))),
        );
      }
      expect(new Set(asked)).toEqual(new Set(RAW_L1_METHODS));
    } finally {
      proxy.rpc = async (request, forward) => forward(request);
    }
  });

  it("a block the node does not have is undefined", async () => {
    const l1 = new RpcL1Provider(node.url);
    const unknown = fromHex(`0x${"ce".repeat(32)}`);
    expect(await l1.headerByHash(unknown)).toBeUndefined();
    expect(await l1.transactionLeavesByHash(unknown)).toBeUndefined();
    expect(await l1.encodedReceiptsByHash(unknown)).toBeUndefined();
  });

  it("a node without them (-32601) is asked once per method, then read with the standard methods", async () => {
    const asked: string[] = [];
    proxy.rpc = async (request, forward): Promise<Envelope> => {
      asked.push(request.method);
      if (request.method.startsWith("debug_getRaw"))
        return {
          jsonrpc: "2.0",
          id: 1,
          error: { code: -32601, message: `the method ${request.method} does not exist/is not available` },
        };
      return forward(request);
    };
    try {
      const l1 = new RpcL1Provider(proxy.url);
      for (const sealed of blocks) {
        const hash = fromHex(sealed.hash);
        expect(toHex(headerHash((await l1.headerByHash(hash))!))).toBe(sealed.hash);
        expect((await l1.transactionLeavesByHash(hash))!.transactions.map((t) => bytesToHex(t))).toEqual(
          sealed.raw.map((t) => bytesToHex(t)),
        );
        expect((await l1.encodedReceiptsByHash(hash))!.map((r) => bytesToHex(r))).toEqual(sealed.rawReceipts);
      }
      for (const method of RAW_L1_METHODS) {
        expect(l1.raw!.served(method)).toBe(false);
        expect(asked.filter((m) => m === method)).toHaveLength(1);
      }
    } finally {
      proxy.rpc = async (request, forward) => forward(request);
    }
  });

  it("reth's answers for a block it lacks (an empty header, an empty receipt list) fall back to the standard methods", async () => {
    // reth's raw_header answers empty bytes and raw_receipts an empty list for a block it does not have
    // (crates/rpc/rpc/src/debug.rs); the standard methods then answer for the block.
    proxy.rpc = async (request, forward): Promise<Envelope> => {
      if (request.method === "debug_getRawHeader") return { jsonrpc: "2.0", id: 1, result: "0x" };
      if (request.method === "debug_getRawReceipts") return { jsonrpc: "2.0", id: 1, result: [] };
      return forward(request);
    };
    try {
      const l1 = new RpcL1Provider(proxy.url);
      const hash = fromHex(block.hash);
      expect(toHex(headerHash((await l1.headerByHash(hash))!))).toBe(block.hash);
      expect((await l1.encodedReceiptsByHash(hash))!.map((r) => bytesToHex(r))).toEqual(block.rawReceipts);
    } finally {
      proxy.rpc = async (request, forward) => forward(request);
    }
  });
});

/** Rewrites the real answer to `method` with `change` (on a deep copy). */
function tamper(method: string, change: (result: Json | Json[]) => unknown): void {
  proxy.rpc = async (request, forward) => {
    const real = await forward(request);
    if (request.method !== method || real.result === null) return real;
    const copy = structuredClone(real.result) as Json | Json[];
    const replaced = change(copy);
    return { ...real, result: replaced === undefined ? copy : replaced };
  };
}

async function refusal(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run();
  } catch (error) {
    return error;
  }
  throw new Error("the provider accepted tampered data");
}

function flipHex(value: string): string {
  const last = value.at(-1)!;
  return value.slice(0, -1) + (last === "0" ? "1" : "0");
}

describe("tampered answers are refused with named errors", () => {
  const hash = (): Uint8Array => fromHex(block.hash);
  const expectMismatch = async (run: () => Promise<unknown>, subject: string): Promise<void> => {
    const error = await refusal(run);
    expect(error).toBeInstanceOf(DataMismatchError);
    expect((error as DataMismatchError).kind).toBe("mismatch");
    expect((error as DataMismatchError).details.subject).toBe(subject);
  };

  it("a header field changed: the header no longer hashes to the block hash", async () => {
    tamper(
      "eth_getBlockByHash",
      (b) => void ((b as Json).stateRoot = flipHex((b as Json).stateRoot as string)),
    );
    await expectMismatch(() => standardL1(proxy.url).headerByHash(hash()), "header-hash");
    await expectMismatch(() => standardL1(proxy.url).transactionsByHash(hash()), "header-hash");
    tamper("eth_getBlockByNumber", (b) => void ((b as Json).gasUsed = "0x1"));
    await expectMismatch(() => standardL1(proxy.url).headerByNumber(block.number), "header-hash");
    await expectMismatch(() => new RpcL2Provider(proxy.url).blockByNumber(block.number), "header-hash");
  });

  it("another block answered for a number, with its own consistent hash", async () => {
    proxy.rpc = async (request, forward) =>
      forward(
        request.method === "eth_getBlockByNumber"
          ? { method: request.method, params: [hexNumber(block.number - 1n), request.params[1]] }
          : request,
      );
    await expectMismatch(() => standardL1(proxy.url).headerByNumber(block.number), "block-number");
    await expectMismatch(() => new RpcL2Provider(proxy.url).blockByNumber(block.number), "block-number");
  });

  it("a transaction changed under its hash, and transactions reordered under the root", async () => {
    tamper("eth_getBlockByNumber", (b) => {
      const tx = ((b as Json).transactions as Json[])[1]!;
      tx.value = `0x${(BigInt(tx.value as string) + 1n).toString(16)}`;
    });
    await expectMismatch(() => new RpcL2Provider(proxy.url).blockByNumber(block.number), "transaction-hash");
    tamper("eth_getBlockByHash", (b) => void ((b as Json).transactions as Json[]).reverse());
    await expectMismatch(() => standardL1(proxy.url).transactionsByHash(hash()), "transactions-root");
    tamper("eth_getBlockByHash", (b) => void ((b as Json).transactions as Json[]).pop());
    await expectMismatch(() => standardL1(proxy.url).transactionsByHash(hash()), "transactions-root");
  });

  it("receipts changed, or withheld as an empty list, do not have the receipts root", async () => {
    tamper("eth_getBlockReceipts", (r) => {
      const receipt = (r as Json[])[1]!;
      receipt.cumulativeGasUsed = `0x${(BigInt(receipt.cumulativeGasUsed as string) + 1n).toString(16)}`;
    });
    await expectMismatch(() => standardL1(proxy.url).receiptsByHash(hash()), "receipts-root");
    tamper("eth_getBlockReceipts", () => []);
    await expectMismatch(() => standardL1(proxy.url).receiptsByHash(hash()), "receipts-root");
  });

  it("raw answers changed: a header byte, a transaction dropped from the raw block, a receipt byte", async () => {
    const flipLast = (hex: string): string => flipHex(hex);
    tamper("debug_getRawHeader", (h) => flipLast(h as unknown as string));
    await expectMismatch(() => new RpcL1Provider(proxy.url).headerByHash(hash()), "header-hash");
    tamper("debug_getRawReceipts", (r) => {
      const list = r as unknown as string[];
      list[1] = flipLast(list[1]!);
    });
    await expectMismatch(() => new RpcL1Provider(proxy.url).encodedReceiptsByHash(hash()), "receipts-root");
    tamper("debug_getRawReceipts", (r) => (r as unknown as string[]).slice(1));
    await expectMismatch(() => new RpcL1Provider(proxy.url).encodedReceiptsByHash(hash()), "receipts-root");
    tamper("debug_getRawBlock", (b) => {
      const [header, txs, ...rest] = RLP.decode(hexToBytes(b as unknown as Hex)) as unknown as unknown[][];
      return bytesToHex(RLP.encode([header, txs!.slice(1), ...rest] as Parameters<typeof RLP.encode>[0]));
    });
    await expectMismatch(
      () => new RpcL1Provider(proxy.url).transactionLeavesByHash(hash()),
      "transactions-root",
    );
    // Another block's raw block, consistent in itself, for the asked hash.
    proxy.rpc = async (request, forward) =>
      forward(
        request.method === "debug_getRawBlock"
          ? { method: request.method, params: [hexNumber(block.number - 1n)] }
          : request,
      );
    await expectMismatch(() => new RpcL1Provider(proxy.url).transactionLeavesByHash(hash()), "header-hash");
    proxy.rpc = async (request, forward) => forward(request);
  });

  it("malformed fields, JSON-RPC errors, oversized bodies and silence have their own kinds", async () => {
    tamper("eth_getBlockByHash", (b) => void ((b as Json).stateRoot = "0x1234"));
    const short = await refusal(() => standardL1(proxy.url).headerByHash(hash()));
    expect(short).toBeInstanceOf(MalformedResponseError);
    expect((short as MalformedResponseError).kind).toBe("malformed");

    tamper("eth_getBlockByHash", (b) => void (((b as Json).transactions as unknown[])[0] = "0x12"));
    expect(await refusal(() => standardL1(proxy.url).transactionsByHash(hash()))).toBeInstanceOf(
      MalformedResponseError,
    );

    proxy.rpc = async () => "not json";
    expect(await refusal(() => standardL1(proxy.url).headerByHash(hash()))).toBeInstanceOf(
      MalformedResponseError,
    );

    proxy.rpc = async (): Promise<Envelope> => ({ jsonrpc: "2.0", error: { code: -32601, message: "nope" } });
    const remote = await refusal(() => standardL1(proxy.url).receiptsByHash(hash()));
    expect(remote).toBeInstanceOf(RemoteCallError);
    expect((remote as RemoteCallError).code).toBe(-32601);

    proxy.rpc = async (request, forward) => forward(request);
    const small = standardL1(proxy.url, { maxResponseBytes: 1000 });
    const big = await refusal(() => small.transactionsByHash(hash()));
    expect(big).toBeInstanceOf(MalformedResponseError);
    expect((big as MalformedResponseError).details.limit).toBe(1000);

    proxy.rpc = async () => {
      await proxy.closing;
      return "{}";
    };
    const silent = await refusal(() => standardL1(proxy.url, { timeoutMs: 300 }).headerByHash(hash()));
    expect(silent).toBeInstanceOf(EndpointUnavailableError);
    expect((silent as EndpointUnavailableError).details.timedOut).toBe(true);
    proxy.rpc = async (request, forward) => forward(request);
  });
});
