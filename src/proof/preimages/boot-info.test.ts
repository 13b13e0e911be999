import { describe, expect, it } from "vitest";
import { PreimageKeyType, PreimageStore } from "../../chain/index.js";
import {
  type BootInfo,
  bootInfoPreimages,
  bootPreimageKey,
  BootKey,
  BootValueOutOfRangeError,
  InvalidBootInfoError,
  isBootPreimageKey,
  localBootKey,
  MAX_BOOT_BLOCK_NUMBER,
  MissingBootKeyError,
  readBootInfo,
} from "./boot-info.js";
import { PreimageError } from "./errors.js";
import { preimageKeyOf } from "./keys.js";

function u64be(value: bigint): Uint8Array {
  const out = new Uint8Array(8);
  new DataView(out.buffer).setBigUint64(0, value, false);
  return out;
}

/** Boot values keyed by local index, looked up by 32-byte key. */
function lookup(values: Map<number, Uint8Array>) {
  return {
    tryGet(key: Uint8Array) {
      const index = Number(new DataView(key.buffer, key.byteOffset).getBigUint64(24, false));
      return key[0] === 1 && key.subarray(1, 24).every((b) => b === 0) ? values.get(index) : undefined;
    },
  };
}

function fullBoot(): Map<number, Uint8Array> {
  return new Map<number, Uint8Array>([
    [BootKey.L1Head, new Uint8Array(32).fill(0xe1)],
    [BootKey.AgreedOutputRoot, new Uint8Array(32).fill(0xa0)],
    [BootKey.ClaimedOutputRoot, new Uint8Array(32).fill(0xa3)],
    [BootKey.ClaimedL2BlockNumber, u64be(103n)],
    [BootKey.L2ChainId, u64be(8453n)],
    [BootKey.Proposer, new Uint8Array(20).fill(0x70)],
    [BootKey.IntermediateBlockInterval, u64be(2n)],
    [BootKey.L1HeadNumber, u64be(70_000n)],
  ]);
}

