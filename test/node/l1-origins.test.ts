/**
 * The sequencer on real L1 origins (docs/node/l1.md "L1 mode"), against anvil (src/devnet/l1) and a node process:
 * L2 timestamps are exactly parent + block time; every block's deposits and header fields are what src/derive's
 * attributes builder gives for the L1 as read independently here (viem reads of anvil: the origin block, its
 * receipts' ConfigUpdate and TransactionDeposited logs); origins advance by at most one L1 block per L2 block and
 * are never newer than the L2 block; a SystemConfig change (gas limit, EIP-1559 parameters, operator fee) takes
 * effect in the first block of the epoch whose origin holds the log.
 */
import {
  type Hex,
  bytesToHex,
  createWalletClient,
  hexToBytes,
  http,
  pad,
  parseEther,
  toFunctionSelector,
  toHex,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { systemConfigAbi } from "../../contracts/index.js";
import { OpFork, blobBaseFee, encodeOpExtraData, isForkActive } from "../../src/chain/index.js";
import { BLOB_FEE_FRACTION_PRAGUE } from "../../src/chain/chains/l1-chains.js";
import {
  type L1OriginInfo,
  type SystemConfig,
  applyConfigUpdates,
  buildPayloadAttributes,
  decodeL1InfoCalldata,
  decodeL1InfoDeposit,
  deriveUserDeposits,
  systemConfigFromGenesis,
} from "../../src/derive/index.js";
import { blockReceiptLogs, devAccount, testSystemConfig, walletOf } from "../l1/support.js";
import { call } from "./helpers.js";
import { type L1Chain, startL1Chain, waitForChain } from "./l1-chain.js";

let chain: L1Chain;

beforeAll(async () => {
  chain = await startL1Chain({ blockTime: 1, confirmations: 1 });
}, 120_000);

afterAll(async () => {
  await chain?.stop();
});

interface L2Block {
  number: Hex;
  hash: Hex;
  parentHash: Hex;
  timestamp: Hex;
  gasLimit: Hex;
  extraData: Hex;
  mixHash: Hex;
  miner: Hex;
  parentBeaconBlockRoot: Hex;
  transactions: { hash: Hex; type: Hex; input: Hex }[];
}

const l2Block = (n: bigint) =>
  call<L2Block>(chain.node.url, "eth_getBlockByNumber", [`0x${n.toString(16)}`, true]);

/** The L1 origin facts of L1 block `number`, read with viem (not the node's code). */
async function l1Origin(
  number: bigint,
): Promise<L1OriginInfo & { receipts: Awaited<ReturnType<typeof blockReceiptLogs>> }> {
  const b = await chain.l1.anvil.client.getBlock({ blockNumber: number });
  const raw = await chain.l1.anvil.request<{ parentBeaconBlockRoot: Hex; excessBlobGas: Hex; mixHash: Hex }>(
    "eth_getBlockByNumber",
    [`0x${number.toString(16)}`, false],
  );
  return {
    number: b.number,
    hash: hexToBytes(b.hash),
    parentHash: hexToBytes(b.parentHash),
    timestamp: b.timestamp,
    baseFee: b.baseFeePerGas ?? 0n,
    blobBaseFee: blobBaseFee(BigInt(raw.excessBlobGas), BLOB_FEE_FRACTION_PRAGUE),
    mixHash: hexToBytes(raw.mixHash),
    parentBeaconBlockRoot: hexToBytes(raw.parentBeaconBlockRoot),
    receipts: await blockReceiptLogs(chain.l1.anvil, b.hash),
  };
}

describe("the sequencer on real L1 origins", () => {
  it("builds every block from the L1 as derivation reads it, and applies SystemConfig changes per epoch", async () => {
    const { l1, node } = chain;
    // Some L2 traffic, so blocks carry pool transactions after their deposits.
    const wallet = createWalletClient({
      account: privateKeyToAccount(node.accounts[1]!.privateKey),
      chain: chain.l2.chain,
      transport: http(node.url, { timeout: 60_000 }),
    });
    for (let i = 0; i < 3; i++)
      await wallet.sendTransaction({ to: node.accounts[2]!.address, value: parseEther("0.01") });

    // SystemConfig changes on L1 (account 0 owns it), each in its own L1 block.
    const owner = walletOf(l1.anvil, 0);
    const sc = l1.deployment.systemConfig;
    const sends: (() => Promise<Hex>)[] = [
      () =>
        owner.writeContract({
          address: sc,
          abi: systemConfigAbi,
          functionName: "setGasLimit",
          args: [45_000_000n],
        }),
      () =>
        owner.writeContract({
          address: sc,
          abi: systemConfigAbi,
          functionName: "setEIP1559Params",
          args: [100, 3],
        }),
      () =>
        owner.writeContract({
          address: sc,
          abi: systemConfigAbi,
          functionName: "setOperatorFeeScalars",
          args: [7, 1_000n],
        }),
    ];
    const changeBlocks: bigint[] = [];
    for (const send of sends) {
      const receipt = await l1.anvil.client.waitForTransactionReceipt({
        hash: await send(),
        pollingInterval: 100,
      });
      expect(receipt.status).toBe("success");
      changeBlocks.push(receipt.blockNumber);
    }
    expect(new Set(changeBlocks).size).toBe(3);
    const lastChange = changeBlocks[changeBlocks.length - 1]!;

    // Wait until the L2 has moved past an origin after the last change.
    const head = await waitForChain(
      chain,
      "an L2 block with an origin after the SystemConfig changes",
      async () => {
        const latest = await l2Block(BigInt(await call<Hex>(node.url, "eth_blockNumber", [])));
        const info = decodeL1InfoCalldata(hexToBytes(latest.transactions[0]!.input));
        // And more than 10 blocks, so the walk below covers several epochs however fast the chain started.
        return info.number > lastChange + 1n && BigInt(latest.number) > 10n
          ? BigInt(latest.number)
          : undefined;
      },
    );
    expect(head).toBeGreaterThan(10n);

    const rollup = chain.rollup;
    let parent = await l2Block(0n);
    expect(BigInt(parent.timestamp)).toBe(rollup.genesisL2Time);
    let parentOrigin = await l1Origin(rollup.genesis!.l1.number);
    let seq = 0n;
    let systemConfig: SystemConfig = systemConfigFromGenesis(rollup.genesis!.systemConfig);
    const init = testSystemConfig();
    const seenChange = new Map<bigint, bigint>(); // L1 block of a change → first L2 block of its epoch
    let poolTxs = 0;
    for (let n = 1n; n <= head; n++) {
      const block = await l2Block(n);
      const timestamp = BigInt(block.timestamp);
      expect(timestamp, `block ${n} timestamp`).toBe(BigInt(parent.timestamp) + rollup.blockTime);
      expect(block.parentHash).toBe(parent.hash);
      const info = decodeL1InfoCalldata(hexToBytes(block.transactions[0]!.input));
      // At most one L1 block per L2 block, never newer than the L2 block.
      expect(
        info.number === parentOrigin.number || info.number === parentOrigin.number + 1n,
        `block ${n}`,
      ).toBe(true);
      const newEpoch = info.number !== parentOrigin.number;
      const origin = newEpoch ? await l1Origin(info.number) : parentOrigin;
      expect(origin.timestamp).toBeLessThanOrEqual(timestamp);
      if (newEpoch) {
        systemConfig = applyConfigUpdates(systemConfig, origin.receipts, rollup, origin.timestamp);
        for (const c of changeBlocks) if (c === origin.number) seenChange.set(c, n);
      }
      // The L1 info deposit describes the real L1 block.
      expect(bytesToHex(info.blockHash)).toBe(bytesToHex(origin.hash));
      expect(info.timestamp).toBe(origin.timestamp);
      expect(info.baseFee).toBe(origin.baseFee);
      expect(info.blobBaseFee).toBe(origin.blobBaseFee);
      expect(bytesToHex(info.batcherAddress)).toBe(init.batcher.toLowerCase());
      expect(info.baseFeeScalar).toBe(init.basefeeScalar);
      expect(info.blobBaseFeeScalar).toBe(init.blobbasefeeScalar);
      expect(info.format).toBe("jovian");
      // Every deposit and header field is what the attributes builder says for this L1.
      const attributes = buildPayloadAttributes({
        rollupConfig: rollup,
        systemConfig,
        l2Parent: {
          hash: hexToBytes(parent.hash),
          number: n - 1n,
          timestamp: BigInt(parent.timestamp),
          l1OriginNumber: parentOrigin.number,
          l1OriginHash: parentOrigin.hash,
          sequenceNumber: seq,
        },
        l1Origin: origin,
        ...(newEpoch
          ? { userDeposits: deriveUserDeposits(origin.receipts, rollup.depositContractAddress!, origin.hash) }
          : {}),
        batchTransactions: [],
      });
      const raw = await Promise.all(
        block.transactions.map((t) => call<Hex>(node.url, "debug_getRawTransaction", [t.hash])),
      );
      const deposits = block.transactions.filter((t) => t.type === "0x7e").length;
      expect(deposits, `block ${n} deposits`).toBe(attributes.depositCount);
      expect(raw.slice(0, deposits)).toEqual(attributes.transactions.map((t) => bytesToHex(t)));
      poolTxs += block.transactions.length - deposits;
      const userTx = block.transactions[deposits];
      if (userTx !== undefined) {
        // Receipts report the L1 fee inputs of the block's own L1 info deposit.
        const receipt = await call<Record<string, Hex>>(node.url, "eth_getTransactionReceipt", [userTx.hash]);
        expect(BigInt(receipt.l1GasPrice!)).toBe(origin.baseFee);
        expect(BigInt(receipt.l1BlobBaseFee!)).toBe(origin.blobBaseFee);
        expect(BigInt(receipt.l1BaseFeeScalar!)).toBe(BigInt(init.basefeeScalar));
        expect(BigInt(receipt.l1BlobBaseFeeScalar!)).toBe(BigInt(init.blobbasefeeScalar));
        expect(BigInt(receipt.operatorFeeScalar!)).toBe(BigInt(info.operatorFeeScalar));
      }
      expect(BigInt(block.gasLimit)).toBe(attributes.gasLimit);
      expect(block.mixHash).toBe(bytesToHex(attributes.prevRandao));
      expect(block.parentBeaconBlockRoot).toBe(bytesToHex(attributes.parentBeaconBlockRoot!));
      expect(block.miner.toLowerCase()).toBe(bytesToHex(attributes.suggestedFeeRecipient));
      expect(isForkActive(rollup, OpFork.Jovian, timestamp)).toBe(true);
      const params = attributes.eip1559Params!;
      const view = new DataView(params.buffer, params.byteOffset, 8);
      expect(block.extraData).toBe(
        bytesToHex(
          encodeOpExtraData({
            denominator: BigInt(view.getUint32(0)),
            elasticity: BigInt(view.getUint32(4)),
            minBaseFee: attributes.minBaseFee!,
          }),
        ),
      );
      seq = newEpoch ? 0n : seq + 1n;
      expect(info.sequenceNumber).toBe(seq);
      parent = block;
      parentOrigin = origin;
    }
    expect(poolTxs).toBeGreaterThanOrEqual(3);

    // The changes took effect in the first block of their epoch, and not before.
    expect([...seenChange.keys()].sort()).toEqual([...changeBlocks].sort());
    const gasLimitFrom = seenChange.get(changeBlocks[0]!)!;
    expect(BigInt((await l2Block(gasLimitFrom - 1n)).gasLimit)).toBe(init.gasLimit);
    expect(BigInt((await l2Block(gasLimitFrom)).gasLimit)).toBe(45_000_000n);
    const eip1559From = seenChange.get(changeBlocks[1]!)!;
    const extra = (b: L2Block) => hexToBytes(b.extraData);
    const before = extra(await l2Block(eip1559From - 1n));
    const after = extra(await l2Block(eip1559From));
    expect(new DataView(before.buffer).getUint32(1)).toBe(init.eip1559Denominator);
    expect(new DataView(after.buffer).getUint32(1)).toBe(100);
    expect(new DataView(after.buffer).getUint32(5)).toBe(3);
    const operatorFrom = seenChange.get(changeBlocks[2]!)!;
    const infoAt = async (n: bigint) =>
      decodeL1InfoCalldata(hexToBytes((await l2Block(n)).transactions[0]!.input));
    expect((await infoAt(operatorFrom - 1n)).operatorFeeScalar).toBe(init.operatorFeeScalar);
    expect((await infoAt(operatorFrom)).operatorFeeScalar).toBe(7);
    expect((await infoAt(operatorFrom)).operatorFeeConstant).toBe(1_000n);
    expect(devAccount(0).address).toBe(init.owner);

    // The dev chain's L1Block and GasPriceOracle took the Jovian deposits: every L1 info deposit succeeded, and
    // the predeploys serve the values of the last one (the engine's operator fee formula is Jovian's).
    for (const n of [1n, head]) {
      const receipt = await call<{ status: Hex }>(node.url, "eth_getTransactionReceipt", [
        (await l2Block(n)).transactions[0]!.hash,
      ]);
      expect(receipt.status, `L1 info deposit of block ${n}`).toBe("0x1");
    }
    const at = `0x${head.toString(16)}`;
    const headInfo = await infoAt(head);
    const read = async (address: Hex, signature: string, args: Hex = "0x"): Promise<bigint> =>
      BigInt(
        await call<Hex>(node.url, "eth_call", [
          { to: address, data: `${toFunctionSelector(signature)}${args.slice(2)}` },
          at,
        ]),
      );
    const L1_BLOCK = "0x4200000000000000000000000000000000000015";
    const GPO = "0x420000000000000000000000000000000000000F";
    expect(await read(L1_BLOCK, "number()")).toBe(headInfo.number);
    expect(await read(L1_BLOCK, "sequenceNumber()")).toBe(headInfo.sequenceNumber);
    expect(await read(L1_BLOCK, "operatorFeeScalar()")).toBe(7n);
    expect(await read(L1_BLOCK, "operatorFeeConstant()")).toBe(1_000n);
    expect(await read(L1_BLOCK, "daFootprintGasScalar()")).toBe(BigInt(headInfo.daFootprintGasScalar));
    expect(headInfo.daFootprintGasScalar).toBe(400); // the system config's 0 reads as Jovian's default
    expect(await read(GPO, "isJovian()")).toBe(1n);
    expect(await read(GPO, "getOperatorFee(uint256)", pad(toHex(100_000n)))).toBe(
      100_000n * 7n * 100n + 1_000n,
    );
  }, 240_000);

  it("keeps flashblocks: 100 ms snapshots streamed per block from index 0, the pending block one block time ahead", async () => {
    const { node } = chain;
    const ws = new WebSocket(node.flashblocksUrl);
    const messages: {
      index: number;
      payload_id: string;
      diff: { transactions: Hex[] };
      metadata: { block_number: number };
    }[] = [];
    ws.on("message", (data) => messages.push(JSON.parse(String(data))));
    await new Promise((resolve, reject) => {
      ws.once("open", resolve);
      ws.once("error", reject);
    });
    try {
      await new Promise((r) => setTimeout(r, 4_000));
    } finally {
      ws.close();
    }
    const byBlock = new Map<number, typeof messages>();
    for (const m of messages)
      byBlock.set(m.metadata.block_number, [...(byBlock.get(m.metadata.block_number) ?? []), m]);
    const numbers = [...byBlock.keys()].sort((a, b) => a - b);
    const whole = numbers.slice(1, -1); // the first and last blocks may be cut by the window
    expect(whole.length).toBeGreaterThanOrEqual(2);
    for (const n of whole) {
      const ms = byBlock.get(n)!;
      expect(
        ms.map((m) => m.index),
        `block ${n}`,
      ).toEqual([...ms.keys()]);
      expect(ms.length, `block ${n} snapshots`).toBeGreaterThanOrEqual(5);
      expect(new Set(ms.map((m) => m.payload_id)).size).toBe(1);
      // Snapshot 0 opens with the block's L1 info deposit, the one the sealed block carries.
      const sealed = await l2Block(BigInt(n));
      expect(ms[0]!.diff.transactions[0]).toBe(
        await call<Hex>(node.url, "debug_getRawTransaction", [sealed.transactions[0]!.hash]),
      );
      expect(decodeL1InfoDeposit(hexToBytes(ms[0]!.diff.transactions[0]!)).number).toBe(
        decodeL1InfoCalldata(hexToBytes(sealed.transactions[0]!.input)).number,
      );
    }
    const [latest, pending] = await Promise.all([
      call<L2Block>(node.url, "eth_getBlockByNumber", ["latest", false]),
      call<L2Block>(node.url, "eth_getBlockByNumber", ["pending", false]),
    ]);
    if (pending.number !== latest.number) {
      expect(BigInt(pending.number)).toBe(BigInt(latest.number) + 1n);
      expect(BigInt(pending.timestamp)).toBe(BigInt(latest.timestamp) + chain.rollup.blockTime);
    }
  }, 60_000);
});
