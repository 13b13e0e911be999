import fc from "fast-check";
import { parseTransaction, serializeTransaction } from "viem/op-stack";
import { keccak256 } from "viem";
import { describe, expect, it } from "vitest";
import {
  DEPOSIT_TX_TYPE,
  InvalidTransactionEncodingError,
  decodeDepositTransaction,
  depositTransactionHash,
  encodeDepositTransaction,
} from "./deposit-tx.js";
import { loadFixture } from "./fixture.js";
import { toHex } from "./hex.js";
import { FIXTURES_DIR } from "./fixture-paths.test-support.js";
import { depositIntrinsicGas } from "./tx-processor.js";

const bytes = (n: number) => fc.uint8Array({ minLength: n, maxLength: n });
const deposit = fc.record({
  sourceHash: bytes(32),
  from: bytes(20),
  to: fc.option(bytes(20), { nil: undefined }),
  mint: fc.bigInt({ min: 0n, max: (1n << 256n) - 1n }),
  value: fc.bigInt({ min: 0n, max: (1n << 256n) - 1n }),
  gasLimit: fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }),
  isSystemTx: fc.boolean(),
  data: fc.uint8Array({ maxLength: 200 }),
});

describe("deposit transactions", () => {
  it("encode/decode round trip (property)", () => {
    fc.assert(
      fc.property(deposit, (d) => {
        const encoded = encodeDepositTransaction(d);
        expect(encoded[0]).toBe(DEPOSIT_TX_TYPE);
        expect(decodeDepositTransaction(encoded)).toEqual({ kind: "deposit", ...d });
      }),
    );
  });

  it("matches viem's independent OP serializer and hash", () => {
    fc.assert(
      fc.property(deposit, (d) => {
        const ours = encodeDepositTransaction(d);
        const theirs = serializeTransaction({
          type: "deposit",
          sourceHash: toHex(d.sourceHash),
          from: toHex(d.from),
          to: d.to === undefined ? undefined : toHex(d.to),
          mint: d.mint,
          value: d.value,
          gas: d.gasLimit,
          isSystemTx: d.isSystemTx,
          data: toHex(d.data),
        });
        expect(toHex(ours)).toBe(theirs);
        expect(toHex(depositTransactionHash(ours))).toBe(keccak256(theirs));
      }),
      { numRuns: 50 },
    );
  });

  it("decodes a real L1 attributes deposit (OP Sepolia block 26207960, tx 0)", async () => {
    const fixture = await loadFixture(`${FIXTURES_DIR}/op-sepolia-26207960.json.gz`);
    const raw = fixture.transactions[0]!;
    const d = decodeDepositTransaction(raw);
    expect(toHex(d.from)).toBe("0xdeaddeaddeaddeaddeaddeaddeaddeaddead0001");
    expect(toHex(d.to!)).toBe("0x4200000000000000000000000000000000000015");
    expect(d.gasLimit).toBe(1_000_000n);
    expect(d.mint).toBe(0n);
    expect(d.isSystemTx).toBe(false);
    expect(toHex(d.data.subarray(0, 4))).toBe("0x440a5e20"); // setL1BlockValuesEcotone()
    expect(toHex(encodeDepositTransaction(d))).toBe(toHex(raw));
    const parsed = parseTransaction(toHex(raw));
    expect(parsed.type).toBe("deposit");
  });

  it("rejects malformed encodings", () => {
    const good = encodeDepositTransaction({
      sourceHash: new Uint8Array(32),
      from: new Uint8Array(20),
      to: undefined,
      mint: 0n,
      value: 0n,
      gasLimit: 21_000n,
      isSystemTx: false,
      data: new Uint8Array(0),
    });
    expect(() => decodeDepositTransaction(good.subarray(1))).toThrow(InvalidTransactionEncodingError);
    expect(() => decodeDepositTransaction(Uint8Array.of(0x7e, 0xc0))).toThrow(
      InvalidTransactionEncodingError,
    );
    const truncated = good.subarray(0, good.length - 1);
    expect(() => decodeDepositTransaction(truncated)).toThrow(InvalidTransactionEncodingError);
  });

  it("intrinsic gas: 21000 + calldata, creates add 32000 and (Shanghai) init code words", () => {
    const base = {
      kind: "deposit" as const,
      sourceHash: new Uint8Array(32),
      from: new Uint8Array(20),
      mint: 0n,
      value: 0n,
      gasLimit: 0n,
      isSystemTx: false,
      data: Uint8Array.of(0, 1, 0, 2),
    };
    expect(depositIntrinsicGas({ ...base, to: new Uint8Array(20) }, true)).toBe(21_000n + 8n + 32n);
    expect(depositIntrinsicGas({ ...base, to: undefined }, false)).toBe(53_000n + 40n);
    expect(depositIntrinsicGas({ ...base, to: undefined }, true)).toBe(53_000n + 40n + 2n);
  });
});
