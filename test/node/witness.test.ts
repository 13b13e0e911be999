/**
 * debug_executionWitness, debug_executePayload and debug_dbGet(0x63‖codeHash) against a real node process
 * (the default surface, `full`): a block that reads storage, code and an older block's hash is executed
 * again by src/chain from nothing but the witness's preimages and gives the block's hash; without one of
 * its trie nodes it cannot be executed. Three times: the witnesses answered from the sealed blocks' records
 * (src/node/witness-record.ts, the default) on the call pool's witness workers (the default) and on the event loop
 * (`--call-workers 0`), and with no records (`--witness-window 0`), every witness an execution on a witness worker.
 * test/node/witness-record.test.ts holds the records against the executions block by block.
 */
import { RLP } from "@ethereumjs/rlp";
import { type Hex, bytesToHex, hexToBytes, keccak256 } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  MissingPreimageError,
  type PayloadAttributes,
  PreimageStore,
  bytesToBigInt,
  decodeHeader,
  executeBlock,
  parseRollupConfig,
} from "../../src/chain/index.js";
import { call, clients, hexNumber, rpc, waitFor } from "./helpers.js";
import { type NodeProcess, startNodeProcess } from "./spawn-node.js";

/** Runtime code: SSTORE(0, BLOCKHASH(NUMBER - 3)); STOP. */
const RUNTIME: Hex = "0x600343034060005500";
/** Init code returning RUNTIME (9 bytes at offset 12). */
const INIT = `0x6009600c60003960096000f3${RUNTIME.slice(2)}` as Hex;

interface Witness {
  state: Hex[];
  codes: Hex[];
  keys: Hex[];
  headers: Hex[];
}
interface Block {
  number: Hex;
  hash: Hex;
  parentHash: Hex;
  timestamp: Hex;
  mixHash: Hex;
  miner: Hex;
  gasLimit: Hex;
  extraData: Hex;
  parentBeaconBlockRoot?: Hex;
  transactions: Hex[];
}

let node: NodeProcess;
let block: Block;
let contract: Hex;
/** The contract's deployment: nonce 0 of its sender, so it cannot be included again on a later parent. */
let deployment: Hex;

async function startNode(callWorkers: number, witnessWindow: number | undefined): Promise<void> {
  node = await startNodeProcess({
    blockTimeMs: 300,
    flashblockIntervalMs: 50,
    callWorkers,
    ...(witnessWindow === undefined ? {} : { extraArgs: ["--witness-window", String(witnessWindow)] }),
  });
  const { walletClient, publicClient } = clients(node, 1);
  deployment = await walletClient.sendTransaction({ data: INIT });
  const deployed = await publicClient.waitForTransactionReceipt({ hash: deployment });
  contract = deployed.contractAddress!;
  // Blocks enough for BLOCKHASH(number - 3) to name a block older than the parent, and the deployment sealed: its
  // receipt is pre-confirmed, and a call sent into the same block (a loaded machine) finds the code the block itself
  // wrote, which is no read of the parent's state and so in no witness.
  const sealedAfter = deployed.blockNumber > 4n ? deployed.blockNumber : 4n;
  await waitFor(async () => {
    const head = BigInt(await call<Hex>(node.url, "eth_blockNumber", []));
    return head >= sealedAfter ? true : undefined;
  }, "four blocks and the deployment's seal");
  const sent = await walletClient.sendTransaction({ to: contract, gas: 100_000n });
  const receipt = await publicClient.waitForTransactionReceipt({ hash: sent });
  // The receipt is pre-confirmed: wait for the block to be sealed.
  block = await waitFor(
    async () =>
      (await call<Block | null>(node.url, "eth_getBlockByNumber", [hexNumber(receipt.blockNumber), false])) ??
      undefined,
    "the seal",
  );
}

/** The payload attributes that built `b`, read from its header fields as the Engine API carries them. */
function attributesOf(b: Block): PayloadAttributes {
  const extra = hexToBytes(b.extraData);
  return {
    timestamp: BigInt(b.timestamp),
    prevRandao: hexToBytes(b.mixHash),
    suggestedFeeRecipient: hexToBytes(b.miner),
    gasLimit: BigInt(b.gasLimit),
    ...(b.parentBeaconBlockRoot === undefined
      ? {}
      : { parentBeaconBlockRoot: hexToBytes(b.parentBeaconBlockRoot) }),
    // Holocene extraData: version ‖ denominator ‖ elasticity (‖ min base fee from Jovian).
    ...(extra.length >= 9 ? { eip1559Params: extra.slice(1, 9) } : {}),
    ...(extra.length === 17 ? { minBaseFee: bytesToBigInt(extra.slice(9, 17)) } : {}),
  };
}

function rawTransaction(hash: Hex): Promise<Hex> {
  return call<Hex>(node.url, "debug_getRawTransaction", [hash]);
}

async function rawTransactions(b: Block): Promise<Hex[]> {
  return Promise.all(b.transactions.map(rawTransaction));
}

/** Executes `b` with src/chain from the witness's preimages alone; answers the block hash it gets. */
async function executeFromWitness(b: Block, witness: Witness, drop?: Hex): Promise<Hex> {
  const store = new PreimageStore();
  for (const value of [...witness.state, ...witness.codes, ...witness.headers])
    if (value !== drop) store.putKeccak256(hexToBytes(value));
  const parentRlp = witness.headers[witness.headers.length - 1]!;
  expect(keccak256(parentRlp)).toBe(b.parentHash);
  const config = parseRollupConfig(await call(node.url, "optimism_rollupConfig", []));
  const sealed = await executeBlock({
    config,
    parent: decodeHeader(hexToBytes(parentRlp)),
    attributes: attributesOf(b),
    transactions: (await rawTransactions(b)).map((t) => hexToBytes(t)),
    source: store,
  });
  return bytesToHex(sealed.blockHash);
}

