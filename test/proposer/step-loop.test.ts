/** The services' step loop and error lines (src/service-kit), in process. */
import { describe, expect, it } from "vitest";
import { createMemoryLogger } from "../../src/log/index.js";
import { briefError, startStepLoop, type StepOutcome } from "../../src/service-kit/index.js";
import { ProposalEncodingError } from "../../src/proof/onchain/index.js";

describe("startStepLoop", () => {
  it("runs again at once, waits the poll interval, backs off doubling on errors, resets after a success", async () => {
    const { logger, lines } = createMemoryLogger("test");
    const script: (StepOutcome | Error)[] = [
      "again",
      "again",
      new Error("one"),
      new Error("two"),
      new Error("three"),
      "wait",
      new Error("four"),
    ];
    let calls = 0;
    let finished: () => void = () => {};
    const allDone = new Promise<void>((resolve) => (finished = resolve));
    const loop = startStepLoop(
      () => {
        const next = script[calls++];
        if (next === undefined) {
          finished();
          return new Promise<StepOutcome>(() => {}); // a step that never ends: stop() abandons it
        }
        return next instanceof Error ? Promise.reject(next) : Promise.resolve(next);
      },
      { pollIntervalMs: 20, maxBackoffMs: 50, logger, failureMessage: "step failed" },
    );
    await allDone;
    const failures = lines.filter((l) => l.msg === "step failed");
    expect(failures.map((l) => [(l.err as { message: string }).message, l.retryInMs])).toEqual([
      ["one", 20],
      ["two", 40],
      ["three", 50],
      ["four", 20],
    ]);
    await loop.stop(100);
    expect(loop.stopping).toBe(true);
  });

  it("ends on stop() during a wait, and sleeps end early", async () => {
    const { logger } = createMemoryLogger("test");
    let steps = 0;
    const loop = startStepLoop(
      () => {
        steps++;
        return Promise.resolve("wait");
      },
      { pollIntervalMs: 60_000, maxBackoffMs: 60_000, logger, failureMessage: "x" },
    );
    const started = Date.now();
    await loop.stop();
    await loop.done;
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(steps).toBe(1);
  });
});

describe("briefError", () => {
  it("keeps a project error's name and kind, and a plain value's text", () => {
    const error = new ProposalEncodingError("no", { reason: "range" });
    expect(briefError(error)).toEqual({
      name: "ProposalEncodingError",
      message: "no",
      kind: "proposal-encoding",
    });
    expect(briefError("text")).toEqual({ name: "unknown", message: "text" });
  });
});
