import {
  type AbiEvent,
  type AbiFunction,
  type Address,
  concat,
  decodeEventLog,
  type Hex,
  hashDomain,
  keccak256,
  pad,
  toEventSelector,
  toFunctionSelector,
  toHex,
} from "viem";
import { beforeEach, describe, expect, it } from "vitest";
import { loadArtifact } from "../../contracts/artifacts.js";
import type { CallOutcome, DeployedContract } from "./harness.js";
import { EvmHarness } from "./harness.js";
import {
  authArgs,
  authorization,
  BUYER,
  CHAIN_ID,
  deployToken,
  highS,
  MERCHANT,
  NOW,
  nonceOf,
  OWNER,
  RELAYER,
  signCancel,
  signReceive,
  signTransfer,
  STRANGER,
  type TokenFixture,
  vrsArgs,
} from "./token-fixture.js";

const artifact = loadArtifact("Eip3009Token");

const VECTORS = {
  transferTypehash: "0x7c7c6cdb67a18743f49ec6fa9b35f50d52ed05cbed4cc592e13b44501c1a2267",
  receiveTypehash: "0xd099cc98ef71107a616c4f0f941f04c322d8e254fe26b3c6668db87aae413de8",
  cancelTypehash: "0x158b0a9edf7a828aad02f63cd515c68ef2f50ba807396f6d12842833a1597429",
  authorizationUsedTopic: "0x98de503528ee59b575ef0c0a2576a82497bfc029a5685b209e9ec333479b10a5",
  authorizationCanceledTopic: "0x1cdd46ff242716cdaa72d159d339a485b3438398348d68f09d7c8c0a59353d81",
  usdcDomainSeparator: "0x06c37168a7db5138defc7866392bb87a741f9b3d104deb5094588ce041cae335",
  usdcAddress: "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48",
  selectors: {
    "cancelAuthorization(address,bytes32,uint8,bytes32,bytes32)": "0x5a049a70",
    "cancelAuthorization(address,bytes32,bytes)": "0xb7b72899",
    "authorizationState(address,bytes32)": "0xe94a0102",
    "transferWithAuthorization(address,address,uint256,uint256,uint256,bytes32,uint8,bytes32,bytes32)":
      "0xe3ee160e",
    "receiveWithAuthorization(address,address,uint256,uint256,uint256,bytes32,uint8,bytes32,bytes32)":
      "0xef55bec6",
  },
} as const;

function functionSignatures(): Map<string, Hex> {
  const out = new Map<string, Hex>();
  for (const item of artifact.abi) {
    if (item.type !== "function") continue;
    const fn = item as AbiFunction;
    out.set(`${fn.name}(${fn.inputs.map((i) => i.type).join(",")})`, toFunctionSelector(fn));
  }
  return out;
}

function eventTopic(name: string): Hex {
  const event = artifact.abi.find((i) => i.type === "event" && i.name === name) as AbiEvent | undefined;
  if (event === undefined) throw new Error(`no event ${name}`);
  return toEventSelector(event);
}

function addressTopic(address: Address): Hex {
  return pad(address.toLowerCase() as Hex, { size: 32 });
}

function expectRevert(outcome: CallOutcome, reason: string): void {
  expect(outcome.success, `expected revert "${reason}"`).toBe(false);
  expect(outcome.revertReason).toBe(reason);
}

function expectSuccess(outcome: CallOutcome): void {
  expect(outcome.revertReason ?? outcome.exception).toBeUndefined();
  expect(outcome.success).toBe(true);
}

async function balance(token: DeployedContract, who: Address): Promise<bigint> {
  return (await token.read("balanceOf", [who])) as bigint;
}

async function used(token: DeployedContract, who: Address, nonce: Hex): Promise<boolean> {
  return (await token.read("authorizationState", [who, nonce])) as boolean;
}

