import { describe, expect, it } from "vitest";
import { ConcurrencyLimit } from "./concurrency-limit.js";

/** A promise and the function that resolves it. */
function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe("ConcurrencyLimit", () => {
  it("runs at most its slots at once, the rest in arrival order, and frees a slot when a call fails", async () => {
    const limit = new ConcurrencyLimit(2);
    const gates = [deferred(), deferred(), deferred(), deferred()];
    const started: number[] = [];
    let running = 0;
    let most = 0;
    const calls = gates.map((gate, i) =>
      limit.run(async () => {
        started.push(i);
        running++;
        most = Math.max(most, running);
        await gate.promise;
        running--;
        if (i === 0) throw new Error("first call fails");
        return i;
      }),
    );
    await Promise.resolve();
    expect(started).toEqual([0, 1]);
    expect(limit.queued).toBe(2);
    gates[0]!.resolve();
    await expect(calls[0]).rejects.toThrow("first call fails");
    expect(started).toEqual([0, 1, 2]);
    for (const gate of gates.slice(1)) gate.resolve();
    expect(await Promise.all(calls.slice(1))).toEqual([1, 2, 3]);
    expect(started).toEqual([0, 1, 2, 3]);
    expect(most).toBe(2);
    expect(limit.queued).toBe(0);
  });
});
