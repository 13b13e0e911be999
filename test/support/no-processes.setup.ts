/**
 * Setup file of the unit lane: every way of starting a process (node:child_process) throws
 * ProcessInUnitLaneError, so a test that starts one fails and names itself for the process lane (lanes.ts).
 */
import childProcess from "node:child_process";
import { syncBuiltinESMExports } from "node:module";

/** A test of the unit lane tried to start a process. */
export class ProcessInUnitLaneError extends Error {
  constructor(readonly call: string) {
    super(
      `child_process.${call} in a unit-lane test: a test that starts a process belongs to the process lane ` +
        "(test/, or test/support/lanes.ts's PROCESS_TESTS_BESIDE_CODE)",
    );
    this.name = "ProcessInUnitLaneError";
  }
}

const STARTERS = ["spawn", "spawnSync", "exec", "execSync", "execFile", "execFileSync", "fork"] as const;

for (const call of STARTERS) {
  Object.defineProperty(childProcess, call, {
    value: () => {
      throw new ProcessInUnitLaneError(call);
    },
    configurable: true,
    writable: true,
  });
}
// Named imports (`import { spawn } from "node:child_process"`) see the replacements too.
syncBuiltinESMExports();