describe("boot information", () => {
  it("local key layout: 0x01, zeros, index in the last 8 bytes big-endian", () => {
    const key = localBootKey(10);
    expect(key.length).toBe(32);
    expect(key[0]).toBe(1);
    expect(key.subarray(1, 31).every((b) => b === 0)).toBe(true);
    expect(key[31]).toBe(10);
  });

  it("reads every value", () => {
    expect(readBootInfo(lookup(fullBoot()))).toEqual({
      l1Head: new Uint8Array(32).fill(0xe1),
      l1HeadNumber: 70_000n,
      agreedOutputRoot: new Uint8Array(32).fill(0xa0),
      claimedOutputRoot: new Uint8Array(32).fill(0xa3),
      claimedL2BlockNumber: 103n,
      chainId: 8453n,
      proposer: new Uint8Array(20).fill(0x70),
      intermediateBlockInterval: 2n,
    });
  });

  it("names a missing key", () => {
    for (const index of [1, 2, 3, 4, 5, 8, 9, 10]) {
      const values = fullBoot();
      values.delete(index);
      expect(() => readBootInfo(lookup(values))).toThrow(MissingBootKeyError);
    }
    const values = fullBoot();
    values.delete(BootKey.L2ChainId);
    expect(() => readBootInfo(lookup(values))).toThrow("missing boot information: local key 5 (L2ChainId)");
  });

  it("rejects wrong sizes and a zero interval", () => {
    const short = fullBoot();
    short.set(BootKey.Proposer, new Uint8Array(32));
    expect(() => readBootInfo(lookup(short))).toThrow(InvalidBootInfoError);
    const zero = fullBoot();
    zero.set(BootKey.IntermediateBlockInterval, u64be(0n));
    expect(() => readBootInfo(lookup(zero))).toThrow(/interval must be at least 1/);
  });

  it("refuses a block number past 2^53 - 1 by name (claimed block, L1 head number, schedule block)", () => {
    expect(MAX_BOOT_BLOCK_NUMBER).toBe(2n ** 53n - 1n);
    const keys = [
      [BootKey.ClaimedL2BlockNumber, "ClaimedL2BlockNumber"],
      [BootKey.L1HeadNumber, "L1HeadNumber"],
      [BootKey.ScheduleL2BlockNumber, "ScheduleL2BlockNumber"],
    ] as const;
    for (const [index, key] of keys) {
      for (const value of [2n ** 64n - 1n, MAX_BOOT_BLOCK_NUMBER + 1n]) {
        const values = fullBoot();
        values.set(index, u64be(value));
        let caught: unknown;
        try {
          readBootInfo(lookup(values));
        } catch (error) {
          caught = error;
        }
        expect(caught).toBeInstanceOf(BootValueOutOfRangeError);
        expect(caught).toBeInstanceOf(PreimageError);
        const error = caught as BootValueOutOfRangeError;
        expect(error.kind).toBe("boot-value-out-of-range");
        expect(error.details).toEqual({ key, value, max: MAX_BOOT_BLOCK_NUMBER });
        expect(error.message).toBe(
          `boot ${key} ${value} is past the largest block number a request may name (${MAX_BOOT_BLOCK_NUMBER})`,
        );
      }
      const atMax = fullBoot();
      atMax.set(index, u64be(MAX_BOOT_BLOCK_NUMBER));
      expect(() => readBootInfo(lookup(atMax))).not.toThrow();
    }
    // Numbers that are not blocks keep the u64's range: the chain id is refused by the chain table, the interval
    // only has to be at least 1.
    const wide = fullBoot();
    wide.set(BootKey.IntermediateBlockInterval, u64be(2n ** 64n - 1n));
    expect(readBootInfo(lookup(wide)).intermediateBlockInterval).toBe(2n ** 64n - 1n);
  });

  it("the writer's preimages read back to the same boot information, keys 1-5 and 8-10 in order", () => {
    const info: BootInfo = {
      l1Head: new Uint8Array(32).fill(1),
      l1HeadNumber: 19_000_001n,
      agreedOutputRoot: new Uint8Array(32).fill(3),
      claimedOutputRoot: new Uint8Array(32).fill(4),
      claimedL2BlockNumber: 2n ** 40n + 5n,
      chainId: 84532n,
      proposer: new Uint8Array(20).fill(6),
      intermediateBlockInterval: 7n,
    };
    const preimages = bootInfoPreimages(info);
    const order = [1, 2, 3, 4, 5, 8, 9, 10];
    expect(preimages.map(([key]) => order.findIndex((index) => isBootPreimageKey(key, index)))).toEqual([
      0, 1, 2, 3, 4, 5, 6, 7,
    ]);
    const store = new PreimageStore();
    for (const [key, value] of preimages) store.put(key, value);
    expect(readBootInfo(store)).toEqual(info);
    // The values are copies: changing the input afterwards changes no preimage.
    info.l1Head.fill(9);
    expect(preimages[0]?.[1]).toEqual(new Uint8Array(32).fill(1));
  });

  it("the schedule block (key 11) is optional: absent or 0 reads as absent; written only when given", () => {
    expect(readBootInfo(lookup(fullBoot())).scheduleL2BlockNumber).toBeUndefined();
    const zero = fullBoot();
    zero.set(BootKey.ScheduleL2BlockNumber, u64be(0n));
    expect(readBootInfo(lookup(zero)).scheduleL2BlockNumber).toBeUndefined();
    const given = fullBoot();
    given.set(BootKey.ScheduleL2BlockNumber, u64be(500n));
    expect(readBootInfo(lookup(given)).scheduleL2BlockNumber).toBe(500n);
    const short = fullBoot();
    short.set(BootKey.ScheduleL2BlockNumber, new Uint8Array(4));
    expect(() => readBootInfo(lookup(short))).toThrow(/ScheduleL2BlockNumber must be 8 bytes/);
    const info = readBootInfo(lookup(given));
    const preimages = bootInfoPreimages(info);
    expect(preimages).toHaveLength(9);
    expect(isBootPreimageKey(preimages[8]![0], BootKey.ScheduleL2BlockNumber)).toBe(true);
    const store = new PreimageStore();
    for (const [key, value] of preimages) store.put(key, value);
    expect(readBootInfo(store)).toEqual(info);
  });

  it("a boot preimage key is the 32-byte local key", () => {
    const key = bootPreimageKey(BootKey.L1HeadNumber);
    expect(key[0]).toBe(PreimageKeyType.Local);
    expect(key).toEqual(localBootKey(BootKey.L1HeadNumber));
    expect(isBootPreimageKey(key, BootKey.L1HeadNumber)).toBe(true);
    expect(isBootPreimageKey(key, BootKey.L1Head)).toBe(false);
    expect(isBootPreimageKey(preimageKeyOf("Keccak256", key.subarray(1)), BootKey.L1HeadNumber)).toBe(false);
  });

  it("its errors are PreimageErrors with a kind and the key in their details", () => {
    const values = fullBoot();
    values.delete(BootKey.Proposer);
    const missing = (() => {
      try {
        readBootInfo(lookup(values));
      } catch (error) {
        return error;
      }
    })();
    expect(missing).toBeInstanceOf(PreimageError);
    expect(missing).toMatchObject({ package: "preimages", kind: "missing-boot-key", details: { index: 8 } });
    const zero = fullBoot();
    zero.set(BootKey.IntermediateBlockInterval, u64be(0n));
    expect(() => readBootInfo(lookup(zero))).toThrow(
      expect.objectContaining({ kind: "invalid-boot-info", details: { key: "IntermediateBlockInterval" } }),
    );
  });
});
