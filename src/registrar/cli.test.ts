/**
 * The registrar CLI's flags without a chain or a host: its integers read through the service kit (the flag, else
 * its environment twin), a refused value a usage error (exit status 2) naming the flag, before any connection.
 */
import { describe, expect, it } from "vitest";
import { runRegistrarCli } from "./cli.js";

const REGISTRY = "0x00000000000000000000000000000000000000aa";
// Nothing listens here: a command that got as far as a connection would fail with exit status 1, not 2.
const CLOSED = "http://127.0.0.1:9";

async function run(argv: string[], env: NodeJS.ProcessEnv = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const status = await runRegistrarCli(argv, {
    out: (text) => out.push(text),
    err: (text) => err.push(text),
    env,
  });
  return { status, out: out.join(""), err: err.join("") };
}

describe("registrar flags", () => {
  it("refuses a confirmation count below one, from the flag or its twin", async () => {
    const base = ["status", "--l1-rpc-url", CLOSED, "--registry", REGISTRY];
    const flag = await run([...base, "--confirmations", "0"]);
    expect(flag.status).toBe(2);
    expect(flag.err).toMatch(/^registrar: --confirmations must be an integer of at least 1\n/);
    const twin = await run(base, { REGISTRAR_CONFIRMATIONS: "two" });
    expect(twin.status).toBe(2);
    expect(twin.err).toMatch(/^registrar: --confirmations must be an integer of at least 1\n/);
  });

  it("refuses a maximum attestation age that is not a positive integer", async () => {
    const result = await run(["inspect", "--host", CLOSED, "--max-age", "-5"]);
    expect(result.status).toBe(2);
    expect(result.err).toMatch(/^registrar: .*max-age/);
    const twin = await run(["inspect", "--host", CLOSED], { REGISTRAR_MAX_AGE: "0" });
    expect(twin.status).toBe(2);
    expect(twin.err).toMatch(/^registrar: --max-age must be an integer of at least 1\n/);
  });
});
