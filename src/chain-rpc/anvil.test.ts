/**
 * The providers against a real L1 (anvil, src/devnet/l1/anvil.ts, Prague): one block with a legacy, an EIP-2930,
 * an EIP-1559, an EIP-7702, a contract creation that emits a log, and a blob transaction (viem with KZG from
 * the project's KZG backend through derive's Kzg). Headers, transactions, receipts and the blob are read through RpcL1Provider and
 * BeaconBlobProvider and checked; then a proxy in front of anvil flips one byte of each kind of answer and the
 * providers must refuse it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Hex, createWalletClient, http, parseGwei } from "viem";
import { generatePrivateKey, mnemonicToAccount, privateKeyToAccount } from "viem/accounts";
import { bytesEqual, encodeReceipt, fromHex, headerHash, orderedTrieRoot, toHex } from "../chain/index.js";
import {
  BlobMismatchError,
  type Kzg,
  type L1BlockRef,
  L1Traversal,
  decodeBlob,
  encodeBlob,
  loadKzg,
  retrieveBatcherData,
  versionedHash,
} from "../derive/index.js";
import { type Anvil, DEVNET_L1_MNEMONIC, startAnvil } from "../devnet/l1/anvil.js";
import { BeaconBlobProvider, DataMismatchError, RAW_L1_METHODS, RpcL1Provider } from "./index.js";
import { type TamperProxy, startTamperProxy } from "./proxy.test-support.js";

type Json = Record<string, unknown>;

/**
 * anvil 1.7.1 commits blocks to the pooled encoding of blob transactions (foundry-rs/foundry#15132): the providers
 * here accept that root, checking the canonical transactions inside it.
 */
const l1 = (url: string): RpcL1Provider => new RpcL1Provider(url, { pooledBlobTransactionsRoot: true });

/** Init code that emits LOG1(topic 0xaa, data = 32-byte word 42) and deploys empty code. */
const LOGGING_INIT_CODE: Hex = "0x602a60005260aa60206000a160006000f3";

let anvil: Anvil;
let proxy: TamperProxy;
let kzg: Kzg;
let blobData: Uint8Array;
let blob: Uint8Array;
let blobHash: Uint8Array;
let sent: Hex[];
let inbox: Hex;
let batcher: Hex;
let blockHash: Uint8Array;
let blockRef: L1BlockRef;

beforeAll(async () => {
  kzg = await loadKzg();
  anvil = await startAnvil({ mining: { mode: "manual" }, clock: "genesis" });
  proxy = await startTamperProxy(anvil.rpcUrl);
  const account = mnemonicToAccount(DEVNET_L1_MNEMONIC);
  const wallet = createWalletClient({
    account,
    chain: anvil.chain,
    transport: http(anvil.rpcUrl, { timeout: 60_000 }),
  });
  const to = privateKeyToAccount(generatePrivateKey()).address;
  // The blob transaction goes to `to`: derivation's retrieval reads it as a batcher transaction to that inbox.
  inbox = to;
  batcher = account.address;
  const fees = { maxFeePerGas: parseGwei("20"), maxPriorityFeePerGas: parseGwei("1") };
  const authorization = await wallet.signAuthorization({
    contractAddress: to,
    chainId: anvil.chainId,
    nonce: 6,
  });
  blobData = new TextEncoder().encode("frames of a channel, as a batcher would post them");
  blob = encodeBlob(blobData);
  blobHash = versionedHash(kzg.commitment(blob));
  sent = [
    await wallet.sendTransaction({
      to,
      value: 1n,
      type: "legacy",
      gasPrice: parseGwei("20"),
      nonce: 0,
      gas: 21_000n,
    }),
    await wallet.sendTransaction({
      to,
      value: 2n,
      type: "eip2930",
      gasPrice: parseGwei("20"),
      accessList: [{ address: to, storageKeys: [`0x${"01".repeat(32)}`] }],
      nonce: 1,
      gas: 30_000n,
    }),
    await wallet.sendTransaction({ to, value: 3n, data: "0xc0ffee", ...fees, nonce: 2, gas: 30_000n }),
    await wallet.sendTransaction({ data: LOGGING_INIT_CODE, ...fees, nonce: 3, gas: 100_000n }),
    await wallet.sendTransaction({
      to,
      blobs: [blob],
      kzg: {
        blobToKzgCommitment: (b) => kzg.commitment(b),
        computeBlobKzgProof: (b, commitment) => kzg.proof(b, commitment),
      },
      maxFeePerBlobGas: parseGwei("30"),
      ...fees,
      nonce: 4,
      gas: 21_000n,
    }),
    await wallet.sendTransaction({
      to: privateKeyToAccount(generatePrivateKey()).address,
      authorizationList: [authorization],
      ...fees,
      nonce: 5,
      gas: 100_000n,
    }),
  ];
  await anvil.mine();
  const block = await anvil.client.getBlock({ blockTag: "latest" });
  expect(block.transactions).toEqual(sent);
  blockHash = fromHex(block.hash);
  blockRef = {
    number: block.number,
    hash: blockHash,
    parentHash: fromHex(block.parentHash),
    timestamp: block.timestamp,
  };
}, 180_000);