describe("Eip3009Token: published vectors", () => {
  it("typehash constants equal the vectors and the keccak of the type strings", async () => {
    const { token } = await deployToken();
    expect(await token.read("TRANSFER_WITH_AUTHORIZATION_TYPEHASH")).toBe(VECTORS.transferTypehash);
    expect(await token.read("RECEIVE_WITH_AUTHORIZATION_TYPEHASH")).toBe(VECTORS.receiveTypehash);
    expect(await token.read("CANCEL_AUTHORIZATION_TYPEHASH")).toBe(VECTORS.cancelTypehash);
    expect(
      keccak256(
        toHex(
          "TransferWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)",
        ),
      ),
    ).toBe(VECTORS.transferTypehash);
    expect(keccak256(toHex("CancelAuthorization(address authorizer,bytes32 nonce)"))).toBe(
      VECTORS.cancelTypehash,
    );
  });

  it("function selectors of the compiled ABI equal the vectors", () => {
    const signatures = functionSignatures();
    for (const [signature, selector] of Object.entries(VECTORS.selectors)) {
      expect(signatures.get(signature), signature).toBe(selector);
    }
  });

  it("event topics of the compiled ABI equal the vectors", () => {
    expect(eventTopic("AuthorizationUsed")).toBe(VECTORS.authorizationUsedTopic);
    expect(eventTopic("AuthorizationCanceled")).toBe(VECTORS.authorizationCanceledTopic);
  });

  it('domain separator of a token named "USD Coin" at the USDC address on chain 1 equals the vector', async () => {
    const { harness, token } = await deployToken({ chainId: 1n, name: "USD Coin" });
    // Place the same runtime code at the USDC mainnet address, with `_name` (storage slot 0, a short
    // string: bytes left-aligned, length * 2 in the last byte) set to "USD Coin".
    await harness.setCode(VECTORS.usdcAddress, await harness.getCode(token.address));
    const nameBytes = toHex("USD Coin");
    const slot0 = concat([pad(nameBytes, { size: 31, dir: "right" }), toHex(8 * 2, { size: 1 })]);
    await harness.setStorage(VECTORS.usdcAddress, "0x00", slot0);
    const atUsdc = new (token.constructor as typeof DeployedContract)(
      harness,
      token.abi,
      VECTORS.usdcAddress,
      token.deployment,
    );
    expect(await atUsdc.read("name")).toBe("USD Coin");
    expect(await atUsdc.read("DOMAIN_SEPARATOR")).toBe(VECTORS.usdcDomainSeparator);
    // The same formula off-chain, for the vector and for the freshly deployed address.
    const offchain = (verifyingContract: Address) =>
      hashDomain({
        domain: { name: "USD Coin", version: "2", chainId: 1n, verifyingContract },
        types: {
          EIP712Domain: [
            { name: "name", type: "string" },
            { name: "version", type: "string" },
            { name: "chainId", type: "uint256" },
            { name: "verifyingContract", type: "address" },
          ],
        },
      });
    expect(offchain(VECTORS.usdcAddress)).toBe(VECTORS.usdcDomainSeparator);
    expect(await token.read("DOMAIN_SEPARATOR")).toBe(offchain(token.address));
  });

  it("the domain separator follows the live chain id", async () => {
    const { token } = await deployToken({ chainId: CHAIN_ID });
    const expected = hashDomain({
      domain: { name: "USD Coin", version: "2", chainId: CHAIN_ID, verifyingContract: token.address },
      types: {
        EIP712Domain: [
          { name: "name", type: "string" },
          { name: "version", type: "string" },
          { name: "chainId", type: "uint256" },
          { name: "verifyingContract", type: "address" },
        ],
      },
    });
    expect(await token.read("DOMAIN_SEPARATOR")).toBe(expected);
  });
});

