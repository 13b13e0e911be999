/**
 * An L1 reorg of the origin the sequencer is building on (docs/node/l1.md "L1 mode", "L1 reorgs"): not handled yet,
 * but loud. After `anvil_reorg` replaces the L1 blocks from below the head's origin, the node logs at error that
 * the head's L1 origin is no longer on L1, and it never adopts a block of the new L1 chain that does not extend
 * its origin: the chain keeps the stale origin (until the drift would stop it; rebuilding is a later issue).
 */
import { type Hex, hexToBytes } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeL1InfoCalldata } from "../../src/derive/index.js";
import { type L1Chain, startL1Chain, waitForChain } from "./l1-chain.js";

let chain: L1Chain;

beforeAll(async () => {
  chain = await startL1Chain({ blockTime: 1, confirmations: 0 });
}, 120_000);

afterAll(async () => {
  await chain?.stop();
});

async function headOrigin(): Promise<{ l2: bigint; origin: bigint; hash: Hex }> {
  const block = (await chain.l2.request({
    method: "eth_getBlockByNumber" as never,
    params: ["latest", true] as never,
  })) as { number: Hex; transactions: { input: Hex }[] };
  const first = block.transactions[0];
  if (first === undefined) {
    // The genesis: its origin is the rollup config's genesis L1 block.
    const l1 = chain.rollup.genesis!.l1;
    return { l2: 0n, origin: l1.number, hash: `0x${Buffer.from(l1.hash).toString("hex")}` };
  }
  const info = decodeL1InfoCalldata(hexToBytes(first.input));
  return {
    l2: BigInt(block.number),
    origin: info.number,
    hash: `0x${Buffer.from(info.blockHash).toString("hex")}`,
  };
}

describe("an L1 reorg of the head's origin", () => {
  it("is logged at error, and no later block adopts an L1 block that does not extend its origin", async () => {
    const anvil = chain.l1.anvil;
    const before = await waitForChain(chain, "an origin a few blocks past the genesis L1 block", async () => {
      const h = await headOrigin();
      return h.origin >= chain.rollup.genesis!.l1.number + 3n ? h : undefined;
    });
    const l1Head = await anvil.client.getBlockNumber({ cacheTime: 0 });
    // Replace every L1 block from the head's origin on (anvil mines the replacements at once).
    // A transfer in the first replacement block makes it (and every later one) differ from the old blocks.
    const sender = chain.node.accounts[7]!.address;
    await anvil.request("anvil_reorg", [
      Number(l1Head - before.origin + 1n),
      [[{ from: sender, to: chain.node.accounts[8]!.address, value: "0x1" }, 0]],
    ]);
    const replaced = await anvil.client.getBlock({ blockNumber: before.origin });
    expect(replaced.hash).not.toBe(before.hash);

    await waitForChain(chain, "the reorg error line", async () =>
      chain.node.output().includes("the L1 origin of the head is no longer on L1") ? true : undefined,
    );
    // Ten more L2 blocks: none adopts a block of the new L1 chain (none extends the stale origin).
    const from = (await headOrigin()).l2;
    await waitForChain(chain, "ten more L2 blocks", async () =>
      (await headOrigin()).l2 >= from + 10n ? true : undefined,
    );
    const origins = new Set<Hex>();
    let last: { number: bigint; hash: Hex } | undefined;
    for (let n = from; n <= from + 10n; n++) {
      const block = (await chain.l2.request({
        method: "eth_getBlockByNumber" as never,
        params: [`0x${n.toString(16)}`, true] as never,
      })) as { transactions: { input: Hex }[] };
      const info = decodeL1InfoCalldata(hexToBytes(block.transactions[0]!.input));
      last = { number: info.number, hash: `0x${Buffer.from(info.blockHash).toString("hex")}` };
      origins.add(last.hash);
    }
    expect(origins.size).toBe(1);
    const canonical = await anvil.client.getBlock({ blockNumber: last!.number });
    expect(canonical.hash).not.toBe(last!.hash);
  }, 150_000);
});
