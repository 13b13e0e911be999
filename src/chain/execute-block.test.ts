import { RLP } from "@ethereumjs/rlp";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { beforeAll, describe, expect, it } from "vitest";
import { BlockBuilder, BlockBuilderFailedError } from "./block-builder.js";
import { InvalidTransactionEncodingError } from "./deposit-tx.js";
import { executeBlock } from "./execute-block.js";
import { type ExecutionFixture, fixtureStore, loadFixture } from "./fixture.js";
import { fixtureFiles } from "./fixture-paths.test-support.js";
import { encodeHeader as encodeHeaderForTest } from "./header.js";
import { bytesEqual, fromHex, toHex, toHexRaw } from "./hex.js";
import {
  MissingPreimageError,
  PreimageMismatchError,
  type PreimageSource,
  PreimageStore,
  keccak256Key,
} from "./preimage-store.js";
import { TransactionRejectedError } from "./tx-processor.js";
import { type TrieNode, decodeTrieNode } from "./trie-node.js";

const files = fixtureFiles();
const fixtures = new Map<string, ExecutionFixture>();

beforeAll(async () => {
  for (const f of files) fixtures.set(f, await loadFixture(f));
});

function run(fixture: ExecutionFixture, store: PreimageStore) {
  return executeBlock({
    config: fixture.config,
    parent: fixture.parent,
    attributes: fixture.attributes,
    transactions: fixture.transactions,
    source: store,
  });
}

describe("stateless execution of real OP Sepolia blocks", () => {
  it("finds the four shared fixtures", () => {
    expect(files.length).toBeGreaterThanOrEqual(4);
  });

  it.each(files)("%s reproduces expected_block_hash", async (file) => {
    const fixture = fixtures.get(file)!;
    const block = await run(fixture, fixtureStore(fixture));
    expect(toHex(block.blockHash)).toBe(toHex(fixture.expectedBlockHash));
    expect(block.header.number).toBe(fixture.parent.number + 1n);
    expect(block.receipts.length).toBe(fixture.transactions.length);
    // The new nodes are content-addressed and include the new state root node.
    expect(block.newNodes.has(toHexRaw(block.stateRoot))).toBe(true);
    for (const [hash, value] of block.newNodes) expect(toHexRaw(keccak_256(value))).toBe(hash);
    // Deposits carry depositNonce and the Canyon receipt version.
    expect(block.receipts[0]!.depositReceiptVersion).toBe(1n);
    expect(block.receipts[0]!.depositNonce).toBeDefined();
  });

  it("hands over between every two transactions and awaits what it is given, with the same block", async () => {
    const fixture = fixtures.get(files[0]!)!;
    const order: string[] = [];
    let turns = 0;
    const block = await executeBlock({
      config: fixture.config,
      parent: fixture.parent,
      attributes: fixture.attributes,
      transactions: fixture.transactions,
      source: fixtureStore(fixture),
      // Every other call answers a promise of a full event-loop turn: a timer set then must fire before the next
      // transaction, which only holds when the promise is awaited.
      betweenTransactions: () => {
        order.push(`tx ${turns}`);
        if (turns++ % 2 === 1) return undefined;
        return new Promise<void>((resolve) =>
          setImmediate(() => {
            order.push("turn");
            resolve();
          }),
        );
      },
    });
    expect(toHex(block.blockHash)).toBe(toHex(fixture.expectedBlockHash));
    expect(turns).toBe(fixture.transactions.length);
    const expected: string[] = [];
    for (let i = 0; i < turns; i++) expected.push(`tx ${i}`, ...(i % 2 === 0 ? ["turn"] : []));
    expect(order).toEqual(expected);
  });

  it("a missing state root node is a MissingPreimageError naming its key", async () => {
    const fixture = fixtures.get(files[0]!)!;
    const store = fixtureStore(fixture);
    const pruned = new PreimageStore();
    for (const [key, value] of store.entries()) {
      if (!bytesEqual(key, keccak256Key(fixture.parent.stateRoot))) pruned.put(key, value);
    }
    const error = await run(fixture, pruned).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MissingPreimageError);
    expect((error as MissingPreimageError).key).toEqual(keccak256Key(fixture.parent.stateRoot));
    expect((error as Error).message).toContain(toHex(keccak256Key(fixture.parent.stateRoot)));
  });

  it("removing any one preimage gives either the same block or a MissingPreimageError for that key, never a wrong block", async () => {
    const fixture = fixtures.get(files[0]!)!;
    const hashes = [...fixture.preimages.keys()].sort();
    const sample = hashes.filter((_, i) => i % Math.ceil(hashes.length / 6) === 0);
    for (const removed of sample) {
      const store = new PreimageStore();
      for (const [hash, value] of fixture.preimages)
        if (hash !== removed) store.put(keccak256Key(fromHex(hash)), value);
      const outcome = await run(fixture, store).catch((e: unknown) => e);
      if (outcome instanceof MissingPreimageError) {
        expect(toHex(outcome.key.subarray(1))).toBe(`0x${removed.slice(4)}`);
      } else {
        expect(outcome).not.toBeInstanceOf(Error);
        expect(toHex((outcome as { blockHash: Uint8Array }).blockHash)).toBe(
          toHex(fixture.expectedBlockHash),
        );
      }
    }
  });

  it("a tampered preimage is rejected at insert, naming the key", () => {
    const fixture = fixtures.get(files[0]!)!;
    const [hash, value] = [...fixture.preimages][3]!;
    const tampered = Uint8Array.from(value);
    tampered[tampered.length - 1]! ^= 0xff;
    const copy: ExecutionFixture = { ...fixture, preimages: new Map(fixture.preimages).set(hash, tampered) };
    expect(() => fixtureStore(copy)).toThrow(PreimageMismatchError);
    expect(() => fixtureStore(copy)).toThrow(hash.slice(4));
  });
});