describe("Eip3009Token: ERC-20 and administration", () => {
  it("reports metadata, mints for the owner only, transfers and approves", async () => {
    const { token } = await deployToken();
    expect(await token.read("name")).toBe("USD Coin");
    expect(await token.read("symbol")).toBe("USDC");
    expect(await token.read("decimals")).toBe(6);
    expect(await token.read("version")).toBe("2");
    expect(await token.read("totalSupply")).toBe(1_000_000_000n);
    expectRevert(
      await token.write("mint", [STRANGER.address, 1n], { from: STRANGER.address }),
      "Ownable: caller is not the owner",
    );

    const sent = await token.write("transfer", [MERCHANT.address, 5n], { from: BUYER.address });
    expectSuccess(sent);
    expect(await balance(token, MERCHANT.address)).toBe(5n);
    expectRevert(
      await token.write("transfer", [BUYER.address, 6n], { from: MERCHANT.address }),
      "ERC20: transfer amount exceeds balance",
    );

    expectSuccess(await token.write("approve", [STRANGER.address, 10n], { from: BUYER.address }));
    expect(await token.read("allowance", [BUYER.address, STRANGER.address])).toBe(10n);
    expectRevert(
      await token.write("transferFrom", [BUYER.address, STRANGER.address, 11n], { from: STRANGER.address }),
      "ERC20: transfer amount exceeds allowance",
    );
    expectSuccess(
      await token.write("transferFrom", [BUYER.address, STRANGER.address, 10n], { from: STRANGER.address }),
    );
    expect(await balance(token, STRANGER.address)).toBe(10n);
    expect(await token.read("allowance", [BUYER.address, STRANGER.address])).toBe(0n);
  });
});

