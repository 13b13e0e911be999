/**
 * Deposits through the DepositPortal, made with viem's OP Stack actions, derived with src/derive: the derived
 * deposit transaction hashes are viem's L2 hashes; a contract caller is aliased, an EIP-7702 delegated EOA is not;
 * mint is msg.value; the portal refuses a gas limit below its minimum and a creation with a target.
 */
import {
  type Address,
  type Hex,
  bytesToHex,
  concat,
  defineChain,
  encodeFunctionData,
  keccak256,
  parseEther,
  toHex,
} from "viem";
import { buildDepositTransaction, depositTransaction, getL2TransactionHashes } from "viem/op-stack";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { depositPortalAbi, type L1Deployment } from "../../contracts/index.js";
import { decodeDepositLog, deriveUserDeposits, TRANSACTION_DEPOSITED_TOPIC } from "../../src/derive/index.js";
import type { Anvil } from "../../src/devnet/l1/anvil.js";
import {
  addressBytes,
  blockReceiptLogs,
  chainLog,
  devAccount,
  revertName,
  startL1,
  walletOf,
} from "./support.js";

let anvil: Anvil;
let deployment: L1Deployment;
beforeAll(async () => {
  ({ anvil, deployment } = await startL1());
});
afterAll(async () => {
  await anvil?.stop();
});

/** The L2 as viem's OP Stack actions see it: its portal on the L1 (chain 900) is our DepositPortal. */
function l2Chain() {
  return defineChain({
    id: 901,
    name: "devnet L2",
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: ["http://127.0.0.1:8545"] } },
    contracts: { portal: { [anvil.chainId]: { address: deployment.depositPortal } } },
  });
}

/** The L1-to-L2 alias: address + 0x1111000000000000000000000000000000001111 modulo 2^160. */
function alias(address: Address): Hex {
  const sum = (BigInt(address) + 0x1111000000000000000000000000000000001111n) % 2n ** 160n;
  return toHex(sum, { size: 20 });
}

/**
 * A forwarder written in bytecode: its runtime code calls the portal with its own calldata and call value and
 * reverts when that call fails. Runtime (40 bytes): CALLDATASIZE PUSH0 PUSH0 CALLDATACOPY; PUSH0 PUSH0
 * CALLDATASIZE PUSH0 CALLVALUE PUSH20 <portal> GAS CALL; PUSH1 0x26 JUMPI; PUSH0 PUSH0 REVERT; JUMPDEST STOP.
 * Init code (10 bytes): CODECOPY the runtime to memory 0 and RETURN it.
 */
function forwarderInitCode(portal: Address): Hex {
  const code = concat(["0x365f5f375f5f365f3473", portal, "0x5af16026575f5ffd5b00"]);
  expect((code.length - 2) / 2).toBe(40);
  return concat(["0x6028600a5f3960285ff3", code]);
}

/** The derived deposits of a receipt's L1 block, their hashes, and the decoded deposits of the portal's logs. */
async function derive(blockHash: Hex) {
  const receipts = await blockReceiptLogs(anvil, blockHash);
  const encoded = deriveUserDeposits(receipts, addressBytes(deployment.depositPortal), bytesOf(blockHash));
  let logIndex = 0n;
  const decoded = [];
  for (const receipt of receipts) {
    for (const log of receipt.logs) {
      const index = logIndex++;
      if (bytesToHex(log.topics[0]!) !== bytesToHex(TRANSACTION_DEPOSITED_TOPIC)) continue;
      decoded.push(decodeDepositLog(log, bytesOf(blockHash), index));
    }
  }
  return { hashes: encoded.map((tx) => keccak256(tx)), decoded };
}

function bytesOf(hex: Hex): Uint8Array {
  return Uint8Array.from(Buffer.from(hex.slice(2), "hex"));
}

