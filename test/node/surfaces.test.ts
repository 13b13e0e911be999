/**
 * --rpc-surface reth, geth and base against real node processes: the witness methods each client serves,
 * in its format, and what it refuses, with its error code and text (docs/node-surfaces.md).
 */
import { type Hex, bytesToHex, hexToBytes, keccak256 } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeHeader } from "../../src/chain/index.js";
import { call, hexNumber, rpc, waitFor } from "./helpers.js";
import { type NodeProcess, startNodeProcess } from "./spawn-node.js";

/** The L1 block attributes predeploy: an account with code on every dev chain. */
const L1_BLOCK = "0x4200000000000000000000000000000000000015";

interface Block {
  number: Hex;
  hash: Hex;
  parentHash: Hex;
  stateRoot: Hex;
  timestamp: Hex;
  gasLimit: Hex;
}

async function start(surface: string, extra: string[] = []): Promise<NodeProcess> {
  const node = await startNodeProcess({
    blockTimeMs: 300,
    flashblockIntervalMs: 50,
    callWorkers: 0,
    extraArgs: ["--rpc-surface", surface, ...extra],
  });
  // Blocks enough for a proof window to leave old ones behind.
  await waitFor(
    async () => (BigInt(await call<Hex>(node.url, "eth_blockNumber", [])) >= 5n ? true : undefined),
    "five blocks",
  );
  return node;
}

const sealed = (node: NodeProcess, n: bigint | string) =>
  call<Block>(node.url, "eth_getBlockByNumber", [typeof n === "string" ? n : hexNumber(n), false]);

async function codeKey(node: NodeProcess): Promise<{ key: Hex; code: Hex }> {
  const code = await call<Hex>(node.url, "eth_getCode", [L1_BLOCK, "latest"]);
  return { key: `0x63${keccak256(code).slice(2)}`, code };
}

const errorOf = async (node: NodeProcess, method: string, params: unknown[]) =>
  (await rpc(node.url, method, params)).body?.error;

const nodes: NodeProcess[] = [];
afterAll(async () => {
  await Promise.all(nodes.map((n) => n.stop()));
});

describe("--rpc-surface reth", () => {
  let node: NodeProcess;
  beforeAll(async () => {
    node = await start("reth", ["--rpc-eth-proof-window", "2"]);
    nodes.push(node);
  }, 90_000);

  it("debug_dbGet takes only 0x63 ‖ code hash and answers the code or null", async () => {
    const { key, code } = await codeKey(node);
    expect(await call(node.url, "debug_dbGet", [key])).toBe(code);
    expect(await call(node.url, "debug_dbGet", [`0x63${"ef".repeat(32)}`])).toBeNull();
    const head = await sealed(node, "latest");
    expect(await errorOf(node, "debug_dbGet", [head.stateRoot])).toEqual({
      code: -32602,
      message: "Key must be 33 bytes, got 32",
    });
    expect(await errorOf(node, "debug_dbGet", [`0x64${head.stateRoot.slice(2)}`])).toEqual({
      code: -32602,
      message: "Key prefix must be 0x63",
    });
  });

  it("serves debug_executionWitness with RLP headers and refuses debug_executePayload", async () => {
    const block = await sealed(node, 3n);
    const witness = await call<{ headers: Hex[]; state: Hex[]; keys: Hex[] }>(
      node.url,
      "debug_executionWitness",
      [block.number],
    );
    expect(keccak256(witness.headers[witness.headers.length - 1]!)).toBe(block.parentHash);
    expect(witness.state.length).toBeGreaterThan(0);
    expect(witness.keys.length).toBeGreaterThan(0);
    expect(await errorOf(node, "debug_executePayload", [block.parentHash, {}])).toEqual({
      code: -32601,
      message: "Method not found",
    });
  });

  it("answers eth_getProof only within --rpc-eth-proof-window blocks of the head", async () => {
    const proof = await call<{ accountProof: Hex[] }>(node.url, "eth_getProof", [L1_BLOCK, [], "latest"]);
    expect(proof.accountProof.length).toBeGreaterThan(0);
    expect(await errorOf(node, "eth_getProof", [L1_BLOCK, [], "0x1"])).toEqual({
      code: -32602,
      message: "distance to target block exceeds maximum proof window",
    });
  });
});