describe("Eip3009Token: transferWithAuthorization and receiveWithAuthorization", () => {
  let fx: TokenFixture;
  beforeEach(async () => {
    fx = await deployToken();
  });

  it("transfer (v, r, s) by any relayer moves funds, marks the nonce and emits indexed events", async () => {
    const auth = authorization();
    const sig = await signTransfer(BUYER, fx.domain, auth);
    expect(await used(fx.token, BUYER.address, auth.nonce)).toBe(false);
    const outcome = await fx.token.write("transferWithAuthorization", [...authArgs(auth), ...vrsArgs(sig)], {
      from: RELAYER,
    });
    expectSuccess(outcome);
    expect(await balance(fx.token, MERCHANT.address)).toBe(auth.value);
    expect(await balance(fx.token, BUYER.address)).toBe(1_000_000_000n - auth.value);
    expect(await used(fx.token, BUYER.address, auth.nonce)).toBe(true);

    expect(outcome.logs).toHaveLength(2);
    const [usedLog, transferLog] = outcome.logs;
    expect(usedLog?.address).toBe(fx.token.address);
    expect(usedLog?.topics).toEqual([
      VECTORS.authorizationUsedTopic,
      addressTopic(BUYER.address),
      auth.nonce,
    ]);
    expect(usedLog?.data).toBe("0x");
    const transfer = decodeEventLog({
      abi: artifact.abi,
      data: transferLog?.data ?? "0x",
      topics: transferLog?.topics as [Hex],
    });
    expect(transfer.eventName).toBe("Transfer");
    expect(transfer.args).toEqual({ from: BUYER.address, to: MERCHANT.address, value: auth.value });
  });

  it("transfer (bytes signature) works the same", async () => {
    const auth = authorization();
    const sig = await signTransfer(BUYER, fx.domain, auth);
    expectSuccess(
      await fx.token.write("transferWithAuthorization", [...authArgs(auth), sig.bytes], { from: RELAYER }),
    );
    expect(await used(fx.token, BUYER.address, auth.nonce)).toBe(true);
  });

  it("receive works only when submitted by the payee, with either signature form", async () => {
    const auth = authorization();
    const sig = await signReceive(BUYER, fx.domain, auth);
    expectRevert(
      await fx.token.write("receiveWithAuthorization", [...authArgs(auth), ...vrsArgs(sig)], {
        from: RELAYER,
      }),
      "FiatTokenV2: caller must be the payee",
    );
    const outcome = await fx.token.write("receiveWithAuthorization", [...authArgs(auth), ...vrsArgs(sig)], {
      from: MERCHANT.address,
    });
    expectSuccess(outcome);
    expect(outcome.logs[0]?.topics).toEqual([
      VECTORS.authorizationUsedTopic,
      addressTopic(BUYER.address),
      auth.nonce,
    ]);
    expect(await balance(fx.token, MERCHANT.address)).toBe(auth.value);

    const second = authorization({ nonce: nonceOf("order-2") });
    const sig2 = await signReceive(BUYER, fx.domain, second);
    expectSuccess(
      await fx.token.write("receiveWithAuthorization", [...authArgs(second), sig2.bytes], {
        from: MERCHANT.address,
      }),
    );
  });

  it("a TransferWithAuthorization signature is not a ReceiveWithAuthorization signature", async () => {
    const auth = authorization();
    const sig = await signTransfer(BUYER, fx.domain, auth);
    expectRevert(
      await fx.token.write("receiveWithAuthorization", [...authArgs(auth), ...vrsArgs(sig)], {
        from: MERCHANT.address,
      }),
      "FiatTokenV2: invalid signature",
    );
  });

  describe("checks, in the reference order", () => {
    it("paused comes first", async () => {
      const auth = authorization({ validAfter: NOW + 10n });
      const sig = await signTransfer(STRANGER, fx.domain, auth);
      expectSuccess(await fx.token.write("blacklist", [BUYER.address], { from: OWNER.address }));
      expectSuccess(await fx.token.write("pause", [], { from: OWNER.address }));
      expectRevert(
        await fx.token.write("transferWithAuthorization", [...authArgs(auth), ...vrsArgs(sig)]),
        "Pausable: paused",
      );
    });

    it("then the blacklist (payer or payee)", async () => {
      const auth = authorization({ validAfter: NOW + 10n });
      const sig = await signTransfer(STRANGER, fx.domain, auth);
      expectSuccess(await fx.token.write("blacklist", [MERCHANT.address], { from: OWNER.address }));
      expectRevert(
        await fx.token.write("receiveWithAuthorization", [...authArgs(auth), ...vrsArgs(sig)], {
          from: RELAYER,
        }),
        "Blacklistable: account is blacklisted",
      );
    });

    it("then (receive) the caller must be the payee", async () => {
      const auth = authorization({ validAfter: NOW + 10n });
      const sig = await signReceive(STRANGER, fx.domain, auth);
      expectRevert(
        await fx.token.write("receiveWithAuthorization", [...authArgs(auth), ...vrsArgs(sig)], {
          from: RELAYER,
        }),
        "FiatTokenV2: caller must be the payee",
      );
    });

    it("then not yet valid: block.timestamp must be strictly greater than validAfter", async () => {
      const auth = authorization({ validAfter: NOW });
      const bad = await signTransfer(STRANGER, fx.domain, auth);
      expectRevert(
        await fx.token.write("transferWithAuthorization", [...authArgs(auth), ...vrsArgs(bad)]),
        "FiatTokenV2: authorization is not yet valid",
      );
      const good = await signTransfer(BUYER, fx.domain, auth);
      expectSuccess(
        await fx.token.write("transferWithAuthorization", [...authArgs(auth), ...vrsArgs(good)], {
          timestamp: NOW + 1n,
        }),
      );
      // Used and not yet valid at once: the time window is checked before the nonce.
      expectRevert(
        await fx.token.write("transferWithAuthorization", [...authArgs(auth), ...vrsArgs(good)]),
        "FiatTokenV2: authorization is not yet valid",
      );
    });

    it("then expired: at exactly validBefore it is expired, one second earlier it is not", async () => {
      const auth = authorization({ validBefore: NOW });
      const bad = await signTransfer(STRANGER, fx.domain, auth);
      expectRevert(
        await fx.token.write("transferWithAuthorization", [...authArgs(auth), ...vrsArgs(bad)]),
        "FiatTokenV2: authorization is expired",
      );
      const good = await signTransfer(BUYER, fx.domain, auth);
      expectRevert(
        await fx.token.write("transferWithAuthorization", [...authArgs(auth), ...vrsArgs(good)]),
        "FiatTokenV2: authorization is expired",
      );
      expectSuccess(
        await fx.token.write("transferWithAuthorization", [...authArgs(auth), ...vrsArgs(good)], {
          timestamp: NOW - 1n,
        }),
      );
      // Used and expired at once: the time window is checked before the nonce.
      expectRevert(
        await fx.token.write("transferWithAuthorization", [...authArgs(auth), ...vrsArgs(good)]),
        "FiatTokenV2: authorization is expired",
      );
    });

    it("then used: a second submission of the same authorization", async () => {
      const auth = authorization();
      const sig = await signTransfer(BUYER, fx.domain, auth);
      expectSuccess(await fx.token.write("transferWithAuthorization", [...authArgs(auth), ...vrsArgs(sig)]));
      const bad = await signTransfer(STRANGER, fx.domain, auth);
      expectRevert(
        await fx.token.write("transferWithAuthorization", [...authArgs(auth), ...vrsArgs(bad)]),
        "FiatTokenV2: authorization is used or canceled",
      );
    });

    it("then the signature: another key, a changed field, high s, v of 0/1, wrong length", async () => {
      const auth = authorization();
      const other = await signTransfer(STRANGER, fx.domain, auth);
      expectRevert(
        await fx.token.write("transferWithAuthorization", [...authArgs(auth), ...vrsArgs(other)]),
        "FiatTokenV2: invalid signature",
      );
      const sig = await signTransfer(BUYER, fx.domain, auth);
      expectRevert(
        await fx.token.write("transferWithAuthorization", [
          ...authArgs({ ...auth, value: auth.value + 1n }),
          ...vrsArgs(sig),
        ]),
        "FiatTokenV2: invalid signature",
      );
      const malleable = highS(sig);
      expectRevert(
        await fx.token.write("transferWithAuthorization", [...authArgs(auth), ...vrsArgs(malleable)]),
        "ECRecover: invalid signature 's' value",
      );
      expectRevert(
        await fx.token.write("transferWithAuthorization", [...authArgs(auth), sig.v - 27, sig.r, sig.s]),
        "ECRecover: invalid signature 'v' value",
      );
      expectRevert(
        await fx.token.write("transferWithAuthorization", [...authArgs(auth), concat([sig.r, sig.s])]),
        "ECRecover: invalid signature length",
      );
      // Nothing above consumed the nonce: the genuine signature still works.
      expect(await used(fx.token, BUYER.address, auth.nonce)).toBe(false);
      expectSuccess(await fx.token.write("transferWithAuthorization", [...authArgs(auth), ...vrsArgs(sig)]));
    });

    it("then the balance: an unfunded authorization reverts and leaves the nonce unused", async () => {
      const auth = authorization({ value: 2_000_000_000n });
      const sig = await signTransfer(BUYER, fx.domain, auth);
      expectRevert(
        await fx.token.write("transferWithAuthorization", [...authArgs(auth), ...vrsArgs(sig)]),
        "ERC20: transfer amount exceeds balance",
      );
      expect(await used(fx.token, BUYER.address, auth.nonce)).toBe(false);
    });
  });
});

