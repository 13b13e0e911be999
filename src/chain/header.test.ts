import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fixtureFiles } from "./fixture-paths.test-support.js";
import { loadFixture } from "./fixture.js";
import { type BlockHeader, InvalidHeaderError, decodeHeader, encodeHeader, headerHash } from "./header.js";
import { toHex } from "./hex.js";

const bytes = (n: number) => fc.uint8Array({ minLength: n, maxLength: n });
const u64 = fc.bigInt({ min: 0n, max: (1n << 64n) - 1n });
const header = fc
  .record({
    parentHash: bytes(32),
    ommersHash: bytes(32),
    beneficiary: bytes(20),
    stateRoot: bytes(32),
    transactionsRoot: bytes(32),
    receiptsRoot: bytes(32),
    logsBloom: bytes(256),
    difficulty: fc.constant(0n),
    number: u64,
    gasLimit: u64,
    gasUsed: u64,
    timestamp: u64,
    extraData: fc.uint8Array({ maxLength: 32 }),
    mixHash: bytes(32),
    nonce: bytes(8),
    baseFeePerGas: fc.bigInt({ min: 0n, max: (1n << 256n) - 1n }),
    withdrawalsRoot: bytes(32),
    blobGasUsed: u64,
    excessBlobGas: u64,
    parentBeaconBlockRoot: bytes(32),
    requestsHash: bytes(32),
  })
  .chain((h) =>
    fc.integer({ min: 0, max: 6 }).map((keep) => {
      const optional = [
        "baseFeePerGas",
        "withdrawalsRoot",
        "blobGasUsed",
        "excessBlobGas",
        "parentBeaconBlockRoot",
        "requestsHash",
      ] as const;
      const out: BlockHeader = { ...h };
      for (const k of optional.slice(keep)) delete out[k];
      return out;
    }),
  );

describe("block headers", () => {
  it("RLP round trip with any prefix of the fork fields (property)", () => {
    fc.assert(
      fc.property(header, (h) => {
        expect(decodeHeader(encodeHeader(h))).toEqual(h);
      }),
    );
  });

  it("a later fork field without the earlier ones is refused", () => {
    fc.assert(
      fc.property(header, (h) => {
        if (h.requestsHash === undefined || h.baseFeePerGas === undefined) return;
        const gap = { ...h };
        delete gap.withdrawalsRoot;
        expect(() => encodeHeader(gap)).toThrow(InvalidHeaderError);
      }),
    );
  });

  it("hashes a real parent header to the child's parentHash", async () => {
    const files = fixtureFiles();
    const parent = (await loadFixture(files[1]!)).parent;
    const previous = await loadFixture(files[0]!);
    // fixture 1's parent is the block fixture 0 produced
    expect(toHex(headerHash(parent))).toBe(toHex(previous.expectedBlockHash));
  });
});
