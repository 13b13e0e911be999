import { describe, expect, it } from "vitest";
import { DispatchOrder } from "./requests.js";

/** A promise with its resolver. */
function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe("DispatchOrder", () => {
  it("dispatches in the order the turns were taken, whatever order the preparations finish in", async () => {
    const order = new DispatchOrder();
    const prepared = [deferred(), deferred(), deferred()];
    const dispatched: number[] = [];
    const runs = prepared.map(async (prep, i) => {
      const turn = order.take();
      try {
        await prep.promise;
        await turn.ready;
        dispatched.push(i);
        turn.done();
      } finally {
        turn.done();
      }
    });
    prepared[2]!.resolve();
    prepared[1]!.resolve();
    await new Promise((resolve) => setImmediate(resolve));
    // Neither later turn went before the first, still preparing.
    expect(dispatched).toEqual([]);
    prepared[0]!.resolve();
    await Promise.all(runs);
    expect(dispatched).toEqual([0, 1, 2]);
  });

  it("a turn that gave up lets the next one go", async () => {
    const order = new DispatchOrder();
    const first = order.take();
    const second = order.take();
    let went = false;
    const waiting = second.ready.then(() => (went = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(went).toBe(false);
    first.done(); // gave up before dispatching: `done` from its finally
    await waiting;
    expect(went).toBe(true);
  });
});
