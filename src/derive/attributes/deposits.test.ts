import { describe, expect, it } from "vitest";
import {
  decodeDepositTransaction,
  encodeDepositTransaction,
  bigIntToWord,
  fromHex,
  userDepositSourceHash,
} from "../../chain/index.js";
import { CriticalDeriveError } from "../errors.js";
import { TRANSACTION_DEPOSITED_TOPIC, decodeDepositLog, deriveUserDeposits } from "./deposits.js";

const ZERO32 = new Uint8Array(32);
const padAddress = (hex: string) => {
  const out = new Uint8Array(32);
  out.set(fromHex(hex), 12);
  return out;
};

/** kona's log data layout (crates/protocol/protocol/src/deposits.rs tests): offset, length, then opaque data. */
function konaData(size: number, length: bigint, fill?: (data: Uint8Array) => void): Uint8Array {
  const data = new Uint8Array(size);
  data.set(bigIntToWord(32n), 0);
  data.set(bigIntToWord(length), 32);
  fill?.(data);
  return data;
}

const fullFill = (data: Uint8Array) => {
  data.set(bigIntToWord(10n).subarray(16), 80); // mint 10 (u128 in bytes 16..32 of its word)
  data.set(bigIntToWord(100n), 96); // value
  data.set(fromHex("00000000000003e8"), 128); // gas 1000
  data[136] = 1; // isCreation
};

describe("user deposits (vectors from op-rs/kona @ cdb9be24, crates/protocol/protocol/src/deposits.rs)", () => {
  it("test_decode_deposit_empty_succeeds", () => {
    const log = {
      address: new Uint8Array(20),
      topics: [
        TRANSACTION_DEPOSITED_TOPIC,
        padAddress("ffffffffffffffffffffffffffffffffffffffff"),
        padAddress("bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"),
        ZERO32,
      ],
      data: konaData(192, 128n),
    };
    const expected = fromHex(
      "7ef887a0ed428e1c45e1d9561b62834e1a2d3015a0caae3bfdc16b4da059ac885b01a14594ffffffffffffffffffffffffffffffffffffffff94bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb80808080b700000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000",
    );
    expect(encodeDepositTransaction(decodeDepositLog(log, ZERO32, 0n))).toEqual(expected);
  });

  it("test_decode_deposit_full_succeeds", () => {
    const log = {
      address: new Uint8Array(20),
      topics: [
        TRANSACTION_DEPOSITED_TOPIC,
        padAddress("1111111111111111111111111111111111111111"),
        padAddress("2222222222222222222222222222222222222222"),
        ZERO32,
      ],
      data: konaData(192, 128n, fullFill),
    };
    const expected = fromHex(
      "7ef875a0ed428e1c45e1d9561b62834e1a2d3015a0caae3bfdc16b4da059ac885b01a145941111111111111111111111111111111111111111800a648203e880b700000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000",
    );
    const tx = decodeDepositLog(log, ZERO32, 0n);
    expect(encodeDepositTransaction(tx)).toEqual(expected);
    expect([tx.mint, tx.value, tx.gasLimit, tx.to]).toEqual([10n, 100n, 1000n, undefined]);
  });

  it("refuses kona's invalid logs (and op-node's over-padding) as critical", () => {
    const topics = [TRANSACTION_DEPOSITED_TOPIC, ZERO32, ZERO32, ZERO32];
    const ones = fromHex("ff".repeat(32));
    const cases: [string, { topics: Uint8Array[]; data: Uint8Array }, RegExp][] = [
      [
        "invalid first topic",
        { topics: [ZERO32, ZERO32, ZERO32, ZERO32], data: new Uint8Array(0) },
        /topic 0/,
      ],
      ["incomplete data", { topics, data: new Uint8Array(63) }, /no opaqueData header/],
      ["unaligned data", { topics, data: new Uint8Array(65) }, /multiple of 32/],
      [
        "invalid from",
        { topics: [TRANSACTION_DEPOSITED_TOPIC, ones, ZERO32, ZERO32], data: new Uint8Array(64) },
        /from/,
      ],
      [
        "invalid to",
        { topics: [TRANSACTION_DEPOSITED_TOPIC, ZERO32, ones, ZERO32], data: new Uint8Array(64) },
        /to/,
      ],
      ["invalid offset", { topics, data: new Uint8Array(64) }, /offset/],
      ["length over the data", { topics, data: konaData(128, 128n) }, /exceeds/],
      ["length over 64 bits", { topics, data: konaData(128, (1n << 128n) - 1n) }, /64 bits/],
      ["over-padded", { topics, data: konaData(256, 64n) }, /over-padded/],
      ["short opaque data", { topics, data: konaData(128, 64n) }, /shorter than 73/],
      ["length 129 with 128 bytes", { topics, data: konaData(192, 129n, fullFill) }, /exceeds/],
      [
        "non-zero padding",
        { topics, data: konaData(192, 127n, (d) => ((d[191] = 1), fullFill(d))) },
        /padding/,
      ],
      [
        "version 1",
        { topics: [TRANSACTION_DEPOSITED_TOPIC, ZERO32, ZERO32, bigIntToWord(1n)], data: konaData(128, 64n) },
        /version/,
      ],
    ];
    for (const [name, log, message] of cases) {
      const attempt = () => decodeDepositLog({ address: new Uint8Array(20), ...log }, ZERO32, 0n);
      expect(attempt, name).toThrow(CriticalDeriveError);
      expect(attempt, name).toThrow(message);
    }
  });

  it("counts log indices over the block and keeps only the portal's logs of successful receipts", () => {
    const portal = fromHex("0x16fc5058f25648194471939df75cf27a2fdc48bc");
    const blockHash = fromHex("0x" + "ab".repeat(32));
    const deposit = (to: string) => ({
      address: portal,
      topics: [TRANSACTION_DEPOSITED_TOPIC, padAddress("11".repeat(20)), padAddress(to), ZERO32],
      data: konaData(192, 128n, fullFill),
    });
    const unrelated = { address: portal, topics: [bigIntToWord(5n)], data: new Uint8Array(0) };
    const elsewhere = { ...deposit("33".repeat(20)), address: fromHex("0x" + "99".repeat(20)) };
    const receipts = [
      { status: 1, logs: [unrelated, deposit("22".repeat(20))] }, // log 0, log 1
      { status: 0, logs: [] },
      { status: 1, logs: [elsewhere, unrelated, deposit("44".repeat(20))] }, // logs 2, 3, 4
    ];
    const txs = deriveUserDeposits(receipts, portal, blockHash).map(decodeDepositTransaction);
    expect(txs).toHaveLength(2);
    expect(txs[0]!.sourceHash).toEqual(userDepositSourceHash(blockHash, 1n));
    expect(txs[1]!.sourceHash).toEqual(userDepositSourceHash(blockHash, 4n));
    expect(txs.map((t) => t.isSystemTx)).toEqual([false, false]);
    expect(deriveUserDeposits([], portal, blockHash)).toEqual([]);
  });

  it("computes the source hash of kona's vectors (domain 0 over a zero block hash and index 0)", () => {
    expect(userDepositSourceHash(ZERO32, 0n)).toEqual(
      fromHex("ed428e1c45e1d9561b62834e1a2d3015a0caae3bfdc16b4da059ac885b01a145"),
    );
  });
});
