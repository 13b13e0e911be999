/**
 * Deploying the committed artifacts through viem clients (any JSON-RPC node): used by the dev
 * chain's main job (the token) and by tests (the prover registry, the EIP-1271 wallet).
 */
import type { Account, Address, Chain, Hash, PublicClient, Transport, WalletClient } from "viem";
import { type ContractName, loadArtifact } from "./artifacts.js";
import { ContractsError } from "./errors.js";

export interface DeployClients {
  publicClient: Pick<PublicClient, "waitForTransactionReceipt" | "getCode">;
  walletClient: WalletClient<Transport, Chain | undefined, Account>;
}

export interface Deployment {
  contractName: ContractName;
  address: Address;
  transactionHash: Hash;
  blockNumber: bigint;
}

/** The creation transaction failed or left no code at the address. */
export class ContractDeploymentError extends ContractsError {
  constructor(
    readonly contractName: ContractName,
    readonly transactionHash: Hash,
    reason: string,
  ) {
    super(`deploying ${contractName} (${transactionHash}) failed: ${reason}`, "deployment-failed", {
      contractName,
      transactionHash,
      reason,
    });
  }
}

/** Sends the creation transaction, waits for its receipt and checks that code was stored. */
export async function deployArtifact(
  clients: DeployClients,
  contractName: ContractName,
  args: readonly unknown[],
  options: { pollingIntervalMs?: number; timeoutMs?: number } = {},
): Promise<Deployment> {
  const { abi, bytecode } = loadArtifact(contractName);
  const transactionHash = await clients.walletClient.deployContract({
    abi,
    bytecode,
    args,
    account: clients.walletClient.account,
    chain: clients.walletClient.chain,
  } as Parameters<DeployClients["walletClient"]["deployContract"]>[0]);
  const receipt = await clients.publicClient.waitForTransactionReceipt({
    hash: transactionHash,
    ...(options.pollingIntervalMs === undefined ? {} : { pollingInterval: options.pollingIntervalMs }),
    ...(options.timeoutMs === undefined ? {} : { timeout: options.timeoutMs }),
  });
  if (
    receipt.status !== "success" ||
    receipt.contractAddress === null ||
    receipt.contractAddress === undefined
  ) {
    throw new ContractDeploymentError(contractName, transactionHash, `receipt status ${receipt.status}`);
  }
  // "pending": a flashblocks node answers with the pre-confirmed receipt before the block is sealed, so the
  // code is visible in the pending state first; on any other node pending includes the mined block too.
  const code = await clients.publicClient.getCode({ address: receipt.contractAddress, blockTag: "pending" });
  if (code === undefined || code === "0x") {
    throw new ContractDeploymentError(contractName, transactionHash, "no code at the created address");
  }
  return {
    contractName,
    address: receipt.contractAddress,
    transactionHash,
    blockNumber: receipt.blockNumber,
  };
}
