import { keccak_256 } from "@noble/hashes/sha3.js";
import { sha256 } from "@noble/hashes/sha2.js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { toHex } from "./hex.js";
import {
  InvalidPreimageKeyError,
  MissingPreimageError,
  PreimageKeyType,
  PreimageMismatchError,
  PreimageStore,
  describePreimageKey,
  keccak256Key,
  localKey,
  sha256Key,
} from "./preimage-store.js";

describe("PreimageStore", () => {
  it("keccak256 keys: type byte 2 replaces the hash's first byte; round trip (property)", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (value) => {
        const store = new PreimageStore();
        const key = keccak256Key(keccak_256(value));
        expect(key[0]).toBe(PreimageKeyType.Keccak256);
        expect(key.subarray(1)).toEqual(keccak_256(value).subarray(1));
        store.put(key, value);
        expect(store.get(key)).toEqual(value);
        expect(store.getByKeccak256(keccak_256(value))).toEqual(value);
      }),
    );
  });

  it("verifies keccak256 and sha256 content on insert and names the key", () => {
    const store = new PreimageStore();
    const value = new TextEncoder().encode("hello");
    store.put(sha256Key(sha256(value)), value);
    const key = keccak256Key(keccak_256(value));
    const tampered = Uint8Array.from(value);
    tampered[0]! ^= 1;
    expect(() => store.put(key, tampered)).toThrow(PreimageMismatchError);
    try {
      store.put(key, tampered);
    } catch (e) {
      expect((e as PreimageMismatchError).message).toContain(toHex(key));
      expect((e as PreimageMismatchError).key).toEqual(key);
    }
    expect(store.has(key)).toBe(false);
    expect(() => store.put(sha256Key(sha256(value)), tampered)).toThrow(PreimageMismatchError);
  });

  it("missing keys are a typed error naming the key", () => {
    const store = new PreimageStore();
    const key = keccak256Key(new Uint8Array(32).fill(7));
    expect(() => store.get(key)).toThrow(MissingPreimageError);
    expect(() => store.get(key)).toThrow(`keccak256:${toHex(key)}`);
    expect(store.tryGet(key)).toBeUndefined();
  });

  it("local keys carry the index in the last 8 bytes and are stored as given", () => {
    const key = localKey(5);
    expect(toHex(key)).toBe(`0x01${"00".repeat(30)}05`);
    const store = new PreimageStore();
    store.put(key, Uint8Array.of(0, 0, 0, 0, 0, 0xaa, 0x37, 0xdc));
    expect(store.get(key)).toEqual(Uint8Array.of(0, 0, 0, 0, 0, 0xaa, 0x37, 0xdc));
    expect(describePreimageKey(key)).toBe(`local:${toHex(key)}`);
  });

  it("rejects malformed keys", () => {
    const store = new PreimageStore();
    expect(() => store.put(new Uint8Array(31), new Uint8Array(0))).toThrow(InvalidPreimageKeyError);
    const bad = new Uint8Array(32);
    bad[0] = 9;
    expect(() => store.put(bad, new Uint8Array(0))).toThrow(InvalidPreimageKeyError);
  });
});
