/**
 * A deployed token, funded buyer and the accounts of the merchant tests, plus buyer-side helpers
 * built on src/payments (create and sign authorizations and cancellations) and direct chain reads.
 */
import {
  type Address,
  createWalletClient,
  defineChain,
  type Hex,
  http,
  type PublicClient,
  type TransactionReceipt,
} from "viem";
import { type PrivateKeyAccount, privateKeyToAccount } from "viem/accounts";
import { eip3009TokenAbi } from "../../../contracts/artifacts.js";
import { deployArtifact } from "../../../contracts/deploy.js";
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
  const walletClient = makeWallet(chain, deployer);
  const publicClient = chain.publicClient;
  // The node answers receipts from its pre-confirmed (flashblocks) view before the block is
  // sealed, and deployArtifact reads the code at "latest" right after the receipt: hand it
  // receipts only once their block is sealed.
  const sealingClient: Pick<PublicClient, "getCode" | "waitForTransactionReceipt"> = {
    getCode: (args) => publicClient.getCode(args),
    waitForTransactionReceipt: (args) => sealedReceipt(publicClient, args.hash),
  };
  const deployment = await deployArtifact({ publicClient: sealingClient, walletClient }, "Eip3009Token", [
    "Dev USD",
    "DUSD",
    deployer.address,
  ]);
  const buyer = privateKeyToAccount(buyerKey);
  const mint = await walletClient.writeContract({
    address: deployment.address,
    abi: eip3009TokenAbi,
    functionName: "mint",
    args: [buyer.address, 1_000_000_000_000n],
  });
  await sealedReceipt(publicClient, mint);
  return {
    chain,
    token: deployment.address,
    domain: await readTokenDomain(publicClient, deployment.address),
    deployer,
    relayerKey,
    relayer: privateKeyToAccount(relayerKey),
    buyer,
    stranger: privateKeyToAccount(strangerKey),
    publicClient,
    walletFor: (account) => makeWallet(chain, account),
  };
}

/** The receipt of a transaction once a sealed block (by number) lists it. */
export async function sealedReceipt(publicClient: PublicClient, hash: Hex): Promise<TransactionReceipt> {
  for (let i = 0; i < 800; i++) {
    const receipt = await publicClient.getTransactionReceipt({ hash }).catch(() => null);
    const latest = await publicClient.getBlock({ blockTag: "latest" });
    if (receipt !== null && latest.number >= receipt.blockNumber) {
      const block = await publicClient.getBlock({ blockNumber: receipt.blockNumber }).catch(() => null);
      const again = await publicClient.getTransactionReceipt({ hash }).catch(() => null);
      if (
        block !== null &&
        again !== null &&
        block.hash === again.blockHash &&
        block.transactions.includes(hash)
      ) {
        return again;
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`transaction ${hash} was not sealed in time`);
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
