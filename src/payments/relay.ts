/**
 * Relaying token calls over viem clients against any JSON-RPC node: simulate with `eth_call`,
 * sign, let the caller record the transaction hash, broadcast, wait for confirmations, and read
 * `authorizationState`. Nothing is signed or sent when the simulation reverts.
 */
import {
  type Account,
  type Address,
  BaseError,
  type Chain,
  decodeErrorResult,
  type Hash,
  type Hex,
  isHex,
  keccak256,
  type PublicClient,
  type TransactionReceipt,
  type Transport,
  type WalletClient,
} from "viem";
import { eip3009TokenAbi } from "./abi.js";
import { cancelAuthorizationCall, captureCall, type TokenCall } from "./calls.js";
import { RelayRevertedError, RelaySimulationFailedError } from "./errors.js";
import type { SignedAuthorization, SignedCancellation } from "./types.js";

/** Confirmations after which a relayed cancellation is treated as final. */
export const FINAL_CONFIRMATIONS = 2;

export type RelayPublicClient = Pick<
  PublicClient,
  "call" | "sendRawTransaction" | "waitForTransactionReceipt" | "readContract"
>;
export type RelayWalletClient = WalletClient<Transport, Chain | undefined, Account>;

export interface RelayClients {
  publicClient: RelayPublicClient;
  /** Signs with its `account` (a local account: the transaction is signed here, then broadcast). */
  walletClient: RelayWalletClient;
}

export interface PreparedRelay extends TokenCall {
  from: Address;
  serializedTransaction: Hex;
  /** keccak256 of the signed transaction: known before anything is broadcast. */
  transactionHash: Hash;
}

/** Extracts the revert reason (`Error(string)`, or the raw data) from a viem call error. */
export function revertReasonOf(error: unknown): string {
  if (error instanceof BaseError) {
    const withData = error.walk((e) => {
      const data = (e as { data?: unknown }).data;
      return typeof data === "string" && isHex(data);
    }) as { data?: Hex } | null;
    const data = withData?.data;
    if (data !== undefined && data !== "0x") {
      try {
        const decoded = decodeErrorResult({ abi: eip3009TokenAbi, data });
        if (decoded.errorName === "Error") return String(decoded.args[0]);
        return decoded.errorName;
      } catch {
        return data;
      }
    }
    return error.shortMessage;
  }
  return error instanceof Error ? error.message : String(error);
}

/** `eth_call` of the token call from the relaying account; throws RelaySimulationFailedError on revert. */
export async function simulateTokenCall(
  publicClient: Pick<PublicClient, "call">,
  from: Address,
  call: TokenCall,
): Promise<void> {
  try {
    await publicClient.call({ account: from, to: call.to, data: call.data });
  } catch (error) {
    throw new RelaySimulationFailedError(call.functionName, revertReasonOf(error), { cause: error });
  }
}

/** Simulates, then fills nonce/gas/fees and signs. Nothing is broadcast. */
export async function prepareRelay(clients: RelayClients, call: TokenCall): Promise<PreparedRelay> {
  const { publicClient, walletClient } = clients;
  const from = walletClient.account.address;
  await simulateTokenCall(publicClient, from, call);
  const request = await walletClient.prepareTransactionRequest({
    account: walletClient.account,
    chain: walletClient.chain,
    to: call.to,
    data: call.data,
  });
  const serializedTransaction = await walletClient.signTransaction(
    request as Parameters<RelayWalletClient["signTransaction"]>[0],
  );
  return { ...call, from, serializedTransaction, transactionHash: keccak256(serializedTransaction) };
}

export async function broadcastRelay(
  publicClient: Pick<PublicClient, "sendRawTransaction">,
  prepared: PreparedRelay,
): Promise<Hash> {
  return publicClient.sendRawTransaction({ serializedTransaction: prepared.serializedTransaction });
}

export interface RelayOptions {
  /**
   * Called with the signed transaction before it is broadcast: record `transactionHash` durably
   * here (an order service commits it before sending). Throwing aborts the broadcast.
   */
  beforeBroadcast?: (prepared: PreparedRelay) => Promise<void> | void;
}

async function relay(clients: RelayClients, call: TokenCall, options: RelayOptions): Promise<PreparedRelay> {
  const prepared = await prepareRelay(clients, call);
  await options.beforeBroadcast?.(prepared);
  await broadcastRelay(clients.publicClient, prepared);
  return prepared;
}

/** Relays `cancelAuthorization` from the wallet client's account (any account may relay). */
export async function simulateAndRelayCancel(
  clients: RelayClients & { token: Address; cancellation: SignedCancellation },
  options: RelayOptions = {},
): Promise<PreparedRelay> {
  return relay(clients, cancelAuthorizationCall(clients.token, clients.cancellation), options);
}

/** Relays the capture of a signed authorization (for `receive`, the wallet account must be the payee). */
export async function simulateAndRelayCapture(
  clients: RelayClients & { token: Address; authorization: SignedAuthorization },
  options: RelayOptions = {},
): Promise<PreparedRelay> {
  return relay(clients, captureCall(clients.token, clients.authorization), options);
}

/** Waits until the transaction has `confirmations` blocks (default 2); throws if it reverted. */
export async function waitForConfirmations(
  publicClient: Pick<PublicClient, "waitForTransactionReceipt">,
  transactionHash: Hash,
  confirmations: number = FINAL_CONFIRMATIONS,
  options: { timeoutMs?: number; pollingIntervalMs?: number } = {},
): Promise<TransactionReceipt> {
  const receipt = await publicClient.waitForTransactionReceipt({
    hash: transactionHash,
    confirmations,
    ...(options.timeoutMs === undefined ? {} : { timeout: options.timeoutMs }),
    ...(options.pollingIntervalMs === undefined ? {} : { pollingInterval: options.pollingIntervalMs }),
  });
  if (receipt.status !== "success") throw new RelayRevertedError(transactionHash);
  return receipt;
}

/** `authorizationState(authorizer, nonce)`: true when the nonce was used or cancelled. */
export async function readAuthorizationState(
  publicClient: Pick<PublicClient, "readContract">,
  token: Address,
  authorizer: Address,
  nonce: Hex,
  blockTag: "latest" | "pending" | "safe" | "finalized" = "latest",
): Promise<boolean> {
  return publicClient.readContract({
    address: token,
    abi: eip3009TokenAbi,
    functionName: "authorizationState",
    args: [authorizer, nonce],
    blockTag,
  });
}