describe("--rpc-surface geth", () => {
  let node: NodeProcess;
  beforeAll(async () => {
    node = await start("geth");
    nodes.push(node);
  }, 90_000);

  it("answers debug_executionWitness as ExtWitness: JSON headers from the parent back, no keys", async () => {
    const block = await sealed(node, 4n);
    const witness = await call<{ headers: Record<string, Hex>[]; codes: Hex[]; state: Hex[]; keys: Hex[] }>(
      node.url,
      "debug_executionWitness",
      [block.number],
    );
    expect(witness.keys).toEqual([]);
    expect(witness.state.length).toBeGreaterThan(0);
    const parent = await sealed(node, 3n);
    expect(witness.headers[0]).toMatchObject({
      hash: parent.hash,
      number: "0x3",
      stateRoot: parent.stateRoot,
    });
    // The JSON header is the header: its hash is the raw header's keccak256.
    const raw = await call<Hex>(node.url, "debug_getRawHeader", [parent.hash]);
    expect(bytesToHex(decodeHeader(hexToBytes(raw)).stateRoot)).toBe(witness.headers[0]!.stateRoot);
    expect(await errorOf(node, "debug_executionWitness", ["0x7fffffff"])).toEqual({
      code: -32000,
      message: "block number 2147483647 not found",
    });
  });

  it("has no debug_executePayload", async () => {
    expect(await errorOf(node, "debug_executePayload", [`0x${"00".repeat(32)}`, {}])).toEqual({
      code: -32601,
      message: "the method debug_executePayload does not exist/is not available",
    });
  });

  it("debug_dbGet reads geth's schema: code under c‖hash, headers under h‖number‖hash, no bare trie node", async () => {
    const { key, code } = await codeKey(node);
    expect(await call(node.url, "debug_dbGet", [key])).toBe(code);
    const block = await sealed(node, 2n);
    const headerKey = `0x68${2n.toString(16).padStart(16, "0")}${block.hash.slice(2)}`;
    expect(await call(node.url, "debug_dbGet", [headerKey])).toBe(
      await call(node.url, "debug_getRawHeader", [block.hash]),
    );
    expect(await errorOf(node, "debug_dbGet", [block.stateRoot])).toEqual({
      code: -32000,
      message: "pebble: not found",
    });
  });

  it("answers eth_getProof at any block (archive)", async () => {
    const proof = await call<{ accountProof: Hex[] }>(node.url, "eth_getProof", [L1_BLOCK, [], "0x1"]);
    expect(proof.accountProof.length).toBeGreaterThan(0);
  });
});

describe("--rpc-surface base", () => {
  let node: NodeProcess;
  beforeAll(async () => {
    node = await start("base");
    nodes.push(node);
  }, 90_000);

  it("serves debug_executePayload and answers a missing parent as Base's node does", async () => {
    const parent = await sealed(node, 3n);
    const attributes = {
      timestamp: hexNumber(BigInt(parent.timestamp) + 2n),
      prevRandao: `0x${"00".repeat(32)}`,
      suggestedFeeRecipient: `0x${"00".repeat(20)}`,
      parentBeaconBlockRoot: `0x${"00".repeat(32)}`,
      gasLimit: parent.gasLimit,
      transactions: [],
      noTxPool: true,
    };
    const witness = await call<{ headers: Hex[]; state: Hex[] }>(node.url, "debug_executePayload", [
      parent.hash,
      attributes,
    ]);
    expect(keccak256(witness.headers[witness.headers.length - 1]!)).toBe(parent.hash);
    expect(witness.state.length).toBeGreaterThan(0);
    const missing = `0x${"ab".repeat(32)}`;
    expect(await errorOf(node, "debug_executePayload", [missing, attributes])).toEqual({
      code: -32603,
      message: `no header found for Hash(${missing})`,
    });
  });

  it("keeps reth's debug_dbGet and eth_getProof window (default 0: the head only)", async () => {
    const head = await sealed(node, "latest");
    expect((await errorOf(node, "debug_dbGet", [head.stateRoot]))?.code).toBe(-32602);
    expect(await errorOf(node, "eth_getProof", [L1_BLOCK, [], "0x1"])).toEqual({
      code: -32602,
      message: "distance to target block exceeds maximum proof window",
    });
  });
});
