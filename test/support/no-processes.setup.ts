/**
 * Setup file of the unit lane: every way of starting a process (node:child_process) throws
 * ProcessInUnitLaneError, so a test that starts one fails and names itself for the process lane (lanes.ts).
 */
import childProcess from "node:child_process";
import { syncBuiltinESMExports } from "node:module";
import { ProcessInUnitLaneError } from "./lanes.js";

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
