/**
 * A deployed token, funded buyer and the accounts of the merchant tests, plus buyer-side helpers
 * built on src/payments (create and sign authorizations and cancellations) and direct chain reads.
 */
import { type Address, createWalletClient, defineChain, type Hex, http, type PublicClient } from "viem";
import { type PrivateKeyAccount, privateKeyToAccount } from "viem/accounts";
import { eip3009TokenAbi } from "../../../contracts/index.js";
import { deployDevToken, sealedReceipt } from "../../../src/merchant/dev-token.js";
import {
  createAuthorization,
  readTokenDomain,
  type SignedAuthorization,
  signAuthorization,
  signCancellation,
  type TokenDomain,
} from "../../../src/payments/index.js";
import type { CreateOrderBody } from "../../../src/merchant/client.js";
import type { TestChain } from "./test-chain.js";

export { sealedReceipt };

export interface World {
  chain: TestChain;
  token: Address;
  domain: TokenDomain;
  deployer: PrivateKeyAccount;
  relayerKey: Hex;
  relayer: PrivateKeyAccount;
  buyer: PrivateKeyAccount;
  stranger: PrivateKeyAccount;
  publicClient: PublicClient;
  walletFor(account: PrivateKeyAccount): ReturnType<typeof makeWallet>;
}

function makeWallet(chain: TestChain, account: PrivateKeyAccount) {
  const viemChain = defineChain({
    id: chain.chainId,
    name: "test",
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [chain.rpcUrl] } },
  });
  return createWalletClient({ chain: viemChain, transport: http(chain.rpcUrl, { retryCount: 0 }), account });
}

export async function createWorld(chain: TestChain): Promise<World> {
  const [deployerKey, relayerKey, buyerKey, strangerKey] = chain.keys as [Hex, Hex, Hex, Hex];
  const deployer = privateKeyToAccount(deployerKey);
  const publicClient = chain.publicClient;
  const buyer = privateKeyToAccount(buyerKey);
  const deployment = await deployDevToken(chain.rpcUrl, deployerKey, {
    mint: { to: buyer.address, amount: 1_000_000_000_000n },
  });
  return {
    chain,
    token: deployment.token,
    domain: await readTokenDomain(publicClient, deployment.token),
    deployer,
    relayerKey,
    relayer: privateKeyToAccount(relayerKey),
    buyer,
    stranger: privateKeyToAccount(strangerKey),
    publicClient,
    walletFor: (account) => makeWallet(chain, account),
  };
}

export async function headTimestamp(world: World): Promise<bigint> {
  return (await world.publicClient.getBlock({ blockTag: "latest" })).timestamp;
}

/** A buyer-signed authorization paying the merchant (relayer), valid for `lifetime` seconds of chain time. */
export async function buyerAuthorization(
  world: World,
  options: { kind?: "transfer" | "receive"; value?: bigint; lifetime?: bigint } = {},
): Promise<SignedAuthorization> {
  const now = await headTimestamp(world);
  const authorization = createAuthorization({
    kind: options.kind ?? "transfer",
    from: world.buyer.address,
    to: world.relayer.address,
    value: options.value ?? 1_500_000n,
    validAfter: 0n,
    validBefore: now + (options.lifetime ?? 1_000_000n),
  });
  return signAuthorization(world.buyer, authorization, world.domain);
}

export function orderBody(signed: SignedAuthorization): CreateOrderBody {
  const a = signed.authorization;
  return {
    kind: a.kind,
    from: a.from,
    to: a.to,
    value: a.value.toString(),
    validAfter: a.validAfter.toString(),
    validBefore: a.validBefore.toString(),
    nonce: a.nonce,
    signature: signed.signature,
  };
}

export async function buyerCancellation(world: World, signed: SignedAuthorization): Promise<Hex> {
  return (await signCancellation(world.buyer, signed.authorization, world.domain)).signature;
}

export async function relayerTxCount(world: World): Promise<number> {
  return world.publicClient.getTransactionCount({ address: world.relayer.address, blockTag: "latest" });
}

export async function balanceOf(world: World, who: Address): Promise<bigint> {
  return world.publicClient.readContract({
    address: world.token,
    abi: eip3009TokenAbi,
    functionName: "balanceOf",
    args: [who],
  });
}
