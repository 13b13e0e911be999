import { describe, expect, it } from "vitest";
import { EnclaveConfigError, parseEnclaveCommandLine } from "./config.js";

const base = ["--local", "--listen", "/tmp/enclave-flag-test.sock"];

function config(argv: string[]) {
  const parsed = parseEnclaveCommandLine(argv, {});
  if (parsed.kind !== "run") throw new Error("expected a run configuration");
  return parsed.config;
}

describe("--workers and --worker-heap-mb", () => {
  it("default to one worker (sequential) and the pool's heap, and take explicit values", () => {
    expect(config(base)).toMatchObject({ workers: 1, workerHeapMb: undefined });
    expect(config([...base, "--workers", "3", "--worker-heap-mb", "256"])).toMatchObject({
      workers: 3,
      workerHeapMb: 256,
    });
  });

  it("refuse no workers and a heap too small", () => {
    expect(() => config([...base, "--workers", "0"])).toThrow(EnclaveConfigError);
    expect(() => config([...base, "--workers", "0"])).toThrow(/--workers must be an integer of at least 1/);
    expect(() => config([...base, "--worker-heap-mb", "16"])).toThrow(/--worker-heap-mb/);
  });
});
