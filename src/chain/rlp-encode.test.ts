import { RLP } from "@ethereumjs/rlp";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { EncodedRlp, type RlpItem, encodeRlp } from "./rlp-encode.js";
import { toHexRaw } from "./hex.js";

type Plain = Uint8Array | Plain[];

/** Strings around the encoding's boundaries (single bytes below and at 0x80, lengths 55/56, long ones). */
const bytes = fc.oneof(
  fc.uint8Array({ maxLength: 3 }),
  fc.uint8Array({ minLength: 54, maxLength: 58 }),
  fc.integer({ min: 250, max: 300 }).map((n) => new Uint8Array(n).fill(0xab)),
);
const { item } = fc.letrec<{ item: Plain }>((tie) => ({
  item: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    bytes,
    fc.array(tie("item"), { maxLength: 18 }),
  ),
}));

/** The same item with some sub-items replaced by their encodings. */
function withEncoded(x: Plain, pick: () => boolean): RlpItem {
  if (pick()) return new EncodedRlp(RLP.encode(x));
  return x instanceof Uint8Array ? x : x.map((c) => withEncoded(c, pick));
}

describe("encodeRlp", () => {
  it("gives @ethereumjs/rlp's encoding, also with sub-items already encoded (property)", () => {
    fc.assert(
      fc.property(item, fc.array(fc.boolean(), { minLength: 1, maxLength: 40 }), (x, picks) => {
        const expected = toHexRaw(RLP.encode(x));
        expect(toHexRaw(encodeRlp(x))).toBe(expected);
        let i = 0;
        expect(toHexRaw(encodeRlp(withEncoded(x, () => picks[i++ % picks.length]!)))).toBe(expected);
      }),
      { numRuns: 300 },
    );
  });

  it("encodes lengths of three bytes (a long string, a long list)", () => {
    const long = new Uint8Array(70_000).fill(7);
    const list = Array.from({ length: 300 }, () => new Uint8Array(250).fill(9));
    for (const x of [long, list, [long, list]]) expect(toHexRaw(encodeRlp(x))).toBe(toHexRaw(RLP.encode(x)));
  });
});
