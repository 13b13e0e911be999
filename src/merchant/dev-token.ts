/**
 * A development token for local chains: deploys the committed Eip3009Token artifact (owner = the
 * given key) through contracts/deploy.ts and optionally mints. Used by `merchant-cli deploy-token`
 * and meant for a main job that starts the chain node, a token and the merchant service together.
 */
import type { Address, Hex, PublicClient, TransactionReceipt } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { deployArtifact, eip3009TokenAbi } from "../../contracts/index.js";
import { signingClients } from "./chain-clients.js";
import { TransactionNotSealedError } from "./errors.js";

export interface DevTokenOptions {
  /** Token name (the EIP-712 domain name); default "Dev USD". */
  name?: string;
  mint?: { to: Address; amount: bigint };
}

export interface DevToken {
  token: Address;
  owner: Address;
  minted: string;
}

/**
 * Waits until a sealed block lists the transaction: nodes with a pre-confirmed view (flashblocks)
 * answer receipts before the block is sealed, when "latest" state does not show the effects yet.
 */
export async function sealedReceipt(
  publicClient: PublicClient,
  hash: Hex,
  timeoutMs = 120_000,
): Promise<TransactionReceipt> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const receipt = await publicClient.getTransactionReceipt({ hash }).catch(() => null);
    if (receipt !== null) {
      const latest = await publicClient.getBlock({ blockTag: "latest" });
      if (latest.number >= receipt.blockNumber) {
        const block = await publicClient.getBlock({ blockNumber: receipt.blockNumber });
        if (block.transactions.includes(hash)) return receipt;
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new TransactionNotSealedError(hash, timeoutMs);
}

export async function deployDevToken(
  rpcUrl: string,
  ownerKey: Hex,
  options: DevTokenOptions = {},
): Promise<DevToken> {
  const owner = privateKeyToAccount(ownerKey);
  const { publicClient, walletClient } = await signingClients(rpcUrl, owner, { timeout: 60_000 });
  const sealing: Pick<PublicClient, "getCode" | "waitForTransactionReceipt"> = {
    getCode: (args) => publicClient.getCode(args),
    waitForTransactionReceipt: (args) => sealedReceipt(publicClient, args.hash),
  };
  const deployment = await deployArtifact({ publicClient: sealing, walletClient }, "Eip3009Token", [
    options.name ?? "Dev USD",
    "DUSD",
    owner.address,
  ]);
  if (options.mint !== undefined) {
    const hash = await walletClient.writeContract({
      address: deployment.address,
      abi: eip3009TokenAbi,
      functionName: "mint",
      args: [options.mint.to, options.mint.amount],
    });
    await sealedReceipt(publicClient, hash);
  }
  return { token: deployment.address, owner: owner.address, minted: (options.mint?.amount ?? 0n).toString() };
}
