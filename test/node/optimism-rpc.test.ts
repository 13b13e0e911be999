/**
 * The rollup-node methods (optimism_*) against a real standalone node process, checked independently of the
 * node's own code: output roots recomputed with viem from eth_getProof of the L2ToL1MessagePasser and the
 * block, block refs against eth_getBlockByNumber and the L1 info deposit's calldata decoded by hand, the sync
 * status against the node's tags, the rollup config through src/chain's rollup.json parser.
 */
import { type Hex, concat, encodeFunctionData, keccak256, parseAbi, size, sliceHex, hexToBigInt } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NodeClient, SyncStatusCodec, httpTransport } from "../../generated/rpc/index.js";
import { devRollupConfig, outputRootV0, parseRollupConfig } from "../../src/chain/index.js";
import type { L1BlockRef, L2BlockRef } from "../../src/derive/index.js";
import { ROLLUP_NODE_VERSION, syncStatusJson } from "../../src/node/rpc/optimism-handlers.js";
import type { SyncStatusRefs } from "../../src/node/rpc/sync-status.js";
import { call, clients, hexNumber, rpc, waitFor } from "./helpers.js";
import { type NodeProcess, startNodeProcess } from "./spawn-node.js";

const MESSAGE_PASSER = "0x4200000000000000000000000000000000000016";
const EMPTY_ROOT = "0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421";
const ZERO32: Hex = `0x${"00".repeat(32)}`;

interface BlockId {
  hash: Hex;
  number: number;
}
interface L1Ref extends BlockId {
  parentHash: Hex;
  timestamp: number;
}
interface L2Ref extends L1Ref {
  l1origin: BlockId;
  sequenceNumber: number;
}
interface SyncStatus {
  current_l1: L1Ref;
  current_l1_finalized: L1Ref;
  head_l1: L1Ref;
  safe_l1: L1Ref;
  finalized_l1: L1Ref;
  unsafe_l2: L2Ref;
  safe_l2: L2Ref;
  finalized_l2: L2Ref;
  pending_safe_l2: L2Ref;
  cross_unsafe_l2: L2Ref;
  local_safe_l2: L2Ref;
}
interface Output {
  version: Hex;
  outputRoot: Hex;
  blockRef: L2Ref;
  withdrawalStorageRoot: Hex;
  stateRoot: Hex;
  syncStatus: SyncStatus;
}
interface Block {
  number: Hex;
  hash: Hex;
  parentHash: Hex;
  timestamp: Hex;
  stateRoot: Hex;
  transactions: { input: Hex; from: Hex; to: Hex }[];
}

let node: NodeProcess;
beforeAll(async () => {
  node = await startNodeProcess({ blockTimeMs: 400, flashblockIntervalMs: 50, callWorkers: 0 });
}, 60_000);
afterAll(async () => {
  await node?.stop();
});

const block = (selector: Hex | string): Promise<Block> =>
  call<Block>(node.url, "eth_getBlockByNumber", [selector, true]);
const latest = async (): Promise<bigint> => BigInt(await call<Hex>(node.url, "eth_blockNumber", []));

/** keccak256(version 0 ‖ stateRoot ‖ storage root of the message passer ‖ block hash), from eth_getProof. */
async function expectedOutput(number: bigint): Promise<{ root: Hex; storageHash: Hex; block: Block }> {
  const b = await block(hexNumber(number));
  const proof = await call<{ storageHash: Hex }>(node.url, "eth_getProof", [
    MESSAGE_PASSER,
    [],
    hexNumber(number),
  ]);
  return {
    root: keccak256(concat([ZERO32, b.stateRoot, proof.storageHash, b.hash])),
    storageHash: proof.storageHash,
    block: b,
  };
}

/**
 * The L1 info calldata, decoded by its byte offsets: setL1BlockValuesIsthmus (176 bytes) or, on a chain at
 * Jovian, setL1BlockValuesJovian (178 bytes: the same fields and the DA footprint scalar after them).
 */
function l1Info(input: Hex): { sequenceNumber: bigint; timestamp: bigint; number: bigint; hash: Hex } {
  const lengths: Record<string, number> = { "0x098999be": 176, "0x3db6be2b": 178 };
  expect(Object.keys(lengths)).toContain(sliceHex(input, 0, 4));
  expect(size(input)).toBe(lengths[sliceHex(input, 0, 4)]);
  return {
    sequenceNumber: hexToBigInt(sliceHex(input, 12, 20)),
    timestamp: hexToBigInt(sliceHex(input, 20, 28)),
    number: hexToBigInt(sliceHex(input, 28, 36)),
    hash: sliceHex(input, 100, 132),
  };
}

