/**
 * Issue 14, item 4: the small things a new user hit, each where it can fail — `--help` of the enclave and
 * the node, `merchant cli wait` with an unknown state, the devnet's secrets kept off every command line,
 * a block number beyond 2^64 named as such, and a JSON number beyond 2^53 echoed with its exact value.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { eth_getBlockByNumber, prover_prove } from "../../generated/rpc/index.js";
import { devAccounts } from "../../src/chain/index.js";
import { jsonLine, startServiceChild } from "../../src/devnet/child.js";
import { stopLeftovers } from "../../src/devnet/leftovers.js";
import { proofRequest } from "../host/proof-request.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

function run(
  entry: string,
  args: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number | null; out: string; err: string; ms: number }> {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--import", "tsx", entry, ...args], {
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

/** Command lines of `pid` and every process below it (Linux /proc). */
function treeCommandLines(root: number): string[] {
  const parent = new Map<number, number>();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      // Field 4 (ppid) follows the command name in parentheses, which may hold spaces.
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      parent.set(Number(name), ppid);
    } catch {
      // The process exited meanwhile.
    }
  }
  const lines: string[] = [];
  for (const pid of parent.keys()) {
    let p: number | undefined = pid;
    while (p !== undefined && p > 1 && p !== root) p = parent.get(p);
    if (p !== root) continue;
    try {
      lines.push(readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" "));
    } catch {
      // Exited.
    }
  }
  return lines;
}

describe("the devnet's secrets", () => {
  it.runIf(process.platform === "linux")(
    "never appear on the command line of any process it starts (ps shows them to every local user)",
    async () => {
      const dataDir = mkdtempSync(join(tmpdir(), "devnet-argv-"));
      // Accounts 0-3: the deployer, the merchant's relayer, the buyer and the batcher.
      const keys = devAccounts(4).map((a) => a.privateKey.slice(2).toLowerCase());
      const seen = new Set<string>();
      const child = startServiceChild(
        "devnet",
        "src/devnet/main.ts",
        [
          "--data-dir",
          dataDir,
          "--node-port",
          "0",
          "--merchant-port",
          "0",
          "--l1-port",
          "0",
          "--batcher-metrics-port",
          "0",
          "--prover-port",
          "0",
          "--l1-block-time",
          "1",
          "--l2-block-time",
          "1",
        ],
        () => {},
      );
      // Sample every process below the devnet while it starts (the token deployer runs only briefly).
      const sample = () => {
        for (const line of treeCommandLines(child.process.pid!)) seen.add(line);
      };
      const timer = setInterval(sample, 25);
      try {
        await child.waitForLine(
          (line) => (jsonLine(line)?.msg === "devnet ready" ? true : undefined),
          150_000,
        );
        sample();
      } finally {
        clearInterval(timer);
        // The devnet stops its parts in turn (the node seals, anvil writes its state): give it time, then make sure
        // nothing it started outlives the test (a devnet killed at the deadline would orphan them).
        await child.stop(60_000);
        await stopLeftovers(dataDir, 5_000);
        rmSync(dataDir, { recursive: true, force: true });
      }
      const lines = [...seen];
      // The node, the batcher, the token deployer and the merchant service were all seen.
      expect(lines.some((l) => l.includes("src/node/main.ts"))).toBe(true);
      expect(lines.some((l) => l.includes("src/batcher/main.ts"))).toBe(true);
      expect(lines.some((l) => l.includes("src/merchant/main.ts"))).toBe(true);
      expect(lines.some((l) => l.includes("src/merchant/cli.ts deploy-token"))).toBe(true);
      for (const line of lines) for (const key of keys) expect(line.toLowerCase()).not.toContain(key);
    },
    200_000,
  );
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
