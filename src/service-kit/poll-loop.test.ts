/** The poll loop the node's L1 follower and safe-head tracker run on: rounds, wake, stop. */
import { describe, expect, it } from "vitest";
import { PollLoop } from "./poll-loop.js";

/** A promise with its resolver, to hold a round open until the test lets it end. */
function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe("PollLoop", () => {
  it("runs the first round at once and the next only after a wake when the interval is long", async () => {
    let rounds = 0;
    let roundDone = deferred();
    const loop = new PollLoop(async () => {
      rounds++;
      roundDone.resolve();
    }, 3_600_000);
    expect(loop.active).toBe(false);
    loop.start();
    expect(loop.active).toBe(true);
    await roundDone.promise;
    expect(rounds).toBe(1);
    roundDone = deferred();
    // Let the loop enter its wait, then cut it short.
    await new Promise((resolve) => setImmediate(resolve));
    loop.wake();
    await roundDone.promise;
    expect(rounds).toBe(2);
    await loop.stop();
    expect(loop.active).toBe(false);
    expect(loop.stopping).toBe(true);
  });

  it("stop() waits for the round in progress, which sees `stopping`, and ends the wait without a timer left", async () => {
    const entered = deferred();
    const release = deferred();
    let sawStopping = false;
    const loop = new PollLoop(async () => {
      entered.resolve();
      await release.promise;
      sawStopping = loop.stopping;
    }, 3_600_000);
    loop.start();
    await entered.promise;
    let stopped = false;
    const stopping = loop.stop().then(() => (stopped = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(stopped).toBe(false);
    release.resolve();
    await stopping;
    expect(sawStopping).toBe(true);
    // An hour-long wait would keep this test (and its worker) alive: stop ended it.
  });

  it("starts again after a stop, and start() while running does not run a second loop", async () => {
    let concurrent = 0;
    let most = 0;
    let rounds = 0;
    const loop = new PollLoop(async () => {
      concurrent++;
      most = Math.max(most, concurrent);
      rounds++;
      await new Promise((resolve) => setImmediate(resolve));
      concurrent--;
    }, 1);
    loop.start();
    loop.start();
    while (rounds < 5) await new Promise((resolve) => setTimeout(resolve, 1));
    await loop.stop();
    expect(most).toBe(1);
    const before = rounds;
    loop.start();
    expect(loop.stopping).toBe(false);
    while (rounds === before) await new Promise((resolve) => setTimeout(resolve, 1));
    await loop.stop();
  });
});