describe("Eip3009Token: cancelAuthorization", () => {
  let fx: TokenFixture;
  beforeEach(async () => {
    fx = await deployToken();
  });

  it("cancel relayed by anyone consumes the nonce and emits AuthorizationCanceled; the transfer then reverts", async () => {
    const auth = authorization();
    const transferSig = await signTransfer(BUYER, fx.domain, auth);
    const cancelSig = await signCancel(BUYER, fx.domain, BUYER.address, auth.nonce);
    const outcome = await fx.token.write(
      "cancelAuthorization",
      [BUYER.address, auth.nonce, ...vrsArgs(cancelSig)],
      {
        from: STRANGER.address,
      },
    );
    expectSuccess(outcome);
    expect(outcome.logs).toEqual([
      {
        address: fx.token.address,
        topics: [VECTORS.authorizationCanceledTopic, addressTopic(BUYER.address), auth.nonce],
        data: "0x",
      },
    ]);
    expect(await used(fx.token, BUYER.address, auth.nonce)).toBe(true);
    expectRevert(
      await fx.token.write("transferWithAuthorization", [...authArgs(auth), ...vrsArgs(transferSig)], {
        from: RELAYER,
      }),
      "FiatTokenV2: authorization is used or canceled",
    );
    expect(await balance(fx.token, MERCHANT.address)).toBe(0n);
  });

  it("transfer first, then the cancel reverts", async () => {
    const auth = authorization();
    const transferSig = await signTransfer(BUYER, fx.domain, auth);
    expectSuccess(
      await fx.token.write("transferWithAuthorization", [...authArgs(auth), ...vrsArgs(transferSig)]),
    );
    const cancelSig = await signCancel(BUYER, fx.domain, BUYER.address, auth.nonce);
    expectRevert(
      await fx.token.write("cancelAuthorization", [BUYER.address, auth.nonce, ...vrsArgs(cancelSig)]),
      "FiatTokenV2: authorization is used or canceled",
    );
    // The nonce check comes before the signature check.
    const byStranger = await signCancel(STRANGER, fx.domain, BUYER.address, auth.nonce);
    expectRevert(
      await fx.token.write("cancelAuthorization", [BUYER.address, auth.nonce, ...vrsArgs(byStranger)]),
      "FiatTokenV2: authorization is used or canceled",
    );
  });

  it("the bytes overload, a never-used nonce, no time window (long after validBefore)", async () => {
    const nonce = nonceOf("never-signed");
    const cancelSig = await signCancel(BUYER, fx.domain, BUYER.address, nonce);
    expectSuccess(
      await fx.token.write("cancelAuthorization", [BUYER.address, nonce, cancelSig.bytes], {
        timestamp: NOW + 10n ** 9n,
      }),
    );
    expect(await used(fx.token, BUYER.address, nonce)).toBe(true);
    expectRevert(
      await fx.token.write("cancelAuthorization", [BUYER.address, nonce, cancelSig.bytes]),
      "FiatTokenV2: authorization is used or canceled",
    );
  });

  it("a cancellation signed by another account, high s or v of 0/1 is refused", async () => {
    const nonce = nonceOf("order-9");
    const byStranger = await signCancel(STRANGER, fx.domain, BUYER.address, nonce);
    expectRevert(
      await fx.token.write("cancelAuthorization", [BUYER.address, nonce, ...vrsArgs(byStranger)]),
      "FiatTokenV2: invalid signature",
    );
    const sig = await signCancel(BUYER, fx.domain, BUYER.address, nonce);
    expectRevert(
      await fx.token.write("cancelAuthorization", [BUYER.address, nonce, ...vrsArgs(highS(sig))]),
      "ECRecover: invalid signature 's' value",
    );
    expectRevert(
      await fx.token.write("cancelAuthorization", [BUYER.address, nonce, sig.v - 27, sig.r, sig.s]),
      "ECRecover: invalid signature 'v' value",
    );
    expect(await used(fx.token, BUYER.address, nonce)).toBe(false);
  });

  it("a cancellation signed for another token's domain is refused", async () => {
    const nonce = nonceOf("order-10");
    const sig = await signCancel(BUYER, { ...fx.domain, chainId: 1n }, BUYER.address, nonce);
    expectRevert(
      await fx.token.write("cancelAuthorization", [BUYER.address, nonce, ...vrsArgs(sig)]),
      "FiatTokenV2: invalid signature",
    );
  });

  it("cancel is refused while paused", async () => {
    const nonce = nonceOf("order-11");
    const sig = await signCancel(BUYER, fx.domain, BUYER.address, nonce);
    expectSuccess(await fx.token.write("pause", [], { from: OWNER.address }));
    expectRevert(
      await fx.token.write("cancelAuthorization", [BUYER.address, nonce, ...vrsArgs(sig)]),
      "Pausable: paused",
    );
    expectSuccess(await fx.token.write("unpause", [], { from: OWNER.address }));
    expectSuccess(await fx.token.write("cancelAuthorization", [BUYER.address, nonce, ...vrsArgs(sig)]));
  });

  it("authorizationState answers through its published selector", async () => {
    const nonce = nonceOf("order-12");
    const data = concat([
      VECTORS.selectors["authorizationState(address,bytes32)"],
      addressTopic(BUYER.address),
      nonce,
    ]);
    const before = await fx.harness.simulate(fx.token.address, data, fx.token.abi);
    expect(before.returnData).toBe(pad("0x00", { size: 32 }));
    const sig = await signCancel(BUYER, fx.domain, BUYER.address, nonce);
    expectSuccess(await fx.token.write("cancelAuthorization", [BUYER.address, nonce, ...vrsArgs(sig)]));
    const after = await fx.harness.simulate(fx.token.address, data, fx.token.abi);
    expect(after.returnData).toBe(pad("0x01", { size: 32 }));
  });
});