describe.each([
  { callWorkers: 1, witnessWindow: undefined },
  { callWorkers: 0, witnessWindow: undefined },
  { callWorkers: 1, witnessWindow: 0 },
])("with --call-workers $callWorkers, --witness-window $witnessWindow", ({ callWorkers, witnessWindow }) => {
  beforeAll(() => startNode(callWorkers, witnessWindow), 90_000);
  afterAll(async () => {
    await node?.stop();
  });

  describe("debug_executionWitness", () => {
    it("holds every trie node, code and header a stateless execution of the block needs", async () => {
      const witness = await call<Witness>(node.url, "debug_executionWitness", [block.number]);
      expect(await executeFromWitness(block, witness)).toBe(block.hash);

      // reth's order: oldest header first, the parent last; BLOCKHASH(number - 3) reaches 3 blocks back.
      const numbers = witness.headers.map((h) => decodeHeader(hexToBytes(h)).number);
      const n = BigInt(block.number);
      expect(numbers).toEqual([n - 3n, n - 2n, n - 1n]);
      for (let i = 1; i < witness.headers.length; i++)
        expect(bytesToHex(decodeHeader(hexToBytes(witness.headers[i]!)).parentHash)).toBe(
          keccak256(witness.headers[i - 1]!),
        );
      expect(witness.codes).toContain(RUNTIME);
      expect(witness.keys).toContain(contract.toLowerCase());
      expect(witness.keys).toContain(bytesToHex(new Uint8Array(32)));
      // Every state entry is a trie node (an RLP list).
      for (const node of witness.state) expect(Array.isArray(RLP.decode(hexToBytes(node)))).toBe(true);

      // Without the state root's node the block cannot be executed.
      const parent = decodeHeader(hexToBytes(witness.headers[witness.headers.length - 1]!));
      const root = witness.state.find((v) => keccak256(v) === bytesToHex(parent.stateRoot));
      expect(root).toBeDefined();
      await expect(executeFromWitness(block, witness, root)).rejects.toBeInstanceOf(MissingPreimageError);
    });

    it("refuses a block that does not exist and genesis (which has no parent)", async () => {
      for (const selector of ["0x7fffffff", "0x0"]) {
        const r = await rpc(node.url, "debug_executionWitness", [selector]);
        expect(r.body?.error?.code, selector).toBe(-32001);
      }
    });
  });

  describe("debug_executePayload", () => {
    it("builds the block from its parent and attributes, and its witness executes it again", async () => {
      const a = attributesOf(block);
      const attributes = {
        timestamp: hexNumber(a.timestamp),
        prevRandao: bytesToHex(a.prevRandao),
        suggestedFeeRecipient: bytesToHex(a.suggestedFeeRecipient),
        gasLimit: hexNumber(a.gasLimit),
        withdrawals: [],
        noTxPool: true,
        transactions: await rawTransactions(block),
        ...(a.parentBeaconBlockRoot === undefined
          ? {}
          : { parentBeaconBlockRoot: bytesToHex(a.parentBeaconBlockRoot) }),
        ...(a.eip1559Params === undefined ? {} : { eip1559Params: bytesToHex(a.eip1559Params) }),
        ...(a.minBaseFee === undefined ? {} : { minBaseFee: hexNumber(a.minBaseFee) }),
      };
      const witness = await call<Witness>(node.url, "debug_executePayload", [block.parentHash, attributes]);
      expect(await executeFromWitness(block, witness)).toBe(block.hash);
      expect(witness.codes).toContain(RUNTIME);

      const unknown = await rpc(node.url, "debug_executePayload", [`0x${"ab".repeat(32)}`, attributes]);
      expect(unknown.body?.error?.code).toBe(-32001);
      const early = { ...attributes, timestamp: "0x1" };
      const failed = await rpc(node.url, "debug_executePayload", [block.parentHash, early]);
      expect(failed.body?.error?.code).toBe(-32000);
      // The deployment again (its sender's nonce is past it at this parent): the reason names the transaction.
      const replayed = { ...attributes, transactions: [await rawTransaction(deployment)] };
      const refused = await rpc(node.url, "debug_executePayload", [block.parentHash, replayed]);
      expect(refused.body?.error).toMatchObject({ code: -32000 });
      expect(refused.body?.error?.message).toMatch(/^execution failed: transaction 0 cannot be included: /);

      // Executions at once (on as many witness workers, or interleaved on the event loop) answer what one does.
      const together = await Promise.all(
        Array.from({ length: 3 }, () =>
          call<Witness>(node.url, "debug_executePayload", [block.parentHash, attributes]),
        ),
      );
      for (const answer of together) expect(answer).toEqual(witness);
    });
  });

  describe("debug_dbGet", () => {
    it("answers the code for 0x63 ‖ code hash", async () => {
      const codeHash = keccak256(RUNTIME);
      expect(await call(node.url, "debug_dbGet", [`0x63${codeHash.slice(2)}`])).toBe(RUNTIME);
      const missing = await rpc(node.url, "debug_dbGet", [`0x63${"ef".repeat(32)}`]);
      expect(missing.body?.error).toMatchObject({ code: -32000, message: "not found" });
    });
  });
});
