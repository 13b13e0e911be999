/**
 * A transaction the block being built has executed but no snapshot has published yet (reserved): still in the
 * pool (by hash, in its sender's pending nonce), not replaceable (the replacement is refused as "nonce too low"),
 * and gone from the pool once taken. A real node in a temporary directory, sequencer not started.
 */
import { type Hex, hexToBytes } from "viem";
import { describe, expect, it } from "vitest";
import { signEip1559 } from "../../src/load/signer.js";
import { admitTransaction } from "../../src/node/admission.js";
import { TransactionNotAdmittedError } from "../../src/node/errors.js";
import type { ChainNode } from "../../src/node/index.js";
import { inProcessNodeForFile } from "./in-process-node.js";

let node: ChainNode;
inProcessNodeForFile(
  "pool-reserve",
  {
    blockTimeMs: 2000,
    flashblockIntervalMs: 200,
    devAccountCount: 1,
  },
  (opened) => (node = opened),
  60_000,
);

async function transfer(maxFeePerGas: bigint): Promise<Uint8Array> {
  const signed = await signEip1559(node.devAccounts[0]!.privateKey as Hex, {
    chainId: 901,
    nonce: 0n,
    maxPriorityFeePerGas: maxFeePerGas / 10n,
    maxFeePerGas,
    gas: 21_000n,
    to: "0x000000000000000000000000000000000000dEaD",
    value: 1n,
    data: "0x",
  });
  return hexToBytes(signed.raw);
}

describe("a reserved pool transaction", () => {
  it("stays visible, cannot be replaced, and leaves the pool when taken", async () => {
    const pool = node.producer.pool;
    const first = admitTransaction(node, await transfer(10_000_000_000n));
    const replacement = await transfer(50_000_000_000n);
    pool.reserve(first.hashHex);
    expect(pool.isReserved(first.hashHex)).toBe(true);
    expect(pool.get(first.hashHex)).toBe(first);
    expect(pool.pendingNonce(first.senderHex, 0n)).toBe(1n);
    let refusal: unknown;
    try {
      admitTransaction(node, replacement);
    } catch (e) {
      refusal = e;
    }
    expect(refusal).toBeInstanceOf(TransactionNotAdmittedError);
    expect((refusal as TransactionNotAdmittedError).refusal).toBe("nonce-too-low");
    expect(pool.get(first.hashHex)).toBe(first);

    pool.take(first.hashHex);
    expect(pool.get(first.hashHex)).toBeUndefined();
    expect(pool.isReserved(first.hashHex)).toBe(false);
  });
});
