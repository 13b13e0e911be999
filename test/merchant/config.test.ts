/** Flags and environment of the merchant process, and the strict request parsers of the API. */
import { describe, expect, it } from "vitest";
import { ConfigError, parseListen, parseProcessConfig } from "../../src/merchant/config.js";
import { BadRequestError } from "../../src/merchant/errors.js";
import { parseListQuery, parseOrderId, parseUint256 } from "../../src/merchant/http/wire.js";

const KEY = `0x${"11".repeat(32)}`;
const TOKEN = "0x5fbdb2315678afecb367f032d93f642f64180aa3";

describe("merchant process configuration", () => {
  it("reads flags, falls back to the environment, and fills defaults", () => {
    const config = parseProcessConfig(["--rpc-url", "http://127.0.0.1:8545", "--token", TOKEN], {
      MERCHANT_RELAYER_KEY: KEY,
      DATABASE_URL: "postgres://u@127.0.0.1/db",
    });
    expect(config.merchant).toMatchObject({
      rpcUrl: "http://127.0.0.1:8545",
      token: "0x5FbDB2315678afecb367f032d93F642f64180aa3",
      relayerKey: KEY,
      host: "127.0.0.1",
      port: 8650,
      databaseUrl: "postgres://u@127.0.0.1/db",
      sqlitePath: "./merchant.db",
      settleAt: "safe",
    });
    expect(config.merchant.payee).toBeUndefined();
    // A flag wins over the environment.
    const flagged = parseProcessConfig(
      [
        "--rpc-url",
        "http://a:1",
        "--token",
        TOKEN,
        "--relayer-key",
        KEY,
        "--listen",
        "[::1]:0",
        "--settle-at",
        "finalized",
      ],
      { MERCHANT_RPC_URL: "http://b:2" },
    );
    expect(flagged.merchant).toMatchObject({
      rpcUrl: "http://a:1",
      host: "::1",
      port: 0,
      settleAt: "finalized",
    });
  });

  it("refuses missing or malformed settings with a message naming them", () => {
    const base = ["--rpc-url", "http://x:1", "--token", TOKEN, "--relayer-key", KEY];
    expect(() => parseProcessConfig([], {})).toThrow(/--rpc-url/);
    expect(() =>
      parseProcessConfig(["--rpc-url", "ftp://x", "--token", TOKEN, "--relayer-key", KEY], {}),
    ).toThrow(/http/);
    expect(() => parseProcessConfig([...base.slice(0, 4), "--relayer-key", "0x12"], {})).toThrow(
      /relayer-key/,
    );
    expect(() => parseProcessConfig([...base, "--token", "0x12"], {})).toThrow(/--token/);
    expect(() => parseProcessConfig([...base, "--settle-at", "latest"], {})).toThrow(/settle-at/);
    expect(() => parseProcessConfig([...base, "--bogus"], {})).toThrow(ConfigError);
    expect(() => parseListen("localhost")).toThrow(/host:port/);
    expect(() => parseListen("h:70000")).toThrow(/out of range/);
    expect(parseProcessConfig(["--help"], {}).help).toBe(true);
  });
});

describe("API request parsing", () => {
  it("takes uint256 as decimal strings or safe integers, nothing else", () => {
    expect(
      parseUint256("115792089237316195423570985008687907853269984665640564039457584007913129639935", "v"),
    ).toBe(2n ** 256n - 1n);
    expect(parseUint256(42, "v")).toBe(42n);
    for (const bad of [
      "0x10",
      "01",
      "-1",
      "1e3",
      1.5,
      -1,
      2 ** 60,
      "115792089237316195423570985008687907853269984665640564039457584007913129639936",
      null,
    ]) {
      expect(() => parseUint256(bad, "v"), String(bad)).toThrow(BadRequestError);
    }
  });

  it("checks order ids and list queries", () => {
    expect(parseOrderId("00000000-0000-4000-8000-000000000000")).toBe("00000000-0000-4000-8000-000000000000");
    expect(() => parseOrderId("../../etc")).toThrow(/UUID/);
    expect(parseListQuery(new URLSearchParams("state=voided&limit=20"))).toEqual({
      state: "voided",
      limit: 20,
    });
    expect(() => parseListQuery(new URLSearchParams("limit=501"))).toThrow(/limit/);
    expect(() => parseListQuery(new URLSearchParams("order=desc"))).toThrow(/unknown query parameter/);
  });
});