afterAll(async () => {
  await proxy?.close();
  await anvil?.stop();
});

describe("RpcL1Provider over anvil", () => {
  it("headers by number and by hash hash to anvil's block hashes, back to genesis", async () => {
    const provider = l1(anvil.rpcUrl);
    for (let n = 0n; n <= blockRef.number; n++) {
      const expected = await anvil.client.getBlock({ blockNumber: n });
      const header = await provider.headerByNumber(n);
      expect(toHex(headerHash(header!))).toBe(expected.hash);
      expect(await l1(anvil.rpcUrl).headerByHash(fromHex(expected.hash))).toEqual(header);
    }
    const head = await provider.headerByHash(blockHash);
    // Prague fields are present and part of the hash.
    expect(head!.requestsHash).toBeDefined();
    expect(head!.blobGasUsed).toBe(131_072n);
    expect(await provider.headerByNumber(blockRef.number + 1n)).toBeUndefined();
  });

  it("the block's transactions are the six sent, as EIP-2718 bytes that hash to the sent hashes", async () => {
    const txs = await l1(anvil.rpcUrl).transactionsByHash(blockHash);
    expect(txs!.map((t) => (t[0]! >= 0xc0 ? 0 : t[0]))).toEqual([0, 1, 2, 2, 3, 4]);
    const { keccak256 } = await import("viem");
    expect(txs!.map((t) => keccak256(t))).toEqual(sent);
    // The blob transaction in its canonical form (no sidecar) names the blob's versioned hash.
    expect(Buffer.from(txs![4]!).includes(Buffer.from(blobHash))).toBe(true);
  });

  it("without pooledBlobTransactionsRoot, anvil 1.7.1's root over pooled blob transactions is refused", async () => {
    // When anvil ships foundry-rs/foundry#15699 this becomes a canonical root: then drop the option everywhere.
    const error = await new RpcL1Provider(anvil.rpcUrl)
      .transactionsByHash(blockHash)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DataMismatchError);
    expect((error as DataMismatchError).subject).toBe("transactions-root");
  });

  it("receipts re-encode to the receipts root: statuses, cumulative gas, the contract's log", async () => {
    const receipts = await l1(anvil.rpcUrl).receiptsByHash(blockHash);
    expect(receipts).toHaveLength(6);
    expect(receipts!.map((r) => r.status)).toEqual([1, 1, 1, 1, 1, 1]);
    expect(receipts!.map((r) => r.type)).toEqual([0, 1, 2, 2, 3, 4]);
    for (let i = 1; i < 6; i++)
      expect(receipts![i]!.cumulativeGasUsed).toBeGreaterThan(receipts![i - 1]!.cumulativeGasUsed);
    const log = receipts![3]!.logs[0]!;
    expect(toHex(log.topics[0]!)).toBe(`0x${"00".repeat(31)}aa`);
    expect(toHex(log.data)).toBe(`0x${"00".repeat(31)}2a`);
    expect(await l1(anvil.rpcUrl).receiptsByHash(fromHex(`0x${"ab".repeat(32)}`))).toBeUndefined();
  });
});

