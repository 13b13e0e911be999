/**
 * WitnessBudget, the bounds of one witness collection: the Prove frame's preimage count and payload bytes (the
 * enclave's caps, here injected small; the byte count checked against the generated codec's encoding), the
 * fetched cache's bytes, and the L1 walk back from the L1 head (--max-l1-distance). The fetching oracle under
 * these bounds, against a real L1: test/host/witness-bounds.test.ts.
 */
import { describe, expect, it } from "vitest";
import { encodeRequest, type Preimage } from "../../../generated/protocol/index.js";
import { preimageKeyOf } from "../../proof/preimages/index.js";
import {
  encodedPreimageBytes,
  L1DistanceError,
  WitnessBudget,
  type WitnessLimits,
  WitnessTooLargeError,
} from "./index.js";

const NO_LIMIT: WitnessLimits = { maxPreimages: 1 << 30, maxPayloadBytes: 2 ** 40 };

function preimage(valueLength: number, fill: number): Preimage {
  return [preimageKeyOf("Keccak256", new Uint8Array(31).fill(fill)), new Uint8Array(valueLength).fill(fill)];
}

/** The budget after `preimages`: throws what addPreimage throws. */
function charge(budget: WitnessBudget, preimages: readonly Preimage[]): void {
  for (const [, value] of preimages) budget.addPreimage(value.length);
}

describe("WitnessBudget", () => {
  it("counts a Prove payload's bytes as the codec encodes them, and refuses one byte over the cap", () => {
    // Lengths around each varint width (1, 3 and 5 bytes) and more than 250 entries (a 3-byte list length).
    const lengths = [0, 1, 250, 251, 65_535, 65_536, ...Array.from({ length: 260 }, (_, i) => i)];
    const preimages = lengths.map((length, i) => preimage(length, i & 0xff));
    const exact = encodeRequest({ kind: "Prove", preimages }).length;
    expect(preimages.reduce((sum, [, v]) => sum + encodedPreimageBytes(v.length), 0)).toBeLessThan(exact);

    charge(new WitnessBudget({ maxPreimages: preimages.length, maxPayloadBytes: exact }), preimages);
    const over = new WitnessBudget({ maxPreimages: preimages.length, maxPayloadBytes: exact - 1 });
    const error = (() => {
      try {
        charge(over, preimages);
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(WitnessTooLargeError);
    expect((error as WitnessTooLargeError).details).toMatchObject({
      limit: "frame-bytes",
      payloadBytes: exact,
      maxPayloadBytes: exact - 1,
    });
  });

  it("refuses the preimage past the count cap, and cached bytes past the payload cap", () => {
    const budget = new WitnessBudget({ maxPreimages: 3, maxPayloadBytes: 1000 });
    charge(budget, [preimage(1, 1), preimage(1, 2), preimage(1, 3)]);
    expect(() => budget.addPreimage(1)).toThrow(WitnessTooLargeError);
    expect(() => budget.addPreimage(1)).toThrow(/more than 3 preimages/);
    // The first refusal stands, for a collector whose reader swallowed it.
    expect(() => budget.checkNotRefused()).toThrow(/more than 3 preimages/);

    budget.addCached(600);
    budget.addCached(400);
    expect(() => budget.addCached(1)).toThrow(/cache would exceed 1000 bytes/);
  });

  it("has nothing to throw while no bound was passed", () => {
    const budget = new WitnessBudget({ maxPreimages: 1, maxPayloadBytes: 100 });
    budget.addPreimage(10);
    budget.checkNotRefused();
  });

  it("allows the L1 head and `maxL1Distance` parents, and names the distance of the next", () => {
    const budget = new WitnessBudget(NO_LIMIT, 2);
    for (const hash of ["0x00", "0x01", "0x02"]) budget.addL1Header(hash);
    expect(() => budget.addL1Header("0x03")).toThrow(L1DistanceError);
    expect(() => budget.addL1Header("0x03")).toThrow(
      "the L1 walk from the request's L1 head reached 3 blocks back (header 0x03), more than the 2 allowed (--max-l1-distance)",
    );
  });
});
