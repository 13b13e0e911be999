import { readFileSync } from "node:fs";
import fc from "fast-check";
import { type Hex, hexToBytes } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { describe, expect, it } from "vitest";
import { DERIVE_FIXTURES_DIR } from "../blob/fixture-paths.test-support.js";
import { InvalidL1TransactionError, decodeL1Transaction } from "./l1-transaction.js";

const hex = (b: Uint8Array | undefined): string | undefined =>
  b === undefined ? undefined : "0x" + Buffer.from(b).toString("hex");
const account = privateKeyToAccount(`0x${"11".repeat(32)}`);
const inbox = "0xff00000000000000000000000000000000000010" as const;
const hash1 = `0x01${"aa".repeat(31)}` as const;
const hash2 = `0x01${"bb".repeat(31)}` as const;

/** A small signed EIP-1559 transaction to the inbox. */
async function smallSignedTx(): Promise<Uint8Array> {
  const signed = await account.signTransaction({
    type: "eip1559",
    chainId: 1,
    nonce: 1,
    to: inbox,
    gas: 21_000n,
    data: "0x01",
  });
  return hexToBytes(signed);
}

function refused(raw: Uint8Array): InvalidL1TransactionError {
  try {
    decodeL1Transaction(raw);
  } catch (e) {
    expect(e).toBeInstanceOf(InvalidL1TransactionError);
    expect((e as InvalidL1TransactionError).kind).toBe("critical");
    expect((e as InvalidL1TransactionError).stage).toBe("retrieval");
    return e as InvalidL1TransactionError;
  }
  throw new Error("decoded but should have been refused");
}