describe("Eip3009Token: EIP-1271 contract signers", () => {
  it("accepts the wallet owner's signatures for transfer and cancel, refuses others", async () => {
    const fx = await deployToken();
    const wallet = await fx.harness.deploy(loadArtifact("Erc1271Wallet"), [BUYER.address]);
    expectSuccess(await fx.token.write("mint", [wallet.address, 100n], { from: OWNER.address }));

    const auth = authorization({ from: wallet.address, value: 40n });
    const byStranger = await signTransfer(STRANGER, fx.domain, auth);
    expectRevert(
      await fx.token.write("transferWithAuthorization", [...authArgs(auth), byStranger.bytes]),
      "FiatTokenV2: invalid signature",
    );
    // For a contract signer the s/v rules are the wallet's business, not the token's.
    const byOwner = await signTransfer(BUYER, fx.domain, auth);
    const outcome = await fx.token.write("transferWithAuthorization", [...authArgs(auth), byOwner.bytes]);
    expectSuccess(outcome);
    expect(outcome.logs[0]?.topics).toEqual([
      VECTORS.authorizationUsedTopic,
      addressTopic(wallet.address),
      auth.nonce,
    ]);
    expect(await balance(fx.token, wallet.address)).toBe(60n);

    const nonce = nonceOf("wallet-cancel");
    const cancel = await signCancel(BUYER, fx.domain, wallet.address, nonce);
    expectSuccess(await fx.token.write("cancelAuthorization", [wallet.address, nonce, ...vrsArgs(cancel)]));
    expect(await used(fx.token, wallet.address, nonce)).toBe(true);
  });

  it("an account with code is never checked by ecrecover", async () => {
    const fx = await deployToken();
    const auth = authorization();
    const sig = await signTransfer(BUYER, fx.domain, auth);
    // Give the buyer's address code that is not a wallet: the valid ECDSA signature no longer counts.
    await fx.harness.setCode(BUYER.address, "0x00");
    expectRevert(
      await fx.token.write("transferWithAuthorization", [...authArgs(auth), ...vrsArgs(sig)]),
      "FiatTokenV2: invalid signature",
    );
  });
});

describe("harness sanity", () => {
  it("runs on the chosen chain id", async () => {
    const harness = await EvmHarness.create({ chainId: 12345n });
    const { token } = await deployToken({ chainId: 12345n });
    expect(harness.chainId).toBe(12345n);
    expect(token.address).toMatch(/^0x[0-9a-fA-F]{40}$/);
  });
});
