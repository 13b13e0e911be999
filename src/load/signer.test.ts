/**
 * The load's fast signer (libsecp256k1, our RLP) gives the bytes viem's signTransaction gives, for calls and
 * creations, zero and large fields, over many keys (RFC 6979 nonces and low s on both sides).
 */
import { keccak256, parseTransaction, recoverTransactionAddress } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { beforeAll, describe, expect, it } from "vitest";
import { initKeccak } from "../chain/index.js";
import { loadSignerBackend, signEip1559 } from "./signer.js";

beforeAll(async () => {
  await initKeccak();
});

describe("signEip1559", () => {
  it("runs on libsecp256k1 here", () => {
    expect(loadSignerBackend).toBe("libsecp256k1");
  });

  it("signs byte for byte as viem does, and the sender recovers", async () => {
    for (let i = 0; i < 60; i++) {
      const key = generatePrivateKey();
      const account = privateKeyToAccount(key);
      const fields = {
        chainId: i % 3 === 0 ? 901 : 84532,
        nonce: BigInt(i % 4 === 0 ? 0 : i * 1_000_003),
        maxPriorityFeePerGas: i % 5 === 0 ? 0n : 1_000_000n + BigInt(i),
        maxFeePerGas: 3n * 10n ** 9n + BigInt(i) * 10n ** 15n,
        gas: 21_000n + BigInt(i) * 7_919n,
        to: i % 7 === 0 ? undefined : account.address,
        value: i % 2 === 0 ? 0n : 10n ** 18n * BigInt(i) + 1n,
        data: (i % 6 === 0
          ? "0x"
          : `0x${"a9059cbb".repeat(1 + (i % 9))}${i.toString(16).padStart(2, "0")}`) as `0x${string}`,
      };
      const ours = await signEip1559(key, fields);
      const viems = await account.signTransaction({
        type: "eip1559",
        chainId: fields.chainId,
        nonce: Number(fields.nonce),
        ...(fields.to === undefined ? {} : { to: fields.to }),
        data: fields.data,
        value: fields.value,
        gas: fields.gas,
        maxFeePerGas: fields.maxFeePerGas,
        maxPriorityFeePerGas: fields.maxPriorityFeePerGas,
      });
      expect(ours.raw, `transaction ${i}`).toBe(viems);
      expect(ours.hash).toBe(keccak256(viems));
      const parsed = parseTransaction(ours.raw);
      expect(await recoverTransactionAddress({ serializedTransaction: ours.raw as never })).toBe(
        account.address,
      );
      expect(parsed.nonce).toBe(Number(fields.nonce));
    }
  });
});
