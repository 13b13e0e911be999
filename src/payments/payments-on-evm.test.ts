/**
 * The library against the compiled token, executed on the EVM harness: signatures made here must
 * be accepted by the contract, the domain is read from the contract through a viem PublicClient,
 * and the relay simulation surfaces the token's revert reasons.
 */
import { createPublicClient, type Hex, type PublicClient } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { beforeEach, describe, expect, it } from "vitest";
import { loadArtifact } from "../../contracts/index.js";
import { DevChain } from "../../test/evm/dev-chain.js";
import {
  BUYER,
  deployToken,
  MERCHANT,
  NOW,
  RELAYER,
  STRANGER,
  type TokenFixture,
} from "../../test/evm/token-fixture.js";
import { createAuthorization, signAuthorization, type TypedDataSigner } from "./authorization.js";
import { cancelAuthorizationCall, captureCall } from "./calls.js";
import { signCancellation } from "./cancellation.js";
import { readTokenDomain } from "./domain.js";
import {
  CancellationSignerMismatchError,
  InvalidAuthorizationError,
  RelaySimulationFailedError,
} from "./errors.js";
import { randomNonce } from "./nonce.js";
import { readAuthorizationState, simulateTokenCall } from "./relay.js";
import { joinSignature } from "./signature.js";
import { domainSeparator } from "./typed-data.js";
import type { TokenDomain } from "./types.js";
import {
  authorizationDigest,
  verifyAuthorizationSignature,
  verifyCancellationSignature,
  verifySignatureForAccount,
} from "./verify.js";

/** Wraps a real account and counts signing requests (to prove a refusal happens before signing). */
function countingSigner(inner: TypedDataSigner): TypedDataSigner & { signatures: number } {
  const wrapper = {
    address: inner.address,
    signatures: 0,
    signTypedData: (async (definition: Parameters<TypedDataSigner["signTypedData"]>[0]) => {
      wrapper.signatures += 1;
      return inner.signTypedData(definition);
    }) as TypedDataSigner["signTypedData"],
  };
  return wrapper;
}

