/** The proposer's and challenger's flags: environment twins, keys only from the environment or a file, refusals. */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { nodeArgs } from "../../src/bundles/index.js";
import { ChallengerConfigError, parseChallengerCommandLine } from "../../src/challenger/index.js";
import { ProposerConfigError, parseProposerCommandLine } from "../../src/proposer/index.js";

const KEY = `0x${"11".repeat(32)}`;
const VERIFIER = "0x5fbdb2315678afecb367f032d93f642f64180aa3";
const dir = mkdtempSync(join(tmpdir(), "proposer-config-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const flags = [
  "--l1-rpc-url",
  "http://127.0.0.1:8546",
  "--rollup-rpc-url",
  "http://127.0.0.1:8545",
  "--prover-url",
  "http://127.0.0.1:7300",
  "--verifier",
  VERIFIER,
];

function refusal(parse: () => unknown): { flag?: unknown; kind: string; name: string } {
  try {
    parse();
  } catch (e) {
    const error = e as ProposerConfigError | ChallengerConfigError;
    return { flag: error.details.flag, kind: error.kind, name: error.name };
  }
  throw new Error("not refused");
}

describe("proposer flags", () => {
  it("reads every flag, with defaults, and the key from the environment", () => {
    const parsed = parseProposerCommandLine(flags, { PROPOSER_PRIVATE_KEY: KEY });
    expect(parsed).toEqual({
      kind: "run",
      config: {
        l1RpcUrl: "http://127.0.0.1:8546",
        rollupRpcUrl: "http://127.0.0.1:8545",
        proverUrl: "http://127.0.0.1:7300",
        verifier: "0x5FbDB2315678afecb367f032d93F642f64180aa3",
        privateKey: KEY,
        pollIntervalMs: 2000,
        l1Confirmations: 1,
        proveTimeoutMs: 900_000,
        maxBackoffMs: 30_000,
        logLevel: "info",
        journalVersion: "spec",
      },
    });
  });

  it("takes environment twins, the flag winning, and the key from a file", () => {
    const file = join(dir, "key");
    writeFileSync(file, `${KEY}\n`);
    const parsed = parseProposerCommandLine(["--poll-interval-ms", "300", "--private-key-file", file], {
      PROPOSER_L1_RPC_URL: "http://l1:1",
      PROPOSER_ROLLUP_RPC_URL: "http://l2:1",
      PROPOSER_PROVER_URL: "http://host:1",
      PROPOSER_VERIFIER: VERIFIER,
      PROPOSER_POLL_INTERVAL_MS: "900",
      PROPOSER_L1_CONFIRMATIONS: "0",
    });
    expect(parsed.kind === "run" && parsed.config).toMatchObject({
      l1RpcUrl: "http://l1:1",
      pollIntervalMs: 300,
      l1Confirmations: 0,
      privateKey: KEY,
    });
  });

  it("refuses a missing key, a key flag, a missing URL and a malformed address", () => {
    expect(refusal(() => parseProposerCommandLine(flags, {}))).toEqual({
      flag: "private-key-file",
      kind: "config",
      name: "ProposerConfigError",
    });
    expect(refusal(() => parseProposerCommandLine([...flags, "--private-key", KEY], {})).kind).toBe("config");
    expect(refusal(() => parseProposerCommandLine(flags.slice(2), { PROPOSER_PRIVATE_KEY: KEY })).flag).toBe(
      "l1-rpc-url",
    );
    expect(
      refusal(() => parseProposerCommandLine([...flags, "--verifier", "0x12"], { PROPOSER_PRIVATE_KEY: KEY }))
        .flag,
    ).toBe("verifier");
    expect(
      refusal(() =>
        parseProposerCommandLine(flags, { PROPOSER_PRIVATE_KEY: "0x12", PROPOSER_LOG_LEVEL: "info" }),
      ).flag,
    ).toBe("private-key-file");
  });
});

describe("help", () => {
  it("is the usage text, listing every flag with its environment twin", () => {
    const proposer = parseProposerCommandLine(["--help"], {});
    const challenger = parseChallengerCommandLine(["-h"], {});
    expect(proposer.kind === "help" && proposer.text).toContain("Usage: proposer");
    expect(challenger.kind === "help" && challenger.text).toContain("CHALLENGER_START_BLOCK");
    for (const flag of [
      "l1-rpc-url",
      "rollup-rpc-url",
      "prover-url",
      "verifier",
      "poll-interval-ms",
      "l1-confirmations",
    ])
      expect(proposer.kind === "help" && proposer.text).toContain(`--${flag}`);
  });
});

describe("challenger flags", () => {
  it("reads its own twins, --start-block and --journal-version", () => {
    const parsed = parseChallengerCommandLine([...flags, "--start-block", "7"], {
      CHALLENGER_PRIVATE_KEY: KEY,
    });
    expect(parsed.kind === "run" && parsed.config).toMatchObject({
      startBlock: 7n,
      l1LogRange: 2000n,
      privateKey: KEY,
      journalVersion: "spec",
    });
    const scheduled = parseChallengerCommandLine(flags, {
      CHALLENGER_PRIVATE_KEY: KEY,
      CHALLENGER_JOURNAL_VERSION: "schedule-id",
    });
    expect(scheduled.kind === "run" && scheduled.config.journalVersion).toBe("schedule-id");
    expect(
      refusal(() =>
        parseChallengerCommandLine([...flags, "--journal-version", "v2"], { CHALLENGER_PRIVATE_KEY: KEY }),
      ),
    ).toMatchObject({ flag: "journal-version", name: "ChallengerConfigError" });
    const ranged = parseChallengerCommandLine(flags, {
      CHALLENGER_PRIVATE_KEY: KEY,
      CHALLENGER_L1_LOG_RANGE: "50",
    });
    expect(ranged.kind === "run" && ranged.config.l1LogRange).toBe(50n);
    expect(
      refusal(() =>
        parseChallengerCommandLine([...flags, "--l1-log-range", "0"], { CHALLENGER_PRIVATE_KEY: KEY }),
      ),
    ).toMatchObject({ flag: "l1-log-range", name: "ChallengerConfigError" });
    expect(refusal(() => parseChallengerCommandLine(flags, { PROPOSER_PRIVATE_KEY: KEY }))).toEqual({
      flag: "private-key-file",
      kind: "config",
      name: "ChallengerConfigError",
    });
  });
});

describe("challenger queue flags", () => {
  const challenger = (args: string[], env: Record<string, string> = {}) => {
    const parsed = parseChallengerCommandLine([...flags, ...args], { CHALLENGER_PRIVATE_KEY: KEY, ...env });
    if (parsed.kind !== "run") throw new Error("help");
    return parsed.config;
  };

  it("proves through the host without a queue, and on a queue from a flag or its twin", () => {
    expect(challenger([], { DATABASE_URL: "postgres://db/proofs" }).queue).toBeUndefined();
    expect(challenger([], { CHALLENGER_DATABASE_URL: "postgres://db/proofs" }).queue).toEqual({
      databaseUrl: "postgres://db/proofs",
      sqlitePath: undefined,
      metricsListen: undefined,
    });
    expect(challenger(["--job-queue-sqlite", "q.db", "--metrics-listen", "[::1]:9100"]).queue).toEqual({
      databaseUrl: undefined,
      sqlitePath: "q.db",
      metricsListen: { host: "::1", port: 9100 },
    });
  });

  it("refuses --metrics-listen without a queue and a non-PostgreSQL URL", () => {
    for (const [args, flag] of [
      [["--metrics-listen", "127.0.0.1:9100"], "metrics-listen"],
      [["--database-url", "mysql://db/proofs"], "database-url"],
    ] as const)
      expect(refusal(() => challenger([...args]))).toMatchObject({ flag, name: "ChallengerConfigError" });
  });
});

describe("the processes", () => {
  const root = fileURLToPath(new URL("../../", import.meta.url));
  const run = (name: string, args: string[]) =>
    spawnSync(process.execPath, [...nodeArgs(`src/${name}/main.ts`), ...args], {
      cwd: root,
      encoding: "utf8",
      env: { ...process.env, PROPOSER_PRIVATE_KEY: "", CHALLENGER_PRIVATE_KEY: "" },
      timeout: 60_000,
    });

  it("exit 2 with one line on a bad flag", () => {
    for (const name of ["proposer", "challenger"]) {
      const bad = run(name, flags);
      expect(bad.status).toBe(2);
      expect(bad.stderr).toMatch(new RegExp(`^${name}: the ${name} key is required`));
    }
  }, 120_000);
});
