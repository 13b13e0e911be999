/**
 * The sequencer drift rule against a stalled L1 (docs/node/l1.md "L1 mode"): anvil mines nothing (manual mining)
 * and the L2 genesis lies 40 minutes in the past, so the node catches up block by block without waiting for the
 * clock until the next block would be more than 1800 s after its L1 origin; there it stops (the L1 has no next
 * origin) and its pool waits. When L1 mines a block newer than the next L2 block, the sequencer resumes with
 * deposit-only blocks on the old origin (past the drift, no pool transactions) until the new L1 block's time,
 * adopts it, and the waiting transaction lands.
 */
import { type Hex, createWalletClient, hexToBytes, http, parseEther } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeL1InfoCalldata } from "../../src/derive/index.js";
import { type L1Chain, startL1Chain, waitForChain } from "./l1-chain.js";

// 10 s L2 blocks: 180 blocks to the drift bound (the rule is about seconds, not blocks; fewer blocks to build).
const BLOCK_TIME = 10n;
const DRIFT = 1800n;
let chain: L1Chain;
let genesisTime: bigint;

beforeAll(async () => {
  chain = await startL1Chain({
    blockTime: Number(BLOCK_TIME),
    mining: { mode: "manual" },
    confirmations: 0,
    // The contracts' block (the L2 genesis' anchor) is mined at this time + 12 s.
    l1GenesisTimestamp: BigInt(Math.floor(Date.now() / 1000)) - 2400n,
    anchor: "deploy",
    logLevel: "warn",
  });
  genesisTime = chain.rollup.genesisL2Time;
}, 120_000);

afterAll(async () => {
  await chain?.stop();
});

interface Block {
  number: Hex;
  timestamp: Hex;
  transactions: { hash: Hex; input: Hex }[];
}

async function block(n: bigint): Promise<Block> {
  return (await chain.l2.request({
    method: "eth_getBlockByNumber" as never,
    params: [`0x${n.toString(16)}`, true] as never,
  })) as Block;
}

const head = async (): Promise<bigint> => chain.l2.getBlockNumber({ cacheTime: 0 });

describe("the sequencer drift rule", () => {
  it("stops when the next block would pass its origin by more than 1800 s, and resumes when L1 moves", async () => {
    const lastInDrift = DRIFT / BLOCK_TIME; // the block at genesis + 1800 s, origin = the genesis L1 block
    const stalledAt = await waitForChain(
      chain,
      "the L2 to catch up to the drift bound",
      async () => {
        const n = await head();
        return n >= lastInDrift ? n : undefined;
      },
      60_000,
    );
    expect(stalledAt).toBe(lastInDrift);
    const last = await block(lastInDrift);
    expect(BigInt(last.timestamp)).toBe(genesisTime + DRIFT);
    expect(decodeL1InfoCalldata(hexToBytes(last.transactions[0]!.input)).number).toBe(
      chain.rollup.genesis!.l1.number,
    );

    // Stalled: no block past the bound although the clock is 10 minutes ahead, and the node says why.
    const wallet = createWalletClient({
      account: privateKeyToAccount(chain.node.accounts[1]!.privateKey),
      chain: chain.l2.chain,
      transport: http(chain.node.url, { timeout: 60_000 }),
    });
    const txHash = await wallet.sendTransaction({
      to: chain.node.accounts[2]!.address,
      value: parseEther("1"),
    });
    await new Promise((r) => setTimeout(r, 3_000));
    expect(await head()).toBe(lastInDrift);
    expect(chain.node.output()).toContain("sequencer drift");

    // L1 mines one block 100 s after the bound: the sequencer resumes.
    const nextOriginTime = genesisTime + DRIFT + 100n;
    // (anvil's clock was moved to the wall clock after the deployment: set it back first.)
    await chain.l1.anvil.request("anvil_setTime", [Number(nextOriginTime)]);
    await chain.l1.anvil.mine(nextOriginTime);
    const adoptedAt = lastInDrift + 100n / BLOCK_TIME;
    await waitForChain(
      chain,
      "the L2 to adopt the new L1 origin",
      async () => ((await head()) >= adoptedAt ? true : undefined),
      60_000,
    );
    for (let n = lastInDrift + 1n; n < adoptedAt; n++) {
      const b = await block(n);
      expect(BigInt(b.timestamp)).toBe(genesisTime + n * BLOCK_TIME);
      // Past the drift on the old origin: the L1 info deposit only.
      expect(b.transactions.map((t) => t.hash).includes(txHash), `block ${n}`).toBe(false);
      expect(b.transactions, `block ${n}`).toHaveLength(1);
      expect(decodeL1InfoCalldata(hexToBytes(b.transactions[0]!.input)).number).toBe(
        chain.rollup.genesis!.l1.number,
      );
    }
    const adopted = await block(adoptedAt);
    const info = decodeL1InfoCalldata(hexToBytes(adopted.transactions[0]!.input));
    expect(info.number).toBe(chain.rollup.genesis!.l1.number + 1n);
    expect(info.timestamp).toBe(nextOriginTime);
    const receipt = await chain.l2.waitForTransactionReceipt({ hash: txHash, pollingInterval: 100 });
    expect(receipt.status).toBe("success");
    expect(receipt.blockNumber).toBeGreaterThanOrEqual(adoptedAt);
  }, 150_000);
});