describe("RpcL1Provider's raw debug methods over anvil (which serves none)", () => {
  it("probes each once, then reads the standard methods: the same header, transaction leaves and receipts", async () => {
    const asked: string[] = [];
    proxy.rpc = async (request, forward) => {
      asked.push(request.method);
      return forward(request);
    };
    try {
      const provider = l1(proxy.url);
      expect(provider.raw!.served("debug_getRawHeader")).toBeUndefined();
      const header = await provider.headerByHash(blockHash);
      const leaves = await provider.transactionLeavesByHash(blockHash);
      const receipts = await provider.encodedReceiptsByHash(blockHash);
      for (const method of RAW_L1_METHODS) expect(provider.raw!.served(method)).toBe(false);
      // Asked again for another block: the raw methods are not.
      const before = asked.length;
      const parent = await provider.headerByHash(header!.parentHash);
      await provider.encodedReceiptsByHash(header!.parentHash);
      expect(asked.slice(before).filter((m) => m.startsWith("debug_"))).toEqual([]);
      expect(asked.filter((m) => m.startsWith("debug_")).sort()).toEqual([...RAW_L1_METHODS].sort());

      const standard = new RpcL1Provider(anvil.rpcUrl, {
        pooledBlobTransactionsRoot: true,
        rawMethods: false,
      });
      expect(header).toEqual(await standard.headerByHash(blockHash));
      expect(parent).toEqual(await standard.headerByHash(header!.parentHash));
      expect(toHex(orderedTrieRoot(leaves!.leaves))).toBe(toHex(header!.transactionsRoot));
      expect(leaves!.transactions).toEqual(await standard.transactionsByHash(blockHash));
      expect(receipts).toEqual((await standard.receiptsByHash(blockHash))!.map(encodeReceipt));
    } finally {
      proxy.rpc = async (request, forward) => forward(request);
    }
  });
});

describe("BeaconBlobProvider over anvil", () => {
  it("serves the blob by execution block hash and versioned hash; it matches the hash and decodes to the data", async () => {
    const provider = new BeaconBlobProvider(anvil.beaconUrl);
    const got = await provider.blob(blockRef, 0, blobHash);
    expect(got).toEqual(blob);
    expect(bytesEqual(kzg.verifyBlob(got!, blobHash), kzg.commitment(blob))).toBe(true);
    expect(decodeBlob(got!)).toEqual(blobData);
    const vouching = new BeaconBlobProvider(anvil.beaconUrl, { kzg });
    expect(await vouching.blob(blockRef, 0, blobHash)).toEqual(blob);
    // A versioned hash the block does not have, and a block anvil does not have.
    const other = Uint8Array.from(blobHash);
    other[31]! ^= 1;
    expect(await provider.blob(blockRef, 0, other)).toBeUndefined();
    expect(
      await provider.blob({ ...blockRef, hash: fromHex(`0x${"ab".repeat(32)}`) }, 0, blobHash),
    ).toBeUndefined();
  });
});

