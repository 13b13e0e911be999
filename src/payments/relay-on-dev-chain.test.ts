/**
 * The relayer functions over real viem Public/Wallet clients against the harness dev chain
 * (test/evm/dev-chain.ts: signed raw transactions executed on the EVM with the compiled token,
 * receipts, logs, blocks). The same functions run against the project's chain node later.
 */
import { createPublicClient, createWalletClient, defineChain, type Hash, type PublicClient } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { beforeEach, describe, expect, it } from "vitest";
import { DevChain } from "../../test/evm/dev-chain.js";
import {
  BUYER,
  CHAIN_ID,
  deployToken,
  MERCHANT,
  NOW,
  type TokenFixture,
} from "../../test/evm/token-fixture.js";
import { createAuthorization, signAuthorization } from "./authorization.js";
import { signCancellation } from "./cancellation.js";
import { readTokenDomain } from "./domain.js";
import { RelayRevertedError, RelaySimulationFailedError } from "./errors.js";
import { findNonceConsumer } from "./nonce-consumer.js";
import {
  type PreparedRelay,
  readAuthorizationState,
  type RelayWalletClient,
  simulateAndRelayCancel,
  simulateAndRelayCapture,
  waitForConfirmations,
} from "./relay.js";
import { cancelAuthorizationCall } from "./calls.js";
import type { TokenDomain } from "./types.js";

const relayerAccount = privateKeyToAccount(
  "0x7000000000000000000000000000000000000000000000000000000000000007",
);
const devChain = defineChain({
  id: Number(CHAIN_ID),
  name: "harness",
  nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
  rpcUrls: { default: { http: ["http://127.0.0.1:0"] } },
});
const POLL = { pollingIntervalMs: 10, timeoutMs: 5_000 };

describe("relaying over viem clients", () => {
  let fx: TokenFixture;
  let chain: DevChain;
  let publicClient: PublicClient;
  let walletClient: RelayWalletClient;
  let domain: TokenDomain;

  beforeEach(async () => {
    fx = await deployToken();
    chain = new DevChain(fx.harness);
    publicClient = createPublicClient({ chain: devChain, transport: chain.transport(), pollingInterval: 10 });
    walletClient = createWalletClient({
      account: relayerAccount,
      chain: devChain,
      transport: chain.transport(),
    });
    domain = await readTokenDomain(publicClient, fx.token.address);
  });

  function newAuthorization() {
    return createAuthorization({
      from: BUYER.address,
      to: MERCHANT.address,
      value: 2_000_000n,
      validAfter: NOW - 10n,
      validBefore: NOW + 3_600n,
    });
  }

  it("cancel: hash known before broadcast, 2 confirmations, authorizationState true, consumer found in logs", async () => {
    const authorization = newAuthorization();
    const cancellation = await signCancellation(BUYER, authorization, domain);
    const headBefore = chain.head.number;
    let recorded: PreparedRelay | undefined;
    const prepared = await simulateAndRelayCancel(
      { publicClient, walletClient, token: fx.token.address, cancellation },
      {
        beforeBroadcast: async (p) => {
          recorded = p;
          // Nothing is on chain yet when the hash is handed out.
          expect(await publicClient.getTransactionCount({ address: relayerAccount.address })).toBe(0);
          expect(chain.head.number).toBe(headBefore);
        },
      },
    );
    expect(recorded?.transactionHash).toBe(prepared.transactionHash);
    expect(prepared.from).toBe(relayerAccount.address);
    expect(chain.head.number).toBe(headBefore + 1n);

    // One block (the inclusion) is one confirmation: the wait resolves only after one more block.
    let settled = false;
    const waiting = waitForConfirmations(publicClient, prepared.transactionHash, 2, POLL).then((r) => {
      settled = true;
      return r;
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(settled).toBe(false);
    chain.mine();
    const receipt = await waiting;
    expect(receipt.status).toBe("success");
    expect(receipt.blockNumber).toBe(headBefore + 1n);

    expect(
      await readAuthorizationState(publicClient, fx.token.address, BUYER.address, authorization.nonce),
    ).toBe(true);
    const consumer = await findNonceConsumer(publicClient, {
      token: fx.token.address,
      authorizer: BUYER.address,
      nonce: authorization.nonce,
      maxBlockRange: 1n,
    });
    expect(consumer).toEqual({
      kind: "canceled",
      authorizer: BUYER.address,
      nonce: authorization.nonce,
      transactionHash: prepared.transactionHash,
      blockNumber: headBefore + 1n,
      logIndex: 0,
    });
  });

  it("capture first: the consumer is the capture with its Transfer; a later cancel is refused in simulation, nothing sent", async () => {
    const authorization = newAuthorization();
    const signed = await signAuthorization(BUYER, authorization, domain);
    const capture = await simulateAndRelayCapture({
      publicClient,
      walletClient,
      token: fx.token.address,
      authorization: signed,
    });
    chain.mine();
    await waitForConfirmations(publicClient, capture.transactionHash, 2, POLL);

    const consumer = await findNonceConsumer(publicClient, {
      token: fx.token.address,
      authorizer: BUYER.address,
      nonce: authorization.nonce,
      fromBlock: 0n,
    });
    expect(consumer).toMatchObject({
      kind: "used",
      transactionHash: capture.transactionHash,
      transfer: { from: BUYER.address, to: MERCHANT.address, value: 2_000_000n },
    });

    const cancellation = await signCancellation(BUYER, authorization, domain);
    const head = chain.head.number;
    let broadcastHookCalled = false;
    const error = await simulateAndRelayCancel(
      { publicClient, walletClient, token: fx.token.address, cancellation },
      { beforeBroadcast: () => void (broadcastHookCalled = true) },
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RelaySimulationFailedError);
    expect((error as RelaySimulationFailedError).reason).toBe(
      "FiatTokenV2: authorization is used or canceled",
    );
    expect(broadcastHookCalled).toBe(false);
    expect(chain.head.number).toBe(head);
  });

  it("an unconsumed nonce has no consumer; a search range that ends before the consumption finds nothing", async () => {
    const authorization = newAuthorization();
    expect(
      await findNonceConsumer(publicClient, {
        token: fx.token.address,
        authorizer: BUYER.address,
        nonce: authorization.nonce,
      }),
    ).toBeNull();
    const cancellation = await signCancellation(BUYER, authorization, domain);
    const before = chain.head.number;
    await simulateAndRelayCancel({ publicClient, walletClient, token: fx.token.address, cancellation });
    expect(
      await findNonceConsumer(publicClient, {
        token: fx.token.address,
        authorizer: BUYER.address,
        nonce: authorization.nonce,
        toBlock: before,
      }),
    ).toBeNull();
  });

  it("waitForConfirmations reports a mined revert", async () => {
    const authorization = newAuthorization();
    const cancellation = await signCancellation(BUYER, authorization, domain);
    // Cancel once through the library, then force the same cancel on chain without simulating.
    await simulateAndRelayCancel({ publicClient, walletClient, token: fx.token.address, cancellation });
    const call = cancelAuthorizationCall(fx.token.address, cancellation);
    const hash: Hash = await walletClient.sendTransaction({
      chain: devChain,
      to: call.to,
      data: call.data,
      gas: 200_000n,
    });
    chain.mine();
    await expect(waitForConfirmations(publicClient, hash, 2, POLL)).rejects.toBeInstanceOf(
      RelayRevertedError,
    );
  });
});