/** Sends a withdrawal through the message passer so its storage root is no longer empty; its block. */
async function withdraw(accountIndex: number, value: bigint): Promise<bigint> {
  const { walletClient, publicClient } = clients(node, accountIndex);
  const hash = await walletClient.sendTransaction({
    to: MESSAGE_PASSER,
    value,
    data: encodeFunctionData({
      abi: parseAbi(["function initiateWithdrawal(address _target, uint256 _gasLimit, bytes _data) payable"]),
      args: [walletClient.account.address, 100_000n, "0x"],
    }),
  });
  const receipt = await publicClient.waitForTransactionReceipt({ hash });
  expect(receipt.status).toBe("success");
  await waitFor(async () => ((await latest()) >= receipt.blockNumber ? true : undefined), "the seal");
  return receipt.blockNumber;
}

describe("optimism_outputAtBlock", () => {
  it("equals the output root recomputed from eth_getProof and the block, before and after withdrawals", async () => {
    const first = await withdraw(1, 1n);
    const second = await withdraw(2, 2n);
    await waitFor(
      async () => ((await latest()) > second ? true : undefined),
      "a block after the withdrawals",
    );
    const numbers = [0n, first - 1n, first, second, second + 1n];
    const roots = new Set<Hex>();
    for (const n of numbers) {
      const want = await expectedOutput(n);
      const got = await call<Output>(node.url, "optimism_outputAtBlock", [hexNumber(n)]);
      expect(got.version).toBe(ZERO32);
      expect(got.stateRoot).toBe(want.block.stateRoot);
      expect(got.withdrawalStorageRoot).toBe(want.storageHash);
      expect(got.outputRoot, `block ${n}`).toBe(want.root);
      expect(got.blockRef.hash).toBe(want.block.hash);
      expect(BigInt(got.blockRef.number)).toBe(n);
      roots.add(got.withdrawalStorageRoot);
    }
    // Empty before the first withdrawal, then changed by each one.
    expect((await expectedOutput(first - 1n)).storageHash).toBe(EMPTY_ROOT);
    expect((await expectedOutput(first)).storageHash).not.toBe(EMPTY_ROOT);
    expect((await expectedOutput(second)).storageHash).not.toBe((await expectedOutput(first)).storageHash);
    expect(roots.size).toBe(3);
  }, 60_000);

  it("answers tags as the node resolves them (latest, safe, finalized, earliest, pending)", async () => {
    for (const tag of ["latest", "safe", "finalized", "earliest"]) {
      const got = await call<Output>(node.url, "optimism_outputAtBlock", [tag]);
      const want = await expectedOutput(BigInt(got.blockRef.number));
      expect(got.outputRoot, tag).toBe(want.root);
      expect(got.blockRef.hash, tag).toBe(want.block.hash);
      const tagged = await block(tag);
      // The chain may have moved between the two calls: the tag never goes back.
      expect(BigInt(tagged.number) >= BigInt(got.blockRef.number), tag).toBe(true);
    }
    expect((await call<Output>(node.url, "optimism_outputAtBlock", ["earliest"])).blockRef.number).toBe(0);

    // `pending` is the snapshot being built (it names itself in X-Pending-Block) or, between a seal and the
    // next snapshot, the head: wait for a snapshot's answer.
    const before = await latest();
    const { output, header } = await waitFor(async () => {
      const r = await rpc(node.url, "optimism_outputAtBlock", ["pending"]);
      const header = r.headers.get("x-pending-block");
      return header === null ? undefined : { output: r.body?.result as Output, header };
    }, "a pending snapshot's answer");
    expect(header).toBe(hexNumber(output.blockRef.number));
    expect(BigInt(output.blockRef.number) > before).toBe(true);
    // Its parent is a sealed block.
    expect((await block(hexNumber(BigInt(output.blockRef.number) - 1n))).hash).toBe(
      output.blockRef.parentHash,
    );
    expect(output.outputRoot).toBe(
      keccak256(concat([ZERO32, output.stateRoot, output.withdrawalStorageRoot, output.blockRef.hash])),
    );
  }, 60_000);

  it("states each block's ref as eth_getBlockByNumber and its L1 info deposit do", async () => {
    await waitFor(async () => ((await latest()) >= 8n ? true : undefined), "eight blocks", 30_000);
    for (let n = 1n; n <= 8n; n++) {
      const b = await block(hexNumber(n));
      const ref = (await call<Output>(node.url, "optimism_outputAtBlock", [hexNumber(n)])).blockRef;
      expect(ref.hash).toBe(b.hash);
      expect(ref.parentHash).toBe(b.parentHash);
      expect(BigInt(ref.timestamp)).toBe(BigInt(b.timestamp));
      const deposit = b.transactions[0]!;
      expect(deposit.to).toBe("0x4200000000000000000000000000000000000015");
      const info = l1Info(deposit.input);
      expect(BigInt(ref.sequenceNumber)).toBe(info.sequenceNumber);
      expect(BigInt(ref.l1origin.number)).toBe(info.number);
      expect(ref.l1origin.hash).toBe(info.hash);
    }
    // Genesis has no deposit: sequence number 0 in the first epoch.
    const genesis = (await call<Output>(node.url, "optimism_outputAtBlock", ["0x0"])).blockRef;
    expect(genesis.sequenceNumber).toBe(0);
    expect(genesis.parentHash).toBe(ZERO32);
  }, 60_000);

  it("refuses bad params with -32602 and a block it does not have with -32001", async () => {
    for (const params of [["lates"], [], ["0x1", true], [{}], ["0x01"], [7], [`0x${"1".repeat(17)}`]]) {
      const r = await rpc(node.url, "optimism_outputAtBlock", params);
      expect(r.body?.error?.code, JSON.stringify(params)).toBe(-32602);
    }
    const r = await rpc(node.url, "optimism_outputAtBlock", ["0x7fffffff"]);
    expect(r.body?.error?.code).toBe(-32001);
    for (const method of ["optimism_syncStatus", "optimism_rollupConfig", "optimism_version"]) {
      expect((await rpc(node.url, method, ["latest"])).body?.error?.code, method).toBe(-32602);
    }
  });
});