describe("derivation's stages over the RPC providers", () => {
  it("traversal walks anvil's chain from the head and retrieval reads the blob batcher data", async () => {
    const provider = l1(anvil.rpcUrl);
    const traversal = await L1Traversal.open(provider, blockHash, 0n, {}, (config) => config);
    expect(traversal.head.ref.number).toBe(blockRef.number);
    let blocksRead = 1;
    while (await traversal.advance()) blocksRead++;
    expect(blocksRead).toBe(Number(blockRef.number) + 1);
    const transactions = await provider.transactionsByHash(blockHash);
    const items = await retrieveBatcherData(
      traversal.head.ref,
      transactions!,
      { batchInbox: fromHex(inbox), batcher: fromHex(batcher), l1ChainId: BigInt(anvil.chainId) },
      new BeaconBlobProvider(anvil.beaconUrl),
      { kzg },
    );
    // The batcher's type 0-2 transactions to the inbox are calldata items; the blob transaction's blob is one.
    expect(items.map((item) => [item.ref.kind, item.ref.txIndex])).toEqual([
      ["calldata", 0],
      ["calldata", 1],
      ["calldata", 2],
      ["blob", 4],
    ]);
    expect(toHex(items[2]!.data)).toBe("0xc0ffee");
    expect(items[3]!.ref).toMatchObject({ blobIndex: 0, versionedHash: blobHash });
    expect(items[3]!.data).toEqual(blobData);
  });
});

/** Flips the low bit of the byte that ends at the last hex digit of `value` (a 0x hex string). */
function flipByte(value: string, fromEnd = 1): string {
  const i = value.length - fromEnd;
  const digit = parseInt(value[i]!, 16) ^ 1;
  return value.slice(0, i) + digit.toString(16) + value.slice(i + 1);
}

function flip(method: string, change: (result: Json | Json[]) => void): void {
  proxy.rpc = async (request, forward) => {
    const real = await forward(request);
    if (request.method === method && real.result !== null) change(real.result as Json | Json[]);
    return real;
  };
}

async function mismatch(run: () => Promise<unknown>): Promise<string> {
  const error = await run().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DataMismatchError);
  return (error as DataMismatchError).subject;
}

describe("a proxy that flips one byte of anvil's answer is refused", () => {
  it("in a header, a transaction, a receipt's log, and the blob", async () => {
    flip(
      "eth_getBlockByHash",
      (b) => void ((b as Json).stateRoot = flipByte((b as Json).stateRoot as string)),
    );
    expect(await mismatch(() => l1(proxy.url).headerByHash(blockHash))).toBe("header-hash");

    flip("eth_getBlockByHash", (b) => {
      // Only the full block (the provider may ask for the header alone first, while it probes debug_getRawBlock).
      const blobTx = ((b as Json).transactions as (Json | string)[])[4]!;
      if (typeof blobTx === "object") blobTx.maxFeePerBlobGas = flipByte(blobTx.maxFeePerBlobGas as string);
    });
    expect(await mismatch(() => l1(proxy.url).transactionsByHash(blockHash))).toBe("transaction-hash");

    // A byte of the blob inside the pooled encoding the root commits to.
    proxy.rpc = async (request, forward) => {
      const real = await forward(request);
      if (request.method === "eth_getRawTransactionByHash")
        real.result = flipByte(real.result as string, 5000);
      return real;
    };
    expect(await mismatch(() => l1(proxy.url).transactionsByHash(blockHash))).toBe("transactions-root");

    flip("eth_getBlockReceipts", (r) => {
      const log = ((r as Json[])[3]!.logs as Json[])[0]!;
      log.data = flipByte(log.data as string, 3);
    });
    expect(await mismatch(() => l1(proxy.url).receiptsByHash(blockHash))).toBe("receipts-root");

    proxy.get = async (path, forward) => {
      const real = await forward(path);
      const body = JSON.parse(real.body) as { data: string[] };
      body.data[0] = flipByte(body.data[0]!, 2000);
      return { status: real.status, body: JSON.stringify(body) };
    };
    expect(await mismatch(() => new BeaconBlobProvider(proxy.url, { kzg }).blob(blockRef, 0, blobHash))).toBe(
      "blob-hash",
    );
    // Unvouched (verified: false), the forged blob reaches derivation, whose KZG check refuses it.
    const forged = await new BeaconBlobProvider(proxy.url).blob(blockRef, 0, blobHash);
    expect(forged).not.toEqual(blob);
    expect(() => kzg.verifyBlob(forged!, blobHash)).toThrow(BlobMismatchError);
    proxy.rpc = async (request, forward) => forward(request);
    proxy.get = async (path, forward) => forward(path);
  });
});
