/**
 * Standard clients other than viem against a real node process: ethers v6 (HTTP and websocket
 * providers, a wallet, a contract factory) and Foundry's cast (the released binary from
 * @foundry-rs/cast). Each reads blocks and balances at every tag, `pending` included, sends
 * transactions and sees them pre-confirmed before they are sealed.
 */
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { Contract, ContractFactory, JsonRpcProvider, Wallet, WebSocketProvider, isError } from "ethers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadArtifact } from "../../contracts/artifacts.js";
import { call, waitFor } from "./helpers.js";
import { type NodeProcess, startNodeProcess } from "./spawn-node.js";

const CAST = fileURLToPath(new URL("../../node_modules/.bin/cast", import.meta.url));
const run = promisify(execFile);

let node: NodeProcess;
beforeAll(async () => {
  node = await startNodeProcess({ blockTimeMs: 1000, flashblockIntervalMs: 100 });
}, 60_000);
afterAll(async () => {
  await node?.stop();
});

/** A fresh address (no history) to send to. */
const freshAddress = (): string => Wallet.createRandom().address;

const latestNumber = async (): Promise<number> =>
  Number.parseInt(await call<string>(node.url, "eth_blockNumber", []), 16);

describe("ethers v6", () => {
  let provider: JsonRpcProvider;
  beforeAll(() => {
    // No response cache: every read goes to the node (pending changes every 100 ms here).
    provider = new JsonRpcProvider(node.url, undefined, { cacheTimeout: -1, pollingInterval: 100 });
  });
  afterAll(() => provider?.destroy());

  it("reads the network and blocks at every tag; pending is the block being built", async () => {
    expect((await provider.getNetwork()).chainId).toBe(BigInt(node.chainId));
    const head = await waitFor(async () => {
      const n = await provider.getBlockNumber();
      return n >= 2 ? n : undefined;
    }, "block 2");
    for (const tag of ["latest", "safe", "finalized", "earliest"] as const) {
      const block = await provider.getBlock(tag);
      expect(block?.hash, tag).toMatch(/^0x[0-9a-f]{64}$/);
    }
    expect((await provider.getBlock("earliest"))?.number).toBe(0);
    const pending = await provider.getBlock("pending");
    expect(pending?.number).toBeGreaterThan(head);
    expect(pending?.hash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(pending?.miner).toBe("0x4200000000000000000000000000000000000011");
    const byNumber = await provider.getBlock(head);
    expect(byNumber?.number).toBe(head);
    expect(byNumber?.parentHash).toBe((await provider.getBlock(head - 1))?.hash);
  });

  it("sends a transfer and sees it pre-confirmed: pending balance, pending nonce, full pending block", async () => {
    const wallet = new Wallet(node.accounts[1]!.privateKey, provider);
    const to = freshAddress();
    const fees = await provider.getFeeData();
    expect(fees.maxFeePerGas).toBeGreaterThan(0n);
    expect(await provider.estimateGas({ from: wallet.address, to, value: 5n })).toBe(21000n);
    const tx = await wallet.sendTransaction({ to, value: 1234n });
    await waitFor(
      async () => ((await provider.getBalance(to, "pending")) === 1234n ? true : undefined),
      "the pre-confirmed balance",
    );
    expect(await provider.getTransactionCount(wallet.address, "pending")).toBe(tx.nonce + 1);
    const pending = await provider.getBlock("pending", true);
    // Either still pre-confirmed in the pending block, or already sealed.
    const preconfirmed = pending?.prefetchedTransactions.some((t) => t.hash === tx.hash) ?? false;
    const receipt = await tx.wait();
    expect(receipt?.status).toBe(1);
    if (preconfirmed) expect(receipt?.blockNumber).toBe(pending?.number);
    await waitFor(
      async () => ((await provider.getBalance(to, "latest")) === 1234n ? true : undefined),
      "sealed",
    );
    expect((await provider.getTransaction(tx.hash))?.blockNumber).toBe(receipt?.blockNumber);
  });

  it("deploys a contract, reads it at pending, and decodes a revert reason", async () => {
    const wallet = new Wallet(node.accounts[2]!.privateKey, provider);
    const { abi, bytecode } = loadArtifact("Eip3009Token");
    const factory = new ContractFactory(abi as never, bytecode, wallet);
    const deployed = await factory.deploy("Dev USD", "DUSD", wallet.address);
    await deployed.waitForDeployment();
    const token = new Contract(await deployed.getAddress(), abi as never, wallet);
    expect(await token.getFunction("name")({ blockTag: "pending" })).toBe("Dev USD");
    expect(await token.getFunction("owner")({ blockTag: "pending" })).toBe(wallet.address);
    // At pending: waitForDeployment returns at pre-confirmation, before latest has the code.
    const failure = await token
      .getFunction("transfer")
      .staticCall(freshAddress(), 10n ** 30n, { blockTag: "pending" })
      .catch((error: unknown) => error);
    expect(isError(failure, "CALL_EXCEPTION")).toBe(true);
    expect((failure as { reason: string }).reason).toBe("ERC20: transfer amount exceeds balance");
  });

  it("websocket provider: block events and pending transaction hashes", async () => {
    const ws = new WebSocketProvider(node.wsUrl);
    try {
      expect((await ws.getNetwork()).chainId).toBe(BigInt(node.chainId));
      const blocks: number[] = [];
      const hashes: string[] = [];
      await ws.on("block", (n: number) => blocks.push(n));
      await ws.on("pending", (hash: string) => hashes.push(hash));
      const wallet = new Wallet(node.accounts[3]!.privateKey, provider);
      // The subscriptions are live once a block event arrives.
      await waitFor(async () => (blocks.length > 0 ? true : undefined), "a block event", 10_000);
      const tx = await wallet.sendTransaction({ to: freshAddress(), value: 1n });
      await waitFor(async () => (hashes.includes(tx.hash) ? true : undefined), "the pending hash", 10_000);
      await waitFor(async () => (blocks.length >= 2 ? true : undefined), "a second block", 10_000);
      expect(blocks[1]).toBe(blocks[0]! + 1);
    } finally {
      await ws.destroy();
    }
  });
});

describe("cast (Foundry 1.7)", () => {
  const cast = async (...args: string[]): Promise<string> =>
    (await run(CAST, [...args, "--rpc-url", node.url], { timeout: 30_000 })).stdout.trim();

  it("chain-id, block-number, client", async () => {
    expect(await cast("chain-id")).toBe(String(node.chainId));
    expect(Number(await cast("block-number"))).toBeGreaterThan(0);
    expect(await cast("client")).toMatch(/^op-enclave-suite-node\/\d+\.\d+\.\d+$/);
  });

  it("block at every tag as JSON; pending has a number and hash and is ahead of latest", async () => {
    for (const tag of ["latest", "safe", "finalized", "earliest", "1"]) {
      const block = JSON.parse(await cast("block", tag, "--json")) as Record<string, string>;
      expect(block.hash, tag).toMatch(/^0x[0-9a-f]{64}$/);
      expect(block.stateRoot, tag).toMatch(/^0x[0-9a-f]{64}$/);
    }
    const before = await latestNumber();
    const pending = JSON.parse(await cast("block", "pending", "--json")) as Record<string, string>;
    expect(Number(pending.number)).toBeGreaterThan(before);
    expect(pending.hash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(Number(await cast("block", "pending", "--field", "gasUsed"))).toBeGreaterThan(0);
  });

  it("send: the receipt comes back pre-confirmed, the balance shows at pending before latest", async () => {
    const to = freshAddress();
    const sent = JSON.parse(
      await cast("send", to, "--value", "4321", "--private-key", node.accounts[4]!.privateKey, "--json"),
    ) as { status: string; blockNumber: string; transactionHash: string };
    expect(sent.status).toBe("0x1");
    const receiptBlock = Number(sent.blockNumber);
    // Still unsealed right after the pre-confirmed receipt: pending has it, latest does not yet.
    if ((await latestNumber()) < receiptBlock) {
      expect(await cast("balance", to, "--block", "pending")).toBe("4321");
    }
    await waitFor(
      async () => ((await latestNumber()) >= receiptBlock ? true : undefined),
      "the block sealed",
    );
    expect(await cast("balance", to)).toBe("4321");
    const receipt = JSON.parse(await cast("receipt", sent.transactionHash, "--json")) as Record<
      string,
      string
    >;
    expect(receipt.blockNumber).toBe(sent.blockNumber);
    expect(await cast("nonce", node.accounts[4]!.address)).toBe("1");
  });

  it("call and estimate against a system contract", async () => {
    // L1Block predeploy: the L1 attributes of the latest block.
    const l1Block = "0x4200000000000000000000000000000000000015";
    // cast prints large numbers with their scientific form: "1234 [1.234e3]".
    expect(Number((await cast("call", l1Block, "number()(uint64)")).split(" ")[0])).toBeGreaterThan(0);
    expect(await cast("call", "--block", "pending", l1Block, "version()(string)")).toMatch(/^"\d+\.\d+\.\d+/);
    expect(await cast("estimate", freshAddress(), "--value", "1", "--from", node.accounts[5]!.address)).toBe(
      "21000",
    );
  });

  it("proof and access-list", async () => {
    // Past genesis: the L1 attributes deposit has written L1Block's storage.
    await waitFor(async () => ((await latestNumber()) >= 1 ? true : undefined), "block 1");
    const l1Block = "0x4200000000000000000000000000000000000015";
    const proof = JSON.parse(await cast("proof", l1Block, "1")) as {
      storageHash: string;
      accountProof: string[];
      storageProof: { key: string; proof: string[] }[];
    };
    expect(proof.accountProof.length).toBeGreaterThan(0);
    expect(proof.storageProof[0]!.key).toBe(`0x${"0".repeat(63)}1`);
    expect(proof.storageProof[0]!.proof.length).toBeGreaterThan(0);
    const accessList = await cast("access-list", l1Block, "basefee()");
    expect(accessList).toMatch(/^gas used: \d+/);
    expect(accessList).toContain(`address: ${l1Block}`);
    expect(accessList).toContain(`0x${"0".repeat(63)}1`);
  });

  it("rpc passes raw params through: eth_feeHistory with a decimal block count", async () => {
    await waitFor(async () => ((await latestNumber()) >= 4 ? true : undefined), "four sealed blocks");
    const history = JSON.parse(await cast("rpc", "eth_feeHistory", "4", "latest", "[50]")) as {
      baseFeePerGas: string[];
      reward: string[][];
    };
    expect(history.baseFeePerGas).toHaveLength(5);
    expect(history.reward).toHaveLength(4);
    expect(await cast("base-fee")).toMatch(/^\d+$/);
  });
});
