/**
 * Edge cases of rebuilding consensus bytes from JSON that the node and anvil tests do not reach: a pre-EIP-155
 * legacy transaction (v = 27/28), an OP deposit whose node left `mint` and `isSystemTx` out (op-geth omits them when
 * zero/false), unsupported types and out-of-range fields, and receipts without a status.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type Hex, keccak256, numberToHex, parseTransaction, serializeTransaction } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { decodeDepositTransaction, toHex } from "../chain/index.js";
import { MalformedResponseError, encodeTransactionJson, receiptFromJson } from "./index.js";
import { checkedTransaction, hexData, hexDataList } from "./json.js";

const account = privateKeyToAccount(generatePrivateKey());

const q = (n: bigint | number): Hex => numberToHex(n);

describe("encodeTransactionJson", () => {
  it("rebuilds a pre-EIP-155 legacy transaction (v = 27 or 28) byte for byte", async () => {
    const raw = await account.signTransaction({
      type: "legacy",
      nonce: 7,
      gasPrice: 1_000_000_000n,
      gas: 21_000n,
      to: "0x000000000000000000000000000000000000dEaD",
      value: 5n,
      data: "0x",
    });
    const tx = parseTransaction(raw);
    expect(tx.v === 27n || tx.v === 28n).toBe(true);
    const json = {
      type: "0x0",
      nonce: q(tx.nonce!),
      gasPrice: q(tx.gasPrice!),
      gas: q(tx.gas!),
      to: tx.to,
      value: q(tx.value!),
      input: "0x",
      v: q(tx.v!),
      r: tx.r,
      s: tx.s,
      hash: keccak256(raw),
    };
    expect(toHex(checkedTransaction(json, "tx"))).toBe(raw);
  });

  it("rebuilds an EIP-1559 transaction from `v` when a server leaves `yParity` out", async () => {
    const raw = await account.signTransaction({
      chainId: 900,
      nonce: 1,
      maxFeePerGas: 3n,
      maxPriorityFeePerGas: 2n,
      gas: 50_000n,
      data: "0x6000",
    });
    const tx = parseTransaction(raw);
    const json = {
      type: "0x2",
      chainId: "0x384",
      nonce: "0x1",
      maxFeePerGas: "0x3",
      maxPriorityFeePerGas: "0x2",
      gas: q(50_000),
      to: null,
      value: "0x0",
      input: "0x6000",
      accessList: [],
      v: q(tx.yParity!),
      r: tx.r,
      s: tx.s,
    };
    expect(toHex(encodeTransactionJson(json))).toBe(serializeTransaction(tx));
    expect(toHex(encodeTransactionJson(json))).toBe(raw);
    // A parity other than 0 or 1 is not a typed transaction's.
    expect(() => encodeTransactionJson({ ...json, v: "0x1b" })).toThrow(MalformedResponseError);
  });

  it("rebuilds an OP deposit with `mint` and `isSystemTx` omitted as zero and false", () => {
    const json = {
      type: "0x7e",
      sourceHash: `0x${"11".repeat(32)}`,
      from: `0x${"22".repeat(20)}`,
      to: `0x${"33".repeat(20)}`,
      value: "0x0",
      gas: "0xf4240",
      input: "0x1234",
    };
    const deposit = decodeDepositTransaction(encodeTransactionJson(json));
    expect(deposit.mint).toBe(0n);
    expect(deposit.isSystemTx).toBe(false);
    expect(deposit.gasLimit).toBe(1_000_000n);
    expect(() => encodeTransactionJson({ ...json, isSystemTx: "yes" })).toThrow(MalformedResponseError);
  });

  it("refuses unsupported types, a blob transaction without `to`, bad hex and missing fields", () => {
    const base = { nonce: "0x0", gas: "0x5208", value: "0x0", input: "0x", r: "0x1", s: "0x1", v: "0x0" };
    for (const json of [
      { ...base, type: "0x5" },
      { ...base, type: "0x3", chainId: "0x1", maxFeePerGas: "0x1", maxPriorityFeePerGas: "0x1" },
      { ...base, type: "0x0", gasPrice: "0x1", input: "0x123" },
      { ...base, type: "0x0", gasPrice: "1" },
      { ...base, type: "0x0" },
      "0xabcdef",
    ]) {
      expect(() => encodeTransactionJson(json)).toThrow(MalformedResponseError);
    }
  });
});

describe("receiptFromJson", () => {
  const receipt = {
    type: "0x2",
    status: "0x1",
    cumulativeGasUsed: "0x5208",
    logs: [],
    logsBloom: `0x${"00".repeat(256)}`,
  };

  it("parses a receipt, and refuses one without a status (pre-Byzantium root) or with a bad bloom", () => {
    expect(receiptFromJson(receipt)).toEqual({
      type: 2,
      status: 1,
      cumulativeGasUsed: 21_000n,
      logs: [],
      logsBloom: new Uint8Array(256),
    });
    const { status: _status, ...noStatus } = receipt;
    for (const json of [
      { ...noStatus, root: `0x${"00".repeat(32)}` },
      { ...receipt, status: "0x2" },
      { ...receipt, logsBloom: "0x00" },
      { ...receipt, depositReceiptVersion: "0x1" },
    ]) {
      const error = (() => {
        try {
          receiptFromJson(json);
        } catch (e) {
          return e;
        }
        return undefined;
      })();
      expect(error).toBeInstanceOf(MalformedResponseError);
      expect((error as MalformedResponseError).kind).toBe("malformed");
    }
  });
});

describe("hexData", () => {
  /** The definition it implements in one pass. */
  const HEX_DATA = /^0x(?:[0-9a-fA-F]{2})*$/;
  const decodeOrError = (s: unknown) => {
    try {
      return toHex(hexData(s, "f"));
    } catch (e) {
      expect(e).toBeInstanceOf(MalformedResponseError);
      return "refused";
    }
  };

  it("accepts exactly the strings /^0x(?:[0-9a-fA-F]{2})*$/ accepts, with their bytes (property)", () => {
    const char = fc.constantFrom(..."0123456789abcdefABCDEFxXg \u00e9\u0000".split(""));
    const text = fc.oneof(
      fc.array(char, { maxLength: 40 }).map((c) => `0x${c.join("")}`),
      fc.array(char, { maxLength: 40 }).map((c) => c.join("")),
      fc.uint8Array({ maxLength: 64 }).map((b) => toHex(b)),
      fc.string({ maxLength: 20 }),
    );
    fc.assert(
      fc.property(text, (s) => {
        const expected = HEX_DATA.test(s) ? `0x${s.slice(2).toLowerCase()}` : "refused";
        expect(decodeOrError(s)).toBe(expected);
      }),
      { numRuns: 2000 },
    );
  });

  it("refuses what is not a string, checks the length asked for, and never answers a view of a shared pool", () => {
    for (const v of [undefined, null, 12, ["0x00"], { hex: "0x00" }])
      expect(decodeOrError(v)).toBe("refused");
    expect(() => hexData("0x0011", "f", 3)).toThrow(/must be 3 bytes/);
    const bytes = hexData("0x0011", "f", 2);
    expect([bytes.byteOffset, bytes.buffer.byteLength]).toEqual([0, 2]);
    expect(hexData("0x", "f")).toEqual(new Uint8Array(0));
  });
});

