import { describe, expect, it } from "vitest";
import { EnclaveConfigError, parseEnclaveCommandLine } from "./config.js";

const base = ["--local", "--listen", "/tmp/enclave-flag-test.sock"];

describe("--journal-version", () => {
  it("defaults to the spec's journal and takes schedule-id", () => {
    const run = (argv: string[]) => {
      const parsed = parseEnclaveCommandLine(argv, {});
      if (parsed.kind !== "run") throw new Error("expected a run configuration");
      return parsed.config.journalVersion;
    };
    expect(run(base)).toBe("spec");
    expect(run([...base, "--journal-version", "schedule-id"])).toBe("schedule-id");
  });

  it("refuses an unknown version, naming the flag", () => {
    expect(() => parseEnclaveCommandLine([...base, "--journal-version", "v2"], {})).toThrow(
      EnclaveConfigError,
    );
    expect(() => parseEnclaveCommandLine([...base, "--journal-version", "v2"], {})).toThrow(
      /--journal-version: "v2" must be one of spec, schedule-id/,
    );
  });
});
