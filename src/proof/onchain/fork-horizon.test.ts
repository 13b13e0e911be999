import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { SUPERCHAIN_CHAIN_DATA } from "../../chain/index.js";
import {
  ForkHorizonError,
  IMAGE_FORK_HORIZON,
  refusePastHorizon,
  refuseUnknownForks,
} from "./fork-horizon.js";

const fixtureRollup = JSON.parse(
  readFileSync(new URL("../../../conformance/fixtures/devnet-rollup.json", import.meta.url), "utf8"),
) as Record<string, unknown>;

describe("unknown forks in chain configs", () => {
  it("accepts the devnet rollup config and every built-in registry entry", () => {
    expect(() => refuseUnknownForks(fixtureRollup, "devnet-rollup.json")).not.toThrow();
    for (const entry of SUPERCHAIN_CHAIN_DATA)
      expect(() => refuseUnknownForks(entry.hardforks, entry.name)).not.toThrow();
  });

  it("refuses a rollup config scheduling a fork past Jovian, naming the fork and the horizon", () => {
    const config = { ...fixtureRollup, interop_time: 1_900_000_000 };
    expect(() => refuseUnknownForks(config, "rollup.json")).toThrow(ForkHorizonError);
    expect(() => refuseUnknownForks(config, "rollup.json")).toThrow(
      /rollup\.json schedules the fork "interop" \(interop_time 1900000000\), which this image does not implement \(its fork horizon: L1 through bpo2, OP through jovian/,
    );
  });

  it("refuses a registry entry's unknown hardfork, and ignores null fork fields and block_time", () => {
    expect(() => refuseUnknownForks({ jovian_time: 1, karst_time: 5 }, "a registry entry")).toThrow(
      /"karst"/,
    );
    expect(() => refuseUnknownForks({ ...fixtureRollup, interop_time: null }, "rollup.json")).not.toThrow();
    expect(() => refuseUnknownForks({ block_time: 2 }, "rollup.json")).not.toThrow();
  });
});

describe("requests past the horizon time", () => {
  const until = IMAGE_FORK_HORIZON.until;
  const inside = { l1HeadTimestamp: until - 1n, claimTimestamp: until - 1n, claimedBlock: 7n };

  it("accepts a request just inside it", () => {
    expect(() => refusePastHorizon(inside)).not.toThrow();
  });

  it("refuses an L1 head at the horizon, naming the L1 fork", () => {
    expect(() => refusePastHorizon({ ...inside, l1HeadTimestamp: until })).toThrow(
      /the L1 head at .* lies past this image's fork horizon .*: a fork after bpo2 may be active there/,
    );
  });

  it("refuses a claimed block past the horizon, naming the OP fork", () => {
    const error = (() => {
      try {
        refusePastHorizon({ ...inside, claimTimestamp: until + 10n });
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(ForkHorizonError);
    expect((error as ForkHorizonError).message).toMatch(/the claimed block 7 .* a fork after jovian/);
    expect((error as ForkHorizonError).details).toMatchObject({ fork: "jovian", until });
  });

  it("refuses a claim whose time no Date can hold by name (a block near 2^53 at 2 s blocks)", () => {
    const claimTimestamp = 2n * (2n ** 53n - 1n);
    expect(() => refusePastHorizon({ ...inside, claimTimestamp, claimedBlock: 2n ** 53n - 1n })).toThrow(
      ForkHorizonError,
    );
    expect(() => refusePastHorizon({ ...inside, claimTimestamp, claimedBlock: 2n ** 53n - 1n })).toThrow(
      `the claimed block 9007199254740991 at a time past year 275760 (${claimTimestamp}) lies past`,
    );
  });
});
