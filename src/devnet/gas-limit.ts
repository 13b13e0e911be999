/**
 * `npm start -- --gas-limit <n>`: the L2 block gas limit, set the OP Stack way, in SystemConfig on L1
 * (`setGasLimit`, owner = account 0). The node's blocks take it from their L1 origin's system config, and
 * derivation (the safe head) reads the same value. On a first start the change is mined in the L2 genesis's anchor
 * block, so the genesis and every block after it carry it; on a later start the node's blocks carry it from the
 * first L1 origin after the change.
 */
import { createWalletClient, http } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { systemConfigAbi } from "../../contracts/index.js";
import { devnetAccount } from "./accounts.js";
import { DevnetGasLimitError } from "./errors.js";
import type { DevnetL1 } from "./l1/bootstrap.js";

export interface GasLimitRequest {
  /** SystemConfig's gas limit before the request. */
  readonly previous: bigint;
  /** Resolves once the change is in an L1 block (at once when there was nothing to change). */
  readonly included: Promise<void>;
}

const TIMEOUT_MS = 120_000;

/** Sends SystemConfig.setGasLimit(gasLimit) unless it already holds that value; `included` waits for the block. */
export async function requestGasLimit(l1: DevnetL1, gasLimit: bigint): Promise<GasLimitRequest> {
  const address = l1.deployment.systemConfig;
  const previous = await l1.anvil.client.readContract({
    address,
    abi: systemConfigAbi,
    functionName: "gasLimit",
  });
  if (previous === gasLimit) return { previous, included: Promise.resolve() };
  const wallet = createWalletClient({
    account: privateKeyToAccount(devnetAccount("deployer").privateKey),
    chain: l1.anvil.chain,
    transport: http(l1.anvil.rpcUrl),
  });
  const hash = await wallet.writeContract({
    address,
    abi: systemConfigAbi,
    functionName: "setGasLimit",
    args: [gasLimit],
  });
  const included = (async () => {
    const receipt = await l1.anvil.client.waitForTransactionReceipt({
      hash,
      pollingInterval: 100,
      timeout: TIMEOUT_MS,
    });
    if (receipt.status !== "success")
      throw new DevnetGasLimitError(`SystemConfig.setGasLimit(${gasLimit}) reverted`, {
        gasLimit,
        transactionHash: hash,
      });
  })();
  included.catch(() => undefined);
  return { previous, included };
}
