/**
 * An L1-backed node killed (SIGKILL) and restarted on its data directory (docs/node/l1.md "L1 mode"): it resumes at
 * its stored head, catches up with the clock without waiting (timestamps stay exactly parent + block time across
 * the gap), and its origins still advance by at most one L1 block that extends the previous one.
 */
import { rmSync } from "node:fs";
import { type Hex, hexToBytes } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeL1InfoCalldata } from "../../src/derive/index.js";
import { call } from "./helpers.js";
import { type L1Chain, startL1Chain, waitForChain } from "./l1-chain.js";
import { type NodeProcess, startNodeProcess } from "./spawn-node.js";

let chain: L1Chain;
let restarted: NodeProcess | undefined;

beforeAll(async () => {
  chain = await startL1Chain({ blockTime: 1, confirmations: 1 });
}, 120_000);

afterAll(async () => {
  await restarted?.stop();
  await chain?.stop();
  if (chain !== undefined) rmSync(chain.node.dataDir, { recursive: true, force: true });
});

interface Block {
  number: Hex;
  hash: Hex;
  parentHash: Hex;
  timestamp: Hex;
  transactions: { input: Hex }[];
}

const blockAt = (url: string, n: bigint) =>
  call<Block>(url, "eth_getBlockByNumber", [`0x${n.toString(16)}`, true]);
const headOf = async (url: string) => BigInt(await call<Hex>(url, "eth_blockNumber", []));

describe("an L1-backed node restarted after kill -9", () => {
  it("resumes at its head and catches up with exact timestamps and linked origins", async () => {
    const first = chain.node;
    await waitForChain(chain, "a few blocks", async () =>
      (await headOf(first.url)) >= 5n ? true : undefined,
    );
    await first.kill();
    // The clock runs on while it is down: the restarted node is behind and must catch up.
    await new Promise((r) => setTimeout(r, 4_000));
    restarted = await startNodeProcess({
      dataDir: first.dataDir,
      l1: { rpcUrl: chain.l1.anvil.rpcUrl, rollupConfigPath: chain.rollupPath, confirmations: 1 },
      flashblockIntervalMs: 100,
      startTimeoutMs: 60_000,
      callWorkers: 0, // as startL1Chain's node
    });
    const url = restarted.url;
    const resumedAt = await headOf(url);
    expect(resumedAt).toBeGreaterThanOrEqual(5n);
    const caughtUp = await waitForChain(chain, "the restarted node to catch up with the clock", async () => {
      const n = await headOf(url);
      const b = await blockAt(url, n);
      return n > resumedAt + 4n && Number(BigInt(b.timestamp)) >= Date.now() / 1000 - 3 ? n : undefined;
    });
    let parent = await blockAt(url, 1n);
    let origin = decodeL1InfoCalldata(hexToBytes(parent.transactions[0]!.input));
    for (let n = 2n; n <= caughtUp; n++) {
      const block = await blockAt(url, n);
      expect(block.parentHash).toBe(parent.hash);
      expect(BigInt(block.timestamp), `block ${n}`).toBe(BigInt(parent.timestamp) + chain.rollup.blockTime);
      const info = decodeL1InfoCalldata(hexToBytes(block.transactions[0]!.input));
      if (info.number !== origin.number) {
        expect(info.number).toBe(origin.number + 1n);
        const l1Block = await chain.l1.anvil.client.getBlock({ blockNumber: info.number });
        expect(l1Block.hash).toBe(`0x${Buffer.from(info.blockHash).toString("hex")}`);
        expect(l1Block.parentHash).toBe(`0x${Buffer.from(origin.blockHash).toString("hex")}`);
      }
      expect(info.timestamp).toBeLessThanOrEqual(BigInt(block.timestamp));
      parent = block;
      origin = info;
    }
  }, 150_000);
});
