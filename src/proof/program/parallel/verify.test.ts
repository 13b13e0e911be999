/**
 * The preimages' check on the block workers (BlockPool.verifyAll): in shares on two worker threads over the table
 * read in place, with the same outcome as the check on one thread (`PreimageTable.verifyContent`): every value
 * verified, or the first entry in the request's order whose value does not hash to its key. A share that is not
 * checked (its worker failed) or an abort fails closed.
 */
import { sha256 } from "@noble/hashes/sha2.js";
import { keccak_256 } from "@noble/hashes/sha3.js";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Preimage } from "../../../../generated/protocol/index.js";
import {
  initKeccak,
  keccak256,
  PreimageKeyType,
  PreimageMismatchError,
  toHex,
} from "../../../chain/index.js";
import {
  bootPreimageKey,
  BootKey,
  preimageKeyOf,
  PreimageTable,
  sha256PreimageKey,
} from "../../preimages/index.js";
import { PreimageVerificationError } from "../errors.js";
import { BlockPool, VERIFY_SHARE_ENTRIES } from "./pool.js";

const pool = new BlockPool({ workers: 2 });
afterAll(() => pool.close());
// The WebAssembly keccak for building the requests' keys (the tests build a few hundred thousand).
beforeAll(() => initKeccak());

/** `count` preimages of every kind the check meets: keccak256 (most), sha256, and keys it does not hash. */
function preimagesOf(count: number, seed: number): Preimage[] {
  const preimages: Preimage[] = [[bootPreimageKey(BootKey.L2ChainId), new Uint8Array(8).fill(1)]];
  for (let i = 1; i < count; i++) {
    const value = new Uint8Array(8 + ((i * 131 + seed) % 300));
    new DataView(value.buffer).setUint32(0, i);
    new DataView(value.buffer).setUint32(4, seed);
    if (i % 97 === 0) preimages.push([sha256PreimageKey(value), value]);
    else if (i % 89 === 0) preimages.push([preimageKeyOf("Blob", keccak256(value).subarray(1)), value]);
    else {
      const key = keccak256(value);
      key[0] = PreimageKeyType.Keccak256; // keccak256PreimageKey's key, with the WebAssembly hash
      preimages.push([key, value]);
    }
  }
  return preimages;
}

/** The same preimages with the values at `positions` changed in one byte (their keys kept). */
function forge(preimages: readonly Preimage[], positions: readonly number[]): Preimage[] {
  return preimages.map(([key, value], index) => {
    if (!positions.includes(index)) return [key, value];
    const forged = value.slice();
    forged[forged.length - 1]! ^= 1;
    return [key, forged];
  });
}

/** What a check ended in: "verified", the mismatching key, or the error's class. */
async function outcomeOf(check: () => void | Promise<void>): Promise<string> {
  try {
    await check();
    return "verified";
  } catch (error) {
    if (error instanceof PreimageMismatchError) return `mismatch ${toHex(error.key)}`;
    return error instanceof Error ? error.name : String(error);
  }
}

describe("BlockPool.verifyAll: the preimages checked on the workers", () => {
  it("verifies a request of many shares, and finds a forged value in the middle share and in the last", async () => {
    const count = 6 * VERIFY_SHARE_ENTRIES + 123;
    const preimages = preimagesOf(count, 1);
    await expect(pool.verifyAll(PreimageTable.fromPreimages(preimages).toShared())).resolves.toBeUndefined();

    for (const at of [Math.floor(count / 2), count - 2]) {
      const forged = forge(preimages, [at]);
      const refused = await pool
        .verifyAll(PreimageTable.fromPreimages(forged).toShared())
        .catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(PreimageMismatchError);
      expect((refused as PreimageMismatchError).key).toEqual(forged[at]![0]);
      const [key, value] = forged[at]!;
      const digest = key[0] === PreimageKeyType.Keccak256 ? keccak_256(value) : sha256(value);
      expect((refused as PreimageMismatchError).actualHash).toEqual(digest);
    }
  }, 120_000);

  it("answers what the check on one thread answers: verified, or the first forged entry in order", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 2 * VERIFY_SHARE_ENTRIES + 100 }),
        fc.array(fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true }), { maxLength: 3 }),
        fc.integer({ min: 0, max: 1000 }),
        async (count, fractions, seed) => {
          const positions = fractions.map((f) => Math.floor(f * count));
          const table = PreimageTable.fromPreimages(forge(preimagesOf(count, seed), positions));
          const onWorkers = await outcomeOf(() => pool.verifyAll(table.toShared()));
          expect(onWorkers).toBe(await outcomeOf(() => table.verifyContent()));
          // Entry 0 (a boot key) and keys the check does not hash verify whatever their value.
          if (positions.every((p) => p === 0)) expect(onWorkers).toBe("verified");
        },
      ),
      { numRuns: 15 },
    );
  }, 300_000);

  it("fails closed when a share is not checked (its worker failed), and on an abort", async () => {
    const shared = PreimageTable.fromPreimages(preimagesOf(3 * VERIFY_SHARE_ENTRIES, 2)).toShared();
    // A table whose payload is not bytes: the first share's check throws in the worker.
    const broken = { ...shared, payload: {} as Uint8Array };
    const refused = await pool.verifyAll(broken).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(PreimageVerificationError);
    expect((refused as PreimageVerificationError).message).toMatch(
      /^the preimages 0 to \d+ were not verified \(.+\): the proof is refused$/,
    );

    const controller = new AbortController();
    const reason = new Error("the host hung up");
    const aborted = pool.verifyAll(shared, controller.signal);
    controller.abort(reason);
    await expect(aborted).rejects.toBe(reason);
    // The pool starts new workers for the next request.
    await expect(pool.verifyAll(shared)).resolves.toBeUndefined();
  }, 120_000);
});
