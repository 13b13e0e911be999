/**
 * Setup file of the process lane: after each test file, every child a spawn helper started (child-start.ts
 * `trackChild`) that is still running is killed, so no process outlives the file that started it (a helper still
 * starting when its hook timed out returns a process nobody holds). Runs after the file's own afterAll hooks.
 */
import { afterAll } from "vitest";
import { stopLeftoverChildren } from "./child-start.js";

afterAll(async () => {
  const pids = await stopLeftoverChildren();
  if (pids.length > 0)
    console.warn(`killed ${pids.length} child process(es) left running: ${pids.join(", ")}`);
}, 30_000);
