/**
 * The accounts that send the load: the funder (a development account of the public test mnemonic, derived in
 * code, never read from a command line) and many senders with fresh random keys, each with its nonce kept here.
 * Transactions are EIP-1559, signed locally; the fees follow the newest block's base fee.
 */
import type { Address, Hex } from "viem";
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from "viem/accounts";
import { devAccounts } from "../chain/index.js";
import type { LoadCall } from "./calls.js";
import { type LoadRpc, type RpcAnswer } from "./rpc.js";
import { signEip1559 } from "./signer.js";

export interface LoadSender {
  readonly account: PrivateKeyAccount;
  /** Kept in memory only, for the fast signer (src/load/signer.ts). */
  readonly privateKey: Hex;
  readonly address: Address;
  /** The nonce of the next transaction. */
  nonce: bigint;
  /** Sent and accepted, not yet seen in a block. */
  inFlight: number;
  /** A send was refused: its nonce is read back from the node once its sends in progress are answered. */
  resync: boolean;
  /** Sends whose answer has not come back. */
  unanswered: number;
}

export interface Fees {
  readonly maxFeePerGas: bigint;
  readonly maxPriorityFeePerGas: bigint;
}

/** The priority fee every load transaction pays (wei per gas). */
export const LOAD_TIP = 1_000_000n;

/** Fees that stay valid while the base fee triples. */
export function feesFor(baseFeePerGas: bigint): Fees {
  return { maxFeePerGas: baseFeePerGas * 3n + LOAD_TIP, maxPriorityFeePerGas: LOAD_TIP };
}

function senderOf(privateKey: Hex, nonce: bigint): LoadSender {
  const account = privateKeyToAccount(privateKey);
  return { account, privateKey, address: account.address, nonce, inFlight: 0, resync: false, unanswered: 0 };
}

/** Development account `index` of the test mnemonic, with its pending nonce. */
export async function devSender(rpc: LoadRpc, index: number): Promise<LoadSender> {
  const key = devAccounts(index + 1)[index]!.privateKey;
  const nonce = await rpc.call<Hex>("eth_getTransactionCount", [privateKeyToAccount(key).address, "pending"]);
  return senderOf(key, BigInt(nonce));
}

/** `count` senders with fresh random keys (nonce 0: new accounts). */
export function freshSenders(count: number): LoadSender[] {
  return Array.from({ length: count }, () => senderOf(generatePrivateKey(), 0n));
}

export interface SignedLoadTransaction {
  readonly raw: Hex;
  readonly hash: Hex;
  readonly sender: LoadSender;
  readonly nonce: bigint;
}

/** Signs `call` as the sender's next transaction (its nonce moves on). */
export async function signNext(
  sender: LoadSender,
  call: LoadCall & { readonly value?: bigint },
  gas: bigint,
  fees: Fees,
  chainId: number,
): Promise<SignedLoadTransaction> {
  const nonce = sender.nonce++;
  const { raw, hash } = await signEip1559(sender.privateKey, {
    chainId,
    nonce,
    to: call.to,
    data: call.data,
    value: call.value ?? 0n,
    gas,
    ...fees,
  });
  return { raw, hash, sender, nonce };
}

/** Sends signed transactions as one batch of eth_sendRawTransaction; answers in order. */
export function sendBatch(rpc: LoadRpc, signed: readonly SignedLoadTransaction[]): Promise<RpcAnswer[]> {
  return rpc.batch(signed.map((tx) => ({ method: "eth_sendRawTransaction", params: [tx.raw] })));
}
