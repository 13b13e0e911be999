/**
 * Admission on a real node (a dev genesis in a temporary directory, sequencer not started): every refusal is
 * a TransactionNotAdmittedError (NodeError root) whose `refusal` says why, and the RPC layer turns it into
 * JSON-RPC error -32000 with the same message; other values pass through the mapping unchanged.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Hex, hexToBytes } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TransactionRejectedError } from "../../generated/rpc/index.js";
import { SuiteError } from "../errors/index.js";
import { createLogger } from "../log/index.js";
import { admitTransaction } from "./admission.js";
import { ChainNode } from "./chain-node.js";
import { type AdmissionRefusal, NodeError, TransactionNotAdmittedError } from "./errors.js";
import { toNodeRpcError } from "./rpc/errors.js";

let dataDir: string;
let node: ChainNode;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "admission-"));
  node = await ChainNode.open({
    dataDir,
    chainId: 901n,
    blockTimeMs: 2000,
    flashblockIntervalMs: 200,
    devAccountCount: 2,
    preconfirmedReceipts: true,
    callWorkers: 0,
    callTimeoutMs: 5000,
    logger: createLogger({ name: "admission-test", level: "silent" }),
  });
});

afterAll(async () => {
  await node?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const RECIPIENT = "0x000000000000000000000000000000000000dEaD";

async function transfer(overrides: {
  nonce?: number;
  gas?: bigint;
  maxFeePerGas?: bigint;
  maxPriorityFeePerGas?: bigint;
  chainId?: number;
  value?: bigint;
  account?: number;
}): Promise<Uint8Array> {
  const account = privateKeyToAccount(node.devAccounts[overrides.account ?? 0]!.privateKey as Hex);
  const signed = await account.signTransaction({
    type: "eip1559",
    chainId: overrides.chainId ?? 901,
    nonce: overrides.nonce ?? 0,
    to: RECIPIENT,
    value: overrides.value ?? 1n,
    gas: overrides.gas ?? 21_000n,
    maxFeePerGas: overrides.maxFeePerGas ?? 10_000_000_000n,
    maxPriorityFeePerGas: overrides.maxPriorityFeePerGas ?? 1_000_000n,
  });
  return hexToBytes(signed);
}

function refusalOf(raw: Uint8Array): TransactionNotAdmittedError {
  try {
    admitTransaction(node, raw);
  } catch (e) {
    expect(e).toBeInstanceOf(TransactionNotAdmittedError);
    return e as TransactionNotAdmittedError;
  }
  throw new Error("admitted");
}

describe("admission", () => {
  it("names each refusal by kind and structured fields, under the node's root error", async () => {
    const cases: [AdmissionRefusal, Uint8Array, RegExp][] = [
      ["empty", new Uint8Array(0), /^invalid transaction: empty$/],
      ["oversized", new Uint8Array(128 * 1024 + 1).fill(2), /^oversized data/],
      ["deposit", Uint8Array.of(0x7e, 0xc0), /^deposit transactions cannot be submitted/],
      ["invalid-encoding", Uint8Array.of(0x02, 0x01), /^invalid transaction: /],
      ["wrong-chain-id", await transfer({ chainId: 10 }), /^invalid chain id 10, this chain is 901$/],
      ["exceeds-block-gas-limit", await transfer({ gas: 40_000_000n }), /^exceeds block gas limit/],
      ["intrinsic-gas-too-low", await transfer({ gas: 20_000n }), /^intrinsic gas too low/],
      [
        "underpriced",
        await transfer({ maxFeePerGas: 1n, maxPriorityFeePerGas: 1n }),
        /^transaction underpriced/,
      ],
      ["nonce-too-high", await transfer({ nonce: 65 }), /^nonce too high/],
      ["insufficient-funds", await transfer({ value: 10n ** 30n }), /^insufficient funds/],
    ];
    for (const [refusal, raw, message] of cases) {
      const error = refusalOf(raw);
      expect(error).toBeInstanceOf(NodeError);
      expect(error).toBeInstanceOf(SuiteError);
      expect(error.package).toBe("node");
      expect(error.kind).toBe("transaction-not-admitted");
      expect(error.refusal).toBe(refusal);
      expect(error.details.refusal).toBe(refusal);
      expect(error.message).toMatch(message);
    }
    const wrongChain = refusalOf(await transfer({ chainId: 10 }));
    expect(wrongChain.details).toMatchObject({ chainId: 10n, expected: 901n });
  });

  it("admits a valid transaction once, then refuses it as already known and a cheaper replacement as underpriced", async () => {
    const raw = await transfer({ account: 1 });
    const pooled = admitTransaction(node, raw);
    expect(node.producer.pool.get(pooled.hashHex)).toBe(pooled);
    expect(refusalOf(raw).refusal).toBe("already-known");
    expect(refusalOf(await transfer({ account: 1, value: 2n })).refusal).toBe("replacement-underpriced");
  });

  it("is answered with JSON-RPC -32000 and the same message at the RPC edge; other values pass unchanged", async () => {
    const error = refusalOf(await transfer({ gas: 20_000n }));
    const mapped = toNodeRpcError(error);
    expect(mapped).toBeInstanceOf(TransactionRejectedError);
    expect(mapped).toMatchObject({ code: -32000, message: error.message });
    const other = new Error("not a node error");
    expect(toNodeRpcError(other)).toBe(other);
  });
});
