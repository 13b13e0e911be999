/**
 * User deposits on an L1-backed chain (docs/node/l1.md "L1 mode"): deposits made on anvil with viem's OP Stack
 * actions (`viem/op-stack`: buildDepositTransaction on L2, depositTransaction on L1 against the DepositPortal,
 * getL2TransactionHashes from the L1 receipt) arrive on L2 under that hash, with the mint, value and sender the
 * portal's event states: an EOA's own address, a contract's L1→L2 alias. A deposit whose L2 call reverts still
 * mints: the sender is credited and the receipt's status is 0. A read replica of the L1-backed node (`--follow`
 * with the same rollup config and L1) holds the same blocks, the deposits' blocks included, re-executed from the
 * leader's flashblocks and raw blocks.
 */
import solc from "solc";
import { type Address, type Hex, parseEther, parseGwei } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { buildDepositTransaction, depositTransaction, getL2TransactionHashes } from "viem/op-stack";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { walletOf } from "../l1/support.js";
import { call, hexNumber, waitFor } from "./helpers.js";
import { type L1Chain, startL1Chain } from "./l1-chain.js";
import { type NodeProcess, startNodeProcess } from "./spawn-node.js";

let chain: L1Chain;
let replica: NodeProcess;
/** L2 blocks holding the deposits the tests made. */
const depositBlocks: bigint[] = [];

beforeAll(async () => {
  chain = await startL1Chain({ blockTime: 1, confirmations: 1 });
  replica = await startNodeProcess({
    l1: { rpcUrl: chain.l1.anvil.rpcUrl, rollupConfigPath: chain.rollupPath },
    extraArgs: ["--follow", chain.node.wsUrl],
    callWorkers: 1,
    startTimeoutMs: 60_000,
  });
}, 120_000);

afterAll(async () => {
  await replica?.stop();
  await chain?.stop();
});

const ALIAS_OFFSET = 0x1111000000000000000000000000000000001111n;
const L1_BLOCK: Address = "0x4200000000000000000000000000000000000015";

function alias(address: Address): Address {
  const aliased = (BigInt(address) + ALIAS_OFFSET) % (1n << 160n);
  return `0x${aliased.toString(16).padStart(40, "0")}`;
}

interface DepositTx {
  hash: Hex;
  type: Hex;
  from: Address;
  to: Address | null;
  value: Hex;
  mint: Hex;
  sourceHash: Hex;
  blockNumber: Hex | null;
}