describe("hexDataList", () => {
  const char = fc.constantFrom(..."0123456789abcdefABCDEFxg \u00e9".split(""));
  const item = fc.oneof(
    fc.uint8Array({ maxLength: 64 }).map((b) => toHex(b)),
    fc.array(char, { maxLength: 12 }).map((c) => `0x${c.join("")}`),
    fc.constantFrom(undefined, 7, "00"),
  );

  it("decodes each item as hexData does, into views of one buffer, or names an item it refuses (property)", () => {
    fc.assert(
      fc.property(fc.array(item, { maxLength: 30 }), (items) => {
        const refused = items.findIndex((v) => {
          try {
            hexData(v, "f");
            return false;
          } catch {
            return true;
          }
        });
        if (refused >= 0) {
          let thrown: unknown;
          try {
            hexDataList(items, "list");
          } catch (error) {
            thrown = error;
          }
          // It names an item hexData refuses (not necessarily the first: shapes are checked before contents).
          expect(thrown).toBeInstanceOf(MalformedResponseError);
          const named = /^list\[(\d+)\] is not 0x-prefixed hex data$/.exec((thrown as Error).message);
          expect(named).not.toBeNull();
          expect(() => hexData(items[Number(named![1])], "f")).toThrow(MalformedResponseError);
          return;
        }
        const views = hexDataList(items, "list");
        expect(views.map((v) => toHex(v))).toEqual(items.map((v) => toHex(hexData(v, "f"))));
        expect(new Set(views.map((v) => v.buffer)).size).toBeLessThanOrEqual(1);
      }),
      { numRuns: 1000 },
    );
  });
});
