/** The service kit's flag table: parser, environment twins, usage text and value readers. */
import { describe, expect, it } from "vitest";
import {
  addressFlag,
  envTwin,
  type FlagSpec,
  integerFlag,
  logLevelFlag,
  parseFlags,
  renderFlagUsage,
  urlFlag,
} from "./flags.js";

class ConfigRefusal extends Error {
  constructor(
    message: string,
    readonly flag: string | undefined,
  ) {
    super(message);
  }
}
const fail = (message: string, details: { readonly flag?: string }) =>
  new ConfigRefusal(message, details.flag);

const FLAGS: readonly FlagSpec[] = [
  { flag: "rpc-url", env: "SVC_RPC_URL", value: "URL", help: "the node" },
  { flag: "peer", env: "SVC_PEER", value: "ADDR", multiple: true, help: "a peer; repeatable" },
  { flag: "metrics", env: "SVC_METRICS", boolean: true, help: "export metrics" },
  { flag: "dry-run", boolean: true, help: "send nothing" },
];

describe("parseFlags", () => {
  it("reads a flag, else its environment twin; the flag wins and an empty twin is unset", () => {
    const env = { SVC_RPC_URL: "http://twin:1", SVC_PEER: "a,b", SVC_METRICS: "yes" };
    const fromEnv = parseFlags([], env, FLAGS, { fail });
    expect(fromEnv.text("rpc-url")).toBe("http://twin:1");
    expect(fromEnv.list("peer")).toEqual(["a,b"]);
    expect(fromEnv.bool("metrics")).toBe(true);
    expect(fromEnv.bool("dry-run")).toBe(false);
    const given = parseFlags(["--rpc-url", "http://flag:2", "--peer", "c", "--peer", "d"], env, FLAGS, {
      fail,
    });
    expect(given.text("rpc-url")).toBe("http://flag:2");
    expect(given.list("peer")).toEqual(["c", "d"]);
    const empty = parseFlags([], { SVC_RPC_URL: "" }, FLAGS, { fail });
    expect(empty.text("rpc-url")).toBeUndefined();
    expect(() => empty.need("rpc-url")).toThrow(/--rpc-url is required/);
    expect(empty.list("peer")).toEqual([]);
  });

  it("refuses unknown flags, positionals and non-boolean twins through the service's own error", () => {
    expect(() => parseFlags(["--nope"], {}, FLAGS, { fail })).toThrow(ConfigRefusal);
    expect(() => parseFlags(["inspect"], {}, FLAGS, { fail })).toThrow(ConfigRefusal);
    expect(parseFlags(["inspect"], {}, FLAGS, { fail, allowPositionals: true }).positionals).toEqual([
      "inspect",
    ]);
    const flags = parseFlags([], { SVC_METRICS: "maybe" }, FLAGS, { fail });
    expect(() => flags.bool("metrics")).toThrow(/SVC_METRICS: "maybe" is not a boolean/);
    expect(parseFlags(["-h"], {}, FLAGS, { fail }).help).toBe(true);
  });
});

describe("renderFlagUsage", () => {
  it("lists each flag with its placeholder, help and twin", () => {
    expect(renderFlagUsage(FLAGS.slice(2, 4), 20)).toEqual([
      "  --metrics         export metrics\n                    env SVC_METRICS",
      "  --dry-run         send nothing",
    ]);
    const long: FlagSpec = { flag: "x", help: "one two three four five six seven eight nine ten" };
    expect(renderFlagUsage([long], 10, 34)).toEqual([
      "  --x     one two three four five\n          six seven eight nine ten",
    ]);
  });
});

describe("value readers", () => {
  it("check integers, URLs, addresses and log levels", () => {
    expect(envTwin("PROPOSER", "l1-rpc-url")).toBe("PROPOSER_L1_RPC_URL");
    expect(integerFlag("12", "n", 10, fail)).toBe(12);
    expect(() => integerFlag("9", "n", 10, fail)).toThrow(/--n must be an integer of at least 10/);
    expect(() => integerFlag("1e3", "n", 0, fail)).toThrow(ConfigRefusal);
    expect(urlFlag("https://x", "u", fail)).toBe("https://x");
    expect(() => urlFlag("ws://x", "u", fail)).toThrow(/must be an http\(s\) URL/);
    expect(() => urlFlag("ftp://x", "u", fail, ["http:", "https:", "ws:", "wss:"])).toThrow(
      /must be an http\(s\) or ws\(s\) URL/,
    );
    expect(() => urlFlag("not a url", "u", fail)).toThrow(/is not a URL/);
    expect(addressFlag("0x5fbdb2315678afecb367f032d93f642f64180aa3", "a", fail)).toBe(
      "0x5FbDB2315678afecb367f032d93F642f64180aa3",
    );
    expect(() => addressFlag("0x12", "a", fail)).toThrow(/is not an address/);
    expect(logLevelFlag(undefined, "log-level", fail)).toBe("info");
    expect(() => logLevelFlag("loud", "log-level", fail)).toThrow(/--log-level/);
  });
});
