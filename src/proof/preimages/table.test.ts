/** The compact preimage table against the generated codec it stands in for. */
import { keccak_256 } from "@noble/hashes/sha3.js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  BincodeDecodeError,
  decodeRequest,
  encodeRequest,
  type Preimage,
} from "../../../generated/protocol/index.js";
import { MissingPreimageError, PreimageMismatchError } from "../../chain/index.js";
import { bootPreimageKey, BootKey, refusalReasonOf } from "./boot-info.js";
import { keccak256PreimageKey, preimageKeyOf, sha256PreimageKey } from "./keys.js";
import { isProvePayload, MAX_PROVE_PREIMAGES, PreimageTable } from "./table.js";

const text = (s: string) => new TextEncoder().encode(s);

function witness(): Preimage[] {
  return [
    [bootPreimageKey(BootKey.L2ChainId), new Uint8Array(8).fill(1)],
    [keccak256PreimageKey(text("header")), text("header")],
    [sha256PreimageKey(text("blob")), text("blob")],
    [keccak256PreimageKey(new Uint8Array(0)), new Uint8Array(0)],
    [preimageKeyOf("Blob", new Uint8Array(31).fill(7)), new Uint8Array(32).fill(9)],
  ];
}

function decodeBoth(payload: Uint8Array): { table: string; codec: string } {
  const outcome = (run: () => unknown): string => {
    try {
      run();
      return "ok";
    } catch (error) {
      if (error instanceof BincodeDecodeError) return error.message;
      throw error;
    }
  };
  return {
    table: outcome(() => PreimageTable.decode(payload)),
    codec: outcome(() => decodeRequest(payload)),
  };
}