describe("optimism_syncStatus", () => {
  it("reports the node's tags: unsafe = latest, safe and finalized as tagged, L1 refs from the origins", async () => {
    const before = await latest();
    const status = await call<SyncStatus>(node.url, "optimism_syncStatus", []);
    const after = await latest();
    const unsafe = BigInt(status.unsafe_l2.number);
    expect(unsafe >= before && unsafe <= after).toBe(true);
    for (const [name, ref] of [
      ["unsafe_l2", status.unsafe_l2],
      ["safe_l2", status.safe_l2],
      ["finalized_l2", status.finalized_l2],
    ] as const) {
      expect((await block(hexNumber(ref.number))).hash, name).toBe(ref.hash);
    }
    expect(status.finalized_l2.number <= status.safe_l2.number).toBe(true);
    expect(status.safe_l2.number <= status.unsafe_l2.number).toBe(true);
    const tagSafe = BigInt((await block("safe")).number);
    const tagFinalized = BigInt((await block("finalized")).number);
    expect(tagSafe >= BigInt(status.safe_l2.number)).toBe(true);
    expect(tagFinalized >= BigInt(status.finalized_l2.number)).toBe(true);
    // Without interop: cross-unsafe is unsafe, local-safe and pending-safe are safe.
    expect(status.cross_unsafe_l2).toEqual(status.unsafe_l2);
    expect(status.local_safe_l2).toEqual(status.safe_l2);
    expect(status.pending_safe_l2).toEqual(status.safe_l2);
    // The L1 view is what the blocks state: head = the unsafe block's origin, safe/finalized likewise.
    expect({ hash: status.head_l1.hash, number: status.head_l1.number }).toEqual(status.unsafe_l2.l1origin);
    expect(status.current_l1).toEqual(status.head_l1);
    expect({ hash: status.safe_l1.hash, number: status.safe_l1.number }).toEqual(status.safe_l2.l1origin);
    expect({ hash: status.finalized_l1.hash, number: status.finalized_l1.number }).toEqual(
      status.finalized_l2.l1origin,
    );
    expect(status.current_l1_finalized).toEqual(status.finalized_l1);
    const head = await block(hexNumber(status.unsafe_l2.number));
    expect(BigInt(status.head_l1.timestamp)).toBe(l1Info(head.transactions[0]!.input).timestamp);
  });

  it("is part of every optimism_outputAtBlock answer", async () => {
    const before = await latest();
    const output = await call<Output>(node.url, "optimism_outputAtBlock", ["0x1"]);
    expect(BigInt(output.syncStatus.unsafe_l2.number) >= before).toBe(true);
    expect(Object.keys(output.syncStatus).sort()).toEqual(
      [
        "current_l1",
        "current_l1_finalized",
        "head_l1",
        "safe_l1",
        "finalized_l1",
        "unsafe_l2",
        "safe_l2",
        "finalized_l2",
        "pending_safe_l2",
        "cross_unsafe_l2",
        "local_safe_l2",
      ].sort(),
    );
  });
});