/** Waits until the L2 has sealed a block with `hash` and returns the transaction and its receipt. */
async function l2Arrival(
  hash: Hex,
): Promise<{ tx: DepositTx; status: "success" | "reverted"; block: bigint }> {
  const l2 = chain.l2;
  const deadline = Date.now() + 90_000;
  for (;;) {
    const receipt = await l2.getTransactionReceipt({ hash }).catch(() => undefined);
    if (receipt !== undefined && (await l2.getBlockNumber({ cacheTime: 0 })) >= receipt.blockNumber) {
      const tx = await l2.request({ method: "eth_getTransactionByHash" as never, params: [hash] as never });
      return { tx: tx as unknown as DepositTx, status: receipt.status, block: receipt.blockNumber };
    }
    if (Date.now() > deadline)
      throw new Error(`deposit ${hash} did not arrive on L2\n${chain.node.output().slice(-3000)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** A contract that deposits through the portal: its deposits are sent from its L2 alias. */
function forwarderCode(): Hex {
  const source = `// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;
interface IPortal {
    function depositTransaction(address to, uint256 value, uint64 gasLimit, bool isCreation, bytes memory data) external payable;
}
contract Forwarder {
    function deposit(address portal, address to, uint256 value, uint64 gasLimit) external payable {
        IPortal(portal).depositTransaction{value: msg.value}(to, value, gasLimit, false, "");
    }
}`;
  const output = JSON.parse(
    solc.compile(
      JSON.stringify({
        language: "Solidity",
        sources: { "Forwarder.sol": { content: source } },
        settings: { evmVersion: "cancun", outputSelection: { "*": { "*": ["evm.bytecode.object"] } } },
      }),
    ),
  ) as { contracts: Record<string, Record<string, { evm: { bytecode: { object: string } } }>> };
  return `0x${output.contracts["Forwarder.sol"]!.Forwarder!.evm.bytecode.object}`;
}

const forwarderAbi = [
  {
    type: "function",
    name: "deposit",
    stateMutability: "payable",
    inputs: [
      { name: "portal", type: "address" },
      { name: "to", type: "address" },
      { name: "value", type: "uint256" },
      { name: "gasLimit", type: "uint64" },
    ],
    outputs: [],
  },
] as const;

describe("deposits on the L1-backed chain", () => {
  it("an EOA's deposit made with viem's OP Stack actions arrives with its hash, mint, value and sender", async () => {
    const { l1, l2 } = chain;
    const portal = l1.deployment.depositPortal;
    const l1Wallet = walletOf(l1.anvil, 5);
    const recipient = privateKeyToAccount(generatePrivateKey()).address;
    const mint = parseEther("2");
    const value = parseEther("0.5");
    const senderBefore = await l2.getBalance({ address: l1Wallet.account.address });
    // With a mint, viem estimates the L2 gas from the zero address, which cannot send `value`: the gas is given.
    const args = await buildDepositTransaction(l2, {
      account: l1Wallet.account,
      gas: 50_000n,
      mint,
      to: recipient,
      value,
      chain: l2.chain,
    });
    const l1Hash = await depositTransaction(l1Wallet, {
      request: args.request,
      account: l1Wallet.account,
      portalAddress: portal,
      chain: l1.anvil.chain,
    });
    const l1Receipt = await l1.anvil.client.waitForTransactionReceipt({ hash: l1Hash, pollingInterval: 100 });
    expect(l1Receipt.status).toBe("success");
    const [l2Hash] = getL2TransactionHashes(l1Receipt);
    expect(l2Hash).toBeDefined();

    const { tx, status, block } = await l2Arrival(l2Hash!);
    depositBlocks.push(block);
    expect(tx.type).toBe("0x7e");
    expect(tx.hash).toBe(l2Hash);
    expect(tx.from.toLowerCase()).toBe(l1Wallet.account.address.toLowerCase());
    expect(tx.to?.toLowerCase()).toBe(recipient.toLowerCase());
    expect(BigInt(tx.mint)).toBe(mint);
    expect(BigInt(tx.value)).toBe(value);
    expect(status).toBe("success");
    expect(await l2.getBalance({ address: recipient })).toBe(value);
    // Deposits pay no L2 gas: the sender gains the mint less the value it sent on.
    expect(await l2.getBalance({ address: l1Wallet.account.address })).toBe(senderBefore + mint - value);
  }, 120_000);

  it("a contract's deposit is sent from its alias; a deposit whose call reverts still mints", async () => {
    const { l1, l2 } = chain;
    const portal = l1.deployment.depositPortal;
    const l1Wallet = walletOf(l1.anvil, 6);
    const deployHash = await l1Wallet.deployContract({ abi: forwarderAbi, bytecode: forwarderCode() });
    const deployed = await l1.anvil.client.waitForTransactionReceipt({
      hash: deployHash,
      pollingInterval: 100,
    });
    const forwarder = deployed.contractAddress!;
    const aliased = alias(forwarder);
    const recipient = privateKeyToAccount(generatePrivateKey()).address;

    const viaContract = await l1Wallet.writeContract({
      address: forwarder,
      abi: forwarderAbi,
      functionName: "deposit",
      args: [portal, recipient, parseEther("0.25"), 100_000n],
      value: parseEther("1"),
    });
    // A call that reverts on L2: L1Block refuses anyone but the depositor account.
    const reverting = await depositTransaction(l1Wallet, {
      request: { gas: 200_000n, mint: parseEther("3"), to: L1_BLOCK, value: 0n, data: "0x3db6be2b" },
      portalAddress: portal,
      account: l1Wallet.account,
      chain: l1.anvil.chain,
      maxFeePerGas: parseGwei("50"),
    });
    const revertingSender = l1Wallet.account.address;

    const receiptA = await l1.anvil.client.waitForTransactionReceipt({
      hash: viaContract,
      pollingInterval: 100,
    });
    const receiptB = await l1.anvil.client.waitForTransactionReceipt({
      hash: reverting,
      pollingInterval: 100,
    });
    const [hashA] = getL2TransactionHashes(receiptA);
    const [hashB] = getL2TransactionHashes(receiptB);

    const a = await l2Arrival(hashA!);
    depositBlocks.push(a.block);
    expect(a.tx.from.toLowerCase()).toBe(aliased.toLowerCase());
    expect(BigInt(a.tx.mint)).toBe(parseEther("1"));
    expect(BigInt(a.tx.value)).toBe(parseEther("0.25"));
    expect(a.status).toBe("success");
    expect(await l2.getBalance({ address: recipient })).toBe(parseEther("0.25"));
    expect(await l2.getBalance({ address: aliased })).toBe(parseEther("0.75"));

    const b = await l2Arrival(hashB!);
    depositBlocks.push(b.block);
    expect(b.tx.from.toLowerCase()).toBe(revertingSender.toLowerCase());
    expect(b.tx.to?.toLowerCase()).toBe(L1_BLOCK.toLowerCase());
    expect(BigInt(b.tx.mint)).toBe(parseEther("3"));
    expect(b.status).toBe("reverted");
    // The mint stays credited although the call failed (the sender sent nothing else on L2 meanwhile).
    const before = await l2.getBalance({ address: revertingSender, blockNumber: b.block - 1n });
    expect(await l2.getBalance({ address: revertingSender, blockNumber: b.block })).toBe(
      before + parseEther("3"),
    );
  }, 120_000);

  it("a read replica (--follow, same rollup config) holds the same blocks, the deposits' included", async () => {
    expect(depositBlocks.length).toBe(3);
    const last = depositBlocks.reduce((a, b) => (a > b ? a : b)) + 1n;
    const blockAt = (url: string, n: bigint) => async () =>
      (await call<{ hash: string } | null>(url, "eth_getBlockByNumber", [hexNumber(n), false])) ?? undefined;
    await waitFor(blockAt(chain.node.url, last), `the leader's block ${last}`, 30_000, 100);
    await waitFor(blockAt(replica.url, last), `the replica's block ${last}`, 60_000, 100);
    for (let n = 0n; n <= last; n++) {
      const [a, b] = await Promise.all([blockAt(chain.node.url, n)(), blockAt(replica.url, n)()]);
      expect(b?.hash, `block ${n}`).toBe(a?.hash);
    }
    for (const n of depositBlocks) {
      const params = [hexNumber(n)];
      const [a, b] = await Promise.all([
        call(chain.node.url, "eth_getBlockReceipts", params),
        call(replica.url, "eth_getBlockReceipts", params),
      ]);
      expect(b).toEqual(a);
    }
    expect(replica.process.exitCode).toBeNull();
  }, 120_000);
});
