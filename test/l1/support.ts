/**
 * Shared set-up of the L1 tests: an anvil with the L1 contracts deployed by development account 0, wallet clients
 * of the development accounts, and the conversion of JSON-RPC receipts to what src/derive reads.
 */
import {
  BaseError,
  ContractFunctionRevertedError,
  type Account,
  type Address,
  type Chain,
  createWalletClient,
  hexToBytes,
  http,
  type Log as ViemLog,
  type Transport,
  type WalletClient,
} from "viem";
import { mnemonicToAccount } from "viem/accounts";
import {
  deployL1Contracts,
  DEVNET_BATCH_INBOX,
  type L1Deployment,
  type SystemConfigInit,
} from "../../contracts/index.js";
import type { Log } from "../../src/chain/index.js";
import type { ReceiptLogs } from "../../src/derive/index.js";
import { type Anvil, type AnvilOptions, DEVNET_L1_MNEMONIC, startAnvil } from "../../src/devnet/l1/anvil.js";

export const devAccount = (index: number) => mnemonicToAccount(DEVNET_L1_MNEMONIC, { addressIndex: index });

export function walletOf(anvil: Anvil, index: number): WalletClient<Transport, Chain, Account> {
  return createWalletClient({
    account: devAccount(index),
    chain: anvil.chain,
    // anvil checks each blob's KZG proof on submission: on a loaded machine that can outlast viem's 10 s default.
    transport: http(anvil.rpcUrl, { timeout: 60_000 }),
  });
}

/** A system config like the devnet's: account 0 owns it, account 3 batches, account 4 signs unsafe blocks. */
export function testSystemConfig(): SystemConfigInit {
  return {
    owner: devAccount(0).address,
    batcher: devAccount(3).address,
    basefeeScalar: 1368,
    blobbasefeeScalar: 810949,
    gasLimit: 30_000_000n,
    unsafeBlockSigner: devAccount(4).address,
    eip1559Denominator: 250,
    eip1559Elasticity: 6,
    operatorFeeScalar: 0,
    operatorFeeConstant: 0n,
    minBaseFee: 0n,
    daFootprintGasScalar: 0,
    batchInbox: DEVNET_BATCH_INBOX,
  };
}

/** Starts anvil (automatic mining unless told otherwise) and deploys the L1 contracts from account 0. */
export async function startL1(
  options: AnvilOptions = {},
): Promise<{ anvil: Anvil; deployment: L1Deployment }> {
  const anvil = await startAnvil({ mining: { mode: "auto" }, ...options });
  try {
    const deployment = await deployL1Contracts(
      { publicClient: anvil.client, walletClient: walletOf(anvil, 0) },
      { systemConfig: testSystemConfig(), pollingIntervalMs: 50 },
    );
    return { anvil, deployment };
  } catch (e) {
    await anvil.stop();
    throw e;
  }
}

/** A JSON-RPC log as src/chain's Log. */
export function chainLog(log: Pick<ViemLog, "address" | "topics" | "data">): Log {
  return {
    address: hexToBytes(log.address),
    topics: log.topics.map((t) => hexToBytes(t)),
    data: hexToBytes(log.data),
  };
}

/** Every receipt of an L1 block, in order, as src/derive reads them (status and logs). */
export async function blockReceiptLogs(anvil: Anvil, blockHash: `0x${string}`): Promise<ReceiptLogs[]> {
  const receipts = await anvil.request<{ status: `0x${string}`; logs: ViemLog[] }[]>("eth_getBlockReceipts", [
    blockHash,
  ]);
  return receipts.map((r) => ({ status: Number(r.status), logs: r.logs.map(chainLog) }));
}

export function addressBytes(address: Address): Uint8Array {
  return hexToBytes(address);
}

/**
 * The custom error name a simulated call reverts with; undefined when it succeeds. Other failures are rethrown.
 */
export async function revertName(call: Promise<unknown>): Promise<string | undefined> {
  try {
    await call;
    return undefined;
  } catch (e) {
    const reverted =
      e instanceof BaseError ? e.walk((x) => x instanceof ContractFunctionRevertedError) : null;
    if (reverted instanceof ContractFunctionRevertedError && reverted.data?.errorName !== undefined) {
      return reverted.data.errorName;
    }
    throw e;
  }
}
