/**
 * The raw debug methods against a real node process, checked independently of the node's own encoders:
 * a raw header hashes to the block hash, a raw block's transactions and the raw receipts rebuild the
 * header's transactions and receipts roots in an @ethereumjs/mpt trie, and debug_dbGet serves trie
 * nodes, code and headers that hash to their keys.
 */
import { MerklePatriciaTrie } from "@ethereumjs/mpt";
import { RLP } from "@ethereumjs/rlp";
import { type Hex, bytesToHex, hexToBytes, keccak256 } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, clients, hexNumber, rpc, signTransfer, waitFor } from "./helpers.js";
import { type NodeProcess, startNodeProcess } from "./spawn-node.js";

let node: NodeProcess;
beforeAll(async () => {
  node = await startNodeProcess({ blockTimeMs: 400, flashblockIntervalMs: 50, callWorkers: 0 });
}, 60_000);
afterAll(async () => {
  await node?.stop();
});

type Block = {
  number: Hex;
  hash: Hex;
  size: Hex;
  stateRoot: Hex;
  transactionsRoot: Hex;
  receiptsRoot: Hex;
  transactions: Hex[];
};

/** Root of the trie of `items` keyed by rlp(index), built by @ethereumjs/mpt. */
async function orderedRoot(items: Uint8Array[]): Promise<Hex> {
  const trie = new MerklePatriciaTrie();
  for (let i = 0; i < items.length; i++) await trie.put(RLP.encode(i), items[i]!);
  return bytesToHex(trie.root());
}

const latest = async (): Promise<bigint> => BigInt(await call<Hex>(node.url, "eth_blockNumber", []));

describe("debug_getRaw*", () => {
  it("header, block, receipts and transactions of a sealed block rebuild its hash and roots", async () => {
    const { walletClient, publicClient } = clients(node, 1);
    const sent = await walletClient.sendTransaction({
      to: privateKeyToAccount(generatePrivateKey()).address,
      value: 3n,
    });
    const { blockNumber } = await publicClient.waitForTransactionReceipt({ hash: sent });
    await waitFor(async () => ((await latest()) >= blockNumber ? true : undefined), "the seal");
    const block = await call<Block>(node.url, "eth_getBlockByNumber", [hexNumber(blockNumber), false]);

    const header = await call<Hex>(node.url, "debug_getRawHeader", [block.number]);
    expect(keccak256(header)).toBe(block.hash);
    for (const selector of [block.hash, { blockHash: block.hash }, { blockNumber: block.number }])
      expect(await call(node.url, "debug_getRawHeader", [selector])).toBe(header);

    const raw = await call<Hex>(node.url, "debug_getRawBlock", [block.number]);
    expect(BigInt(hexToBytes(raw).length)).toBe(BigInt(block.size));
    const [headerItem, txItems, uncles, withdrawals] = RLP.decode(hexToBytes(raw)) as unknown as [
      Uint8Array[],
      (Uint8Array | Uint8Array[])[],
      unknown[],
      unknown[],
    ];
    expect(bytesToHex(RLP.encode(headerItem))).toBe(header);
    expect(uncles).toEqual([]);
    expect(withdrawals).toEqual([]);
    // A legacy transaction is a list inside the block; its EIP-2718 form is that list's RLP.
    const encodings = txItems.map((item) => (Array.isArray(item) ? RLP.encode(item) : item));
    expect(encodings.map((tx) => keccak256(tx))).toEqual(block.transactions);
    expect(await orderedRoot(encodings)).toBe(block.transactionsRoot);
    for (let i = 0; i < encodings.length; i++) {
      expect(await call(node.url, "debug_getRawTransaction", [block.transactions[i]])).toBe(
        bytesToHex(encodings[i]!),
      );
    }

    const receipts = await call<Hex[]>(node.url, "debug_getRawReceipts", [block.hash]);
    expect(receipts).toHaveLength(block.transactions.length);
    expect(await orderedRoot(receipts.map((r) => hexToBytes(r)))).toBe(block.receiptsRoot);
    // The deposit's receipt is typed 0x7e and carries the deposit nonce and receipt version.
    expect(receipts[0]!.slice(0, 4)).toBe("0x7e");
  });

  it("serves the pending snapshot's header and a pooled transaction; null for what does not exist", async () => {
    const header = await waitFor(async () => {
      const pending = await call<{ hash: Hex }>(node.url, "eth_getBlockByNumber", ["pending", false]);
      const raw = await call<Hex | null>(node.url, "debug_getRawHeader", [{ blockHash: pending.hash }]);
      // The snapshot may have been replaced in between: ask again.
      return raw === null ? undefined : { raw, hash: pending.hash };
    }, "the pending header");
    expect(keccak256(header.raw)).toBe(header.hash);

    // A nonce gap keeps this transaction in the pool.
    const queued = await signTransfer(node, 2, 50, node.accounts[2]!.address, 1n);
    const hash = await call<Hex>(node.url, "eth_sendRawTransaction", [queued]);
    expect(await call(node.url, "debug_getRawTransaction", [hash])).toBe(queued);

    const nowhere = `0x${"cd".repeat(32)}`;
    expect(await call(node.url, "debug_getRawTransaction", [nowhere])).toBeNull();
    for (const method of ["debug_getRawHeader", "debug_getRawBlock", "debug_getRawReceipts"]) {
      expect(await call(node.url, method, ["0x7fffffff"]), method).toBeNull();
      expect(await call(node.url, method, [nowhere]), method).toBeNull();
      expect((await rpc(node.url, method, ["0x01"])).body?.error?.code, method).toBe(-32602);
    }
  });
});

describe("debug_dbGet", () => {
  it("serves trie nodes, code and headers by hash, each hashing to its key", async () => {
    const block = await call<Block>(node.url, "eth_getBlockByNumber", ["latest", false]);
    const root = await call<Hex>(node.url, "debug_dbGet", [block.stateRoot]);
    expect(keccak256(root)).toBe(block.stateRoot);
    expect(Array.isArray(RLP.decode(hexToBytes(root)))).toBe(true);

    expect(await call(node.url, "debug_dbGet", [block.hash])).toBe(
      await call(node.url, "debug_getRawHeader", [block.hash]),
    );

    const l1Block = "0x4200000000000000000000000000000000000015";
    const proof = await call<{ codeHash: Hex }>(node.url, "eth_getProof", [l1Block, [], block.number]);
    const code = await call<Hex>(node.url, "debug_dbGet", [`0x63${proof.codeHash.slice(2)}`]);
    expect(code).toBe(await call(node.url, "eth_getCode", [l1Block, block.number]));
    expect(await call(node.url, "debug_dbGet", [proof.codeHash])).toBe(code);
  });

  it("answers -32000 not found for unknown and malformed keys", async () => {
    for (const key of [`0x${"ee".repeat(32)}`, "0x", "0x1234", `0x64${"ee".repeat(32)}`]) {
      const error = (await rpc(node.url, "debug_dbGet", [key])).body?.error;
      expect(error, key).toEqual({ code: -32000, message: "not found" });
    }
    expect((await rpc(node.url, "debug_dbGet", ["0x123"])).body?.error?.code).toBe(-32602);
  });
});
