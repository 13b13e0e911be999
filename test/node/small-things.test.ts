/**
 * The small things a new user hit, each where it can fail — `--help` of the enclave and
 * the node, `merchant cli wait` with an unknown state (the devnet's secrets kept off every command line:
 * test/devnet/devnet.test.ts), a block number beyond 2^64 named as such, and a JSON number beyond 2^53 echoed with its exact value.
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { eth_getBlockByNumber, prover_prove } from "../../generated/rpc/index.js";
import { nodeArgs } from "../../src/bundles/index.js";
import { devAccounts } from "../../src/chain/index.js";
import { proofRequest } from "../host/proof-request.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

function run(
  entry: string,
  args: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number | null; out: string; err: string; ms: number }> {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...nodeArgs(entry), ...args], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, ...env },
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (err += d.toString()));
    child.on("close", (code) => resolve({ code, out, err, ms: Date.now() - started }));
  });
}

function rejection(fn: () => unknown): Error {
  try {
    fn();
  } catch (e) {
    return e as Error;
  }
  throw new Error("expected a rejection");
}

describe("--help", () => {
  it("the enclave prints its usage and exits 0", async () => {
    for (const flag of ["--help", "-h"]) {
      const r = await run("enclave/main.ts", [flag]);
      expect(r.code, r.out + r.err).toBe(0);
      expect(r.out).toMatch(/^Usage: npx tsx enclave\/main\.ts --local --listen/);
      expect(r.out).toContain("--read-timeout-ms");
    }
  });

  it("the node's usage names the command that runs the node alone, not npm start (the devnet)", async () => {
    const r = await run("src/node/main.ts", ["--help"]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^Usage: npm run node -- \[flags\]/);
    expect(r.out).not.toMatch(/^Usage: npm start/);
    expect(r.out).toContain("--rpc-fee-history-max-percentiles");
  });
});

describe("merchant cli wait --state", () => {
  it("refuses an unknown state at once as a usage error (exit 2), naming it and the real states", async () => {
    // Nothing listens on port 9: a check that waited or asked the server would not exit 2 at once.
    const r = await run("src/merchant/cli.ts", [
      "wait",
      "ord_1",
      "--state",
      "captured,canceled",
      "--url",
      "http://127.0.0.1:9",
      "--timeout-ms",
      "60000",
    ]);
    expect(r.code).toBe(2);
    expect(r.err).toContain('"canceled"');
    expect(r.err).toContain("cancelled");
    expect(r.ms).toBeLessThan(30_000);
  });
});

describe("error messages of out-of-range numbers", () => {
  it("a block number of 0x10000000000000000 is named as beyond 2^64", () => {
    const e = rejection(() => eth_getBlockByNumber.decodeParams(["0x10000000000000000", false]));
    expect(e.message).toBe(
      'invalid params: block: "0x10000000000000000" is beyond 2^64 - 1, the largest value allowed here',
    );
    // The largest one is a well-formed (absent) block, not an error.
    expect(eth_getBlockByNumber.decodeParams(["0xffffffffffffffff", false])).toBeDefined();
  });

  it("the host's prover_prove echoes a JSON number of 2^64 exactly, not as 18446744073709552000", () => {
    const text = JSON.stringify({ request: proofRequest() }).replace(
      '"l1_head_number":100',
      '"l1_head_number":18446744073709551616',
    );
    const e = rejection(() => prover_prove.decodeParams(JSON.parse(text)));
    expect(e.message).toContain("18446744073709551616");
    expect(e.message).not.toContain("18446744073709552000");
    expect(e.message).toContain("beyond 2^64 - 1");
  });
});

describe("the README's commands", () => {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  const commands = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);

  it("run Foundry's cast through npx (it is only under node_modules/.bin on a fresh machine)", () => {
    const casts = commands.flatMap((block) => block.split("\n")).filter((line) => /\bcast\s/.test(line));
    expect(casts.length).toBeGreaterThan(0);
    for (const line of casts) expect(line).toMatch(/\bnpx cast\s/);
  });

  it("give the authorizationState check as a command whose signature is the token's", async () => {
    const { eip3009TokenAbi } = await import("../../contracts/index.js");
    const block = commands.find((c) => c.includes("authorizationState"));
    expect(block).toBeDefined();
    const signature = /"(authorizationState\([^)]*\))\(bool\)"/.exec(block!)?.[1];
    const fn = eip3009TokenAbi.find((item) => item.type === "function" && item.name === "authorizationState");
    expect(fn).toBeDefined();
    const inputs = (fn as { inputs: readonly { type: string }[] }).inputs.map((i) => i.type).join(",");
    expect(signature).toBe(`authorizationState(${inputs})`);
    // The buyer it names is development account 2 of the README's walk-through.
    expect(block).toContain(devAccounts(3)[2]!.address);
  });
});