describe("BlockBuilder", () => {
  it("refuses further calls after a missing preimage", async () => {
    const fixture = fixtures.get(files[1]!)!;
    const full = fixtureStore(fixture);
    let withhold = false;
    // A source that stops answering after the builder started (a witness that lacks what the transactions need).
    const source: PreimageSource = {
      get(key) {
        if (withhold) throw new MissingPreimageError(key);
        return full.get(key);
      },
      tryGet(key) {
        return withhold ? undefined : full.tryGet(key);
      },
    };
    const builder = await BlockBuilder.start({
      config: fixture.config,
      parent: fixture.parent,
      attributes: fixture.attributes,
      source,
    });
    withhold = true;
    let failed: unknown;
    for (const tx of fixture.transactions) {
      failed = await builder.addTransaction(tx).then(
        () => undefined,
        (e: unknown) => e,
      );
      if (failed !== undefined) break;
    }
    expect(failed).toBeInstanceOf(MissingPreimageError);
    await expect(builder.addTransaction(fixture.transactions[0]!)).rejects.toBeInstanceOf(
      BlockBuilderFailedError,
    );
    await expect(builder.seal()).rejects.toBeInstanceOf(BlockBuilderFailedError);
  });

  it("rejections leave state untouched; snapshots have real roots; the sealed block still matches", async () => {
    const fixture = fixtures.get(files[0]!)!;
    const builder = await BlockBuilder.start({
      config: fixture.config,
      parent: fixture.parent,
      attributes: fixture.attributes,
      source: fixtureStore(fixture),
    });
    const [first, second, ...rest] = fixture.transactions;
    expect((await builder.addTransaction(first!)).ok).toBe(true);
    expect((await builder.addTransaction(second!)).ok).toBe(true);

    const replay = await builder.addTransaction(second!);
    expect(replay.ok).toBe(false);
    if (!replay.ok) {
      expect(replay.error).toBeInstanceOf(TransactionRejectedError);
      expect((replay.error as TransactionRejectedError).reason).toBe("nonce-too-low");
    }
    const garbage = await builder.addTransaction(Uint8Array.of(0x02, 0xc0));
    expect(garbage.ok).toBe(false);
    if (!garbage.ok) expect(garbage.error).toBeInstanceOf(InvalidTransactionEncodingError);

    const snap = await builder.snapshot();
    expect(snap.transactions.length).toBe(2);
    // the snapshot's state root node is readable from the builder's written nodes
    expect(builder.writtenNodes.has(toHexRaw(snap.header.stateRoot))).toBe(true);
    expect(snap.header.gasUsed).toBe(snap.receipts[1]!.cumulativeGasUsed);
    expect(toHex(snap.blockHash)).toBe(toHex(keccak_256(encodeHeaderForTest(snap.header))));

    for (const tx of rest) expect((await builder.addTransaction(tx)).ok).toBe(true);
    const sealed = await builder.seal();
    expect(toHex(sealed.blockHash)).toBe(toHex(fixture.expectedBlockHash));
    // The snapshot left written nodes the seal superseded: newNodes holds only what the new root reaches.
    expectReachableWrittenNodes(builder.writtenNodes, sealed.newNodes, sealed.stateRoot);
    await expect(builder.addTransaction(first!)).rejects.toThrow("sealed");
  });
});

/**
 * `newNodes` is exactly the written trie nodes and code reachable from `stateRoot` (the account trie, the
 * storage tries, the code of its accounts): walked by hex key through `newNodes`, a reachable hash missing
 * from it must not be a written one, and every entry must be reached.
 */
function expectReachableWrittenNodes(
  written: ReadonlyMap<string, Uint8Array>,
  newNodes: Map<string, Uint8Array>,
  stateRoot: Uint8Array,
): void {
  const reached = new Set<string>();
  const walkHash = (hash: Uint8Array, onLeaf: (value: Uint8Array) => void): void => {
    const hex = toHexRaw(hash);
    if (reached.has(hex)) return;
    const node = newNodes.get(hex);
    if (node === undefined) {
      expect(written.has(hex), `written node ${hex} reachable but not in newNodes`).toBe(false);
      return;
    }
    expect(node).toBe(written.get(hex));
    reached.add(hex);
    walkNode(decodeTrieNode(node), onLeaf);
  };
  const walkNode = (node: TrieNode, onLeaf: (value: Uint8Array) => void): void => {
    if (node.t === 0) return onLeaf(node.value);
    const refs = node.t === 2 ? node.children : [node.child];
    for (const ref of refs) {
      if (ref instanceof Uint8Array) walkHash(ref, onLeaf);
      else if (ref !== null) walkNode(ref, onLeaf);
    }
    if (node.t === 2 && node.value !== null) onLeaf(node.value);
  };
  walkHash(stateRoot, (value) => {
    const [, , storageRoot, codeHash] = RLP.decode(value) as Uint8Array[];
    walkHash(storageRoot!, () => {});
    const codeHex = toHexRaw(codeHash!);
    if (written.has(codeHex)) {
      expect(newNodes.get(codeHex)).toBe(written.get(codeHex));
      reached.add(codeHex);
    }
  });
  expect(reached.has(toHexRaw(stateRoot))).toBe(true);
  expect(reached.size).toBe(newNodes.size);
}
