import { randomBytes } from "node:crypto";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { bytesToHex, recoverAddress, hexToBytes } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { describe, expect, it } from "vitest";
import { recoverSignerAddress, signerAddressOf as addressOfPublicKey } from "../src/proof/onchain/index.js";
import { EnclaveSigner } from "./signer.js";

const N = secp256k1.Point.CURVE().n;

describe("EnclaveSigner", () => {
  it("derives the address viem derives for the same key (fixed seed from a deterministic source)", () => {
    const seed = new Uint8Array(48).fill(7);
    const signer = EnclaveSigner.generate(() => seed);
    const secret = secp256k1.utils.randomSecretKey(seed);
    expect(bytesToHex(signer.address)).toBe(privateKeyToAccount(bytesToHex(secret)).address.toLowerCase());
    expect(signer.publicKey.length).toBe(65);
    expect(signer.publicKey[0]).toBe(4);
  });

  it("takes its entropy from the given source", () => {
    const asked: number[] = [];
    const a = EnclaveSigner.generate((n) => (asked.push(n), randomBytes(n)));
    const b = EnclaveSigner.generate((n) => randomBytes(n));
    expect(asked).toEqual([48]);
    expect(a.address).not.toEqual(b.address);
  });

  it("signs keccak256(journal) as r‖s‖v, low-s, v in {0,1}, recoverable to its address", async () => {
    const signer = EnclaveSigner.generate((n) => randomBytes(n));
    for (let i = 0; i < 20; i++) {
      const journal = randomBytes(196 + 32 * i);
      const sig = signer.signJournal(journal);
      expect(sig.length).toBe(65);
      expect([0, 1]).toContain(sig[64]);
      const s = BigInt(bytesToHex(sig.subarray(32, 64)));
      expect(s <= N / 2n).toBe(true);
      const digest = keccak_256(journal);
      expect(recoverSignerAddress(digest, sig)).toEqual(signer.address);
      // Independent check with viem (which wants v as 27/28).
      const viemSig = bytesToHex(new Uint8Array([...sig.subarray(0, 64), (sig[64] as number) + 27]));
      const recovered = await recoverAddress({ hash: bytesToHex(digest), signature: viemSig });
      expect(hexToBytes(recovered)).toEqual(signer.address);
    }
  });

  it("address = last 20 bytes of keccak256(x‖y)", () => {
    const signer = EnclaveSigner.generate((n) => randomBytes(n));
    expect(addressOfPublicKey(signer.publicKey)).toEqual(keccak_256(signer.publicKey.subarray(1)).slice(12));
    expect(() => addressOfPublicKey(signer.publicKey.subarray(1))).toThrow(RangeError);
  });

  it("exposes no secret key", () => {
    const signer = EnclaveSigner.generate((n) => randomBytes(n));
    const visible = JSON.stringify(signer, (_k, v) => (v instanceof Uint8Array ? bytesToHex(v) : v));
    expect(Object.keys(signer).sort()).toEqual(["address", "publicKey"]);
    expect(visible).not.toMatch(/secret/i);
  });
});
