/**
 * The host's boundary lookup for ranges in frames (src/host/witness/l2-output.ts) on a chain before Isthmus, where
 * a header's withdrawalsRoot is the empty trie's root and the output root needs the L2ToL1MessagePasser's storage
 * root from `eth_getProof`. The devnet runs Isthmus from genesis, so this path is checked against real OP Sepolia
 * headers (Holocene, shared/fixtures/op-sepolia) served in op-geth's shapes: `debug_getRawHeader` by number, and
 * `eth_getProof` with no storage keys at a block hash. The fixtures hold only what their blocks read, not the
 * passer's account, so the storage hash served is a stand-in value; what is checked is that the lookup asks for
 * it at the header's own hash and builds the output root from it, not from the header.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type ExecutionFixture,
  encodeHeader,
  fromHex,
  keccak256,
  L2_TO_L1_MESSAGE_PASSER,
  loadFixture,
  outputRootPreimageV0,
  toHex,
} from "../../src/chain/index.js";
import { fixtureFiles } from "../../src/chain/fixture-paths.test-support.js";
import { JsonRpcClient, MalformedResponseError } from "../../src/chain-rpc/index.js";
import {
  type Envelope,
  type RpcRequest,
  startTamperProxy,
  type TamperProxy,
} from "../../src/chain-rpc/proxy.test-support.js";
import { l2OutputAt } from "../../src/host/index.js";

/** The empty trie's root: every header's withdrawalsRoot from Canyon until Isthmus. */
const EMPTY_TRIE_ROOT = "0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421";
const PASSER_STORAGE_ROOT = "0x8ed4baae3a927be3dea54996b4d5899f8c01e7594bf50b17dc1e741388ce3d12";

describe("the L2 output at a boundary before Isthmus (eth_getProof of the message passer)", () => {
  let first: ExecutionFixture;
  let second: ExecutionFixture;
  let node: TamperProxy;
  const asked: RpcRequest[] = [];
  /** What the node answers to eth_getProof (a test may change it). */
  let proofAnswer: (request: RpcRequest) => Envelope;

  const opGethProof = (request: RpcRequest): Envelope => ({
    jsonrpc: "2.0",
    result: {
      address: request.params[0],
      accountProof: [],
      balance: "0x0",
      codeHash: "0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470",
      nonce: "0x0",
      storageHash: PASSER_STORAGE_ROOT,
      storageProof: [],
    },
  });

  beforeAll(async () => {
    // Two consecutive blocks: the second's parent header is the first's block, whose hash the first records.
    const [a, b] = fixtureFiles();
    first = await loadFixture(a!);
    second = await loadFixture(b!);
    const header = second.parent;
    node = await startTamperProxy("");
    proofAnswer = opGethProof;
    node.rpc = async (request) => {
      asked.push(request);
      if (request.method === "debug_getRawHeader")
        return request.params[0] === `0x${header.number.toString(16)}`
          ? { jsonrpc: "2.0", result: toHex(encodeHeader(header)) }
          : { jsonrpc: "2.0", error: { code: -32000, message: "header not found" } };
      if (request.method === "eth_getProof") return proofAnswer(request);
      return {
        jsonrpc: "2.0",
        error: { code: -32601, message: `the method ${request.method} does not exist` },
      };
    };
  });
  afterAll(async () => node?.close());

  it("takes the hash from the header and the passer's root from eth_getProof at that hash", async () => {
    const header = second.parent;
    expect(header.requestsHash).toBeUndefined();
    expect(toHex(header.withdrawalsRoot!)).toBe(EMPTY_TRIE_ROOT);
    asked.length = 0;
    const output = await l2OutputAt(new JsonRpcClient(node.url), header.number);

    expect(toHex(output.hash)).toBe(toHex(first.expectedBlockHash));
    const expected = keccak256(
      outputRootPreimageV0(header.stateRoot, fromHex(PASSER_STORAGE_ROOT), first.expectedBlockHash),
    );
    expect(toHex(output.outputRoot)).toBe(toHex(expected));
    expect(asked.map((r) => r.method)).toEqual(["debug_getRawHeader", "eth_getProof"]);
    expect(asked[1]!.params).toEqual([
      toHex(L2_TO_L1_MESSAGE_PASSER.bytes),
      [],
      { blockHash: toHex(first.expectedBlockHash) },
    ]);
    // The header's own withdrawalsRoot would have named another root.
    const fromHeader = keccak256(
      outputRootPreimageV0(header.stateRoot, header.withdrawalsRoot!, first.expectedBlockHash),
    );
    expect(toHex(output.outputRoot)).not.toBe(toHex(fromHeader));
  });

  it("refuses an eth_getProof answer without a 32-byte storageHash, and a header of another number", async () => {
    const l2 = new JsonRpcClient(node.url);
    const number = second.parent.number;
    for (const storageHash of [undefined, "0x1234", 7]) {
      proofAnswer = (request) => {
        const answer = opGethProof(request) as { result: Record<string, unknown> };
        return { jsonrpc: "2.0", result: { ...answer.result, storageHash } };
      };
      await expect(l2OutputAt(l2, number)).rejects.toThrow(MalformedResponseError);
    }
    proofAnswer = () => ({ jsonrpc: "2.0", result: null });
    await expect(l2OutputAt(l2, number)).rejects.toThrow(/no 32-byte storageHash/);
    proofAnswer = opGethProof;

    // A node answering block N's header when asked for N - 1 (the lookup checks the number it decoded).
    const previous = number - 1n;
    const saved = node.rpc;
    node.rpc = async (request, forward) =>
      request.method === "debug_getRawHeader"
        ? { jsonrpc: "2.0", result: toHex(encodeHeader(second.parent)) }
        : saved(request, forward);
    try {
      await expect(l2OutputAt(l2, previous)).rejects.toThrow(
        `debug_getRawHeader: asked for block ${previous}, got block ${number}`,
      );
    } finally {
      node.rpc = saved;
    }
  });
});
