/**
 * A service's main loop: runs a step until stopped, logs every error and retries after a back-off that doubles
 * from the poll interval up to a ceiling.
 */
import type { Logger } from "../log/index.js";
import { briefError } from "./brief-error.js";

/** What a step tells the loop: run again at once ("again"), or after the poll interval ("wait"). */
export type StepOutcome = "again" | "wait";

export interface StepLoopOptions {
  readonly pollIntervalMs: number;
  readonly maxBackoffMs: number;
  readonly logger: Logger;
  /** The log message of a failed step ("proposal attempt failed"). */
  readonly failureMessage: string;
}

export interface StepLoop {
  /** Resolves when the loop has ended (after stop()). */
  readonly done: Promise<void>;
  /** True once stop() was called: long waits inside a step end early. */
  readonly stopping: boolean;
  /** Waits `ms`, or less when the loop is stopped meanwhile. */
  sleep(ms: number): Promise<void>;
  /** Ends the loop; an in-flight step is abandoned after `graceMs` (default 10 s). */
  stop(graceMs?: number): Promise<void>;
}

/**
 * Runs `step` until stopped: after "again" at once, after "wait" when the poll interval has passed; an error is
 * logged (briefError) and the step retried after a back-off doubling from the poll interval up to maxBackoffMs.
 */
export function startStepLoop(
  step: (loop: StepLoop) => Promise<StepOutcome>,
  options: StepLoopOptions,
): StepLoop {
  let stopping = false;
  let wake: () => void = () => {};
  const sleep = (ms: number): Promise<void> =>
    stopping
      ? Promise.resolve()
      : new Promise((resolve) => {
          const timer = setTimeout(resolve, ms);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
  const loop: StepLoop = {
    get stopping() {
      return stopping;
    },
    get done() {
      return done;
    },
    sleep,
    async stop(graceMs = 10_000) {
      stopping = true;
      wake();
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([loop.done, new Promise((resolve) => (timer = setTimeout(resolve, graceMs)))]);
      clearTimeout(timer);
    },
  };
  const run = async (): Promise<void> => {
    let backoff = options.pollIntervalMs;
    while (!stopping) {
      try {
        if ((await step(loop)) === "wait") await sleep(options.pollIntervalMs);
        backoff = options.pollIntervalMs;
      } catch (error) {
        if (stopping) break;
        options.logger.warn({ err: briefError(error), retryInMs: backoff }, options.failureMessage);
        await sleep(backoff);
        backoff = Math.min(backoff * 2, options.maxBackoffMs);
      }
    }
  };
  const done = run();
  return loop;
}
