/** Property tests of the attributes codecs: random values round-trip, random bytes never decode to garbage. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  builtInChain,
  decodeDepositTransaction,
  encodeDepositTransaction,
  bigIntToWord,
  type L1BlockInfo,
  encodeL1InfoDeposit,
} from "../../chain/index.js";
import { DeriveError } from "../errors.js";
import { TRANSACTION_DEPOSITED_TOPIC, decodeDepositLog } from "./deposits.js";
import { decodeL1InfoCalldata, decodeL1InfoDeposit } from "./l1-info.js";
import { CONFIG_UPDATE_TOPIC, applyConfigUpdateLog, systemConfigFromGenesis } from "./system-config.js";

const u = (bits: number) => fc.bigInt({ min: 0n, max: (1n << BigInt(bits)) - 1n });
const bytes = (n: number) => fc.uint8Array({ minLength: n, maxLength: n });

const l1Info: fc.Arbitrary<L1BlockInfo> = fc
  .record({
    format: fc.constantFrom("ecotone", "isthmus", "jovian") as fc.Arbitrary<L1BlockInfo["format"]>,
    number: u(64),
    timestamp: u(64),
    baseFee: u(256),
    blockHash: bytes(32),
    sequenceNumber: u(64),
    batcherAddress: bytes(20),
    blobBaseFee: u(256),
    blobBaseFeeScalar: fc.integer({ min: 0, max: 2 ** 32 - 1 }),
    baseFeeScalar: fc.integer({ min: 0, max: 2 ** 32 - 1 }),
    operatorFeeScalar: fc.integer({ min: 0, max: 2 ** 32 - 1 }),
    operatorFeeConstant: u(64),
    daFootprintGasScalar: fc.integer({ min: 0, max: 2 ** 16 - 1 }),
  })
  .map((i) => ({
    ...i,
    operatorFeeScalar: i.format === "ecotone" ? 0 : i.operatorFeeScalar,
    operatorFeeConstant: i.format === "ecotone" ? 0n : i.operatorFeeConstant,
    daFootprintGasScalar: i.format === "jovian" ? i.daFootprintGasScalar : 0,
  }));

describe("attributes properties", () => {
  it("L1 info deposits round-trip for random values of every format", () => {
    fc.assert(
      fc.property(l1Info, (info) => {
        expect(decodeL1InfoDeposit(encodeL1InfoDeposit(info))).toEqual(info);
      }),
      { numRuns: 300 },
    );
  });

  it("random calldata either decodes to what re-encodes to it or is refused as a DeriveError", () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 0, maxLength: 200 }), fc.boolean(), (data, withSelector) => {
        if (withSelector && data.length >= 4) data.set([0x44, 0x0a, 0x5e, 0x20], 0);
        try {
          decodeL1InfoCalldata(data);
        } catch (e) {
          expect(e).toBeInstanceOf(DeriveError);
        }
      }),
      { numRuns: 500 },
    );
  });

  it("deposit logs with random opaque data round-trip through the deposit transaction", () => {
    fc.assert(
      fc.property(
        u(256),
        u(256),
        u(64),
        fc.boolean(),
        fc.uint8Array({ maxLength: 300 }),
        bytes(20),
        bytes(20),
        u(32),
        (mint, value, gas, creation, payload, from, to, logIndex) => {
          const opaque = new Uint8Array(73 + payload.length);
          opaque.set(bigIntToWord(mint), 0);
          opaque.set(bigIntToWord(value), 32);
          opaque.set(bigIntToWord(gas).subarray(24), 64);
          opaque[72] = creation ? 1 : 0;
          opaque.set(payload, 73);
          const data = new Uint8Array(64 + Math.ceil(opaque.length / 32) * 32);
          data.set(bigIntToWord(32n), 0);
          data.set(bigIntToWord(BigInt(opaque.length)), 32);
          data.set(opaque, 64);
          const pad = (a: Uint8Array) => {
            const w = new Uint8Array(32);
            w.set(a, 12);
            return w;
          };
          const log = {
            address: new Uint8Array(20),
            topics: [TRANSACTION_DEPOSITED_TOPIC, pad(from), pad(to), new Uint8Array(32)],
            data,
          };
          const tx = decodeDepositLog(log, new Uint8Array(32).fill(5), logIndex);
          expect([tx.mint, tx.value, tx.gasLimit, tx.from, tx.to, tx.data]).toEqual([
            mint,
            value,
            gas,
            from,
            creation ? undefined : to,
            payload,
          ]);
          expect(decodeDepositTransaction(encodeDepositTransaction(tx))).toEqual(tx);
        },
      ),
      { numRuns: 200 },
    );
  });

  it("random ConfigUpdate data is applied or refused as a DeriveError, never crashes", () => {
    const rollup = builtInChain(10n).rollupConfig;
    const start = systemConfigFromGenesis(rollup.genesis!.systemConfig);
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 9 }),
        fc.uint8Array({ maxLength: 160 }),
        fc.boolean(),
        (type, raw, headed) => {
          const data = raw;
          if (headed && data.length >= 64) {
            data.set(bigIntToWord(32n), 0);
            data.set(bigIntToWord(BigInt(data.length - 64)), 32);
          }
          const log = {
            address: rollup.l1SystemConfigAddress!,
            topics: [CONFIG_UPDATE_TOPIC, bigIntToWord(0n), bigIntToWord(BigInt(type))],
            data,
          };
          try {
            const next = applyConfigUpdateLog(start, log, rollup);
            expect(next.batcherAddress).toHaveLength(20);
            expect(next.scalar).toHaveLength(32);
          } catch (e) {
            expect(e).toBeInstanceOf(DeriveError);
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});
