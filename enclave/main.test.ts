/** The enclave entry point refuses to start without an explicit --local or with a non-local address. */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { nodeArgs } from "../src/bundles/index.js";

const repoRoot = fileURLToPath(new URL("../", import.meta.url));

function run(args: string[]): Promise<{ code: number | null; lines: Record<string, unknown>[] }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...nodeArgs("enclave/main.ts"), ...args], {
      cwd: repoRoot,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    child.on("exit", (code) => {
      const lines = out
        .split("\n")
        .filter((l) => l.length > 0)
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      resolve({ code, lines });
    });
  });
}

describe("enclave/main.ts start-up refusals", () => {
  it("without --local it needs the Nitro module and never falls back to local mode", async () => {
    const { code, lines } = await run(["--listen", "127.0.0.1:0"]);
    expect(code).toBe(1);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: "error", msg: "enclave start-up failed" });
    expect(String(lines[0]!.error)).toMatch(/^NitroUnavailableError: /);
  });

  it("in local mode it refuses a non-loopback address and a missing --listen", async () => {
    const wide = await run(["--local", "--listen", "0.0.0.0:8000"]);
    expect(wide.code).toBe(1);
    expect(String(wide.lines[0]!.error)).toMatch(/ListenAddressError: .*127\.0\.0\.1/);
    const none = await run(["--local"]);
    expect(none.code).toBe(1);
    expect(String(none.lines[0]!.error)).toMatch(/--listen .* is required/);
  });
});
