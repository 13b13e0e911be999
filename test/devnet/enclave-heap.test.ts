/**
 * The devnet starts its enclave with an explicit heap (src/devnet/enclave.ts): the enclave's "enclave listening"
 * line reports the heap it sizes its request budget by, and it is DEVNET_ENCLAVE_HEAP_MB, not Node's default for
 * the machine. Starts one local enclave on a Unix socket (a few seconds).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { jsonLine, type ServiceChild } from "../../src/devnet/child.js";
import { DEVNET_ENCLAVE_HEAP_MB, startDevnetEnclave } from "../../src/devnet/enclave.js";

const dir = mkdtempSync(join(tmpdir(), "devnet-enclave-"));
let enclave: ServiceChild | undefined;

afterAll(async () => {
  await enclave?.stop(10_000);
  rmSync(dir, { recursive: true, force: true });
});

describe("the devnet's enclave", () => {
  it("runs with DEVNET_ENCLAVE_HEAP_MB of heap and half of it for requests", async () => {
    enclave = startDevnetEnclave(
      "enclave",
      ["--local", "--listen", join(dir, "enclave.sock")],
      () => undefined,
    );
    const line = await enclave.waitForLine((text) => {
      const value = jsonLine(text);
      return value?.msg === "enclave listening" ? value : undefined;
    }, 60_000);
    // The old generation is the flag's; V8 adds the young generation's semispaces on top.
    const heapMb = Number(line.heapLimitBytes) / 2 ** 20;
    expect(heapMb).toBeGreaterThanOrEqual(DEVNET_ENCLAVE_HEAP_MB);
    expect(heapMb).toBeLessThan(DEVNET_ENCLAVE_HEAP_MB + 128);
    expect(Number(line.requestBudgetBytes)).toBe(Math.floor(Number(line.heapLimitBytes) / 2));
  });
});