describe("payments library against the compiled token", () => {
  let fx: TokenFixture;
  let client: PublicClient;
  let domain: TokenDomain;

  beforeEach(async () => {
    fx = await deployToken({ name: "Dev USD" });
    client = createPublicClient({ transport: new DevChain(fx.harness).transport() });
    domain = await readTokenDomain(client, fx.token.address);
  });

  it("reads the domain from the token and the node, and matches DOMAIN_SEPARATOR()", async () => {
    expect(domain).toEqual({
      name: "Dev USD",
      version: "2",
      chainId: fx.harness.chainId,
      verifyingContract: fx.token.address,
    });
    expect(await fx.token.read("DOMAIN_SEPARATOR")).toBe(domainSeparator(domain));
  });

  it("a TransferWithAuthorization signed by the library is accepted by the token from any relayer", async () => {
    const authorization = createAuthorization({
      from: BUYER.address,
      to: MERCHANT.address,
      value: 7_500_000n,
      validAfter: NOW - 1n,
      validBefore: NOW + 600n,
    });
    const signed = await signAuthorization(BUYER, authorization, domain);
    expect([27, 28]).toContain(signed.split.v);
    expect(await verifyAuthorizationSignature(signed)).toEqual({ valid: true, signer: BUYER.address });

    const call = captureCall(fx.token.address, signed);
    expect(call.functionName).toBe("transferWithAuthorization");
    await simulateTokenCall(client, RELAYER, call);
    const outcome = await fx.harness.execute(call.to, call.data, fx.token.abi, { from: RELAYER });
    expect(outcome.revertReason).toBeUndefined();
    expect(await fx.token.read("balanceOf", [MERCHANT.address])).toBe(7_500_000n);
    expect(await readAuthorizationState(client, fx.token.address, BUYER.address, authorization.nonce)).toBe(
      true,
    );

    // The bytes-signature overload takes the library's joined signature too.
    const second = await signAuthorization(
      BUYER,
      createAuthorization({ from: BUYER.address, to: MERCHANT.address, value: 1n, validBefore: NOW + 600n }),
      domain,
    );
    const a = second.authorization;
    const viaBytes = await fx.token.write("transferWithAuthorization", [
      a.from,
      a.to,
      a.value,
      a.validAfter,
      a.validBefore,
      a.nonce,
      second.signature,
    ]);
    expect(viaBytes.revertReason).toBeUndefined();
  });

  it("a ReceiveWithAuthorization signed by the library is accepted when the payee submits it", async () => {
    const authorization = createAuthorization({
      kind: "receive",
      from: BUYER.address,
      to: MERCHANT.address,
      value: 3n,
      validBefore: NOW + 600n,
    });
    const signed = await signAuthorization(BUYER, authorization, domain);
    const call = captureCall(fx.token.address, signed);
    expect(call.functionName).toBe("receiveWithAuthorization");
    await expect(simulateTokenCall(client, RELAYER, call)).rejects.toThrow(
      "FiatTokenV2: caller must be the payee",
    );
    await simulateTokenCall(client, MERCHANT.address, call);
    const outcome = await fx.harness.execute(call.to, call.data, fx.token.abi, { from: MERCHANT.address });
    expect(outcome.revertReason).toBeUndefined();
  });

  it("signCancellation + cancelAuthorizationCall: relayed by anyone, then the capture simulation reports used or canceled", async () => {
    const authorization = createAuthorization({
      from: BUYER.address,
      to: MERCHANT.address,
      value: 10n,
      validBefore: NOW + 600n,
    });
    const signed = await signAuthorization(BUYER, authorization, domain);
    const cancellation = await signCancellation(BUYER, authorization, domain);
    expect(await verifyCancellationSignature(cancellation)).toEqual({ valid: true, signer: BUYER.address });

    const cancel = cancelAuthorizationCall(fx.token.address, cancellation);
    await simulateTokenCall(client, STRANGER.address, cancel);
    expect(await readAuthorizationState(client, fx.token.address, BUYER.address, authorization.nonce)).toBe(
      false,
    );
    const outcome = await fx.harness.execute(cancel.to, cancel.data, fx.token.abi, {
      from: STRANGER.address,
    });
    expect(outcome.revertReason).toBeUndefined();
    expect(await readAuthorizationState(client, fx.token.address, BUYER.address, authorization.nonce)).toBe(
      true,
    );

    const capture = captureCall(fx.token.address, signed);
    const failure = await simulateTokenCall(client, RELAYER, capture).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(RelaySimulationFailedError);
    expect((failure as RelaySimulationFailedError).reason).toBe(
      "FiatTokenV2: authorization is used or canceled",
    );
    // Cancelling again is refused by the simulation, before anything would be signed or sent.
    await expect(simulateTokenCall(client, RELAYER, cancel)).rejects.toThrow(/used or canceled/);
  });

  it("signCancellation refuses any account other than the authorization's from, before signing", async () => {
    const authorization = createAuthorization({
      from: BUYER.address,
      to: MERCHANT.address,
      value: 10n,
      validBefore: NOW + 600n,
    });
    const stranger = countingSigner(STRANGER);
    const error = await signCancellation(stranger, authorization, domain).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CancellationSignerMismatchError);
    expect(error).toMatchObject({ signer: STRANGER.address, authorizer: BUYER.address });
    expect(stranger.signatures).toBe(0);
    // Same address in another letter case is the same account.
    const buyer = countingSigner({
      ...BUYER,
      address: BUYER.address.toLowerCase() as Hex,
    } as TypedDataSigner);
    await signCancellation(buyer, { from: BUYER.address, nonce: authorization.nonce }, domain);
    expect(buyer.signatures).toBe(1);
  });

  it("signAuthorization refuses an account that is not from", async () => {
    const authorization = createAuthorization({
      from: BUYER.address,
      to: MERCHANT.address,
      value: 1n,
      validBefore: NOW + 600n,
    });
    await expect(signAuthorization(STRANGER, authorization, domain)).rejects.toThrow(
      InvalidAuthorizationError,
    );
  });

  it("offchain verification rejects what the token rejects: wrong signer, other domain, high s; accepts v 0/1", async () => {
    const authorization = createAuthorization({
      from: BUYER.address,
      to: MERCHANT.address,
      value: 1n,
      validBefore: NOW + 600n,
    });
    const byStranger = await STRANGER.signTypedData({
      domain,
      types: {
        TransferWithAuthorization: [
          { name: "from", type: "address" },
          { name: "to", type: "address" },
          { name: "value", type: "uint256" },
          { name: "validAfter", type: "uint256" },
          { name: "validBefore", type: "uint256" },
          { name: "nonce", type: "bytes32" },
        ],
      },
      primaryType: "TransferWithAuthorization",
      message: authorization,
    });
    expect(
      await verifyAuthorizationSignature({ authorization, domain, signature: byStranger }),
    ).toMatchObject({
      valid: false,
      reason: "wrong-signer",
    });
    const signed = await signAuthorization(BUYER, authorization, domain);
    expect(
      await verifyAuthorizationSignature({
        authorization,
        domain: { ...domain, chainId: 1n },
        signature: signed.signature,
      }),
    ).toMatchObject({ valid: false, reason: "wrong-signer" });
    expect(
      await verifyAuthorizationSignature({
        authorization: { ...authorization, kind: "receive" },
        domain,
        signature: signed.signature,
      }),
    ).toMatchObject({ valid: false, reason: "wrong-signer" });

    const n = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
    const high = joinSignature({
      ...signed.split,
      s: `0x${(n - BigInt(signed.split.s)).toString(16).padStart(64, "0")}`,
      v: signed.split.v === 27 ? 28 : 27,
      yParity: signed.split.yParity === 0 ? 1 : 0,
    });
    expect(await verifyAuthorizationSignature({ authorization, domain, signature: high })).toMatchObject({
      valid: false,
      reason: "high-s",
    });
    const zeroOne = `${signed.signature.slice(0, 130)}0${signed.split.yParity}` as Hex;
    expect(await verifyAuthorizationSignature({ authorization, domain, signature: zeroOne })).toEqual({
      valid: true,
      signer: BUYER.address,
    });
    expect(
      await verifyAuthorizationSignature({
        authorization,
        domain,
        signature: signed.signature.slice(0, 100) as Hex,
      }),
    ).toMatchObject({ valid: false, reason: "malformed" });
  });

  it("verifySignatureForAccount uses EIP-1271 for a contract account and ECDSA otherwise", async () => {
    const owner = privateKeyToAccount("0x6000000000000000000000000000000000000000000000000000000000000006");
    const wallet = await fx.harness.deploy(loadArtifact("Erc1271Wallet"), [owner.address]);
    const authorization = createAuthorization({
      from: wallet.address,
      to: MERCHANT.address,
      value: 1n,
      validBefore: NOW + 600n,
    });
    const digest = authorizationDigest(domain, authorization);
    const byOwner = await owner.sign({ hash: digest });
    const byOther = await STRANGER.sign({ hash: digest });
    expect(await verifySignatureForAccount(client, wallet.address, digest, byOwner)).toEqual({
      valid: true,
      signer: wallet.address,
    });
    expect(await verifySignatureForAccount(client, wallet.address, digest, byOther)).toMatchObject({
      valid: false,
      reason: "contract-rejected",
    });
    // The token agrees with both verdicts.
    const a = authorization;
    const args = [a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce];
    expect((await fx.token.write("transferWithAuthorization", [...args, byOther])).revertReason).toBe(
      "FiatTokenV2: invalid signature",
    );
    expect(
      await fx.token.write("mint", [wallet.address, 5n], { from: (await fx.token.read("owner")) as Hex }),
    ).toMatchObject({
      success: true,
    });
    expect((await fx.token.write("transferWithAuthorization", [...args, byOwner])).success).toBe(true);

    const eoaDigest = authorizationDigest(domain, { ...authorization, from: BUYER.address });
    expect(
      await verifySignatureForAccount(
        client,
        BUYER.address,
        eoaDigest,
        await BUYER.sign({ hash: eoaDigest }),
      ),
    ).toEqual({ valid: true, signer: BUYER.address });
  });

  it("random nonces are 32 bytes and distinct; createAuthorization validates its input", () => {
    const nonces = new Set(Array.from({ length: 200 }, () => randomNonce()));
    expect(nonces.size).toBe(200);
    for (const nonce of nonces) expect(nonce).toMatch(/^0x[0-9a-f]{64}$/);
    const base = { from: BUYER.address, to: MERCHANT.address, value: 1n, validBefore: 100n };
    expect(() => createAuthorization({ ...base, validAfter: 100n })).toThrow(/earlier than validBefore/);
    expect(() => createAuthorization({ ...base, value: -1n })).toThrow(/uint256/);
    expect(() => createAuthorization({ ...base, value: 1n << 256n })).toThrow(/uint256/);
    expect(() => createAuthorization({ ...base, nonce: "0x1234" })).toThrow(/32 bytes/);
    expect(() => createAuthorization({ ...base, to: "0xnot-an-address" as Hex })).toThrow(/not an address/);
    expect(createAuthorization({ ...base, from: BUYER.address.toLowerCase() as Hex }).from).toBe(
      BUYER.address,
    );
  });
});