describe("PreimageTable", () => {
  it("holds every preimage under its 32-byte key, values as views into the payload", () => {
    const preimages = witness();
    const payload = encodeRequest({ kind: "Prove", preimages });
    expect(isProvePayload(payload)).toBe(true);
    const table = PreimageTable.decode(payload);
    expect(table.count).toBe(preimages.length);
    for (const [key, value] of preimages) {
      const found = table.get(key);
      expect(found).toEqual(value);
      expect(found.buffer).toBe(payload.buffer);
    }
    expect([...table.keys()].map((key) => key.slice())).toEqual(preimages.map(([key]) => key));
    const absent = keccak256PreimageKey(text("absent"));
    expect(table.tryGet(absent)).toBeUndefined();
    expect(table.has(absent)).toBe(false);
    expect(() => table.get(absent)).toThrow(MissingPreimageError);
    expect(() => table.verifyContent()).not.toThrow();
  });

  it("a repeated key takes the later value, as a map would", () => {
    const key = bootPreimageKey(BootKey.L1Head);
    const table = PreimageTable.fromPreimages([
      [key, new Uint8Array([1])],
      [key, new Uint8Array([2])],
    ]);
    expect(table.get(key)).toEqual(new Uint8Array([2]));
  });

  it("tells `admit` the count before allocating, and a throwing admit refuses", () => {
    const payload = encodeRequest({ kind: "Prove", preimages: witness() });
    const counts: number[] = [];
    PreimageTable.decode(payload, { admit: (count) => counts.push(count) });
    expect(counts).toEqual([5]);
    expect(() =>
      PreimageTable.decode(payload, {
        admit: () => {
          throw new RangeError("no room");
        },
      }),
    ).toThrow("no room");
  });

  it("refuses more preimages than the cap before reading them", () => {
    const payload = encodeRequest({ kind: "Prove", preimages: witness() });
    expect(() => PreimageTable.decode(payload, { maxPreimages: 4 })).toThrow(
      "Request::Prove.preimages: length 5 exceeds the cap of 4 (at byte 1)",
    );
    // A count one above the enclave's cap, with nothing behind it: refused on the count alone.
    const over = encodeRequest({ kind: "Prove", preimages: [] });
    const announced = new Uint8Array([0, 0xfc, 0, 0, 0, 0]);
    new DataView(announced.buffer).setUint32(2, MAX_PROVE_PREIMAGES + 1, true);
    expect(over).toEqual(new Uint8Array([0, 0]));
    expect(() => PreimageTable.decode(announced)).toThrow(/exceeds the cap of 2097152/);
  });

  it("accepts and refuses exactly what the generated decoder does, with the same message", () => {
    const payload = encodeRequest({ kind: "Prove", preimages: witness() });
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat(payload.length - 1), fc.integer({ min: 0, max: 255 })), {
          minLength: 1,
          maxLength: 3,
        }),
        fc.nat(payload.length),
        (edits, cut) => {
          const mutated = payload.slice(0, Math.max(cut, 1));
          for (const [at, byte] of edits) if (at < mutated.length) mutated[at] = byte;
          if (!isProvePayload(mutated)) return;
          const { table, codec } = decodeBoth(mutated);
          // The table caps the count at MAX_PROVE_PREIMAGES before the generated decoder's bytes-left check: a
          // count over both is refused by each, each naming its own bound.
          const capped =
            /^(Request::Prove\.preimages: length \d+ exceeds )the cap of 2097152( \(at byte \d+\))$/.exec(
              table,
            );
          if (capped !== null && codec !== "ok" && codec.startsWith(capped[1]!)) return;
          expect(table).toBe(codec);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it("verifyContent refuses a hash-keyed value that does not hash to its key", () => {
    const table = PreimageTable.fromPreimages([
      ...witness(),
      [keccak256PreimageKey(text("abc")), text("abd")],
    ]);
    expect(() => table.verifyContent()).toThrow(PreimageMismatchError);
    const digest = keccak_256(text("abd"));
    expect(() => table.verifyContent()).toThrow(`(value hashes to 0x${Buffer.from(digest).toString("hex")})`);
  });

  it("verifyContent(from, to) checks those entries only, and refuses a range outside the table", () => {
    const forgedAt = 3;
    const preimages = witness();
    const forgedKey = keccak256PreimageKey(text("abc"));
    preimages.splice(forgedAt, 0, [forgedKey, text("abd")]);
    const table = PreimageTable.fromPreimages(preimages);
    expect(() => table.verifyContent(undefined, 0, forgedAt)).not.toThrow();
    expect(() => table.verifyContent(undefined, forgedAt + 1, table.count)).not.toThrow();
    for (const [from, to] of [
      [0, table.count],
      [forgedAt, forgedAt + 1],
      [2, forgedAt + 2],
    ] as const) {
      const refused = (() => {
        try {
          table.verifyContent(undefined, from, to);
        } catch (error) {
          return error;
        }
      })();
      expect(refused).toBeInstanceOf(PreimageMismatchError);
      expect((refused as PreimageMismatchError).key).toEqual(forgedKey);
      expect((refused as PreimageMismatchError).actualHash).toEqual(keccak_256(text("abd")));
    }
    for (const [from, to] of [
      [-1, 2],
      [0, table.count + 1],
      [3, 2],
      [0.5, 2],
    ] as const)
      expect(() => table.verifyContent(undefined, from, to)).toThrow(RangeError);
  });

  it("decoded with `shared`, holds its index on SharedArrayBuffers; toShared copies nothing then", () => {
    const preimages = witness();
    const encoded = encodeRequest({ kind: "Prove", preimages });
    const payload = new Uint8Array(new SharedArrayBuffer(encoded.length));
    payload.set(encoded);
    const table = PreimageTable.decode(payload, { shared: true });
    for (const [key, value] of preimages) expect(table.get(key)).toEqual(value);
    const shared = table.toShared();
    expect(shared.payload).toBe(payload);
    for (const array of [shared.keyBytes, shared.starts, shared.lengths, shared.slots])
      expect(array.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(table.toShared()).toBe(shared);
    const view = PreimageTable.fromShared(shared);
    for (const [key, value] of preimages) expect(view.get(key)).toEqual(value);

    // A table decoded from an ordinary payload copies it once, on the first toShared, and answers the same later.
    const copied = PreimageTable.decode(encoded);
    const first = copied.toShared();
    expect(first.payload.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(first.payload).toEqual(encoded);
    expect(copied.toShared()).toBe(first);
  });
});

describe("refusalReasonOf: the keys a Prove request may not carry", () => {
  it("refuses precompile and global generic keys and local keys that are not a boot index", () => {
    expect(refusalReasonOf(preimageKeyOf("Precompile", new Uint8Array(31)))).toMatch(/precompile/);
    expect(refusalReasonOf(preimageKeyOf("GlobalGeneric", new Uint8Array(31)))).toMatch(/global generic/);
    const local = (index: number) => {
      const data = new Uint8Array(31);
      data[30] = index;
      return preimageKeyOf("Local", data);
    };
    expect(refusalReasonOf(local(12))).toMatch(/not a boot information index/);
    expect(refusalReasonOf(local(0))).toMatch(/not a boot information index/);
    const high = local(1);
    high[3] = 1;
    expect(refusalReasonOf(high)).toMatch(/not a boot information index/);
    for (const index of Object.values(BootKey)) expect(refusalReasonOf(local(index))).toBeUndefined();
    for (const [key] of witness()) expect(refusalReasonOf(key)).toBeUndefined();
  });
});