describe("decodeL1Transaction", () => {
  it("decodes each type retrieval reads and recovers its sender", async () => {
    const base = { nonce: 7, to: inbox, gas: 100_000n, data: "0x00c0ffee" as Hex };
    const cases = [
      { tx: { ...base, type: "legacy" as const, gasPrice: 10n }, type: 0, chainId: undefined }, // pre-EIP-155
      { tx: { ...base, type: "legacy" as const, gasPrice: 10n, chainId: 1 }, type: 0, chainId: 1n },
      {
        tx: { ...base, type: "legacy" as const, gasPrice: 10n, chainId: 11155111 },
        type: 0,
        chainId: 11155111n,
      },
      {
        tx: { ...base, type: "eip2930" as const, gasPrice: 10n, chainId: 1, accessList: [] },
        type: 1,
        chainId: 1n,
      },
      {
        tx: {
          ...base,
          type: "eip1559" as const,
          maxFeePerGas: 10n,
          maxPriorityFeePerGas: 1n,
          chainId: 1,
          accessList: [{ address: inbox, storageKeys: [hash1] }],
        },
        type: 2,
        chainId: 1n,
      },
      {
        tx: {
          ...base,
          type: "eip4844" as const,
          maxFeePerGas: 10n,
          maxPriorityFeePerGas: 1n,
          maxFeePerBlobGas: 3n,
          chainId: 1,
          blobVersionedHashes: [hash1, hash2],
        },
        type: 3,
        chainId: 1n,
      },
    ];
    for (const c of cases) {
      const raw = hexToBytes(await account.signTransaction(c.tx));
      const tx = decodeL1Transaction(raw);
      expect(tx.type).toBe(c.type);
      expect(hex(tx.to)).toBe(inbox);
      expect(hex(tx.input)).toBe("0x00c0ffee");
      expect(tx.chainId).toBe(c.chainId);
      expect(tx.blobVersionedHashes.map(hex)).toEqual(c.type === 3 ? [hash1, hash2] : []);
      expect(hex(tx.sender())).toBe(account.address.toLowerCase());
      expect(tx.sender()).toBe(tx.sender()); // recovered once
    }
  });

  it("decodes kona's real OP Mainnet batcher transaction", () => {
    // crates/protocol/derive/testdata/raw_batcher_tx.hex of op-rs/kona @ cdb9be247e41 (see the fixtures README)
    const raw = new Uint8Array(readFileSync(`${DERIVE_FIXTURES_DIR}/op-mainnet-batcher-tx.bin`));
    const tx = decodeL1Transaction(raw);
    expect(tx.type).toBe(2);
    expect(tx.chainId).toBe(1n);
    expect(hex(tx.to)).toBe(inbox);
    expect(hex(tx.sender())).toBe("0x6887246668a3b87f54deb3b94ba47a6f63f32985");
    expect(tx.input.length).toBe(119_823);
    expect(tx.input[0]).toBe(0); // derivation version 0
    expect(hex(tx.input.subarray(1, 17))).toBe("0xac329933f5efdcc35ccd284232a376d3"); // the frame's channel id
  });

  it("reads a contract creation as having no recipient", async () => {
    const raw = hexToBytes(
      await account.signTransaction({ type: "eip1559", chainId: 1, nonce: 0, gas: 60_000n, data: "0x6000" }),
    );
    const tx = decodeL1Transaction(raw);
    expect(tx.to).toBeUndefined();
    expect(hex(tx.sender())).toBe(account.address.toLowerCase());
  });

  it("keeps EIP-7702 and unknown types as transactions retrieval ignores", () => {
    for (const type of [4, 5, 0x7e, 0x7f]) {
      const tx = decodeL1Transaction(Uint8Array.of(type, 0xc0));
      expect(tx.type).toBe(type);
      expect(tx.to).toBeUndefined();
      expect(tx.blobVersionedHashes).toEqual([]);
      expect(tx.sender()).toBeUndefined();
    }
  });

  it("refuses malformed encodings", async () => {
    const good = await smallSignedTx();
    refused(new Uint8Array(0));
    refused(Uint8Array.of(0x80)); // neither a type nor a list
    refused(good.subarray(0, good.length - 1)); // truncated
    refused(Uint8Array.of(...good, 0x00)); // trailing byte
    refused(Uint8Array.of(0x02, 0x80)); // payload not a list
    refused(Uint8Array.of(0x02, 0xc1, 0x80)); // one field instead of twelve
    refused(Uint8Array.of(0x02, 0xb8, 0x01, 0x00)); // long form for a one-byte string
    // a blob transaction without a recipient, or with a 31-byte versioned hash
    const blobTx = (to: number[], hashes: number[][]) => {
      const str = (b: number[]) => (b.length === 1 && b[0]! < 0x80 ? b : [0x80 + b.length, ...b]);
      const items = [[0x01], [0x80], [0x01], [0x01], [0x01], str(to), [0x80], [0x80], [0xc0], [0x01]];
      const list = hashes.map(str).flat();
      const all = [...items.flat(), 0xc0 + list.length, ...list, 0x80, 0x01, 0x01];
      return Uint8Array.of(0x03, 0xf7 + 1, all.length, ...all);
    };
    expect(decodeL1Transaction(blobTx(Array(20).fill(0xff), [Array(32).fill(1)])).type).toBe(3);
    refused(blobTx([], [Array(32).fill(1)]));
    refused(blobTx(Array(20).fill(0xff), [Array(31).fill(1)]));
    // a signature value with a leading zero byte (non-canonical integer): s becomes 0xa1 0x00 ‖ 32 bytes
    const sAt = good.length - 33;
    expect(good[1]).toBe(0xf8); // one length byte
    expect(good[sAt]).toBe(0xa0);
    const bad = Uint8Array.of(...good.subarray(0, sAt), 0xa1, 0x00, ...good.subarray(sAt + 1));
    bad[2] = bad[2]! + 1; // the list grew by one byte
    refused(bad);
  });

  it("gives no sender for signatures geth refuses (high s, bad v, r = 0)", async () => {
    const raw = await smallSignedTx();
    expect(raw[raw.length - 33]).toBe(0xa0);
    expect(raw[raw.length - 66]).toBe(0xa0);
    const n = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
    const s = BigInt(hex(raw.subarray(raw.length - 32))!);
    const highS = raw.slice();
    highS.set(hexToBytes(`0x${(n - s).toString(16).padStart(64, "0")}`), raw.length - 32);
    // flip yParity (0 is encoded 0x80, 1 is 0x01): the same key would recover, but high s is not allowed
    highS[raw.length - 67] = raw[raw.length - 67] === 0x80 ? 0x01 : 0x80;
    expect(decodeL1Transaction(highS).sender()).toBeUndefined();
    const badV = raw.slice();
    badV[raw.length - 67] = 0x02; // yParity 2
    expect(decodeL1Transaction(badV).sender()).toBeUndefined();
    // a tampered signed field changes the recovered address (never the batcher's)
    const tampered = raw.slice();
    const toAt = Buffer.from(raw).indexOf(Buffer.from(hexToBytes(inbox)));
    tampered[toAt + 19]! ^= 1; // the recipient changes: the signature now recovers some other key
    const other = decodeL1Transaction(tampered).sender();
    expect(hex(other)).not.toBe(account.address.toLowerCase());

    const legacy = hexToBytes(
      await account.signTransaction({ type: "legacy", nonce: 1, to: inbox, gas: 21_000n, gasPrice: 1n }),
    );
    const vAt = legacy.length - 67; // v is one byte (27/28) before r (0xa0 ‖ 32) and s (0xa0 ‖ 32)
    expect([27, 28]).toContain(legacy[vAt]);
    const v29 = legacy.slice();
    v29[vAt] = 29;
    expect(decodeL1Transaction(v29).sender()).toBeUndefined();
    const rZero = Uint8Array.of(...legacy.subarray(0, vAt + 1), 0x80, ...legacy.subarray(vAt + 34));
    rZero[1] = rZero[1]! - 32;
    expect(decodeL1Transaction(rZero).sender()).toBeUndefined();
  });

  it("recovers the signer of random transactions of every type (fast-check)", async () => {
    const keys = fc.uint8Array({ minLength: 32, maxLength: 32 }).filter((k) => k.some((b) => b !== 0));
    const data = fc.uint8Array({ maxLength: 300 }).map((b) => `0x${Buffer.from(b).toString("hex")}` as Hex);
    const to = fc
      .uint8Array({ minLength: 20, maxLength: 20 })
      .map((b) => `0x${Buffer.from(b).toString("hex")}` as Hex);
    const common = fc.record({
      nonce: fc.nat(),
      gas: fc.bigInt({ min: 21_000n, max: 30_000_000n }),
      data,
      to,
    });
    const variants = fc.oneof(
      common.map((c) => ({ ...c, type: "legacy" as const, gasPrice: 7n })),
      common.chain((c) =>
        fc
          .integer({ min: 1, max: 2 ** 40 })
          .map((chainId) => ({ ...c, type: "legacy" as const, gasPrice: 7n, chainId })),
      ),
      common.map((c) => ({ ...c, type: "eip2930" as const, gasPrice: 7n, chainId: 10, accessList: [] })),
      common.map((c) => ({
        ...c,
        type: "eip1559" as const,
        maxFeePerGas: 9n,
        maxPriorityFeePerGas: 2n,
        chainId: 5,
      })),
      common.chain((c) =>
        fc
          .array(fc.uint8Array({ minLength: 31, maxLength: 31 }), { minLength: 1, maxLength: 6 })
          .map((hs) => ({
            ...c,
            type: "eip4844" as const,
            maxFeePerGas: 9n,
            maxPriorityFeePerGas: 2n,
            maxFeePerBlobGas: 1n,
            chainId: 1,
            blobVersionedHashes: hs.map((h) => `0x01${Buffer.from(h).toString("hex")}` as Hex),
          })),
      ),
    );
    await fc.assert(
      fc.asyncProperty(keys, variants, async (key, tx) => {
        const signer = privateKeyToAccount(`0x${Buffer.from(key).toString("hex")}`);
        let raw: Uint8Array;
        try {
          raw = hexToBytes(await signer.signTransaction(tx));
        } catch {
          return; // a key above the curve order: viem refuses it
        }
        const decoded = decodeL1Transaction(raw);
        expect(hex(decoded.sender())).toBe(signer.address.toLowerCase());
        expect(hex(decoded.to)).toBe(tx.to.toLowerCase());
        expect(hex(decoded.input)).toBe(tx.data);
        expect(decoded.blobVersionedHashes.map(hex)).toEqual(
          "blobVersionedHashes" in tx ? tx.blobVersionedHashes : [],
        );
      }),
      { numRuns: 60 },
    );
  });

  it("never throws anything but InvalidL1TransactionError on random bytes", () => {
    fc.assert(
      fc.property(fc.constantFrom(0, 1, 2, 3), fc.uint8Array({ maxLength: 200 }), (type, body) => {
        const raw = type === 0 ? body : Uint8Array.of(type, ...body);
        try {
          const tx = decodeL1Transaction(raw);
          tx.sender();
        } catch (e) {
          expect(e).toBeInstanceOf(InvalidL1TransactionError);
        }
      }),
      { numRuns: 2000 },
    );
  });
});
