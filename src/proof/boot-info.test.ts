import { describe, expect, it } from "vitest";
import {
  BootKey,
  InvalidBootInfoError,
  localBootKey,
  MissingBootKeyError,
  readBootInfo,
} from "./boot-info.js";

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
});