describe("deposits through the DepositPortal", () => {
  it("a viem deposit derives to the deposit transaction whose hash is viem's L2 hash; mint = msg.value", async () => {
    const sender = devAccount(5);
    const wallet = walletOf(anvil, 5);
    const recipient = devAccount(6).address;
    const args = await buildDepositTransaction(anvil.client, {
      account: sender,
      chain: l2Chain(),
      to: recipient,
      value: parseEther("0.25"),
      mint: parseEther("1"),
      gas: 100_000n,
      data: "0x1234",
    });
    const hash = await depositTransaction(wallet, args);
    const receipt = await anvil.client.waitForTransactionReceipt({ hash, pollingInterval: 50 });
    expect(receipt.status).toBe("success");
    const viemHashes = getL2TransactionHashes(receipt);
    expect(viemHashes).toHaveLength(1);

    const { hashes, decoded } = await derive(receipt.blockHash);
    expect(hashes).toEqual(viemHashes);
    const [deposit] = decoded;
    expect(bytesToHex(deposit!.from)).toBe(sender.address.toLowerCase());
    expect(bytesToHex(deposit!.to!)).toBe(recipient.toLowerCase());
    expect(deposit!.mint).toBe(parseEther("1"));
    expect(deposit!.value).toBe(parseEther("0.25"));
    expect(deposit!.gasLimit).toBe(100_000n);
    expect(bytesToHex(deposit!.data)).toBe("0x1234");
    // The minted ETH stays locked in the portal on L1.
    expect(await anvil.client.getBalance({ address: deployment.depositPortal })).toBe(parseEther("1"));
  });

  it("a contract caller's deposit is from its alias; an EIP-7702 delegated EOA's is not", async () => {
    const deployer = walletOf(anvil, 7);
    const created = await deployer.sendTransaction({ data: forwarderInitCode(deployment.depositPortal) });
    const forwarder = (await anvil.client.waitForTransactionReceipt({ hash: created, pollingInterval: 50 }))
      .contractAddress!;
    const call = encodeFunctionData({
      abi: depositPortalAbi,
      functionName: "depositTransaction",
      args: [devAccount(6).address, 0n, 50_000n, false, "0x"],
    });

    const viaContract = await deployer.sendTransaction({ to: forwarder, data: call, value: 123n });
    const receipt = await anvil.client.waitForTransactionReceipt({ hash: viaContract, pollingInterval: 50 });
    expect(receipt.status).toBe("success");
    const { hashes, decoded } = await derive(receipt.blockHash);
    expect(hashes).toEqual(getL2TransactionHashes(receipt));
    expect(bytesToHex(decoded[0]!.from)).toBe(alias(forwarder).toLowerCase());
    expect(decoded[0]!.mint).toBe(123n);

    // Account 8 delegates its code to the forwarder (EIP-7702); account 7 calls account 8, which calls the portal:
    // msg.sender (account 8) is not tx.origin, but its code is a delegation designator, so it counts as an EOA.
    const eoa = devAccount(8);
    const authorization = await walletOf(anvil, 8).signAuthorization({
      account: eoa,
      contractAddress: forwarder,
    });
    const viaDelegation = await deployer.sendTransaction({
      to: eoa.address,
      data: call,
      value: 7n,
      authorizationList: [authorization],
    });
    const delegated = await anvil.client.waitForTransactionReceipt({
      hash: viaDelegation,
      pollingInterval: 50,
    });
    expect(delegated.status).toBe("success");
    expect(await anvil.client.getCode({ address: eoa.address })).toBe(
      concat(["0xef0100", forwarder]).toLowerCase(),
    );
    const fromDelegated = await derive(delegated.blockHash);
    expect(fromDelegated.hashes).toEqual(getL2TransactionHashes(delegated));
    expect(bytesToHex(fromDelegated.decoded[0]!.from)).toBe(eoa.address.toLowerCase());
    expect(fromDelegated.decoded[0]!.mint).toBe(7n);
  });

  it("a creation deposit has no target; the derived log matches the event's opaque data byte for byte", async () => {
    const wallet = walletOf(anvil, 5);
    const initCode: Hex = "0x600160005260206000f3";
    const hash = await wallet.writeContract({
      address: deployment.depositPortal,
      abi: depositPortalAbi,
      functionName: "depositTransaction",
      args: ["0x0000000000000000000000000000000000000000", 0n, 60_000n, true, initCode],
    });
    const receipt = await anvil.client.waitForTransactionReceipt({ hash, pollingInterval: 50 });
    const { hashes, decoded } = await derive(receipt.blockHash);
    expect(hashes).toEqual(getL2TransactionHashes(receipt));
    expect(decoded[0]!.to).toBeUndefined();
    expect(bytesToHex(decoded[0]!.data)).toBe(initCode);
    // opaqueData = mint (32) ‖ value (32) ‖ gasLimit (8) ‖ isCreation (1) ‖ data, ABI-wrapped as `bytes`.
    const log = chainLog(receipt.logs[0]!);
    expect(bytesToHex(log.data.slice(64, 64 + 73))).toBe(
      concat([toHex(0n, { size: 32 }), toHex(0n, { size: 32 }), toHex(60_000n, { size: 8 }), "0x01"]),
    );
  });

  it("refuses a gas limit below 21000 + 40 per data byte, and a creation with a target", async () => {
    const sender = devAccount(5).address;
    const minimum = await anvil.client.readContract({
      address: deployment.depositPortal,
      abi: depositPortalAbi,
      functionName: "minimumGasLimit",
      args: [4n],
    });
    expect(minimum).toBe(21_160n);
    const refusal = (args: readonly [Address, bigint, bigint, boolean, Hex]) =>
      revertName(
        anvil.client.simulateContract({
          account: sender,
          address: deployment.depositPortal,
          abi: depositPortalAbi,
          functionName: "depositTransaction",
          args,
        }),
      );
    expect(await refusal([sender, 0n, 21_159n, false, "0x01020304"])).toBe("GasLimitTooLow");
    expect(await refusal([sender, 0n, 21_160n, false, "0x01020304"])).toBeUndefined();
    expect(await refusal([sender, 0n, 100_000n, true, "0x00"])).toBe("BadTarget");
  });
});
