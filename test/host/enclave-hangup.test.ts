/**
 * A host that hangs up mid-proof (docs/enclave.md "The enclave process"): a real enclave process is sent the
 * recorded devnet witness over a raw connection that is closed as soon as the enclave has the whole frame. The
 * enclave stops the proof at its next checkpoint, logs "request abandoned by the host", signs nothing, and proves
 * the same witness for the next connection.
 */
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encodeRequestFrame } from "../../generated/protocol/index.js";
import { FIXTURE_ROLLUP_PATH, recordedWitness } from "../../conformance/fixture.js";
import { type RunningEnclave, startEnclave } from "../../enclave/test/enclave-process.js";
import { callEnclave } from "../../enclave/test/transport.js";

let enclave: RunningEnclave;

beforeAll(async () => {
  enclave = await startEnclave(["--rollup-config", FIXTURE_ROLLUP_PATH]);
}, 120_000);

afterAll(async () => {
  await enclave?.stop();
});

/** Resolves with the first log line (from index `from` on) that `match` accepts. */
function logLine(
  from: number,
  match: (line: Record<string, unknown>) => boolean,
): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const look = (): boolean => {
      const found = enclave.logs.slice(from).find(match);
      if (found !== undefined) resolve(found);
      return found !== undefined;
    };
    if (look()) return;
    const onData = (): void => {
      // The helper parses stdout lines as they come; look again once this chunk is parsed.
      setImmediate(() => {
        if (look()) enclave.child.stdout?.off("data", onData);
      });
    };
    enclave.child.stdout?.on("data", onData);
    enclave.child.once("exit", (code) => reject(new Error(`the enclave exited with ${code}`)));
  });
}

describe("enclave: the host hangs up mid-proof", () => {
  it("the proof is abandoned (logged, nothing signed) and the next request is proved", async () => {
    const { preimages } = recordedWitness();
    const from = enclave.logs.length;
    const address = enclave.address;
    if (address.kind !== "unix") throw new Error("expected a Unix socket enclave");
    const socket = connect(address.path);
    socket.on("error", () => undefined);
    socket.write(encodeRequestFrame({ kind: "Prove", preimages }));
    await logLine(from, (line) => line.msg === "request received");
    socket.destroy();

    const served = await logLine(from, (line) => line.msg === "request served");
    expect(served).toMatchObject({ request: "Prove", response: "Error" });
    expect(
      enclave.logs.slice(from).find((line) => line.msg === "request abandoned by the host"),
    ).toMatchObject({
      request: "Prove",
      reason: "request abandoned: the connection was closed",
    });

    const next = await callEnclave(address, { kind: "Prove", preimages }, { timeoutMs: 300_000 });
    expect(next.kind).toBe("Prove");
    expect(enclave.child.exitCode).toBeNull();
  }, 600_000);
});