describe("optimism_rollupConfig and optimism_version", () => {
  it("serves the node's rollup config in rollup.json form: it parses back to the standalone dev config", async () => {
    const json = await call<Record<string, unknown>>(node.url, "optimism_rollupConfig", []);
    const genesis = await block("0x0");
    expect(parseRollupConfig(json)).toEqual(devRollupConfig(BigInt(node.chainId), BigInt(genesis.timestamp)));
    expect(json.l2_chain_id).toBe(node.chainId);
    expect(json.block_time).toBe(2);
  });

  it("names the node as web3_clientVersion does", async () => {
    const version = await call<string>(node.url, "optimism_version", []);
    expect(version).toBe(await call<string>(node.url, "web3_clientVersion", []));
  });
});

describe("through the generated client", () => {
  it("decodes every optimism_* answer with the spec's codecs", async () => {
    const client = new NodeClient(httpTransport(node.url));
    const output = await client.optimism_outputAtBlock(1n);
    expect(output.blockRef.number).toBe(1n);
    expect(output.version).toEqual(new Uint8Array(32));
    expect(output.outputRoot).toEqual(
      outputRootV0(output.stateRoot, output.withdrawalStorageRoot, output.blockRef.hash),
    );
    const status = await client.optimism_syncStatus();
    expect(status.unsafe_l2.number >= 1n).toBe(true);
    const config = await client.optimism_rollupConfig();
    expect(config.l2_chain_id).toBe(BigInt(node.chainId));
    expect(await client.optimism_version()).toBe(ROLLUP_NODE_VERSION);
  });
});

describe("syncStatusJson (the SyncStatusSource seam an L1-backed node fills)", () => {
  const l1 = (n: number): L1BlockRef => ({
    number: BigInt(n),
    hash: new Uint8Array(32).fill(n),
    parentHash: new Uint8Array(32).fill(n - 1),
    timestamp: BigInt(1000 + 12 * n),
  });
  const l2 = (n: number, origin: number): L2BlockRef => ({
    number: BigInt(n),
    hash: new Uint8Array(32).fill(100 + n),
    parentHash: new Uint8Array(32).fill(99 + n),
    timestamp: BigInt(1000 + 2 * n),
    l1Origin: { number: BigInt(origin), hash: new Uint8Array(32).fill(origin) },
    sequenceNumber: BigInt(n % 6),
  });
  const refs: SyncStatusRefs = {
    currentL1: l1(9),
    headL1: l1(10),
    safeL1: l1(8),
    finalizedL1: l1(4),
    unsafeL2: l2(40, 9),
    safeL2: l2(30, 7),
    finalizedL2: l2(12, 3),
  };

  it("maps each ref to op-node's field, with the deprecated and interop fields as op-node fills them", () => {
    const status = syncStatusJson(refs);
    expect(status.current_l1.number).toBe(9n);
    expect(status.head_l1.number).toBe(10n);
    expect(status.safe_l1.number).toBe(8n);
    expect(status.finalized_l1.number).toBe(4n);
    expect(status.current_l1_finalized).toEqual(status.finalized_l1);
    expect(status.unsafe_l2.number).toBe(40n);
    expect(status.unsafe_l2.l1origin).toEqual({ number: 9n, hash: new Uint8Array(32).fill(9) });
    expect(status.unsafe_l2.sequenceNumber).toBe(4n);
    expect(status.safe_l2.number).toBe(30n);
    expect(status.finalized_l2.number).toBe(12n);
    expect(status.cross_unsafe_l2).toEqual(status.unsafe_l2);
    expect(status.local_safe_l2).toEqual(status.safe_l2);
    expect(status.pending_safe_l2).toEqual(status.safe_l2);
    expect(syncStatusJson({ ...refs, pendingSafeL2: l2(33, 8) }).pending_safe_l2.number).toBe(33n);
    // What goes on the wire: op-node's JSON numbers and hex hashes.
    const json = SyncStatusCodec.encode(status) as unknown as SyncStatus;
    expect(json.head_l1).toEqual({
      hash: `0x${"0a".repeat(32)}`,
      number: 10,
      parentHash: `0x${"09".repeat(32)}`,
      timestamp: 1120,
    });
    expect(json.unsafe_l2.l1origin).toEqual({ hash: `0x${"09".repeat(32)}`, number: 9 });
  });
});
